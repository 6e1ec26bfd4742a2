"""docs/api.md lists every public gateware component: each ``amaranth.lib.wiring.Component`` subclass
defined in a module of ``nc2600.hw`` (a name without a leading underscore) has an ``autoclass`` line.

Oracle: the classes themselves, found by importing every module of the package (pkgutil) and
testing ``issubclass(cls, wiring.Component)``; the page is read as text."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

from amaranth.lib import wiring

import nc2600.hw

API = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def hw_components() -> set[str]:
    """``nc2600.hw.MODULE.Class`` of every public wiring.Component defined in a module of ``nc2600.hw``."""
    out = set()
    for info in pkgutil.walk_packages(nc2600.hw.__path__, "nc2600.hw."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, wiring.Component) and obj.__module__ == module.__name__
                    and not name.startswith("_")):
                out.add(f"{module.__name__}.{name}")
    return out


def missing_from_page(page: str, components: set[str]) -> list[str]:
    """The components of ``components`` that ``page`` has no ``autoclass`` line for."""
    listed = set(re.findall(r"^autoclass (nc2600\.[\w.]+)", page, flags=re.M))
    return sorted(components - listed)


def test_every_hw_component_is_on_the_api_page():
    components = hw_components()
    # the walk finds the components known to exist (the default engine among them)
    assert {"nc2600.hw.instance.GameInstance", "nc2600.hw.policy_array.ArrayPolicyEngine",
            "nc2600.hw.console.Console", "nc2600.hw.cpu6507.Cpu6507"} <= components
    assert missing_from_page(API.read_text(encoding="utf-8"), components) == []


def test_a_component_left_out_is_found():
    """The check fails on a page without one component's line (and reads only whole lines)."""
    page = API.read_text(encoding="utf-8")
    without = page.replace("autoclass nc2600.hw.tia.Tia\n", "")
    assert missing_from_page(without, hw_components()) == ["nc2600.hw.tia.Tia"]
    assert missing_from_page("text autoclass nc2600.hw.tia.Tia\n", {"nc2600.hw.tia.Tia"}) == ["nc2600.hw.tia.Tia"]
