"""Lockstep: the console RTL and ALE frame by frame from power-on (the library behind
``nc2600 lockstep``).

ALE is opened with the project's settings (:func:`nc2600.host.episodes.ale_oracle.open_ale`: ``frame_skip``
1, ``repeat_action_probability`` 0, ``random_seed`` 0, the default system seed) and loads the
ROM; the RTL (:class:`nc2600.host.drivers.rtl_console.RtlConsole`) replays the same power-on and reset
sequence on the Verilated console. Then both get the same action each frame, and after every
frame the RIOT RAM (``getRAM``), the SuperChip cartridge RAM (from ALE's serialized state) and
the screen (``getScreen`` palette indices) are compared.

Per game (:func:`lockstep_game`): ``game, mapper, frames_compared, first_ram_mismatch_frame,
first_screen_mismatch_frame`` (null when none; frame 0 is the first ``act``), and at the
first mismatch the differing RAM addresses (ALE / RTL values) or the differing pixel count and
first pixel, with the RTL's CPU PC, the frame's scanline count at the stop and ``cycle``, the
RTL's CPU cycle count since power-on at the end of that frame (the difference arose within the
frame's last ``cycles_in_frame`` cycles).

At ALE's game over (ALE stops emulating there) both run ALE's ``reset_game`` sequence and the
comparison goes on (``resets`` counts them).
"""
from __future__ import annotations

import os
import time
from pathlib import Path

from nc2600.host.errors import UserError
from nc2600.host.inputs import load_action_file
from nc2600.hls_models.platform import DEFAULT_COLOUR_CLOCKS

#: Upper bound of ``--frames`` (about 9 days of 2600 time; keeps allocations bounded).
MAX_FRAMES = 50_000_000


def action_sequence(spec: str, n: int, minimal: list[int], seed: int):
    """``(n,)`` int64 ALE action ids: ``"noop"`` (all 0), ``"random"`` (uniform over
    ``minimal``, numpy ``default_rng(seed)``) or the first ``n`` of a ``.npy`` action file.

    Raises:
        UserError: a bad action file, or one with fewer than ``n`` actions.
    """
    import numpy as np
    if spec == "noop":
        return np.zeros(n, np.int64)
    if spec == "random":
        rng = np.random.default_rng(seed)
        return np.asarray(minimal, np.int64)[rng.integers(0, len(minimal), n)]
    a = load_action_file(spec)
    if len(a) < n:
        raise UserError(f"--actions: {spec} holds {len(a)} actions, fewer than --frames {n}")
    return a[:n]


