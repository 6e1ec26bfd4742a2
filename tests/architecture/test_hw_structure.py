"""The shape of ``hw/``: the Signatures between blocks live in interface modules, and the blocks
stand side by side under the instance.

Read from the source with :mod:`ast` (every ``from nc2600.hw.X import ...`` and ``import nc2600.hw.X``, also
inside functions), and from the imported objects themselves to tell an interface from a block:

- interfaces rule: an ``hw`` module imports a ``wiring.Signature``, a function that builds one
  (``*_signature``) or a data layout only from an interface module (:data:`INTERFACE_MODULES`),
  never from a block's module, so no block imports another block for its Signature;
- the picture: a block's module imports another block's module only where it is built from it
  (:data:`COMPOSED_OF`: the console of its chips, the instance of the blocks, the node of the
  instances).

Each check is also run on hand-made import lists, so it is known to fail when it should.
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

from amaranth.lib import data, wiring

REPO = Path(__file__).resolve().parents[2]
HW = REPO / "hw"

#: modules that hold Signatures (and their layouts) shared by producers and consumers
INTERFACE_MODULES = {"nc2600.hw.interfaces", "nc2600.hw.bus", "nc2600.hw.axi_lite"}
#: modules of helpers that are no blocks (any module may import them)
SUPPORT_MODULES = {"nc2600.hw.counters", "nc2600.hw.reproducible", "nc2600.hw.register_file"}
#: block module -> the block modules it is composed of (instantiates)
COMPOSED_OF = {
    "nc2600.hw.console": {"nc2600.hw.cpu6507", "nc2600.hw.tia", "nc2600.hw.riot", "nc2600.hw.cartridge"},
    "nc2600.hw.instance": {"nc2600.hw.console", "nc2600.hw.preprocessor", "nc2600.hw.policy_engine",
                           "nc2600.hw.policy_array", "nc2600.hw.action_select", "nc2600.hw.frame_skip"},
    "nc2600.hw.node": {"nc2600.hw.instance"},
}


def hw_imports(path: Path) -> list[tuple[str, str | None]]:
    """``(module, name)`` for every import of an ``hw`` module in ``path``: ``name`` is the imported name of
    ``from nc2600.hw.X import name`` (None for ``import nc2600.hw.X`` or ``from nc2600.hw import X``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names if a.name.startswith("nc2600.hw.")]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module == "nc2600.hw":
                out += [(f"nc2600.hw.{a.name}", None) for a in node.names]
            elif node.module.startswith("nc2600.hw."):
                out += [(node.module, a.name) for a in node.names]
    return out


def is_interface(obj, name: str) -> bool:
    """A Signature, a function that builds one, or a data layout."""
    return (isinstance(obj, (wiring.Signature, data.Layout))
            or (callable(obj) and (name.endswith("_signature") or name.endswith("_layout"))))


def interface_violations(imports: dict[str, list[tuple[str, str | None]]], resolve) -> list[str]:
    """``imports``: importer -> its hw imports; ``resolve(module, name)`` -> the object."""
    bad = []
    for importer, found in imports.items():
        for module, name in found:
            if name is None or module in INTERFACE_MODULES:
                continue
            if is_interface(resolve(module, name), name):
                bad.append(f"{importer} imports the interface {name} from the block module {module}")
    return sorted(bad)


def composition_violations(imports: dict[str, list[tuple[str, str | None]]]) -> list[str]:
    bad = []
    for importer, found in imports.items():
        if importer in INTERFACE_MODULES:
            allowed = INTERFACE_MODULES | SUPPORT_MODULES
        else:
            allowed = INTERFACE_MODULES | SUPPORT_MODULES | COMPOSED_OF.get(importer, set())
        for module in sorted({m for m, _ in found} - allowed - {importer}):
            bad.append(f"{importer} imports the block module {module}")
    return bad


def hw_module_imports() -> dict[str, list[tuple[str, str | None]]]:
    return {f"nc2600.hw.{p.stem}": hw_imports(p) for p in sorted(HW.glob("*.py")) if p.stem != "__init__"}


def _resolve(module: str, name: str):
    return getattr(importlib.import_module(module), name)


