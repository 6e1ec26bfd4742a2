"""Game rules as data: per-game reward, game over and lives computed from RAM, as ALE 0.12 does.

ALE (ale-py 0.12) decides the reward, the game-over flag and the life count of every
game from the console's RAM alone: after each emulated frame it reads a few RIOT RAM
bytes (and, for one SuperChip game, cartridge RAM) and updates a small per-game state.
``ALEInterface.act`` with ``frame_skip = 1`` emulates one frame and returns the reward
of that frame; ``game_over()`` and ``lives()`` report the state after it.  This module
holds those rules as *data* (``hls_models/game_rules.toml``), not as code per game, and
evaluates them, so that an RTL console or a fabric node can compute fitness from its own
RAM with no ALE in the loop.

The rule language
-----------------
Each game entry is a tiny register-transfer description:

``vars``
    Named registers (integers or booleans) with the values they take when ALE resets
    the game settings (``RomSettings::reset``).  They keep their value from frame to
    frame.  ``reward`` and the game's terminal flag are registers too.
``step``
    Assignments ``name = expression``, one per line, run in order after every frame.
    A name not listed in ``vars`` is a per-frame temporary (a wire).
``reward`` / ``terminal`` / ``lives``
    Output expressions over the registers, read after the step.  ``lives`` may use
    ``game_over``, the value of the ``terminal`` output (ALE's usual
    ``isTerminal() ? 0 : lives``).

Expressions are Python syntax restricted to integer arithmetic (``+ - * // % & | ^
<< >>``, unary ``- ~ not``), comparisons, ``and``/``or``, ``a if c else b``, integer
and boolean constants, the names above, ``mode`` (the game mode), ``ram[a]`` (RIOT RAM
byte at address ``a`` in $80..$FF; ALE masks the index to 7 bits), ``xram[i]``
(cartridge SuperChip RAM byte ``i`` in 0..127, read port $1080+i) and these helpers:

``dec(a[, b[, c]])``
    ALE's decimal score decode: each byte ``x`` gives ``10*(x >> 4) + (x & 15)`` (a
    nibble above 9 is *not* rejected, exactly as ALE), ``a`` the lowest two digits, ``b``
    the next two (x100), ``c`` the highest two (x10000).
``xdec(a, b, c)``
    The same decode over cartridge RAM bytes.
``nibdigits(a0, a1, ...)``
    One decimal digit per byte (low nibble, the value $A read as a blank 0), ``a0`` the
    least significant digit.
``s8(x)``
    ``x`` as a signed 8-bit value (``static_cast<int8_t>``).
``pick(i, v0, v1, ...)``
    Table look-up ``(v0, v1, ...)[i]``.
``count_in(lo, hi, v...)`` / ``count_not_in(lo, hi, v...)``
    How many RAM bytes at addresses ``lo..hi`` (inclusive) equal / differ from all of
    the values ``v``.
``all_equal(lo, hi)``
    True when the RAM bytes ``lo..hi`` all equal the byte at ``lo``.
``s8sum_pos(lo, hi)`` / ``s8sum_neg(lo, hi)``
    Sum of the positive signed bytes / of the magnitudes of the negative signed bytes.
``min(a, b)``, ``max(a, b)``, ``abs(a)``.

The rule is checked when the table loads (unknown names, assignments to reserved names,
non-integer constants, RAM addresses outside $80..$FF, unknown actions); a malformed entry
raises :class:`RuleError` naming the game and the field.

Reset
-----
ALE's ``reset_game`` runs 60 NOOP frames, holds RESET for 4 frames, resets the game
settings, selects the mode, holds RESET for 4 more frames and plays the game's starting
actions; the settings step runs after every one of those frames.  ``RuleState.reset()``
sets the registers to their settings-reset values; a harness that replays the reset
sequence should call it where ALE resets the settings and then ``step`` every later frame.
``RuleState.reset(ram)`` is the short form used when only the RAM after the whole reset
sequence is known: it resets and steps once on that RAM.  ``nc2600 games verify`` checks
that this short form agrees with ALE for every game.
"""
from __future__ import annotations

import ast
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

RULES_PATH = Path(__file__).with_name("game_rules.toml")

