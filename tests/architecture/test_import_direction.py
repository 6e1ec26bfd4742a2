"""The packages depend one way: ``hls_models`` <- ``hw`` <- ``hwtools`` <- ``host``, ``mesh_sim``.

The import graph is read from the source (every ``import`` and ``from ... import`` statement,
including those inside functions, and every ``importlib.import_module`` call, found with
:mod:`ast`), so a lazy import against the direction is caught as well as a top-level one, and
the CLI's discovery of its commands is an edge to each command. Two checks:

- layering: a module of layer ``L`` imports only modules of layers below or equal to ``L``
  (``hls_models`` 0, ``hw`` 1, ``hwtools`` 2, ``host`` and ``mesh_sim`` 3, the ``nc2600`` package
  itself 4, the public API; ``host`` and
  ``mesh_sim`` do not import each other except ``host`` -> ``mesh_sim``, the launcher's
  projection of a run onto the fabric);
- no cycles between modules (networkx ``simple_cycles`` on the module graph).

Both checks are run on hand-made graphs too, so the test is known to fail when it should.
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

REPO = Path(__file__).resolve().parents[2]

#: package -> layer; an import may go to the same or a lower layer only (``nc2600``: the package's
#: ``__init__``, the public API over everything)
LAYERS = {"hls_models": 0, "hw": 1, "hwtools": 2, "host": 3, "mesh_sim": 3, "nc2600": 4}
#: imports between packages of the same layer that are allowed (importer, imported)
SAME_LAYER_ALLOWED = {("host", "mesh_sim")}


#: the installed namespace over the repository's top-level folders (``hw/`` is ``nc2600.hw``)
NAMESPACE = "nc2600"


def module_name(path: Path, root: Path = REPO) -> str:
    """The module a file of the checkout is imported as: ``hw/cpu6507.py`` is
    ``nc2600.hw.cpu6507`` (a file under another root keeps its plain dotted path)."""
    parts = path.relative_to(root).with_suffix("").parts
    parts = parts[:-1] if parts[-1] == "__init__" else parts
    if root == REPO and parts[0] != NAMESPACE:
        parts = (NAMESPACE, *parts)
    return ".".join(parts)


def package_of(module: str) -> str:
    """The layer's package of a module name: ``nc2600.hw.cpu6507`` -> ``hw``."""
    parts = module.split(".")
    return parts[1] if parts[0] == NAMESPACE and len(parts) > 1 else parts[0]


def imports_of(path: Path, modules: set[str], root: Path = REPO) -> set[str]:
    """Project modules imported anywhere in ``path`` (absolute and relative imports).

    ``from pkg import name`` counts as an import of ``pkg.name`` when that is a module,
    else of ``pkg``.
    """
    tree = ast.parse(path.read_text(), str(path))
    me = module_name(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()

    def add(name: str) -> None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != me:
            found.add(name)

    for node in ast.walk(tree):
        for name in importlib_targets(node, modules, me):
            add(name)
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                add(full if full in modules else base)
    return found


#: modules that load a module named by a variable -> the package its names come from (each such
#: load counts as an import of every module of that package)
DYNAMIC_LOADS = {"nc2600.hwtools.generate": "nc2600.hw.", "nc2600.hwtools.synth": "nc2600.hw.",
                 "nc2600": "nc2600.host.api"}


def importlib_targets(node: ast.AST, modules: set[str], me: str = "") -> list[str]:
    """Modules a call ``importlib.import_module(NAME)`` (or ``import_module(NAME)``) in module
    ``me`` loads: NAME as a string constant, or every project module under the constant head of
    an f-string (``f"nc2600.host.commands.{name}"``: all of ``nc2600.host.commands.*``), or for a module of
    :data:`DYNAMIC_LOADS` every module of its package. A name built any other way is reported as
    unreadable (:class:`ValueError`), so that no load escapes the graph."""
    if not isinstance(node, ast.Call):
        return []
    f = node.func
    called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    if called != "import_module":
        return []
    arg = node.args[0] if node.args else None
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value]
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        head = arg.values[0].value
        return sorted(m for m in modules if m.startswith(head) and m != head.rstrip("."))
    if me in DYNAMIC_LOADS:
        return sorted(m for m in modules if m.startswith(DYNAMIC_LOADS[me]))
    raise ValueError(f"{me}: import_module with a name the import test cannot read (line {node.lineno})")


