"""nc2600: an open simulation and hardware-design package for an FPGA neural computer that runs
Atari 2600 consoles in hardware for deep neuroevolution.

The package's parts are the repository's top-level folders:

- :mod:`nc2600.hls_models`: bit-exact models of every block, with cycle and resource models;
- :mod:`nc2600.hw`: the Amaranth gateware (console, preprocessor, policy engine, action select,
  frame-skip controller, the fabric instance and the node);
- :mod:`nc2600.hwtools`: Verilog generation, Verilator harnesses, synthesis and timing;
- :mod:`nc2600.host`: the launcher (deep GA, ES, random search), backends, drivers, verification
  against ALE, benches and reports; the ``nc2600`` command;
- :mod:`nc2600.mesh_sim`: the model of the 3D-mesh fabric.

Dependencies point one way: ``hls_models`` <- ``hw`` <- ``hwtools`` <- ``host``, ``mesh_sim``;
this module is above them all.

The public API (``__all__``, documented in ``docs/api.md``), loaded on first use so that
``import nc2600.hw.console`` stays as cheap as the module itself:

- :func:`train`: a run of ``nc2600 run`` (same code path), returning a :class:`TrainResult`
  (the run's folder, best parameters, fitness log and summary);
- :func:`play`: re-evaluate a run's saved parameters (``nc2600 play``);
- :func:`instance`: the Verilated fabric instance behind its AXI4-Lite driver
  (``nc2600 instance-play``), as a :class:`FabricInstance`.

gymnasium: ``import nc2600`` registers ``nc2600/<Game>-v0`` for the 104 games
(:mod:`nc2600.host.gym_registration`; ``backend="ale"`` or ``"rtl"`` as a ``gymnasium.make``
keyword). The registration runs when gymnasium is imported, before or after ``import nc2600``:
a finder on ``sys.meta_path`` registers the ids right after gymnasium's own import, so a program
that never imports gymnasium never loads it. The same way, ``--cluster ray`` is registered
(:mod:`nc2600.host.cluster`) right after the import of the backend registry or the sweeps, which sit
below the cluster package and cannot name it.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys

__version__ = "0.1.0"

__all__ = ["FabricInstance", "TrainResult", "__version__", "instance", "play", "train"]

#: public name -> the module that defines it (loaded on first access, :func:`__getattr__`)
_LAZY = {"train": "nc2600.host.api", "TrainResult": "nc2600.host.api", "play": "nc2600.host.api",
         "instance": "nc2600.host.api", "FabricInstance": "nc2600.host.api"}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'nc2600' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _register_gymnasium_ids() -> None:
    from nc2600.host.gym_registration import register_ids
    register_ids()


def _register_ray_cluster() -> None:
    """``--cluster ray``: :mod:`nc2600.host.cluster` registers itself with the launcher's backend
    registry and the sweeps (:func:`nc2600.host.launcher.evaluation.register_cluster`), which sit
    below it and cannot name it."""
    import nc2600.host.cluster  # noqa: F401


#: module -> what runs right after its first import: registrations from above the module (the
#: gymnasium ids; the Ray cluster into the registries that ``--cluster`` is checked against)
_AFTER_IMPORT = {"gymnasium": _register_gymnasium_ids,
                "nc2600.host.launcher.evaluation": _register_ray_cluster,
                "nc2600.host.verify.sweep": _register_ray_cluster}


class _AfterImport(importlib.abc.Loader):
    """A module's own loader, then its ``_AFTER_IMPORT`` registration."""

    def __init__(self, loader, after):
        self._loader = loader
        self._after = after

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        module.__loader__ = module.__spec__.loader = self._loader     # the module's own again
        self._after()

    def __getattr__(self, name):            # e.g. get_resource_reader, while the import runs
        return getattr(self._loader, name)


class _AfterImportFinder(importlib.abc.MetaPathFinder):
    """On ``sys.meta_path`` until module ``name`` is imported: finds it with the other finders and
    wraps its loader in :class:`_AfterImport` (once; then it removes itself)."""

    def __init__(self, name: str):
        self.name = name

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _AfterImport(spec.loader, _AFTER_IMPORT[fullname])
        return spec


for _name, _after in _AFTER_IMPORT.items():
    if _name in sys.modules:
        _after()
    elif not any(isinstance(f, _AfterImportFinder) and f.name == _name for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImportFinder(_name))
del _name, _after
