"""The frame-skip controller: runs one episode of the protocol in the fabric, frame by frame.

Cycle-level twin of :func:`nc2600.hls_models.frame_skip.episode_schedule` (the protocol is stated
there once): no-op start, FIRE run, one action held for ``frame_skip`` frames, the frame the
preprocessor pushes (and the episode's first frame, whose flicker max uses a zero previous
frame), inference started when the observation is ready, the chosen action applied, frames
counted against the cap, the episode ended on game over.

Frames are ALE frames (``TIA::update()``): the console runs (``drive.ce``) from a frame start
(``drive.frame.start_frame``, the console's own frame boundary) until ``at_boundary`` or ALE's
25,000-instruction limit (:data:`MAX_INSTRUCTIONS`; the frame then continues in the next
frame without a new start, as ALE's next ``update()`` does) or a CPU jam. Whether the console
stops at a clock is registered in the clock before, from the console's predictions of its frame
flags (:data:`nc2600.hw.interfaces.FrameSignature`'s ``*_next``) and the instruction count, so that the
console's clock enable is a register and a state decode, not a path through the console.

Reward, game over and lives come from the game rules applied to the console's RAM by the
node's processor (:mod:`nc2600.hls_models.game_rules`): after every frame the controller waits in
``RULES`` until the host writes the frame's reward and terminal flag (``rules_ack``). The
cycles of that wait are counted (``cycles_host``). An episode's return sums the rewards of the
decision frames only (the launcher's rule: the start's rewards are not part of the return).

The action of a frame drives the console through a table written by the host per game
(action-table index -> ``swcha``, ``inpt4``, ``inpt5``, paddle direction: the minimal set, then NOOP
where the set lacks it, :func:`nc2600.hls_models.frame_skip.action_table`; derived from ALE's
action mapping in :mod:`nc2600.host.drivers.rtl_console`); paddle 0's resistance moves by
``PADDLE_DELTA`` ohms per frame, clamped, and its charge time is ``(r * PADDLE_MULT) >>
PADDLE_SHIFT`` CPU cycles (:func:`nc2600.hls_models.frame_skip.paddle_needed`).

A ``manual`` command runs one frame with the host's raw inputs (``man_*``) and no episode
bookkeeping: the host replays ALE's power-on and reset sequence with it (:mod:`nc2600.host.drivers.instance`).

States: ``IDLE`` -> ``CLEAR`` -> ``SETUP`` -> ``FRAME`` -> ``RULES`` -> (``SETUP`` | ``OBS`` ->
``INFER`` -> ``SELECT`` -> ``SETUP`` | ``IDLE``). Cycle counters per phase (32 bit, per
episode): emulation (``SETUP`` + ``FRAME``, less the clocks held for a decision), host rules
wait, observation wait (preprocessor latency), inference (engine start to done), action select,
control (``CLEAR``), and the console's wait for decisions (``cycles_stall``; ``stall_last`` the
latest decision's).

With ``hide`` (the protocol's rule in :mod:`nc2600.hls_models.frame_skip`) a decision whose run is
longer than one frame goes ``OBS`` -> ``SETUP`` at once: the engine starts and the console runs on
into the run's first frame with the last frame's inputs while the decision is ``pending``; the
console's clock enable drops before any clock whose access reads SWCHA or INPT0-5 (the console's
``input_next``, registered like the frame's stop) and at the frame's end, until the chosen action
is in the inputs (:data:`nc2600.hls_models.frame_skip.APPLY_STAGES` clocks after ``chosen.valid``: the
table entry, the paddle's step and charge time; the TIA registers its charge cycle every clock, so
a charge time set while the console is held is in the next read). The console's state, the
frames, their counts and inputs as read are those of the waiting controller; only the clocks
differ (:func:`nc2600.hls_models.frame_skip.hidden_stall`).
"""
from __future__ import annotations

from types import SimpleNamespace

from amaranth import Array, Module, Mux, Signal, signed
from amaranth.lib import data, enum, wiring
from amaranth.lib.wiring import In, Out

