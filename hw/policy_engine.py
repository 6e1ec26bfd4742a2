"""The int8 policy inference engine: ``L`` MAC lanes computing the Such et al. network bit for bit.

Computes exactly :meth:`nc2600.hls_models.policy_int8.QuantizedPolicy.action_values` (int8 weights,
8-bit activation codes, int32 accumulators, per-layer requantisation with ReLU, round half up
by ``s`` bits and saturation at ``act_max``) for conv 16 8x8/4 -> conv 32 4x4/2 -> dense 256 ->
dense ``A`` (``A <= max_actions``, loaded at run time), reading the ``4 x 84 x 84`` observation
stack in place through the preprocessor's read port. Schedule, memory layout, parameter-load
format and the exact cycle count: :mod:`nc2600.hls_models.policy_engine` (``engine_cycles``).

Pipeline, one input of the receptive field per cycle (stage: work):

- I: the nested loop counters (layer, position, lane group, ``c``, ``kh``, ``kw``) address the
  observation / activation memory (one byte, broadcast) and the weight memory (one row of
  ``L`` int8 weights);
- S1: the read data: the activation byte ``a`` picked by the layer (observation, conv2 or the
  other activation buffer) and the weight row, registered (xc7 timed estimate: the pick
  after the block RAM read went straight into the DSPs' multiply registers);
- S1b: ``prod[j] = a * w[j]`` (9 x 8 bit signed, one DSP48E1 multiplier per lane); the bias row
  of the group is read;
- S2: ``acc[j] = (first ? bias[j] : acc[j]) + prod[j]`` (int32, the DSP48E1 accumulator);
- S3: a completed group's accumulators are captured (``hold``), or for the last layer written
  to the action-value registers;
- write-back, one byte per cycle from ``hold`` (shifted down a lane per byte, so ``x`` is always
  lane 0: no lane multiplexer): ``min((max(x, 0) + 2**(s-1)) >> s, act_max)`` (the int8
  rule of :func:`nc2600.hls_models.policy_int8.requantize`) as ``(x >> s) + x[s-1]`` without a 33-bit
  add: W1 the byte ``x[s+7..s]``, the round bit ``x[s-1]`` and a flag for any bit at ``s + 8``
  or above (a mask registered with the capture); W2 the 9-bit sum and the saturation to
  ``act_max``; W3 write to the activation buffer at ``pos*N + n``. The same cycles as the
  33-bit form (xc7 depth: its add and the lane multiplexer would be the engine's 13 xc7 levels).

A layer's first read waits for the previous layer's last write (see
:func:`nc2600.hls_models.policy_engine.layer_gap_cycles`).

Ports (each a :class:`wiring.Signature` defined once):

- ``obs``: Out(:data:`nc2600.hw.preprocessor.ObservationReadSignature`): ``frame``/``index`` driven,
  ``data`` one cycle later (the preprocessor's port; the engine must finish before the next
  pushed frame overwrites the stack).
- ``params``: In(:data:`ParameterWriteSignature`): one 32-bit write per cycle, accepted only
  while not ``busy`` (writes during an inference are dropped, so a running inference is never
  corrupted). Writes outside the engine's rows/lanes, an ``n_actions`` outside 1..max_actions
  or an ``act_max`` other than 127/255 are dropped too; the host loader
  (:func:`nc2600.hls_models.policy_engine.load_words`) refuses such parameters with a ValueError first.
- ``control`` (:data:`InferenceControlSignature`): ``start`` In(1) (sampled when not busy),
  ``busy`` Out(1) (the cycle after ``start`` until the cycle before ``done``), ``done`` Out(1)
  (one-cycle strobe, :func:`nc2600.hls_models.policy_engine.engine_cycles` cycles after ``start``).
- ``action_values``: Out(:func:`action_values_signature`): the ``A`` int32 values and
  ``count = A`` as one stream beat; ``valid`` rises with ``done`` and stays until ``ready``
  (a later ``done`` overwrites an unaccepted beat). :class:`nc2600.hw.action_select.ActionSelect` consumes it.
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

from amaranth import Array, Const, Module, Mux, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from nc2600.hls_models import policy_engine as model
from nc2600.hls_models.action_select import MAX_ACTIONS
from nc2600.hls_models.policy_int8 import layer_dims
from nc2600.hw import reproducible
from nc2600.hw.interfaces import (ACC_BITS, InferenceControlSignature, ObservationReadSignature, ParameterSpace,
                           ParameterWriteSignature, action_values_signature)


def policy_engine_signature(max_actions: int = MAX_ACTIONS) -> wiring.Signature:
    """The ports of :class:`PolicyEngine` (the same for every lane count)."""
    return wiring.Signature({
        "obs": Out(ObservationReadSignature),
        "params": In(ParameterWriteSignature),
        "control": Out(InferenceControlSignature),
        "action_values": Out(action_values_signature(max_actions)),
    })


class PolicyEngine(wiring.Component):
    """The inference engine (see module doc).

    Args:
        lanes: MAC lanes ``L``, a multiple of 4 in 4..256 (:func:`nc2600.hls_models.policy_engine.check_lanes`).
        max_actions: largest action count (the action-value registers), 1..18.
    Raises:
        ValueError: ``lanes`` or ``max_actions`` outside the supported range.
    """

    def __init__(self, lanes: int = 16, max_actions: int = MAX_ACTIONS):
        try:
            try:
                self.lanes = model.check_lanes(lanes)
            except ValueError as exc:
                raise ValueError(f"PolicyEngine: {exc}") from None
            self.max_actions = model.check_actions(max_actions, MAX_ACTIONS)
        except ValueError:
            self._MustUse__silence = True   # not built: no unused-elaboratable warning
            raise
        super().__init__(policy_engine_signature(self.max_actions))

    def elaborate(self, platform):
        m = Module()
        e = SimpleNamespace(L=self.lanes, A=self.max_actions, dims=layer_dims(self.max_actions))  # (name, P, N, K)
        e.wrows, e.brows = model.weight_rows(e.L, e.A), model.bias_rows(e.L, e.A)
        e.wbase, e.bbase = model.bases(e.wrows), model.bases(e.brows)
        self._memories(m, e)
        self._parameters(m, e)
        self._tables(e)
        self._issue(m, e)
        self._operands(m, e)
        self._accumulate(m, e)
        self._capture(m, e)
        self._writeback(m, e)
        self._control(m, e)
        return m

    def _memories(self, m, e):
        """The weight rows (``L`` int8), the bias rows (``L`` int32) and the two activation
        buffers (``act_a``: conv1's then dense1's outputs; ``act_b``: conv2's), with their ports."""
        L = e.L
        m.submodules.weights = wmem = Memory(shape=data.ArrayLayout(signed(8), L), depth=sum(e.wrows), init=[])
        m.submodules.biases = bmem = Memory(shape=data.ArrayLayout(signed(ACC_BITS), L), depth=sum(e.brows),
                                            init=[])
        m.submodules.act_a = amem = Memory(shape=8, depth=20 * 20 * 16, init=[])   # conv1 out, dense1 out
        m.submodules.act_b = cmem = Memory(shape=8, depth=9 * 9 * 32, init=[])     # conv2 out
        w_rd, w_wr = wmem.read_port(), wmem.write_port(granularity=4)
        b_rd, b_wr = bmem.read_port(), bmem.write_port(granularity=1)
        a_rd, a_wr = amem.read_port(), amem.write_port()
        c_rd, c_wr = cmem.read_port(), cmem.write_port()
        e.w_rd, e.w_wr, e.b_rd, e.b_wr, e.a_rd, e.a_wr, e.c_rd, e.c_wr = w_rd, w_wr, b_rd, b_wr, a_rd, a_wr, c_rd, c_wr

    def _parameters(self, m, e):
        """The parameter write port: weights (4 lanes a write), biases (1 lane), and the
        configuration registers ``n_actions``, ``act_max`` and the three shifts; writes while
        busy or out of range are dropped (module doc)."""
        L, A = e.L, e.A
        e.n_actions = n_actions = Signal(range(A + 1), init=A)
        e.act_max = act_max = Signal(8, init=255)
        e.shifts = shifts = Array(Signal(5, name=f"s{i + 1}") for i in range(3))
        p = self.params
        accept = Signal()
        m.d.comb += accept.eq(p.valid & ~self.control.busy)
        m.d.comb += [
            e.w_wr.addr.eq(p.row), e.w_wr.data.as_value().eq(p.data.replicate(L // 4)),
            e.b_wr.addr.eq(p.row), e.b_wr.data.as_value().eq(p.data.replicate(L)),
        ]
        with m.If(accept & (p.space == ParameterSpace.WEIGHTS) & (p.row < sum(e.wrows)) & (p.lane < L)):
            m.d.comb += e.w_wr.en.eq(Const(1, L // 4) << p.lane[2:])
        with m.If(accept & (p.space == ParameterSpace.BIASES) & (p.row < sum(e.brows)) & (p.lane < L)):
            m.d.comb += e.b_wr.en.eq(Const(1, L) << p.lane)
        with m.If(accept & (p.space == ParameterSpace.CONFIG)):
            with m.Switch(p.row):
                with m.Case(model.CONFIG_N_ACTIONS):
                    with m.If((p.data >= 1) & (p.data <= A)):
                        m.d.sync += n_actions.eq(p.data)
                with m.Case(model.CONFIG_ACT_MAX):
                    with m.If((p.data == 127) | (p.data == 255)):
                        m.d.sync += act_max.eq(p.data)
                for i in range(3):
                    with m.Case(model.CONFIG_SHIFT0 + i):
                        with m.If(p.data <= model.MAX_SHIFT):
                            m.d.sync += shifts[i].eq(p.data)

    @staticmethod
    def _tables(e):
        """The per-layer constants, indexed by the layer (0 conv1, 1 conv2, 2 dense1, 3 dense2):
        loop limits, address strides, outputs per position, first weight and bias rows."""
        def table(values, shape=None):
            values = [int(v) for v in values]
            shape = shape or range(max(values) + 1)
            return Array(Const(v, shape) for v in values)

        L, A = e.L, e.A
        g_dense2 = table([max(1, model.groups(a, L)) for a in range(A + 1)])[e.n_actions]
        e.n_groups = Array([Const(model.groups(n, L)) for _, _, n, _ in e.dims[:3]] + [g_dense2])
        e.lim_py, e.lim_px = table([20, 9, 1, 1]), table([20, 9, 1, 1])
        e.lim_c, e.lim_kh, e.lim_kw = table([4, 16, 2592, 256]), table([8, 4, 1, 1]), table([8, 4, 1, 1])
        e.st_kw, e.st_kh, e.st_c = table([1, 16, 0, 0]), table([84, 320, 0, 0]), table([0, 1, 1, 1])
        e.st_px, e.st_py = table([4, 32, 0, 0]), table([4 * 84, 2 * 20 * 16, 0, 0])
        e.outs_per_pos = table([16, 32, 256, 0])                 # N: write address pos*N + n
        e.w_first = table(e.wbase)
        e.b_first = table(e.bbase)
        e.last_active = table([model.last_group_active(n, L) for _, _, n, _ in e.dims[:3]] + [0])

    def _issue(self, m, e):
        """Stage I: the nested loop counters (layer, position, lane group, ``c``, ``kh``, ``kw``)
        and the read addresses of the observation, the activation buffers and the weights."""
        L = e.L
        e.issuing = issuing = Signal()          # a read is issued this cycle
        e.waiting = Signal()                    # between layers: wait for the write-back to finish
        e.layer = layer = Signal(range(4))
        py, px = Signal(range(20)), Signal(range(20))
        e.g = g = Signal(range(max(model.groups(256, L), 2)))
        c = Signal(range(2592))
        kh, kw = Signal(range(8)), Signal(range(8))
        off_py, off_px, off_c, off_kh, off_kw = (Signal(range(8192), name=n)
                                                 for n in ("off_py", "off_px", "off_c", "off_kh", "off_kw"))
        e.pos_base = pos_base = Signal(range(6400))                         # pos * N
        e.g_base = g_base = Signal(range(256 + L))                          # g * L
        wrow = Signal(range(sum(e.wrows)))
        addr = Signal(range(8192))
        m.d.comb += addr.eq(off_py + off_px + off_c + off_kh + off_kw)
        m.d.comb += [
            self.obs.frame.eq(c[:2]), self.obs.index.eq(addr),
            e.a_rd.addr.eq(addr), e.c_rd.addr.eq(addr), e.w_rd.addr.eq(wrow),
        ]
        # the layer's loop limits less one, registered when the layer is entered (reset_loops), so
        # that the last-index tests compare two registers instead of reading the per-layer tables
        # through ``layer`` first (xc7 depth: table, compare and the loop nest would be 10 xc7 levels in
        # the instance). n_actions (in n_groups[3]) cannot change during an inference: parameter
        # writes are dropped while busy.
        limits = {"kw": e.lim_kw, "kh": e.lim_kh, "c": e.lim_c, "g": e.n_groups, "px": e.lim_px, "py": e.lim_py}
        lim1 = {k: Signal(range(2592), name=f"lim1_{k}") for k in limits}     # lim_c's 2592 the largest
        last_kw, last_kh, last_c = kw == lim1["kw"], kh == lim1["kh"], c == lim1["c"]
        e.last_k = last_k = Signal()
        e.last_g = last_g = Signal()
        e.last_pos = last_pos = Signal()
        m.d.comb += [last_k.eq(last_kw & last_kh & last_c), last_g.eq(g == lim1["g"]),
                     last_pos.eq((px == lim1["px"]) & (py == lim1["py"]))]
        e.first_k = (kw == 0) & (kh == 0) & (c == 0)

        def reset_loops(next_layer):
            return [py.eq(0), px.eq(0), g.eq(0), c.eq(0), kh.eq(0), kw.eq(0), off_py.eq(0), off_px.eq(0),
                    off_c.eq(0), off_kh.eq(0), off_kw.eq(0), pos_base.eq(0), g_base.eq(0),
                    wrow.eq(e.w_first[next_layer]),
                    *(lim1[k].eq(t[next_layer] - 1) for k, t in limits.items())]
        e.reset_loops = reset_loops

        with m.If(issuing):
            m.d.sync += wrow.eq(wrow + 1)
            with m.If(~last_kw):
                m.d.sync += [kw.eq(kw + 1), off_kw.eq(off_kw + e.st_kw[layer])]
            with m.Else():
                m.d.sync += [kw.eq(0), off_kw.eq(0)]
                with m.If(~last_kh):
                    m.d.sync += [kh.eq(kh + 1), off_kh.eq(off_kh + e.st_kh[layer])]
                with m.Else():
                    m.d.sync += [kh.eq(0), off_kh.eq(0)]
                    with m.If(~last_c):
                        m.d.sync += [c.eq(c + 1), off_c.eq(off_c + e.st_c[layer])]
                    with m.Else():
                        m.d.sync += [c.eq(0), off_c.eq(0)]
                        self._next_group(m, e, px, py, off_px, off_py, wrow)

    @staticmethod
    def _next_group(m, e, px, py, off_px, off_py, wrow):
        """Stage I at a receptive field's last input: the next lane group, else the next position,
        else (the layer's last input) stop issuing and wait for the next layer."""
        L, g, layer = e.L, e.g, e.layer
        with m.If(~e.last_g):
            m.d.sync += [g.eq(g + 1), e.g_base.eq(e.g_base + L)]
        with m.Else():
            m.d.sync += [g.eq(0), e.g_base.eq(0), wrow.eq(e.w_first[layer]),
                         e.pos_base.eq(e.pos_base + e.outs_per_pos[layer])]
            with m.If(px != e.lim_px[layer] - 1):
                m.d.sync += [px.eq(px + 1), off_px.eq(off_px + e.st_px[layer])]
            with m.Else():
                m.d.sync += [px.eq(0), off_px.eq(0), py.eq(py + 1),
                             off_py.eq(off_py + e.st_py[layer])]
            with m.If(e.last_pos):       # the layer's last input this cycle
                m.d.sync += e.issuing.eq(0)
                with m.If(layer != 3):
                    m.d.sync += [e.waiting.eq(1), layer.eq(layer + 1), *e.reset_loops(layer + 1)]

    def _operands(self, m, e):
        """Stages S1 (the read data: the activation byte picked by the layer, the weight row) and
        S1b (``prod[j] = a * w[j]`` from the operands registered in S1; the group's bias row read)."""
        L, g, layer = e.L, e.g, e.layer
        v1, first1, last1 = _stage(m, "v1", 1, e.issuing), _stage(m, "first1", 1, e.first_k), \
            _stage(m, "last1", 1, e.last_k)
        layer1, g1 = _stage(m, "layer1", range(4), layer), _stage(m, "g1", g.shape(), g)
        obase1 = _stage(m, "obase1", range(6400 + 256 + L), e.pos_base + e.g_base)
        final1 = _stage(m, "final1", 1, e.issuing & e.last_k & e.last_g & e.last_pos & (layer == 3))
        a = Signal(8)
        with m.Switch(layer1):
            with m.Case(0):
                m.d.comb += a.eq(self.obs.data)
            with m.Case(2):
                m.d.comb += a.eq(e.c_rd.data)
            with m.Default():
                m.d.comb += a.eq(e.a_rd.data)
        # (xc7 timed estimate: a block RAM read without its output register starts 2.45 ns
        # after the clock, and the activation source's pick in front of each DSP's multiply
        # register made the engine's 16 multiplies 6.84 ns, above 150 MHz's 6.67)
        a_r = _stage(m, "a_r", 8, a)
        w_r = _stage(m, "w_r", data.ArrayLayout(signed(8), L), e.w_rd.data)
        v1b, first1b, last1b = _stage(m, "v1b", 1, v1), _stage(m, "first1b", 1, first1), \
            _stage(m, "last1b", 1, last1)
        layer1b, g1b = _stage(m, "layer1b", range(4), layer1), _stage(m, "g1b", g.shape(), g1)
        obase1b, final1b = _stage(m, "obase1b", obase1.shape(), obase1), _stage(m, "final1b", 1, final1)
        m.d.comb += e.b_rd.addr.eq(e.b_first[layer1b] + g1b)
        e.prod = prod = Signal(data.ArrayLayout(signed(17), L))
        for j in range(L):
            m.d.sync += prod[j].eq(a_r * w_r[j])
        e.v1, e.v1b = v1, v1b
        e.v2, e.first2, e.last2 = _stage(m, "v2", 1, v1b), _stage(m, "first2", 1, first1b), \
            _stage(m, "last2", 1, last1b)
        e.layer2, e.g2 = _stage(m, "layer2", range(4), layer1b), _stage(m, "g2", g.shape(), g1b)
        e.obase2, e.final2 = _stage(m, "obase2", obase1.shape(), obase1b), _stage(m, "final2", 1, final1b)

    @staticmethod
    def _accumulate(m, e):
        """Stage S2: ``acc[j] = (first ? bias[j] : acc[j]) + prod[j]`` (int32)."""
        e.acc = acc = Signal(data.ArrayLayout(signed(ACC_BITS), e.L))
        with m.If(e.v2):
            for j in range(e.L):
                m.d.sync += acc[j].eq(Mux(e.first2, e.b_rd.data[j], acc[j]) + e.prod[j])
        e.v3, e.last3 = _stage(m, "v3", 1, e.v2), _stage(m, "last3", 1, e.last2)
        e.layer3, e.g3 = _stage(m, "layer3", range(4), e.layer2), _stage(m, "g3", e.g.shape(), e.g2)
        e.obase3, e.final3 = _stage(m, "obase3", e.obase2.shape(), e.obase2), _stage(m, "final3", 1, e.final2)

    @staticmethod
    def _capture(m, e):
        """Stage S3: a completed group's accumulators captured for the write-back (``hold``, the
        layer's shift and saturation mask, the bytes to write), or the last layer's written to
        the action-value registers."""
        L, A, layer3, g3 = e.L, e.A, e.layer3, e.g3
        e.hold = hold = Signal(data.ArrayLayout(signed(ACC_BITS), L))   # lane 0 next: shifted down per byte
        e.wb_left = wb_left = Signal(range(L + 1))       # bytes still to requantise
        e.wb_i = wb_i = Signal(range(L))
        e.wb_addr = wb_addr = Signal(e.obase3.shape())
        e.wb_layer = wb_layer = Signal(range(3))
        e.wb_shift = wb_shift = Signal(5)                 # the layer's requantisation shift s
        e.wb_high = wb_high = Signal(ACC_BITS)           # bits at or above s + 8: the shifted value exceeds a byte
        e.values = values = Signal(data.ArrayLayout(signed(ACC_BITS), A))
        e.capture = capture = Signal()
        m.d.comb += capture.eq(e.v3 & e.last3 & (layer3 != 3))
        with m.If(e.v3 & e.last3):
            with m.If(layer3 != 3):
                s_cap = Signal(5)
                m.d.comb += s_cap.eq(e.shifts[layer3])
                m.d.sync += [hold.eq(e.acc), wb_i.eq(0), wb_addr.eq(e.obase3), wb_layer.eq(layer3),
                             wb_shift.eq(s_cap), wb_high.eq(Const((1 << ACC_BITS) - 1, ACC_BITS) << (s_cap + 8)),
                             wb_left.eq(Mux(g3 == e.n_groups[layer3] - 1, e.last_active[layer3], L))]
            with m.Else():
                for o in range(A):
                    with m.If(g3 == o // L):
                        m.d.sync += values[o].eq(e.acc[o % L])
        # (a capture never meets a busy write-back: active <= L <= K, the group length)

    @staticmethod
    def _writeback(m, e):
        """W1..W3: requantise and write back, one byte per cycle.

        ``min((max(x, 0) + 2**(s-1)) >> s, act_max)`` (:func:`nc2600.hls_models.policy_int8.requantize`)
        without a 33-bit add: ``(x >> s) + x[s-1]`` (round half up), saturated when a bit at
        ``s + 8`` or above is set or the byte sum exceeds ``act_max``. W1 takes the byte
        ``x[s+7..s]``, the round bit and the high flag; W2 adds and saturates; W3 writes."""
        L, hold, wb_shift = e.L, e.hold, e.wb_shift
        e.wb_busy = wb_busy = Signal()
        m.d.comb += wb_busy.eq(e.wb_left != 0)
        x = Signal(signed(ACC_BITS))
        m.d.comb += x.eq(hold[0])
        r1_lo, r1_round, r1_high = Signal(8), Signal(), Signal()
        r1_v, r1_addr, r1_layer = Signal(), Signal(e.wb_addr.shape()), Signal(range(3))
        e.r1_v = r1_v
        m.d.sync += r1_v.eq(wb_busy)
        with m.If(wb_busy & ~e.capture):
            m.d.sync += [e.wb_left.eq(e.wb_left - 1), e.wb_i.eq(e.wb_i + 1)]
            for j in range(L - 1):
                m.d.sync += hold[j].eq(hold[j + 1])
        with m.If(wb_busy):
            pos = Signal(ACC_BITS)
            m.d.comb += pos.eq(Mux(x[-1], 0, x.as_unsigned()))
            m.d.sync += [r1_lo.eq((pos >> wb_shift)[:8]),
                         r1_round.eq((wb_shift != 0) & (pos >> (wb_shift - 1)[:5])[0]),
                         r1_high.eq((pos & e.wb_high) != 0),
                         r1_addr.eq(e.wb_addr + e.wb_i), r1_layer.eq(e.wb_layer)]
        r2 = Signal(8)
        r2_v, r2_addr, r2_layer = Signal(), Signal(e.wb_addr.shape()), Signal(range(3))
        rounded = Signal(9)
        m.d.comb += rounded.eq(r1_lo + r1_round)
        m.d.sync += [r2_v.eq(r1_v), r2.eq(Mux(r1_high | (rounded > e.act_max), e.act_max, rounded)),
                     r2_addr.eq(r1_addr), r2_layer.eq(r1_layer)]
        m.d.comb += [e.a_wr.addr.eq(r2_addr), e.a_wr.data.eq(r2), e.a_wr.en.eq(r2_v & (r2_layer != 1)),
                     e.c_wr.addr.eq(r2_addr), e.c_wr.data.eq(r2), e.c_wr.en.eq(r2_v & (r2_layer == 1))]

    def _control(self, m, e):
        """Start, the gaps between layers, ``busy``/``done`` and the action-value stream."""
        pipe_busy = Signal()
        m.d.comb += pipe_busy.eq(e.v1 | e.v1b | e.v2 | e.v3 | e.wb_busy | e.r1_v)
        with m.If(e.waiting & ~pipe_busy):
            m.d.sync += [e.waiting.eq(0), e.issuing.eq(1)]
        m.d.sync += self.control.done.eq(e.v3 & e.final3)
        with m.If(e.v3 & e.final3):
            m.d.sync += self.control.busy.eq(0)
        with m.If(self.control.start & ~self.control.busy):
            m.d.sync += [self.control.busy.eq(1), e.issuing.eq(1), e.waiting.eq(0), e.layer.eq(0),
                         *e.reset_loops(0)]
        out = self.action_values
        with m.If(out.valid & out.ready):
            m.d.sync += out.valid.eq(0)
        with m.If(e.v3 & e.final3):
            m.d.sync += out.valid.eq(1)
        m.d.comb += [out.payload.values.eq(e.values), out.payload.count.eq(e.n_actions)]


def _stage(m, name, shape, value):
    """A pipeline register ``name`` of ``shape`` loaded with ``value`` every clock."""
    sig = Signal(shape, name=name)
    m.d.sync += sig.eq(value)
    return sig


def generate(lanes: int = 16, max_actions: int = MAX_ACTIONS) -> dict[str, str]:
    """``{"policy_engine.v": Verilog}`` of :class:`PolicyEngine` (module ``policy_engine``),
    reproducible; ``rtl/policy_engine.v`` is the 16-lane engine. Cached per process (elaboration
    takes tens of seconds).

    Raises:
        ValueError: ``lanes`` or ``max_actions`` outside the supported range.
    """
    return dict(_generate(lanes, max_actions))


@lru_cache(maxsize=8)
def _generate(lanes: int, max_actions: int) -> tuple[tuple[str, str], ...]:
    top = PolicyEngine(lanes, max_actions)
    text = reproducible.convert(top, "policy_engine")
    return (("policy_engine.v", reproducible.tidy_memories(text)),)