#: ALE's joystick action names (ale_py.Action), index = action id.
ACTION_NAMES = (
    "NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN", "UPRIGHT", "UPLEFT", "DOWNRIGHT",
    "DOWNLEFT", "UPFIRE", "RIGHTFIRE", "LEFTFIRE", "DOWNFIRE", "UPRIGHTFIRE",
    "UPLEFTFIRE", "DOWNRIGHTFIRE", "DOWNLEFTFIRE",
)
#: Console switch actions a starting sequence may use (ALE's ``RESET`` = 40).
SWITCH_ACTIONS = {"RESET": 40}

RAM_SIZE_BYTES = 128
XRAM_SIZE_BYTES = 128


class RuleError(ValueError):
    """A malformed rules entry; the message names the game and the field."""


# --------------------------------------------------------------------------- helpers
# Each helper receives the RAM as a list of 128 Python ints (index = address - $80).

def _dec_byte(x: int) -> int:
    return 10 * (x >> 4) + (x & 15)


def _h_dec(r, a, b=None, c=None):
    v = _dec_byte(r[a & 0x7F])
    if b is not None:
        v += 100 * _dec_byte(r[b & 0x7F])
    if c is not None:
        v += 10000 * _dec_byte(r[c & 0x7F])
    return v


def _h_xdec(x, a, b, c):
    return _dec_byte(x[a]) + 100 * _dec_byte(x[b]) + 10000 * _dec_byte(x[c])


def _h_nibdigits(r, *addrs):
    value, weight = 0, 1
    for a in addrs:
        d = r[a & 0x7F] & 0xF
        if d == 0xA:
            d = 0
        value += weight * d
        weight *= 10
    return value


def _h_s8(v):
    return ((int(v) + 128) & 0xFF) - 128


def _h_pick(i, *table):
    return table[i]


def _h_count_in(r, lo, hi, *values):
    return sum(1 for a in range(lo, hi + 1) if r[a & 0x7F] in values)


def _h_count_not_in(r, lo, hi, *values):
    return sum(1 for a in range(lo, hi + 1) if r[a & 0x7F] not in values)


def _h_all_equal(r, lo, hi):
    first = r[lo & 0x7F]
    return all(r[a & 0x7F] == first for a in range(lo + 1, hi + 1))


def _h_s8sum_pos(r, lo, hi):
    return sum(v for v in (_h_s8(r[a & 0x7F]) for a in range(lo, hi + 1)) if v > 0)


def _h_s8sum_neg(r, lo, hi):
    return sum(-v for v in (_h_s8(r[a & 0x7F]) for a in range(lo, hi + 1)) if v < 0)


# name -> (callable, memory it gets as first argument: "ram", "xram" or None,
#          min args, max args, which arguments are addresses: "all" RIOT RAM, "xall" cartridge
#          RAM, "range" the (lo, hi) RIOT RAM bounds, or None)
_HELPERS = {
    "dec": (_h_dec, "ram", 1, 3, "all"),
    "xdec": (_h_xdec, "xram", 3, 3, "xall"),
    "nibdigits": (_h_nibdigits, "ram", 1, 8, "all"),
    "s8": (_h_s8, None, 1, 1, None),
    "pick": (_h_pick, None, 2, 64, None),
    "count_in": (_h_count_in, "ram", 3, 16, "range"),
    "count_not_in": (_h_count_not_in, "ram", 3, 16, "range"),
    "all_equal": (_h_all_equal, "ram", 2, 2, "range"),
    "s8sum_pos": (_h_s8sum_pos, "ram", 2, 2, "range"),
    "s8sum_neg": (_h_s8sum_neg, "ram", 2, 2, "range"),
    "min": (min, None, 2, 2, None),
    "max": (max, None, 2, 2, None),
    "abs": (abs, None, 1, 1, None),
}
_RESERVED = {"ram", "xram", "mode", "game_over", "__r", "__x"} | set(_HELPERS)

_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.BitAnd, ast.BitOr,
           ast.BitXor, ast.LShift, ast.RShift)
_UNARY = (ast.USub, ast.UAdd, ast.Not, ast.Invert)
_CMPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