def test_the_walker_sees_known_imports():
    imports = hw_module_imports()
    assert ("nc2600.hw.tia", None) in imports["nc2600.hw.console"] or ("nc2600.hw.tia",
                                                                       "Tia") in imports["nc2600.hw.console"]
    assert ("nc2600.hw.interfaces", "ObservationReadSignature") in imports["nc2600.hw.policy_engine"]


def test_no_block_imports_another_for_its_signature():
    assert interface_violations(hw_module_imports(), _resolve) == []


def test_blocks_stand_side_by_side_under_the_instance():
    assert composition_violations(hw_module_imports()) == []


def test_the_checks_fail_on_bad_imports():
    """Hand-made import lists: a Signature, a signature function and a layout taken from a block's
    module are reported, a block imported by a module not composed of it too."""
    imports = {
        "nc2600.hw.action_select": [("nc2600.hw.policy_engine", "PolicyEngine"),
                                    ("nc2600.hw.interfaces", "action_values_signature")],
        "nc2600.hw.frame_skip": [("nc2600.hw.console", "FrameSignature"), ("nc2600.hw.counters", "count_clocks")],
        "nc2600.hw.preprocessor": [("nc2600.hw.policy_engine", "action_values_layout")],
    }
    objects = {("nc2600.hw.policy_engine", "PolicyEngine"): object, ("nc2600.hw.console", "FrameSignature"):
               wiring.Signature({"a": wiring.Out(1)}),
               ("nc2600.hw.policy_engine", "action_values_layout"): lambda: None,
               ("nc2600.hw.interfaces", "action_values_signature"): lambda: None,
               ("nc2600.hw.counters", "count_clocks"): lambda: None}
    assert interface_violations(imports, lambda m, n: objects[(m, n)]) == [
        "nc2600.hw.frame_skip imports the interface FrameSignature from the block module nc2600.hw.console",
        "nc2600.hw.preprocessor imports the interface action_values_layout from the block module "
        "nc2600.hw.policy_engine",
    ]
    assert composition_violations(imports) == [
        "nc2600.hw.action_select imports the block module nc2600.hw.policy_engine",
        "nc2600.hw.frame_skip imports the block module nc2600.hw.console",
        "nc2600.hw.preprocessor imports the block module nc2600.hw.policy_engine",
    ]
    assert composition_violations({"nc2600.hw.console": [("nc2600.hw.tia", "Tia"),
                                                         ("nc2600.hw.cartridge", "Cartridge")]}) == []


#: the longest a function or method in ``hw/`` may be, in source lines (its ``def`` to its last line)
MAX_FUNCTION_LINES = 150


def long_functions(root: Path, limit: int = MAX_FUNCTION_LINES) -> dict[str, int]:
    """``"path:Class.method"`` -> source lines of every function in ``root``'s ``*.py`` files
    longer than ``limit`` (nested functions counted on their own and in their parent)."""
    found = {}
    for path in sorted(root.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))

        def visit(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = f"{prefix}{child.name}"
                    lines = child.end_lineno - child.lineno + 1
                    if lines > limit:
                        found[f"{path.relative_to(root.parent).as_posix()}:{name}"] = lines
                    visit(child, f"{name}.")
                elif isinstance(child, ast.ClassDef):
                    visit(child, f"{prefix}{child.name}.")
        visit(tree, "")
    return found


def test_no_function_in_hw_is_longer_than_the_limit():
    """Every function and method in ``hw/`` is at most :data:`MAX_FUNCTION_LINES` lines."""
    assert long_functions(HW) == {}


def test_the_length_check_fails_on_a_long_method(tmp_path):
    """A hand-made module: a 151-line method is reported with its class, a 150-line one is not."""
    pkg = tmp_path / "hw"
    pkg.mkdir()
    body = "\n".join("        x = 1" for _ in range(149))
    (pkg / "block.py").write_text(f"class Block:\n    def short(self):\n{body}\n\n    def long(self):\n{body}\n        "
                                  "x = 2\n")
    assert long_functions(pkg) == {"hw/block.py:Block.long": 151}