from nc2600.hls_models.action_select import MAX_ACTIONS
from nc2600.hls_models.frame_skip import (APPLY_STAGES, MAX_EPISODE_FRAMES, MAX_FRAME_SKIP, NOOP_MAX, PADDLE_DELTA,
                                   PADDLE_MULT, PADDLE_R_MAX, PADDLE_SHIFT)
from nc2600.hw.counters import count_clocks
from nc2600.hw.interfaces import (ACC_BITS, ConsoleDriveSignature, ControllerSignature, InferenceControlSignature,
                           PreprocessorControlSignature, chosen_action_signature)

MAX_INSTRUCTIONS = 25000      #: ALE's M6502::execute(25000) per TIA::update()

PADDLE_BITS = PADDLE_R_MAX.bit_length()

#: One minimal-set action's console drive (written by the host per game).
ActionEntry = data.StructLayout({
    "swcha": 8,       # SWCHA (joystick directions / paddle fire, active low)
    "inpt4": 1,       # INPT4 bit 7 (left fire, active low)
    "inpt5": 1,       # INPT5 bit 7 (right fire, active low)
    "paddle": 2,      # paddle 0 per frame: 0 still, 1 left (+DELTA ohms), 2 right (-DELTA ohms)
})


class State(enum.Enum, shape=4):
    IDLE = 0
    CLEAR = 1
    SETUP = 2
    FRAME = 3
    RULES = 4
    OBS = 5
    INFER = 6
    SELECT = 7


class Phase(enum.Enum, shape=2):
    NOOP = 0
    FIRE = 1
    STEP = 2
    MANUAL = 3