class _Checker:
    """Walks one expression, checks every node and rewrites RAM/helper accesses."""

    def __init__(self, game: str, fld: str, known: set[str]):
        self.game, self.field, self.known = game, fld, known
        self.ram: set[int] = set()
        self.xram: set[int] = set()
        self.dynamic_ram = False

    def fail(self, msg: str):
        raise RuleError(f"game {self.game!r}, field {self.field!r}: {msg}")

    def const_int(self, node) -> int | None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        return None

    def ram_addr(self, node, space: str):
        a = self.const_int(node)
        if a is None:
            self.dynamic_ram = True
            return
        if space == "ram":
            if not 0x80 <= a <= 0xFF:
                self.fail(f"RAM address {a:#x} outside $80..$FF")
            self.ram.add(a)
        else:
            if not 0 <= a < XRAM_SIZE_BYTES:
                self.fail(f"cartridge RAM index {a} outside 0..127")
            self.xram.add(a)

    def expr(self, node) -> ast.AST:
        if isinstance(node, ast.Constant):
            if type(node.value) not in (int, bool):
                self.fail(f"constant {node.value!r} is not an integer or boolean")
            return node
        if isinstance(node, ast.Name):
            if node.id in ("ram", "xram") or (node.id in _HELPERS):
                self.fail(f"{node.id!r} used as a value")
            if node.id not in self.known and node.id not in ("mode", "game_over"):
                self.fail(f"unknown name {node.id!r}")
            if node.id == "game_over" and "game_over" not in self.known:
                self.fail("'game_over' is only available in the lives output")
            return node
        if isinstance(node, ast.BinOp) and isinstance(node.op, _BINOPS):
            return ast.BinOp(self.expr(node.left), node.op, self.expr(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, _UNARY):
            return ast.UnaryOp(node.op, self.expr(node.operand))
        if isinstance(node, ast.BoolOp):
            return ast.BoolOp(node.op, [self.expr(v) for v in node.values])
        if isinstance(node, ast.Compare) and all(isinstance(o, _CMPS) for o in node.ops):
            return ast.Compare(self.expr(node.left), node.ops, [self.expr(c) for c in node.comparators])
        if isinstance(node, ast.IfExp):
            return ast.IfExp(self.expr(node.test), self.expr(node.body), self.expr(node.orelse))
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in ("ram", "xram"):
            space = node.value.id
            self.ram_addr(node.slice, space)
            idx = self.expr(node.slice)
            mask = 0x7F
            new_idx = ast.BinOp(idx, ast.BitAnd(), ast.Constant(mask))
            return ast.Subscript(ast.Name("__r" if space == "ram" else "__x", ast.Load()), new_idx, ast.Load())
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name not in _HELPERS:
                self.fail(f"unknown function {name!r}")
            if node.keywords:
                self.fail(f"{name}() takes positional arguments only")
            _fn, space, lo, hi, addr_kind = _HELPERS[name]
            if not lo <= len(node.args) <= hi:
                self.fail(f"{name}() takes {lo}..{hi} arguments, got {len(node.args)}")
            args = [self.expr(a) for a in node.args]
            if addr_kind == "all":
                for a in node.args:
                    self.ram_addr(a, "ram")
            elif addr_kind == "xall":
                for a in node.args:
                    self.ram_addr(a, "xram")
            elif addr_kind == "range":
                lo_a, hi_a = self.const_int(node.args[0]), self.const_int(node.args[1])
                if lo_a is None or hi_a is None:
                    self.fail(f"{name}() needs constant address bounds")
                if not (0x80 <= lo_a <= hi_a <= 0xFF):
                    self.fail(f"{name}() range {lo_a:#x}..{hi_a:#x} outside $80..$FF")
                self.ram.update(range(lo_a, hi_a + 1))
            if space == "ram":
                args = [ast.Name("__r", ast.Load())] + args
            elif space == "xram":
                args = [ast.Name("__x", ast.Load())] + args
            return ast.Call(ast.Name("_h_" + name, ast.Load()), args, [])
        self.fail(f"unsupported syntax {ast.dump(node)[:60]}")


def _parse_expr(game, fld, text, known, checker=None):
    if not isinstance(text, str) or not text.strip():
        raise RuleError(f"game {game!r}, field {fld!r}: expected an expression string")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise RuleError(f"game {game!r}, field {fld!r}: syntax error: {exc.msg}") from None
    chk = checker or _Checker(game, fld, known)
    chk.known = known
    return chk.expr(tree.body), chk


def _helper_globals() -> dict:
    g = {"__builtins__": {}}
    for name, (fn, *_rest) in _HELPERS.items():
        g["_h_" + name] = fn
    return g


@dataclass(frozen=True)
class GameRule:
    """One game's rule, validated and compiled.

    Attributes: ``name`` (ALE ROM name), ``vars`` (register -> value at ALE's settings
    reset), ``step_source`` / ``reward_source`` / ``terminal_source`` / ``lives_source``
    (the rule text), ``starting_actions`` and ``minimal_actions`` (ALE action names; the
    starting actions run after the reset, one frame each), ``modes``, ``difficulties``,
    ``default_mode``, ``default_difficulty`` (ALE 0.12 values), ``ram_addresses`` (RIOT
    RAM addresses $80..$FF the rule reads), ``xram_indices`` (cartridge RAM bytes it
    reads), ``note`` (the rule in words).
    """

    name: str
    vars: dict
    step_source: str
    reward_source: str
    terminal_source: str
    lives_source: str
    starting_actions: tuple[str, ...]
    minimal_actions: tuple[str, ...]
    modes: tuple[int, ...]
    difficulties: tuple[int, ...]
    default_mode: int
    default_difficulty: int
    ram_addresses: tuple[int, ...]
    xram_indices: tuple[int, ...]
    note: str = ""
    _step: object = field(default=None, repr=False, compare=False)
    _outputs: object = field(default=None, repr=False, compare=False)

    @property
    def starting_action_ids(self) -> tuple[int, ...]:
        """The starting actions as ALE action ids (RESET = 40)."""
        return tuple(SWITCH_ACTIONS.get(a, ACTION_NAMES.index(a) if a in ACTION_NAMES else -1)
                     for a in self.starting_actions)

    @property
    def minimal_action_ids(self) -> tuple[int, ...]:
        """The minimal action set as ALE action ids."""
        return tuple(ACTION_NAMES.index(a) for a in self.minimal_actions)

    @property
    def uses_xram(self) -> bool:
        """True when the rule reads cartridge (SuperChip) RAM as well as RIOT RAM."""
        return bool(self.xram_indices)


def _compile_rule(name: str, entry: dict) -> GameRule:
    def fail(fld, msg):
        raise RuleError(f"game {name!r}, field {fld!r}: {msg}")

    if not isinstance(entry, dict):
        raise RuleError(f"game {name!r}: entry is not a table")
    allowed = {"vars", "step", "reward", "terminal", "lives", "starting_actions", "minimal_actions",
               "modes", "difficulties", "default_mode", "default_difficulty", "note"}
    for k in entry:
        if k not in allowed:
            fail(k, "unknown field")
    for k in ("vars", "step", "minimal_actions", "modes", "difficulties"):
        if k not in entry:
            fail(k, "missing")
    vars_ = entry["vars"]
    if not isinstance(vars_, dict) or not vars_:
        fail("vars", "expected a table of register = initial value")
    for v, init in vars_.items():
        if not v.isidentifier() or v in _RESERVED or v.startswith("_"):
            fail("vars", f"bad register name {v!r}")
        if type(init) not in (int, bool):
            fail("vars", f"register {v!r} initial value {init!r} is not an integer or boolean")

    step_text = entry["step"]
    if not isinstance(step_text, str):
        fail("step", "expected a string of assignments")
    try:
        tree = ast.parse(step_text)
    except SyntaxError as exc:
        fail("step", f"syntax error line {exc.lineno}: {exc.msg}")
    checker = _Checker(name, "step", set())
    known = set(vars_)
    body = []
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            fail("step", f"line {stmt.lineno}: only 'name = expression' statements are allowed")
        target = stmt.targets[0].id
        if target in _RESERVED or target.startswith("_"):
            fail("step", f"line {stmt.lineno}: cannot assign to reserved name {target!r}")
        checker.known = known
        value = checker.expr(stmt.value)
        body.append(ast.Assign([ast.Name(target, ast.Store())], value))
        known = known | {target}
    reg_names = list(vars_)
    # def __step(__r, __x, mode, __v): a, b, ... = __v; <body>; return (a, b, ...)
    args = ast.arguments(posonlyargs=[], args=[ast.arg("__r"), ast.arg("__x"), ast.arg("mode"), ast.arg("__v")],
                         kwonlyargs=[], kw_defaults=[], defaults=[])
    unpack = ast.Assign([ast.Tuple([ast.Name(v, ast.Store()) for v in reg_names], ast.Store())],
                        ast.Name("__v", ast.Load()))
    ret = ast.Return(ast.List([ast.Name(v, ast.Load()) for v in reg_names], ast.Load()))
    fn = ast.FunctionDef(name="__step", args=args, body=[unpack] + body + [ret], decorator_list=[])
    mod = ast.fix_missing_locations(ast.Module([fn], []))
    g = _helper_globals()
    exec(compile(mod, f"<rule {name} step>", "exec"), g)
    step_fn = g["__step"]

    regs = set(vars_)
    reward_src = entry.get("reward", "reward")
    terminal_src = entry.get("terminal", "terminal")
    lives_src = entry.get("lives", "0 if game_over else 1")
    out_checker = _Checker(name, "reward", regs)
    rew, _ = _parse_expr(name, "reward", reward_src, regs, out_checker)
    out_checker.field = "terminal"
    term, _ = _parse_expr(name, "terminal", terminal_src, regs, out_checker)
    out_checker.field = "lives"
    liv, _ = _parse_expr(name, "lives", lives_src, regs | {"game_over"}, out_checker)
    # def __out(__r, __x, mode, __v): regs = __v; game_over = bool(term); return (rew, game_over, lives)
    args2 = ast.arguments(posonlyargs=[], args=[ast.arg("__r"), ast.arg("__x"), ast.arg("mode"), ast.arg("__v")],
                          kwonlyargs=[], kw_defaults=[], defaults=[])
    go = ast.Assign([ast.Name("game_over", ast.Store())],
                    ast.IfExp(term, ast.Constant(True), ast.Constant(False)))
    ret2 = ast.Return(ast.Tuple([rew, ast.Name("game_over", ast.Load()), liv], ast.Load()))
    fn2 = ast.FunctionDef(name="__out", args=args2, body=[unpack, go, ret2], decorator_list=[])
    mod2 = ast.fix_missing_locations(ast.Module([fn2], []))
    exec(compile(mod2, f"<rule {name} outputs>", "exec"), g)
    out_fn = g["__out"]

    def actions(fld, allow_switch):
        val = entry.get(fld, [])
        if not isinstance(val, list):
            fail(fld, "expected a list of action names")
        out = []
        for a in val:
            if not isinstance(a, str) or (a not in ACTION_NAMES and not (allow_switch and a in SWITCH_ACTIONS)):
                fail(fld, f"unknown action {a!r}")
            out.append(a)
        return tuple(out)

    def int_list(fld):
        val = entry[fld]
        if not isinstance(val, list) or not val or any(type(v) is not int for v in val):
            fail(fld, "expected a non-empty list of integers")
        return tuple(val)

    starting = actions("starting_actions", True)
    minimal = actions("minimal_actions", False)
    if not minimal:
        fail("minimal_actions", "empty")
    modes, diffs = int_list("modes"), int_list("difficulties")
    default_mode = entry.get("default_mode", modes[0])
    default_diff = entry.get("default_difficulty", 0)
    if default_mode not in modes:
        fail("default_mode", f"{default_mode!r} not in modes")
    if type(default_diff) is not int or not 0 <= default_diff <= 3:
        # ALE plays difficulty 0 unless told otherwise, even where 0 is not listed (backgammon).
        fail("default_difficulty", f"{default_diff!r} is not a difficulty switch setting 0..3")
    note = entry.get("note", "")
    if not isinstance(note, str):
        fail("note", "expected a string")
    if checker.dynamic_ram or out_checker.dynamic_ram:
        fail("step", "RAM index must be a constant address")
    return GameRule(
        name=name, vars=dict(vars_), step_source=step_text.strip(), reward_source=reward_src,
        terminal_source=terminal_src, lives_source=lives_src, starting_actions=starting,
        minimal_actions=minimal, modes=modes, difficulties=diffs, default_mode=default_mode,
        default_difficulty=default_diff,
        ram_addresses=tuple(sorted(checker.ram | out_checker.ram)),
        xram_indices=tuple(sorted(checker.xram | out_checker.xram)), note=note,
        _step=step_fn, _outputs=out_fn)


def parse_rules(text: str) -> dict[str, GameRule]:
    """Parse and validate a TOML rules table (``[games.<name>]`` entries).

    Raises :class:`RuleError` naming the game and field of the first malformed entry.
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError(f"rules file is not valid TOML: {exc}") from None
    games = doc.get("games")
    if not isinstance(games, dict) or not games:
        raise RuleError("rules file has no [games.<name>] entries")
    return {name: _compile_rule(name, entry) for name, entry in games.items()}


def compile_condition(game: str, fld: str, text: str):
    """Compile one boolean expression of the rule language (``ram[a]``, ``xram[i]``, ``mode``,
    the helpers; no registers), checked as rule fields are, for other per-game data such as
    the console's ``setMode`` conditions (:mod:`nc2600.hls_models.console_settings`).

    Returns ``f(ram, xram, mode) -> bool`` (``ram``/``xram``: 128 bytes indexed by address & 0x7F).
    Raises :class:`RuleError` naming ``game`` and ``fld``.
    """
    tree, _ = _parse_expr(game, fld, text, set())
    args = ast.arguments(posonlyargs=[], args=[ast.arg("__r"), ast.arg("__x"), ast.arg("mode")],
                         kwonlyargs=[], kw_defaults=[], defaults=[])
    fn = ast.FunctionDef(name="__cond", args=args, body=[ast.Return(tree)], decorator_list=[])
    g = _helper_globals()
    exec(compile(ast.fix_missing_locations(ast.Module([fn], [])), f"<{game} {fld}>", "exec"), g)
    cond = g["__cond"]

    def evaluate(ram, xram, mode) -> bool:
        x = None if xram is None else [int(v) for v in xram]
        return bool(cond([int(v) for v in ram], x, int(mode)))
    return evaluate


@lru_cache(maxsize=4)
def _load_cached(path: str, mtime_ns: int) -> dict[str, GameRule]:
    return parse_rules(Path(path).read_text())


def load_rules(path: str | Path | None = None) -> dict[str, GameRule]:
    """Load and validate the game rules table; returns ``{game name: GameRule}``.

    ``path`` defaults to ``hls_models/game_rules.toml``.  Raises :class:`RuleError`
    (game and field named) for a malformed entry.
    """
    p = Path(path) if path is not None else RULES_PATH
    return dict(_load_cached(str(p), p.stat().st_mtime_ns))


def _as_int_list(buf, size: int, what: str) -> list[int]:
    if isinstance(buf, np.ndarray):
        if buf.shape != (size,):
            raise ValueError(f"{what} must have shape ({size},), got {buf.shape}")
        return buf.astype(np.int64, copy=False).tolist() if buf.dtype != np.uint8 else buf.tolist()
    lst = list(buf)
    if len(lst) != size:
        raise ValueError(f"{what} must hold {size} bytes, got {len(lst)}")
    return [int(v) & 0xFF for v in lst]


class RuleState:
    """Per-episode evaluator of one :class:`GameRule`.

    ``step(ram)`` is called with the RAM after every emulated frame, where ``ram`` is a
    ``uint8`` array of shape (128,) holding the RIOT RAM ($80 at index 0); games whose
    rule reads cartridge RAM (``rule.uses_xram``, e.g. klax) also need ``xram``, the
    128-byte SuperChip RAM.  It returns ``(reward, terminal, lives)``: the reward of that
    frame (``int``, what ``ALEInterface.act`` returns with frame skip 1), ALE's
    ``game_over()`` and ``lives()`` after it.  Rule of ALE 0.12 (``RomSettings::step``
    runs after every frame, ``act`` returns the sum over its frames).
    """

    def __init__(self, rule: GameRule, mode: int | None = None):
        self.rule = rule
        self.mode = rule.default_mode if mode is None else int(mode)
        if self.mode not in rule.modes:
            raise ValueError(f"mode {self.mode} not available for {rule.name} (modes {list(rule.modes)})")
        self._regs = list(rule.vars.values())
        self._zero_x = [0] * XRAM_SIZE_BYTES
        self.reward, self.terminal, self.lives = 0, False, 0
        self.reset()

    @property
    def registers(self) -> dict:
        """The rule's registers now (name -> value)."""
        return dict(zip(self.rule.vars, self._regs))

    def reset(self, ram=None, xram=None) -> tuple[int, bool, int]:
        """Set the registers to ALE's settings-reset values.

        With ``ram`` (the RAM after ALE's whole reset sequence) it then steps once on
        it, which is how the state after ``reset_game()`` is rebuilt from the final RAM.
        Returns ``(reward, terminal, lives)`` after that.
        """
        self._regs = list(self.rule.vars.values())
        r = [0] * RAM_SIZE_BYTES
        self.reward, self.terminal, self.lives = self._outputs(r, self._zero_x)
        if ram is not None:
            return self.step(ram, xram)
        return self.reward, self.terminal, self.lives

    def _outputs(self, r, x):
        rew, term, lives = self.rule._outputs(r, x, self.mode, self._regs)
        return int(rew), bool(term), int(lives)

    def step(self, ram, xram=None) -> tuple[int, bool, int]:
        """Advance the rule by one frame; ``ram``: uint8[128] RIOT RAM after the frame."""
        r = _as_int_list(ram, RAM_SIZE_BYTES, "ram")
        if xram is None:
            if self.rule.uses_xram:
                raise ValueError(f"{self.rule.name} reads cartridge RAM: pass xram (128 bytes)")
            x = self._zero_x
        else:
            x = _as_int_list(xram, XRAM_SIZE_BYTES, "xram")
        self._regs = self.rule._step(r, x, self.mode, self._regs)
        self.reward, self.terminal, self.lives = self._outputs(r, x)
        return self.reward, self.terminal, self.lives


# --------------------------------------------------------------------------- docs
def render_markdown(rules: dict[str, GameRule] | None = None) -> str:
    """The per-game watch list (docs/game_rules.md): RAM addresses a reward extractor reads."""
    rules = load_rules() if rules is None else rules
    lines = [
        "# Game rules: the RAM a reward extractor watches",
        "",
        "Generated from `hls_models/game_rules.toml` by",
        "`python -m nc2600.hls_models.game_rules --markdown > docs/game_rules.md`; do not edit by hand.",
        "",
        "ALE 0.12 computes a game's reward, game-over flag and life count after **every",
        "emulated frame** from RAM alone (`RomSettings::step`); `ALEInterface.act` returns the",
        "sum of the per-frame rewards of its frames (one frame with frame skip 1), and",
        "`game_over()` / `lives()` report the state after the last one. A fabric reward",
        "extractor therefore samples the RIOT RAM addresses below once per frame (at the end",
        "of the frame, after VSYNC ends it) and runs the game's register-transfer rule.",
        "",
        "The rule language and the reset convention are described in",
        "`hls_models/game_rules.py`. `regs` counts the rule's registers (state kept between",
        "frames); `xram` lists cartridge SuperChip RAM bytes (read port $1080+i).",
        "",
        "Checked against ale-py 0.12.1 frame by frame with `nc2600 games verify --all`",
        "(20,000 random-action frames per game from the minimal action set, several episodes",
        "with `reset_game()`, reward, game over and lives compared after every frame);",
        "`--poke P` also overwrites watched RAM bytes to reach branches random play never",
        "reaches (checkmate, backgammon bear-off, score wrap).",
        "",
        "| game | RIOT RAM addresses watched | regs | xram | starting actions | rule |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name in sorted(rules):
        r = rules[name]
        addrs = " ".join(f"${a:02X}" for a in r.ram_addresses) or "-"
        x = " ".join(f"{i}" for i in r.xram_indices) or "-"
        start = _summarise_actions(r.starting_actions) or "-"
        note = r.note.replace("|", "\\|") or "-"
        lines.append(f"| {name} | {addrs} | {len(r.vars)} | {x} | {start} | {note} |")
    lines.append("")
    return "\n".join(lines)


def _summarise_actions(actions: Sequence[str]) -> str:
    out, i = [], 0
    while i < len(actions):
        j = i
        while j < len(actions) and actions[j] == actions[i]:
            j += 1
        out.append(actions[i] if j - i == 1 else f"{actions[i]}x{j - i}")
        i = j
    return ", ".join(out)


if __name__ == "__main__":  # pragma: no cover - docs generator
    import sys
    if sys.argv[1:] == ["--markdown"]:
        sys.stdout.write(render_markdown())
    else:
        sys.stderr.write("usage: python -m nc2600.hls_models.game_rules --markdown\n")
        raise SystemExit(2)