def lockstep_game(game: str, frames: int, seed: int = 0, actions: str = "random",
                  stop_at_mismatch: bool = True, console=None, colour_clocks: int = DEFAULT_COLOUR_CLOCKS) -> dict:
    """Run ``game`` in ALE and the RTL side by side for ``frames`` frames; the result record
    (module docstring).

    Args:
        game: ALE ROM id.
        frames: frames to compare (ALE ``act`` calls).
        seed: seed of the random actions (``actions="random"``).
        actions: ``"random"``, ``"noop"`` or a ``.npy`` file (:func:`action_sequence`).
        stop_at_mismatch: stop once both the RAM and the screen have differed.
        console: the console to compare (default: a new :class:`nc2600.host.drivers.rtl_console.RtlConsole`
            for ``game``, not yet powered on); any object with its interface, e.g. a console
            with an injected fault (tests).
        colour_clocks: the default console's configuration, 1 or 3
            (:class:`nc2600.hw.console.Console`).
    Raises:
        UserError: unknown game, a mapper the RTL lacks, a bad action file.
    """
    import ale_py
    import numpy as np

    from nc2600.host.episodes.ale_oracle import open_ale, superchip_ram
    from nc2600.host.games import resolve_rom
    from nc2600.host.drivers.rtl_console import RtlConsole

    name, path = resolve_rom(game=game)
    rtl = RtlConsole(name, path, colour_clocks=colour_clocks) if console is None else console
    ale = open_ale(path)
    minimal = [int(a.value) if hasattr(a, "value") else int(a) for a in ale.getMinimalActionSet()]
    acts = action_sequence(actions, frames, minimal, seed)
    rtl.power_on()
    rec = {"game": name, "mapper": rtl.mapper, "frames_requested": frames, "actions": actions,
           "seed": seed if actions == "random" else None, "frames_compared": 0,
           "first_ram_mismatch_frame": None, "first_screen_mismatch_frame": None}
    act_enum = {int(a.value): a for a in ale_py.Action}
    screen = np.zeros((rtl.height, 160), np.uint8)
    rtl_time = 0.0
    cycle = 0
    for f, a in enumerate(acts):
        ale.act(act_enum[int(a)])
        t0 = time.perf_counter()
        res = rtl.act(int(a))
        rtl_time += time.perf_counter() - t0
        cycle += res.cycles
        rec["frames_compared"] = f + 1
        ar, rr = ale.getRAM(), rtl.ram()
        if rtl.sc:
            ar, rr = np.concatenate([ar, superchip_ram(ale)]), np.concatenate([rr, rtl.cart_ram()])
        where = {"pc": f"${res.pc:04X}", "scanlines": res.scanlines, "cycle": cycle, "cycles_in_frame": res.cycles}
        if rec["first_ram_mismatch_frame"] is None and not np.array_equal(ar, rr):
            d = np.nonzero(ar != rr)[0]
            rec["first_ram_mismatch_frame"] = f
            rec["ram_mismatch"] = {
                "addresses": [(f"${0x80 + int(i):02X}" if i < 128 else f"SC${int(i) - 128:02X}") for i in d[:16]],
                "ale": [int(v) for v in ar[d[:16]]], "rtl": [int(v) for v in rr[d[:16]]],
                **where, "status": res.status}
        ale.getScreen(screen)
        if rec["first_screen_mismatch_frame"] is None and not np.array_equal(screen, rtl.screen):
            ys, xs = np.nonzero(screen != rtl.screen)
            rec["first_screen_mismatch_frame"] = f
            rec["screen_mismatch"] = {
                "pixels": int(len(ys)), "first_row": int(ys[0]), "first_x": int(xs[0]),
                "ale": int(screen[ys[0], xs[0]]), "rtl": int(rtl.screen[ys[0], xs[0]]), **where}
        if stop_at_mismatch and rec["first_ram_mismatch_frame"] is not None and \
                rec["first_screen_mismatch_frame"] is not None:
            break
        if ale.game_over():
            # ALE refuses to emulate past game over: both sides run ALE's reset_game
            ale.reset_game()
            rtl.reset_game()
            rec["resets"] = rec.get("resets", 0) + 1
    rec["rtl_fps"] = round(rec["frames_compared"] / rtl_time, 1) if rtl_time > 0 else None
    rec["match"] = rec["first_ram_mismatch_frame"] is None and rec["first_screen_mismatch_frame"] is None
    return rec


def lockstep_job(job: tuple) -> dict:
    """One game of a sweep, ``job = (game, frames, seed, actions[, colour_clocks])``: its :func:`lockstep_game`
    record, or a record with ``unsupported`` (a mapper the RTL lacks) or ``error`` (any
    failure, first 200 characters), both with ``match`` False. Module-level for worker
    processes and Ray tasks."""
    game, frames, seed, actions, *ccpc = job
    from nc2600.hls_models.cartridge import detect_mapper
    from nc2600.host.games import resolve_rom
    from nc2600.hls_models.cartridge import SUPPORTED_MAPPERS as SUPPORTED
    name, path = resolve_rom(game=game)
    mapper = detect_mapper(Path(path).read_bytes())
    if mapper not in SUPPORTED:
        return {"game": name, "mapper": mapper, "frames_compared": 0, "first_ram_mismatch_frame": None,
                "first_screen_mismatch_frame": None, "match": False, "unsupported": True}
    try:
        return lockstep_game(name, frames, seed, actions, colour_clocks=ccpc[0] if ccpc else 1)
    except Exception as exc:  # noqa: BLE001 - one game's failure is a table row
        return {"game": name, "mapper": mapper, "frames_compared": 0, "first_ram_mismatch_frame": None,
                "first_screen_mismatch_frame": None, "match": False, "error": str(exc)[:200]}


def lockstep_games(games, frames: int, seed: int = 0, actions: str = "random", jobs: int = 1,
                   cluster: str = "local", ray_address: str | None = None, colour_clocks: int = DEFAULT_COLOUR_CLOCKS,
                   ordered: bool = True):
    """:func:`lockstep_job` for every game, yielded in the order given as each finishes (or, with
    ``ordered=False``, in the order they finish; each record names its game) (``jobs`` processes
    here, or one Ray task per game: :func:`nc2600.host.verify.sweep.sweep_imap`), on the console configuration
    ``colour_clocks`` (1 or 3)."""
    from nc2600.host.verify.sweep import sweep_imap
    return sweep_imap(lockstep_job, [(g, frames, seed, actions, colour_clocks) for g in games], jobs,
                      cluster, ray_address, ordered=ordered)