class FrameSkip(wiring.Component):
    """The controller (see module doc).

    Ports (besides ``drive``/``pre``):
        start / manual / abort: In(1) command strobes (``start`` and ``manual`` only in IDLE).
        rules_ack, terminal, reward: In: the host's rules result of the last frame; ``reward``
            must hold its value from the clock before ``rules_ack`` (the instance's REWARD is
            its own register, written before RULES), as the return's add is registered.
        engine: In(:data:`nc2600.hw.interfaces.InferenceControlSignature`): ``start`` an inference;
            ``done``: the engine's action values are out (to the action select).
        chosen: In(:func:`nc2600.hw.interfaces.chosen_action_signature`): the chosen action.
        Config In: noops, noop_index, fire_en, fire_index, frame_skip, episode_frames,
            actions (table), swchb, paddle_en, paddle_swap, paddle_lo/hi/start,
            paddle_fixed_needed, paddle_mode, man_* (manual frame inputs).
        Status Out: state, phase, frames, decisions, episode_return, game_over, done,
            frame_status (0 complete, 1 instruction limit, 2 jam), action, paddle_r,
            cycles_{emu,host,obs,infer,select,ctrl}.
    """

    def __init__(self, n_actions: int = MAX_ACTIONS):
        if not 1 <= n_actions <= MAX_ACTIONS:
            raise ValueError(f"n_actions must be in 1..{MAX_ACTIONS}, got {n_actions}")
        self.n_actions = n_actions
        idx = range(MAX_ACTIONS)
        super().__init__({
            "drive": Out(ConsoleDriveSignature),
            "pre": Out(PreprocessorControlSignature),
            "start": In(1), "manual": In(1), "abort": In(1),
            "rules_ack": In(1), "terminal": In(1), "reward": In(signed(32)),
            "engine": In(InferenceControlSignature), "chosen": In(chosen_action_signature(MAX_ACTIONS, ACC_BITS)),
            "noops": In(range(NOOP_MAX + 1)), "noop_index": In(idx), "fire_en": In(1),
            "fire_index": In(idx), "frame_skip": In(range(MAX_FRAME_SKIP + 1)), "hide": In(1),
            "episode_frames": In(range(MAX_EPISODE_FRAMES + 1)),
            "actions": In(data.ArrayLayout(ActionEntry, n_actions)),
            "swchb": In(8),
            "paddle_en": In(1), "paddle_swap": In(1), "paddle_lo": In(PADDLE_BITS),
            "paddle_hi": In(PADDLE_BITS), "paddle_start": In(PADDLE_BITS), "paddle_fixed_needed": In(32),
            "paddle_mode": In(2).array(4),
            "man_swcha": In(8), "man_swchb": In(8), "man_inpt4": In(1), "man_inpt5": In(1),
            "man_needed": In(32).array(4), "man_mode": In(2).array(4),
            "state": Out(State), "phase": Out(Phase), "frames": Out(24), "decisions": Out(24),
            "episode_return": Out(signed(32)), "game_over": Out(1), "done": Out(1),
            "frame_status": Out(2), "action": Out(idx), "paddle_r": Out(PADDLE_BITS),
            "cycles_emu": Out(32), "cycles_host": Out(32), "cycles_obs": Out(32),
            "cycles_infer": Out(32), "cycles_select": Out(32), "cycles_ctrl": Out(32),
            "cycles_stall": Out(32), "stall_last": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        d = self.drive
        st = self.state
        run_i = Signal(8)            # frame index inside the run
        run_n = Signal(8)            # run length
        first = Signal()             # next frame is the episode's first
        partial = Signal()           # the last frame stopped at the instruction limit
        insns = Signal(range(MAX_INSTRUCTIONS + 1))
        act = self.action
        table = Array(self.actions[i] for i in range(self.n_actions))
        entry = table[act]

        # console inputs: registered at SETUP, held through the frame (initial values: the
        # signature's, nothing pressed and no paddle)
        held = ControllerSignature.create(path=("held",))
        wiring.connect(m, held, wiring.flipped(d.controllers))
        needed = Array(held.paddles.needed)
        mode = Array(held.paddles.mode)

        pdir, r_next, r_needed = self._paddle_charge(m)
        # the hidden decision (``hide``): ``pending`` from the engine's start until the chosen
        # action is in the console's inputs (the console runs on into the run's first frame
        # meanwhile); ``busy_infer``/``busy_select`` the engine's and the action select's parts of
        # it; ``apply`` the stages that put the action into the inputs (see _sequencer);
        # ``held_clock``: the console waits for the decision in this clock (FRAME, its next access
        # a controller read or the frame over)
        dec = SimpleNamespace(pending=Signal(), busy_infer=Signal(), busy_select=Signal(),
                              apply=Signal(range(APPLY_STAGES + 1)), hold_r=Signal(), held_clock=Signal(),
                              to_obs=Signal())
        c = self._console_clock(m, insns, partial, dec)
        set_product, set_sum, set_needed = c.set_product, c.set_sum, c.set_needed

        is_last = Signal()
        m.d.comb += is_last.eq(run_i + 1 == run_n)
        push_run = Signal()          # this run's last frame is pushed
        m.d.comb += push_run.eq((self.phase == Phase.FIRE) | (self.phase == Phase.STEP) |
                                ((self.phase == Phase.NOOP) & ~self.fire_en))

        # the next step's length over two registers (subtract, compare and pick were 11
        # xc7 levels into run_n): used in SELECT, at least three clocks after frames last changed
        # (at a frame's stop, then RULES, OBS and INFER), so both have settled by then
        remaining = Signal(25)
        m.d.sync += remaining.eq(self.episode_frames - self.frames)
        step_len = Signal(8)
        m.d.sync += step_len.eq(Mux(remaining < self.frame_skip, remaining, self.frame_skip))

        # frames >= episode_frames as a register set whenever frames changes, from frames + 1 kept
        # beside it (the 24-bit compare at the acknowledgement was 10 xc7 levels into
        # ``done``); episode_frames is written by the host before an episode starts
        frames_p1 = Signal(25, init=1)
        reached = Signal()

        # the return after this frame's reward, registered every clock (the 32-bit add
        # at the acknowledgement was 10 xc7 levels into episode_return): the contract (class doc)
        # has ``reward`` settled a clock before ``rules_ack``, and the return changes only at an
        # acknowledgement or an episode's start, never in two clocks in a row
        return_sum = Signal(signed(32))
        m.d.sync += return_sum.eq(self.episode_return + self.reward)

        # cycle counters, each cleared at an episode's start (IDLE, below) and counting its states
        waits = Signal()             # the console waits for a decision in this clock
        m.d.comb += waits.eq((st == State.OBS) | (st == State.INFER) | (st == State.SELECT) | dec.held_clock)
        for name, active in (("emu", ((st == State.SETUP) | (st == State.FRAME)) & ~dec.held_clock),
                             ("host", st == State.RULES), ("obs", st == State.OBS),
                             ("infer", (st == State.INFER) | dec.busy_infer),
                             ("select", (st == State.SELECT) | dec.busy_select), ("ctrl", st == State.CLEAR),
                             ("stall", waits)):
            count_clocks(m, getattr(self, f"cycles_{name}"), active, (st == State.IDLE) & self.start,
                         f"cycles_{name}")
        # the latest decision's wait, cleared as its observation is taken (RULES -> OBS)
        count_clocks(m, self.stall_last, waits, dec.to_obs | ((st == State.IDLE) & self.start), "stall_last")

        with m.If(set_product):
            m.d.sync += [set_product.eq(0), set_sum.eq(1)]
        with m.If(set_sum):
            m.d.sync += [set_sum.eq(0), set_needed.eq(1)]
        with m.If(set_needed):
            m.d.sync += set_needed.eq(0)
            with m.If(self.paddle_en):
                m.d.sync += [needed[0].eq(Mux(self.paddle_swap, self.paddle_fixed_needed, r_needed)),
                             needed[1].eq(Mux(self.paddle_swap, r_needed, self.paddle_fixed_needed)),
                             needed[2].eq(0), needed[3].eq(0)]
        self._sequencer(m, SimpleNamespace(
            table=table, entry=entry, run_i=run_i, run_n=run_n, first=first, partial=partial, insns=insns, held=held,
            needed=needed, mode=mode, r_next=r_next, r_needed=r_needed, pdir=pdir, is_last=is_last, push_run=push_run,
            step_len=step_len, frames_p1=frames_p1, reached=reached, return_sum=return_sum), c, dec)
        return m

    def _paddle_charge(self, m):
        """Paddle 0's resistance after a run's step (``r' = clamp(r +/- DELTA)``) and its charge
        time ``(r * MULT) >> SHIFT`` over two register stages. Returns ``(pdir, r_next, r_needed)``:
        the run's paddle direction register (0 still, 1 left, 2 right), the next resistance and
        the charge time of the present one (CPU cycles)."""
        # paddle 0: r' = clamp(r +/- DELTA); charge time by multiply and shift
        r = self.paddle_r
        moved = Signal(signed(PADDLE_BITS + 2))
        # the run's paddle direction, registered with its action (start_run) rather than read
        # through the action table's multiplexer at SETUP (that read began an 11-level
        # path into paddle_r); the table is written by the host before an episode
        pdir = Signal(2)
        m.d.comb += moved.eq(Mux(pdir == 1, r + PADDLE_DELTA, Mux(pdir == 2, r - PADDLE_DELTA, r)))
        # the clamp's compares without the add in front (add, compare and pick were 12
        # xc7 levels into paddle_r): r + DELTA < lo is r < lo - DELTA, and so on, against
        # thresholds registered from PADDLE_LO/PADDLE_HI, so the six compares run beside the
        # add and the direction only picks among them. The bounds and thresholds are a clock
        # behind the host's registers (written before an episode starts).
        lo, hi = Signal(PADDLE_BITS), Signal(PADDLE_BITS)
        m.d.sync += [lo.eq(self.paddle_lo), hi.eq(self.paddle_hi)]
        thr = {}
        for name, bound in (("lo", self.paddle_lo), ("hi", self.paddle_hi)):
            for direction, offset in ((0, 0), (1, -PADDLE_DELTA), (2, PADDLE_DELTA)):
                t = Signal(signed(PADDLE_BITS + 2), name=f"paddle_{name}{direction}")
                m.d.sync += t.eq(bound + offset)
                thr[name, direction] = t
        below, above = Signal(), Signal()
        m.d.comb += [
            below.eq(Mux(pdir == 1, r < thr["lo", 1], Mux(pdir == 2, r < thr["lo", 2], r < thr["lo", 0]))),
            above.eq(Mux(pdir == 1, r > thr["hi", 1], Mux(pdir == 2, r > thr["hi", 2], r > thr["hi", 0]))),
        ]
        r_next = Signal(PADDLE_BITS)
        m.d.comb += r_next.eq(Mux(below, lo, Mux(above, hi, moved)))
        # the charge time of r over two register stages, every clock (the multiply, its
        # partial-product sum and the port pick were one path, 10 xc7 levels after a DSP that
        # starts 2.65 ns after its clock without its P register; 8.9 ns by the timed estimate):
        # the two partial products registered (each a DSP48E1 multiply into its own register),
        # then their sum: (r * MULT) >> 31 = (r * M_HI + ((r * M_LO) >> 17)) >> 14 exactly, with
        # MULT = M_HI * 2**17 + M_LO (the dropped low bits of r * M_LO cannot carry past bit 17
        # of r * MULT). A frame whose paddle moved waits three clocks after SETUP: the products
        # take the new r (set_product), the sum takes them (set_sum), ``needed`` takes the sum
        # (set_needed)
        m_lo, m_hi = PADDLE_MULT & ((1 << 17) - 1), PADDLE_MULT >> 17
        p_lo = Signal(PADDLE_BITS + 17)
        p_hi = Signal(PADDLE_BITS + m_hi.bit_length())
        m.d.sync += [p_lo.eq(r * m_lo), p_hi.eq(r * m_hi)]
        r_needed = Signal(32)
        m.d.sync += r_needed.eq((p_hi + (p_lo >> 17)) >> (PADDLE_SHIFT - 17))
        return pdir, r_next, r_needed

    def _console_clock(self, m, insns, partial, dec):
        """The console's clock enable and frame start strobe, from registers (see the comments),
        and the frame's stop. Returns a namespace of the registers and values the sequencer
        reads: ``set_product``, ``set_sum``, ``set_needed`` (the paddle's charge-time stages),
        ``stop``, ``stop_r``, ``stop_next``, ``insns_after``, ``go``, ``fresh``, ``started``."""
        d, st = self.drive, self.state
        set_product = Signal()       # the cycle after SETUP: p_lo/p_hi take the new r
        set_sum = Signal()           # the next: r_needed takes them
        set_needed = Signal()        # the next: paddle needed from r_needed
        stop = Signal()              # the console stops before this clock (frame over)
        # stop for this clock, registered in the clock before from the console's predictions of
        # its frame flags (FrameSignature's *_next) and the instruction count then: the console's
        # clock enable does not depend on its state through logic (xc7 logic depth). Cleared at
        # SETUP: a frame's first clock runs, and so does a partial frame's continuation (it
        # stopped at an instruction limit, so not at a boundary or a jam, and the count restarts)
        stop_next = Signal()
        stop_r = Signal()
        insns_after = Signal(range(MAX_INSTRUCTIONS + 2))   # the count at the next clock
        # insns_after >= MAX_INSTRUCTIONS by equalities on the register, not by the add and a
        # compare after it (that was 10 xc7 levels into stop_r): insns never exceeds the
        # limit (the frame stops before the instruction that would pass it, and no two clocks in
        # a row start an instruction), so insns + insn_start >= MAX is insns == MAX, or
        # insns == MAX - 1 with an instruction starting now
        at_limit = Signal()
        m.d.comb += [
            insns_after.eq(insns + d.frame.insn_start),
            at_limit.eq((insns == MAX_INSTRUCTIONS) | ((insns == MAX_INSTRUCTIONS - 1) & d.frame.insn_start)),
            stop_next.eq(d.frame.at_boundary_next | d.frame.jammed_next | (d.frame.insn_start_next & at_limit)),
        ]
        go = Signal()                # FRAME: the console's inputs are settled
        fresh = Signal()             # FRAME: this clock is the frame's first (a frame start)
        started = Signal()           # FRAME: the frame's first clock has run
        # the console's clock enable from registers through one LUT (as a state decode it
        # began the instance's deepest path, folded into the console's logic): ce = FRAME & go &
        # (fresh | ~stop_r), with FRAME & go registered from the clock before: SETUP -> FRAME,
        # with go unless the paddle's charge time is set first (set_product, set_sum,
        # set_needed); FRAME stays FRAME unless it stops now (go & ~fresh & stop_r), and a
        # set_needed clock is followed by go;
        # abort and every other state give IDLE or a state that is not FRAME. fresh and stop_r
        # are registers (stop_r holds the console's predictions, registered), so ce does not
        # wait on the predictions' logic
        # The frame start strobe is a register too (it enters the console's logic, where it picks
        # line 0's window): start_frame = FRAME & go & fresh of the next clock, which is a SETUP
        # whose frame runs at once or a FRAME clock waiting for the paddle (set_needed), either
        # not continuing a partial frame and not started.
        frame_go = Signal()          # FRAME & go, registered
        frame_go_next = Signal()
        sf_r = Signal()              # start_frame, registered
        sf_next = Signal()
        free = Signal()              # fresh | ~stop_r, in any state
        m.d.comb += free.eq((~partial & ~started) | ~stop_r)
        with m.Switch(st):
            with m.Case(State.SETUP):
                # no set_product clock (nor with a pending decision: its action sets the paddle later)
                runs_at_once = ~((self.phase != Phase.MANUAL) & self.paddle_en & ~dec.pending)
                m.d.comb += [frame_go_next.eq(runs_at_once), sf_next.eq(runs_at_once)]
            with m.Case(State.FRAME):
                m.d.comb += [frame_go_next.eq(free & ~set_product & ~set_sum),   # stop_r is 0 in these clocks
                             sf_next.eq(set_needed)]
        m.d.sync += [frame_go.eq(frame_go_next & ~self.abort),
                     sf_r.eq(sf_next & ~partial & ~started & ~self.abort)]
        # held for a pending decision: the console's next access reads a controller input
        # (hold_r, registered like stop_r from the console's prediction, input_next) while the
        # decision is pending (a register): still a register and a LUT
        m.d.comb += [d.ce.eq(frame_go & free & ~(dec.hold_r & dec.pending)), d.frame.start_frame.eq(sf_r)]
        return SimpleNamespace(set_product=set_product, set_sum=set_sum, set_needed=set_needed, stop=stop,
                               stop_r=stop_r, stop_next=stop_next, insns_after=insns_after, go=go, fresh=fresh,
                               started=started)

    def _sequencer(self, m, v, c, dec):
        """The controller's state machine (:class:`State`): an episode's start, the frame's setup
        and run, the rules' acknowledgement, the observation, inference and selection, and abort.
        ``v``: :meth:`elaborate`'s registers and values by name; ``c``: :meth:`_console_clock`'s."""
        d, st, act, r = self.drive, self.state, self.action, self.paddle_r
        table, entry, run_i, run_n = v.table, v.entry, v.run_i, v.run_n
        first, partial, insns = v.first, v.partial, v.insns
        needed, mode, r_next, pdir, is_last, push_run = v.needed, v.mode, v.r_next, v.pdir, v.is_last, v.push_run
        step_len, frames_p1, reached, return_sum = v.step_len, v.frames_p1, v.reached, v.return_sum
        swcha, swchb, inpt4, inpt5 = v.held.swcha, v.held.swchb, v.held.inpt4, v.held.inpt5
        set_product, set_sum, set_needed, stop, stop_r, stop_next = (c.set_product, c.set_sum, c.set_needed, c.stop,
                                                                     c.stop_r, c.stop_next)
        insns_after, go, fresh, started = c.insns_after, c.go, c.fresh, c.started

        def start_run(phase, action, length):
            m.d.sync += [self.phase.eq(phase), act.eq(action), run_i.eq(0), run_n.eq(length),
                         pdir.eq(table[action].paddle)]

        with m.Switch(st):
            with m.Case(State.IDLE):
                with m.If(self.start):
                    m.d.sync += [st.eq(State.CLEAR), self.frames.eq(0), frames_p1.eq(1),
                                 reached.eq(self.episode_frames == 0), self.decisions.eq(0),
                                 self.episode_return.eq(0), self.game_over.eq(0), self.done.eq(0),
                                 first.eq(1), r.eq(self.paddle_start)]
                    start_run(Phase.NOOP, self.noop_index, self.noops)
                with m.Elif(self.manual):
                    m.d.sync += [st.eq(State.SETUP), self.phase.eq(Phase.MANUAL), self.done.eq(0)]
            with m.Case(State.CLEAR):
                m.d.comb += self.pre.clear.eq(1)
                m.d.sync += st.eq(State.SETUP)
            with m.Case(State.SETUP):
                with m.If(self.phase == Phase.MANUAL):
                    m.d.sync += [swcha.eq(self.man_swcha), swchb.eq(self.man_swchb),
                                 inpt4.eq(self.man_inpt4), inpt5.eq(self.man_inpt5)]
                    for i in range(4):
                        m.d.sync += [needed[i].eq(self.man_needed[i]), mode[i].eq(self.man_mode[i])]
                with m.Elif(~dec.pending):
                    # (with a pending decision the inputs stay the last frame's until its action is
                    # applied, below; the console is held before it reads them)
                    m.d.sync += [swcha.eq(entry.swcha), swchb.eq(self.swchb), inpt4.eq(entry.inpt4),
                                 inpt5.eq(entry.inpt5)]
                    for i in range(4):
                        m.d.sync += [mode[i].eq(self.paddle_mode[i]), needed[i].eq(self.man_needed[i])]
                    with m.If(self.paddle_en):
                        m.d.sync += [r.eq(r_next), set_product.eq(1)]
                m.d.sync += [st.eq(State.FRAME), insns.eq(0), stop_r.eq(0), dec.hold_r.eq(0)]
            with m.Case(State.FRAME):
                # paddles: needed from the new r is registered in this state's first three cycles,
                # before the console's first clock of the frame (the next one)
                m.d.comb += go.eq(~set_product & ~set_sum & ~set_needed)
                m.d.comb += fresh.eq(~partial & ~started)
                with m.If(go):
                    with m.If(fresh):
                        # Stella's startFrame: the new frame begins; the first clock always runs
                        m.d.comb += [
                                     self.pre.push.eq((self.phase != Phase.MANUAL) & push_run & is_last),
                                     self.pre.zero_prev.eq((self.phase != Phase.MANUAL) & first)]
                        m.d.sync += [started.eq(1), insns.eq(insns_after), stop_r.eq(stop_next),
                                     dec.hold_r.eq(d.frame.input_next)]
                    with m.Else():
                        # = at_boundary | (insn_start & insns >= MAX_INSTRUCTIONS) | jammed now
                        m.d.comb += stop.eq(stop_r)
                        m.d.comb += [self.pre.push.eq((self.phase != Phase.MANUAL) & push_run & is_last),
                                     self.pre.zero_prev.eq((self.phase != Phase.MANUAL) & first)]
                        with m.If(~stop & ~(dec.hold_r & dec.pending)):       # the console runs (ce is set)
                            m.d.sync += [insns.eq(insns_after), stop_r.eq(stop_next),
                                         dec.hold_r.eq(d.frame.input_next)]
                        with m.Elif(dec.pending):
                            # held for the pending decision: at a controller read, or the frame is
                            # over before its action was applied (the frame's end waits for it)
                            m.d.comb += dec.held_clock.eq(1)
                        with m.Else():
                            status = Mux(d.frame.at_boundary, 0, Mux(d.frame.jammed, 2, 1))
                            m.d.sync += [self.frame_status.eq(status),
                                         partial.eq(~d.frame.at_boundary & ~d.frame.jammed),
                                         started.eq(0)]
                            with m.If(self.phase == Phase.MANUAL):
                                m.d.sync += [st.eq(State.IDLE), self.done.eq(1)]
                            with m.Else():
                                m.d.sync += [st.eq(State.RULES), self.frames.eq(frames_p1),
                                             frames_p1.eq(frames_p1 + 1),
                                             reached.eq(frames_p1 >= self.episode_frames), first.eq(0)]
                # a partial frame's continuation: partial is cleared at its first clock
                with m.If(go & partial):
                    m.d.sync += [partial.eq(0), started.eq(1)]
            with m.Case(State.RULES):
                with m.If(self.rules_ack):
                    with m.If(self.phase == Phase.STEP):
                        m.d.sync += self.episode_return.eq(return_sum)
                    with m.If(self.terminal):
                        m.d.sync += [st.eq(State.IDLE), self.game_over.eq(1), self.done.eq(1)]
                    with m.Elif(~is_last):
                        m.d.sync += [run_i.eq(run_i + 1), st.eq(State.SETUP)]
                    with m.Elif((self.phase == Phase.NOOP) & self.fire_en):
                        start_run(Phase.FIRE, self.fire_index, self.frame_skip)
                        m.d.sync += st.eq(State.SETUP)
                    with m.Elif(reached):
                        m.d.sync += [st.eq(State.IDLE), self.done.eq(1)]
                    with m.Else():
                        m.d.comb += dec.to_obs.eq(1)
                        m.d.sync += st.eq(State.OBS)
            with m.Case(State.OBS):
                with m.If(self.pre.obs_valid):
                    m.d.comb += self.engine.start.eq(1)
                    with m.If(self.hide & (step_len >= 2)):
                        # the console runs on into the run's first frame while the engine infers
                        # (not when that frame is pushed: the preprocessor would overwrite the
                        # stack the engine reads); the action comes in with apply, below
                        m.d.sync += [st.eq(State.SETUP), dec.pending.eq(1), dec.busy_infer.eq(1),
                                     self.phase.eq(Phase.STEP), run_i.eq(0), run_n.eq(step_len)]
                    with m.Else():
                        m.d.sync += st.eq(State.INFER)
            with m.Case(State.INFER):
                with m.If(self.engine.done):
                    m.d.sync += st.eq(State.SELECT)
            with m.Case(State.SELECT):
                with m.If(self.chosen.valid):
                    start_run(Phase.STEP, self.chosen.index, step_len)
                    m.d.sync += [st.eq(State.SETUP), self.decisions.eq(self.decisions + 1)]
        self._apply(m, v, dec)
        with m.If(self.abort):
            m.d.sync += [st.eq(State.IDLE), partial.eq(0), started.eq(0), set_product.eq(0), set_sum.eq(0),
                         set_needed.eq(0), dec.pending.eq(0), dec.busy_infer.eq(0), dec.busy_select.eq(0),
                         dec.apply.eq(0), dec.hold_r.eq(0)]

    def _apply(self, m, v, dec):
        """With ``hide``: the engine's and the action select's parts of a pending decision, and its
        action put into the console's inputs while the console runs or is held (a clock per
        stage, ``dec.apply``): at ``chosen.valid`` the action and its paddle direction (as
        ``start_run`` takes them) and the decision counted; 1: the held inputs from its table
        entry and the paddle's resistance stepped (as SETUP does for a frame); 2, 3: the charge
        time's products and their sum take the new resistance (:meth:`_paddle_charge`); 4:
        ``needed``; 5: the TIA's charge cycle takes it (registered every clock, the console held
        or not, :mod:`nc2600.hw.tia`); 6: ``pending`` drops, so the console's next clock (a
        controller read, at the earliest) sees the action. Any controller read before that is
        held (``ce``), so the console reads exactly what ALE's frame would from its start."""
        act, r = self.action, self.paddle_r
        table, entry, needed, r_next, pdir = v.table, v.entry, v.needed, v.r_next, v.pdir
        held = v.held
        with m.If(dec.busy_infer & self.engine.done):
            m.d.sync += [dec.busy_infer.eq(0), dec.busy_select.eq(1)]
        with m.If(dec.busy_select & self.chosen.valid):
            m.d.sync += [dec.busy_select.eq(0), act.eq(self.chosen.index), pdir.eq(table[self.chosen.index].paddle),
                         self.decisions.eq(self.decisions + 1), dec.apply.eq(1)]
        with m.If(dec.apply != 0):
            m.d.sync += dec.apply.eq(dec.apply + 1)
        with m.If(dec.apply == 1):
            m.d.sync += [held.swcha.eq(entry.swcha), held.inpt4.eq(entry.inpt4), held.inpt5.eq(entry.inpt5)]
            with m.If(self.paddle_en):
                m.d.sync += r.eq(r_next)
        with m.If((dec.apply == 4) & self.paddle_en):
            m.d.sync += [needed[0].eq(Mux(self.paddle_swap, self.paddle_fixed_needed, v.r_needed)),
                         needed[1].eq(Mux(self.paddle_swap, v.r_needed, self.paddle_fixed_needed))]
        with m.If(dec.apply == APPLY_STAGES):
            m.d.sync += [dec.apply.eq(0), dec.pending.eq(0)]