def project_graph() -> nx.DiGraph:
    files = [p for pkg in LAYERS for p in (REPO / pkg).rglob("*.py")]
    modules = {module_name(p) for p in files}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for path in files:
        for target in imports_of(path, modules):
            graph.add_edge(module_name(path), target)
    return graph


def direction_violations(graph: nx.DiGraph) -> list[str]:
    bad = []
    for src, dst in graph.edges:
        a, b = package_of(src), package_of(dst)
        if a == b or (a, b) in SAME_LAYER_ALLOWED:
            continue
        if LAYERS[b] >= LAYERS[a]:
            bad.append(f"{src} imports {dst} ({a} may not depend on {b})")
    return sorted(bad)


def cycles(graph: nx.DiGraph) -> list[list[str]]:
    return sorted(sorted(c) for c in nx.simple_cycles(graph))


def test_graph_sees_the_packages():
    """The graph holds every package and edges that are known to exist (the walker works)."""
    graph = project_graph()
    assert {package_of(n) for n in graph.nodes} == set(LAYERS)
    for edge in (("nc2600.hw.preprocessor", "nc2600.hls_models.preprocessor"),
                 ("nc2600.hwtools.console_harness", "nc2600.hw.console"),
                 ("nc2600.host.drivers.rtl_console", "nc2600.hwtools.console_harness"),
                 ("nc2600.host.launcher.backends", "nc2600.host.drivers.rtl_console_env")):
        assert graph.has_edge(*edge), edge


def test_dependencies_point_one_way():
    assert direction_violations(project_graph()) == []


def test_no_import_cycles():
    assert cycles(project_graph()) == []


def test_checks_fail_on_bad_graphs():
    """Hand-made graphs: an upward import and a two-module cycle are reported."""
    g = nx.DiGraph([("nc2600.hls_models.policy_int8", "nc2600.host.episodes.policy"),
                    ("nc2600.hw.sim", "nc2600.host.commands.lockstep"),
                    ("nc2600.host.episodes.env", "nc2600.host.drivers.rtl_console_env"),
                    ("nc2600.host.drivers.rtl_console_env", "nc2600.host.episodes.env"),
                    ("nc2600.hwtools.sim", "nc2600.hw.console"),
                    ("nc2600.host.report.throughput", "nc2600.mesh_sim.project")])
    assert direction_violations(g) == [
        "nc2600.hls_models.policy_int8 imports nc2600.host.episodes.policy (hls_models may not depend on host)",
        "nc2600.hw.sim imports nc2600.host.commands.lockstep (hw may not depend on host)"]
    assert cycles(g) == [["nc2600.host.drivers.rtl_console_env", "nc2600.host.episodes.env"]]
    # mesh_sim may not import host
    assert direction_violations(nx.DiGraph([("nc2600.mesh_sim.node", "nc2600.host.games")])) == [
        "nc2600.mesh_sim.node imports nc2600.host.games (mesh_sim may not depend on host)"]