def result_word(r: dict) -> str:
    """The table's result column: ``exact``, ``unsupported``, ``error: ...`` or
    ``RAM@F screen@F`` (first mismatching frames)."""
    if r.get("unsupported"):
        return "unsupported"
    if r.get("error"):
        return "error: " + r["error"]
    if r["match"]:
        return "exact"
    parts = []
    if r["first_ram_mismatch_frame"] is not None:
        parts.append(f"RAM@{r['first_ram_mismatch_frame']}")
    if r["first_screen_mismatch_frame"] is not None:
        parts.append(f"screen@{r['first_screen_mismatch_frame']}")
    return " ".join(parts)


def run_identity(frames: int, seed: int, actions: str, colour_clocks: int = DEFAULT_COLOUR_CLOCKS) -> dict:
    """What every game's lockstep record depends on besides the game: the console library's build
    key (``console-<hash>``: :func:`nc2600.hwtools.console_harness.build`'s cache key, a hash of the
    generated Verilog, the harness and the Verilator/gcc flags; building it if it is not cached),
    the configuration, ``frames``, the actions (``random`` with its ``seed``, ``noop``, or an
    action file by the SHA-256 of its action array) and the ale-py version.

    Raises:
        UserError: a bad action file (:func:`nc2600.host.inputs.load_action_file`).
    """
    import hashlib
    from importlib.metadata import version

    from nc2600.hwtools.console_harness import build
    if actions in ("random", "noop"):
        acts = actions
    else:
        a = load_action_file(actions)
        acts = "file sha256 " + hashlib.sha256(a.astype("<i8").tobytes()).hexdigest()[:16]
    return {"rtl": build(colour_clocks).parent.name, "colour_clocks": colour_clocks,
            "frames": frames, "actions": acts, "seed": seed if actions == "random" else None,
            "ale_py": version("ale-py")}