def test_relative_imports_are_resolved(tmp_path):
    """``from . import x`` and ``from ..pkg import y`` map to project modules."""
    pkg = tmp_path / "host" / "sub"
    pkg.mkdir(parents=True)
    (tmp_path / "host" / "__init__.py").write_text("")
    (tmp_path / "host" / "a.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "b.py").write_text("from .. import a\nfrom ..a import thing\n")
    modules = {"host", "host.a", "host.sub", "host.sub.b"}
    assert imports_of(pkg / "b.py", modules, tmp_path) == {"host.a"}


def test_importlib_loads_are_edges(tmp_path):
    """``importlib.import_module`` with a constant or an f-string head is followed: a CLI that
    loads its commands that way and a command that imports the CLI back form a cycle."""
    cmds = tmp_path / "host" / "commands"
    cmds.mkdir(parents=True)
    (tmp_path / "host" / "__init__.py").write_text("")
    (cmds / "__init__.py").write_text("")
    (cmds / "a.py").write_text("from host.cli import helper\n")
    (cmds / "b.py").write_text("")
    (tmp_path / "host" / "cli.py").write_text(
        "import importlib\nfor n in ('a', 'b'):\n    importlib.import_module(f'host.commands.{n}')\n"
        "importlib.import_module('host.other')\n")
    (tmp_path / "host" / "other.py").write_text("")
    modules = {"host", "host.cli", "host.commands", "host.commands.a", "host.commands.b", "host.other"}
    assert imports_of(tmp_path / "host" / "cli.py", modules, tmp_path) == {
        "host.commands.a", "host.commands.b", "host.other"}
    graph = nx.DiGraph([("host.cli", t) for t in imports_of(tmp_path / "host" / "cli.py", modules, tmp_path)])
    graph.add_edges_from(("host.commands.a", t) for t in imports_of(cmds / "a.py", modules, tmp_path))
    assert cycles(graph) == [["host.cli", "host.commands.a"]]


def test_the_cli_reaches_every_command():
    """The real CLI's discovery loop is read as an edge to each command module."""
    graph = project_graph()
    commands = {n for n in graph.nodes if n.startswith("nc2600.host.commands.")}
    assert len(commands) > 10
    assert commands <= set(graph.successors("nc2600.host.cli"))


#: the modules of ``hw`` that ``host`` may import: those it builds RTL from (the report's
#: measurements), with the reason; spec constants come from ``hls_models``
HOST_MAY_BUILD = {
    "nc2600.hw.action_select": "the report measures the block's latency in Amaranth's simulator",
    "nc2600.hw.console": "the report generates the console's Verilog for place and route",
}


def hw_imports_of_host(graph: nx.DiGraph) -> dict[str, set[str]]:
    """``{hw module: host modules importing it}`` over the edges of ``graph``."""
    out: dict[str, set[str]] = {}
    for src, dst in graph.edges:
        if package_of(src) == "host" and package_of(dst) == "hw":
            out.setdefault(dst, set()).add(src)
    return out


def test_host_imports_hw_only_to_build_rtl():
    """``host`` reads the hardware's constants from the models (``hls_models``) and drives the RTL
    through ``hwtools``' harnesses; of ``hw`` itself it imports only :data:`HOST_MAY_BUILD`."""
    used = hw_imports_of_host(project_graph())
    assert {m: sorted(u) for m, u in used.items() if m not in HOST_MAY_BUILD} == {}
    assert set(used) == set(HOST_MAY_BUILD)        # the list names nothing that is no longer used
    # the check sees a spec constant taken from hw
    assert hw_imports_of_host(nx.DiGraph([("nc2600.host.drivers.instance", "nc2600.hw.cartridge")])) == {
        "nc2600.hw.cartridge": {"nc2600.host.drivers.instance"}}


def test_spec_constants_are_the_hardware_s():
    """The constants ``host`` takes from the models are those the RTL is built with."""
    from nc2600.hls_models import cartridge, preprocessor as pp_model
    from nc2600.hw import cartridge as cart, console, preprocessor
    names = {("2K" if m is cart.Mapper.K2 else "4K" if m is cart.Mapper.K4 else m.name): m.value
             for m in cart.Mapper}
    assert cartridge.MAPPER_CODES == names == cart.MAPPER_CODES
    assert set(cartridge.SUPPORTED_MAPPERS) == set(console.SUPPORTED) == set(names)
    assert (pp_model.LATENCY_CYCLES, pp_model.LATENCY_CYCLES3) == (
        preprocessor.latency_cycles(1), preprocessor.latency_cycles(3)) == (8, 9)


#: the longest a module of ``host`` may be (lines): past it, a module holds more than one role
HOST_MODULE_MAX_LINES = 600


def long_modules(root: Path, limit: int = HOST_MODULE_MAX_LINES) -> dict[str, int]:
    """``{path: lines}`` of the ``.py`` files under ``root`` longer than ``limit`` lines."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        n = len(path.read_text().splitlines())
        if n > limit:
            out[str(path.relative_to(root.parent))] = n
    return out


def test_no_host_module_over_the_limit(tmp_path):
    """Every module of ``host`` is at most :data:`HOST_MODULE_MAX_LINES` lines (the check fails on
    a long one: a hand-made file of one line more)."""
    assert long_modules(REPO / "host") == {}
    (tmp_path / "host").mkdir()
    (tmp_path / "host" / "long.py").write_text("x = 1\n" * (HOST_MODULE_MAX_LINES + 1))
    assert long_modules(tmp_path / "host") == {"host/long.py": HOST_MODULE_MAX_LINES + 1}


# ---------------------------------------------------------------------------------------------
# layers inside host/

#: host's layers, lowest first: a sub-package (``episodes``) or a module at host's root
#: (``games``) -> its layer (the order of ``host/__init__.py``'s docstring)
HOST_LAYERS = {
    "episodes": 0, "games": 0, "rundir": 0, "errors": 0, "cli_types": 0, "resources": 0, "inputs": 0, "signals": 0,
    "gym_registration": 0, "tensorboard": 0,
    "drivers": 1,
    "verify": 2,
    "launcher": 3,
    "cluster": 4,
    "bench": 5, "report": 5, "gym_env": 5,
    "commands": 6,
    "cli": 7, "api": 7,
}

#: imports that still climb, each named (importer, imported) with why it is not moved yet (none:
#: a cluster registers itself from above, :func:`nc2600.host.launcher.evaluation.register_cluster`);
#: the test fails on any other climbing import, and on an entry here that no longer climbs
HOST_KNOWN_CLIMBS: set[tuple[str, str]] = set()


def host_part(module: str) -> str | None:
    """The key of :data:`HOST_LAYERS` a module of ``host`` belongs to (None outside ``host``)."""
    parts = module.split(".")
    if parts[:2] != [NAMESPACE, "host"] or len(parts) < 3:
        return None
    return parts[2]


def host_climbs(graph: nx.DiGraph) -> list[tuple[str, str]]:
    """``(importer, imported)`` of every import inside ``host`` from a lower layer to a higher one."""
    out = []
    for src, dst in graph.edges:
        a, b = host_part(src), host_part(dst)
        if a is None or b is None or a == b:
            continue
        if HOST_LAYERS[b] > HOST_LAYERS[a]:
            out.append((src, dst))
    return sorted(out)


def test_every_host_part_has_a_layer():
    parts = {p.stem if p.is_file() else p.name for p in (REPO / "host").iterdir()
             if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()}
    assert parts == set(HOST_LAYERS)


def test_host_imports_do_not_climb():
    climbs = set(host_climbs(project_graph()))
    assert sorted(climbs - HOST_KNOWN_CLIMBS) == []          # a new import that climbs
    assert sorted(HOST_KNOWN_CLIMBS - climbs) == []          # a known one that is gone: strike it


def test_host_climbs_are_found_on_hand_made_graphs():
    """A lazy import from the vocabulary up to the launcher, and one from a driver up to a command,
    are found; imports down and within a part are not."""
    g = nx.DiGraph([("nc2600.host.episodes.env", "nc2600.host.launcher.run"),
                    ("nc2600.host.drivers.instance", "nc2600.host.commands.run"),
                    ("nc2600.host.launcher.run", "nc2600.host.episodes.jobs"),
                    ("nc2600.host.launcher.run", "nc2600.host.launcher.settings"),
                    ("nc2600.host.cli", "nc2600.hwtools.cache")])
    assert host_climbs(g) == [("nc2600.host.drivers.instance", "nc2600.host.commands.run"),
                              ("nc2600.host.episodes.env", "nc2600.host.launcher.run")]