class ResultsFile:
    """``nc2600 lockstep --results PATH``: each finished game's record kept in a JSON Lines file,
    so that a long sweep (``--all --frames 10000``: CPU-hours) that is cut off goes on where it
    stopped. Line 1 is ``{"lockstep_results": identity}`` (:func:`run_identity`), then one
    :func:`lockstep_game` record per game. The whole file is rewritten through a temp file and a
    rename after every game (:func:`nc2600.host.rundir.atomic_write_bytes`), so it is never half-written.
    Records of games that failed to run (``error``) are not kept: those games run again. The path
    is resolved once (a symbolic link's target is the file written). One run per file: from the
    start until :meth:`close` (or the end of a ``with`` block, or of the process) the object holds
    an exclusive ``flock`` on ``.NAME.lock`` beside the file, as run folders do
    (:class:`nc2600.host.rundir.RunFolder`); a second run on the same file, by any user or machine that
    shares the folder and its locks, is refused. Temp files a killed run left beside the file are
    removed then.

    ``kind`` names the command whose results the file holds: ``"lockstep"``, or
    ``"instance-lockstep"`` (:mod:`nc2600.host.verify.instance_lockstep`, records with the same four
    checked fields); the header's key is ``lockstep_results`` / ``instance_lockstep_results``.

    Raises:
        UserError: ``path`` is a folder, unreadable, not such a file, holds the results of a
        run with another identity (RTL, frames, actions, seed, configuration, ale-py) or of
        another kind, another run is writing it, or its lock file cannot be opened.
    """

    def __init__(self, path, identity, kind: str = "lockstep"):
        """``identity``: the run's :func:`run_identity`, or a function returning it (called once
        the path has been checked: it may build the console)."""
        self.kind = kind
        self._header = kind.replace("-", "_") + "_results"
        self._a_kind = ("an " if kind[:1] in "aeiou" else "a ") + kind
        from nc2600.host.rundir import check_output_file
        self._name = str(path)                        # as given, for the messages
        if not self._name.strip():
            raise UserError("--results is empty; give a file name")
        given = Path(path)
        if given.exists() and not given.is_file():   # a folder, a device such as /dev/stdout, a FIFO
            raise UserError(f"--results {self._name!r}: "
                            f"{'is a folder' if given.is_dir() else 'not a regular file'}")
        self.path = Path(os.path.realpath(path))
        self.records: dict[str, dict] = {}
        self._lock_fd = None
        # not a folder, its folder exists and is writable (a probe file): before any game runs
        check_output_file(self.path, "--results")
        if self.path.exists() and not self.path.is_file():     # before a lock file is made beside it
            raise UserError(f"--results {self._name!r}: not a regular file")
        self._check_head()                                      # a file of another kind: no lock file made
        lock = self.path.with_name(f".{self.path.name}.lock")
        made_lock = not os.path.lexists(lock)
        self._lock()
        try:
            self._load(identity)
        except BaseException:
            self.close()
            if made_lock:            # a refused command leaves nothing beside the file
                try:
                    os.unlink(lock)
                except OSError:
                    pass
            raise
        # a killed run's temp files (nc2600.host.rundir.atomic_write_bytes: .NAME.tmpPID), now that the
        # file is known to be a results file and no other run writes it
        for stale in self.path.parent.glob(f".{self.path.name}.tmp*"):
            try:
                stale.unlink()
            except OSError:
                pass

    def _check_head(self) -> None:
        """UserError when an existing file's first line is not a results file's header
        (``{"<kind>_results": ...}``): e.g. ``--results README.md``. Reads at most 64 KiB."""
        import json
        if not self.path.exists():
            return
        try:
            with open(self.path, "rb") as fh:
                first = fh.read(1 << 16).split(b"\n", 1)[0]
        except OSError as exc:
            raise UserError(f"--results {self._name!r}: cannot read it ({exc.strerror or exc})") from None
        if not first.strip():
            return                                  # empty: _load decides
        try:
            head = json.loads(first)
            ok = isinstance(head, dict) and isinstance(head.get(self._header), dict)
        except ValueError:
            ok = False
        if not ok:
            raise UserError(f"--results {self._name!r}: not {self._a_kind} results file")

    def _load(self, identity) -> None:
        import json
        if not self.path.exists():
            self.identity = identity() if callable(identity) else identity
            self._write()   # the header now: a path that cannot be written fails before any game
            return
        if not self.path.is_file():
            raise UserError(f"--results {self._name!r}: not a regular file")
        try:
            lines = self.path.read_text().splitlines()
            head = json.loads(lines[0])[self._header] if lines else None
            recs = [json.loads(line) for line in lines[1:] if line.strip()]
            fields = (("game", str), ("mapper", str), ("frames_compared", int), ("match", bool))
            if not isinstance(head, dict) or not all(
                    isinstance(r, dict) and all(isinstance(r.get(k), t) for k, t in fields) for r in recs):
                raise ValueError
        except OSError as exc:
            raise UserError(f"--results {self._name!r}: cannot read it ({exc.strerror or exc})") from None
        except (ValueError, KeyError, TypeError, IndexError):
            raise UserError(f"--results {self._name!r}: not {self._a_kind} results file") from None
        self.identity = identity = identity() if callable(identity) else identity
        if head != identity:
            diff = ", ".join(f"{k} {head.get(k)!r} there, {identity.get(k)!r} now"
                             for k in [*identity,
                                       *(k for k in head if k not in identity)] if head.get(k) != identity.get(k))
            raise UserError(f"--results {self._name!r}: holds another run's results ({diff}); "
                            "give another file")
        self.records = {r["game"]: r for r in recs if not r.get("error")}

    def _lock(self) -> None:
        from nc2600.host.rundir import lock_exclusive
        lock = self.path.with_name(f".{self.path.name}.lock")
        self._lock_fd = lock_exclusive(
            lock, lock, "unknown", lambda owner: f"--results {self._name!r}: another {self.kind} run is writing it "
                                                 f"(pid {owner})")

    def close(self) -> None:
        """Let another run use the file (the lock's release; the ``.lock`` file stays: removing it
        would race a waiting process); idempotent."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        if getattr(self, "_lock_fd", None) is not None:
            self.close()

    def add(self, record: dict) -> None:
        """Keep ``record`` (one game's) and rewrite the file (a failed game's ``error`` record is
        not kept). Raises UserError when the file cannot be written."""
        if record.get("error"):
            return
        self.records[record["game"]] = record
        self._write()

    def _write(self) -> None:
        import json

        from nc2600.host.rundir import atomic_write_bytes
        text = "".join(json.dumps(x) + "\n" for x in [{self._header: self.identity}, *self.records.values()])
        atomic_write_bytes(self.path, text.encode())
