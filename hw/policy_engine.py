"""The int8 policy inference engine: ``L`` MAC lanes computing the Such et al. network bit for bit.

Computes exactly :meth:`hls_models.policy_int8.QuantizedPolicy.action_values` (int8 weights,
8-bit activation codes, int32 accumulators, per-layer requantisation with ReLU, round half up
by ``s`` bits and saturation at ``act_max``) for conv 16 8x8/4 -> conv 32 4x4/2 -> dense 256 ->
dense ``A`` (``A <= max_actions``, loaded at run time), reading the ``4 x 84 x 84`` observation
stack in place through the preprocessor's read port. Schedule, memory layout, parameter-load
format and the exact cycle count: :mod:`hls_models.policy_engine` (``engine_cycles``).

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
  rule of :func:`hls_models.policy_int8.requantize`) as ``(x >> s) + x[s-1]`` without a 33-bit
  add: W1 the byte ``x[s+7..s]``, the round bit ``x[s-1]`` and a flag for any bit at ``s + 8``
  or above (a mask registered with the capture); W2 the 9-bit sum and the saturation to
  ``act_max``; W3 write to the activation buffer at ``pos*N + n``. The same cycles as the
  33-bit form (xc7 depth: its add and the lane multiplexer would be the engine's 13 xc7 levels).

A layer's first read waits for the previous layer's last write (see
:func:`hls_models.policy_engine.layer_gap_cycles`).

Ports (each a :class:`wiring.Signature` defined once):

- ``obs``: Out(:data:`hw.preprocessor.ObservationReadSignature`): ``frame``/``index`` driven,
  ``data`` one cycle later (the preprocessor's port; the engine must finish before the next
  pushed frame overwrites the stack).
- ``params``: In(:data:`ParameterWriteSignature`): one 32-bit write per cycle, accepted only
  while not ``busy`` (writes during an inference are dropped, so a running inference is never
  corrupted). Writes outside the engine's rows/lanes, an ``n_actions`` outside 1..max_actions
  or an ``act_max`` other than 127/255 are dropped too; the host loader
  (:func:`hls_models.policy_engine.load_words`) refuses such parameters with a ValueError first.
- ``control`` (:data:`InferenceControlSignature`): ``start`` In(1) (sampled when not busy),
  ``busy`` Out(1) (the cycle after ``start`` until the cycle before ``done``), ``done`` Out(1)
  (one-cycle strobe, :func:`hls_models.policy_engine.engine_cycles` cycles after ``start``).
- ``action_values``: Out(:func:`action_values_signature`): the ``A`` int32 values and
  ``count = A`` as one stream beat; ``valid`` rises with ``done`` and stays until ``ready``
  (a later ``done`` overwrites an unaccepted beat). :class:`hw.action_select.ActionSelect` consumes it.
"""
from __future__ import annotations

from functools import lru_cache

from amaranth import Array, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hls_models import policy_engine as model
from hls_models.action_select import MAX_ACTIONS
from hls_models.policy_int8 import layer_dims
from hw import reproducible
from hw.interfaces import (ACC_BITS, InferenceControlSignature, ObservationReadSignature, ParameterSpace,
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
        lanes: MAC lanes ``L``, a multiple of 4 in 4..256 (:func:`hls_models.policy_engine.check_lanes`).
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
        L, A = self.lanes, self.max_actions
        dims = layer_dims(A)                                   # (name, P, N, K), dense2 at A
        wrows, brows = model.weight_rows(L, A), model.bias_rows(L, A)
        wbase, bbase = model.bases(wrows), model.bases(brows)

        # ---- memories ------------------------------------------------------------------
        m.submodules.weights = wmem = Memory(shape=data.ArrayLayout(signed(8), L), depth=sum(wrows), init=[])
        m.submodules.biases = bmem = Memory(shape=data.ArrayLayout(signed(ACC_BITS), L), depth=sum(brows),
                                            init=[])
        m.submodules.act_a = amem = Memory(shape=8, depth=20 * 20 * 16, init=[])   # conv1 out, dense1 out
        m.submodules.act_b = cmem = Memory(shape=8, depth=9 * 9 * 32, init=[])     # conv2 out
        w_rd, w_wr = wmem.read_port(), wmem.write_port(granularity=4)
        b_rd, b_wr = bmem.read_port(), bmem.write_port(granularity=1)
        a_rd, a_wr = amem.read_port(), amem.write_port()
        c_rd, c_wr = cmem.read_port(), cmem.write_port()

        # ---- configuration and parameter load --------------------------------------------
        n_actions = Signal(range(A + 1), init=A)
        act_max = Signal(8, init=255)
        shifts = Array(Signal(5, name=f"s{i + 1}") for i in range(3))
        p = self.params
        accept = Signal()
        m.d.comb += accept.eq(p.valid & ~self.control.busy)
        m.d.comb += [
            w_wr.addr.eq(p.row), w_wr.data.as_value().eq(p.data.replicate(L // 4)),
            b_wr.addr.eq(p.row), b_wr.data.as_value().eq(p.data.replicate(L)),
        ]
        with m.If(accept & (p.space == ParameterSpace.WEIGHTS) & (p.row < sum(wrows)) & (p.lane < L)):
            m.d.comb += w_wr.en.eq(Const(1, L // 4) << p.lane[2:])
        with m.If(accept & (p.space == ParameterSpace.BIASES) & (p.row < sum(brows)) & (p.lane < L)):
            m.d.comb += b_wr.en.eq(Const(1, L) << p.lane)
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

        # ---- per-layer constants ----------------------------------------------------------
        def table(values, shape=None):
            values = [int(v) for v in values]
            shape = shape or range(max(values) + 1)
            return Array(Const(v, shape) for v in values)

        g_dense2 = table([max(1, model.groups(a, L)) for a in range(A + 1)])[n_actions]
        n_groups = Array([Const(model.groups(n, L)) for _, _, n, _ in dims[:3]] + [g_dense2])
        lim_py, lim_px = table([20, 9, 1, 1]), table([20, 9, 1, 1])
        lim_c, lim_kh, lim_kw = table([4, 16, 2592, 256]), table([8, 4, 1, 1]), table([8, 4, 1, 1])
        st_kw, st_kh, st_c = table([1, 16, 0, 0]), table([84, 320, 0, 0]), table([0, 1, 1, 1])
        st_px, st_py = table([4, 32, 0, 0]), table([4 * 84, 2 * 20 * 16, 0, 0])
        outs_per_pos = table([16, 32, 256, 0])                 # N: write address pos*N + n
        w_first = table(wbase)
        b_first = table(bbase)
        last_active = table([model.last_group_active(n, L) for _, _, n, _ in dims[:3]] + [0])

        # ---- I: issue counters -------------------------------------------------------------
        issuing = Signal()          # a read is issued this cycle
        waiting = Signal()          # between layers: wait for the write-back to finish
        layer = Signal(range(4))
        py, px = Signal(range(20)), Signal(range(20))
        g = Signal(range(max(model.groups(256, L), 2)))
        c = Signal(range(2592))
        kh, kw = Signal(range(8)), Signal(range(8))
        off_py, off_px, off_c, off_kh, off_kw = (Signal(range(8192), name=n)
                                                 for n in ("off_py", "off_px", "off_c", "off_kh", "off_kw"))
        pos_base = Signal(range(6400))                         # pos * N
        g_base = Signal(range(256 + L))                        # g * L
        wrow = Signal(range(sum(wrows)))
        addr = Signal(range(8192))
        m.d.comb += addr.eq(off_py + off_px + off_c + off_kh + off_kw)
        m.d.comb += [
            self.obs.frame.eq(c[:2]), self.obs.index.eq(addr),
            a_rd.addr.eq(addr), c_rd.addr.eq(addr), w_rd.addr.eq(wrow),
        ]
        # the layer's loop limits less one, registered when the layer is entered (reset_loops), so
        # that the last-index tests compare two registers instead of reading the per-layer tables
        # through ``layer`` first (xc7 depth: table, compare and the loop nest would be 10 xc7 levels in
        # the instance). n_actions (in n_groups[3]) cannot change during an inference: parameter
        # writes are dropped while busy.
        limits = {"kw": lim_kw, "kh": lim_kh, "c": lim_c, "g": n_groups, "px": lim_px, "py": lim_py}
        lim1 = {k: Signal(range(2592), name=f"lim1_{k}") for k in limits}     # lim_c's 2592 the largest
        last_kw, last_kh, last_c = kw == lim1["kw"], kh == lim1["kh"], c == lim1["c"]
        last_k = Signal()
        last_g = Signal()
        last_pos = Signal()
        m.d.comb += [last_k.eq(last_kw & last_kh & last_c), last_g.eq(g == lim1["g"]),
                     last_pos.eq((px == lim1["px"]) & (py == lim1["py"]))]
        first_k = (kw == 0) & (kh == 0) & (c == 0)

        def reset_loops(next_layer):
            return [py.eq(0), px.eq(0), g.eq(0), c.eq(0), kh.eq(0), kw.eq(0), off_py.eq(0), off_px.eq(0),
                    off_c.eq(0), off_kh.eq(0), off_kw.eq(0), pos_base.eq(0), g_base.eq(0),
                    wrow.eq(w_first[next_layer]),
                    *(lim1[k].eq(t[next_layer] - 1) for k, t in limits.items())]

        with m.If(issuing):
            m.d.sync += wrow.eq(wrow + 1)
            with m.If(~last_kw):
                m.d.sync += [kw.eq(kw + 1), off_kw.eq(off_kw + st_kw[layer])]
            with m.Else():
                m.d.sync += [kw.eq(0), off_kw.eq(0)]
                with m.If(~last_kh):
                    m.d.sync += [kh.eq(kh + 1), off_kh.eq(off_kh + st_kh[layer])]
                with m.Else():
                    m.d.sync += [kh.eq(0), off_kh.eq(0)]
                    with m.If(~last_c):
                        m.d.sync += [c.eq(c + 1), off_c.eq(off_c + st_c[layer])]
                    with m.Else():
                        m.d.sync += [c.eq(0), off_c.eq(0)]
                        with m.If(~last_g):
                            m.d.sync += [g.eq(g + 1), g_base.eq(g_base + L)]
                        with m.Else():
                            m.d.sync += [g.eq(0), g_base.eq(0), wrow.eq(w_first[layer]),
                                         pos_base.eq(pos_base + outs_per_pos[layer])]
                            with m.If(px != lim_px[layer] - 1):
                                m.d.sync += [px.eq(px + 1), off_px.eq(off_px + st_px[layer])]
                            with m.Else():
                                m.d.sync += [px.eq(0), off_px.eq(0), py.eq(py + 1),
                                             off_py.eq(off_py + st_py[layer])]
                            with m.If(last_pos):       # the layer's last input this cycle
                                m.d.sync += issuing.eq(0)
                                with m.If(layer != 3):
                                    m.d.sync += [waiting.eq(1), layer.eq(layer + 1), *reset_loops(layer + 1)]

        # ---- S1: the read data ----------------------------------------------------------------
        def stage(name, shape, value):
            sig = Signal(shape, name=name)
            m.d.sync += sig.eq(value)
            return sig

        v1, first1, last1 = stage("v1", 1, issuing), stage("first1", 1, first_k), stage("last1", 1, last_k)
        layer1, g1 = stage("layer1", range(4), layer), stage("g1", g.shape(), g)
        obase1 = stage("obase1", range(6400 + 256 + L), pos_base + g_base)
        final1 = stage("final1", 1, issuing & last_k & last_g & last_pos & (layer == 3))
        a = Signal(8)
        with m.Switch(layer1):
            with m.Case(0):
                m.d.comb += a.eq(self.obs.data)
            with m.Case(2):
                m.d.comb += a.eq(c_rd.data)
            with m.Default():
                m.d.comb += a.eq(a_rd.data)
        # ---- S1b: multiply, from the operands registered in S1 --------------------------------
        # (xc7 timed estimate: a block RAM read without its output register starts 2.45 ns
        # after the clock, and the activation source's pick in front of each DSP's multiply
        # register made the engine's 16 multiplies 6.84 ns, above 150 MHz's 6.67)
        a_r = stage("a_r", 8, a)
        w_r = stage("w_r", data.ArrayLayout(signed(8), L), w_rd.data)
        v1b, first1b, last1b = stage("v1b", 1, v1), stage("first1b", 1, first1), stage("last1b", 1, last1)
        layer1b, g1b = stage("layer1b", range(4), layer1), stage("g1b", g.shape(), g1)
        obase1b, final1b = stage("obase1b", obase1.shape(), obase1), stage("final1b", 1, final1)
        m.d.comb += b_rd.addr.eq(b_first[layer1b] + g1b)
        prod = Signal(data.ArrayLayout(signed(17), L))
        for j in range(L):
            m.d.sync += prod[j].eq(a_r * w_r[j])
        v2, first2, last2 = stage("v2", 1, v1b), stage("first2", 1, first1b), stage("last2", 1, last1b)
        layer2, g2 = stage("layer2", range(4), layer1b), stage("g2", g.shape(), g1b)
        obase2, final2 = stage("obase2", obase1.shape(), obase1b), stage("final2", 1, final1b)

        # ---- S2: accumulate ----------------------------------------------------------------
        acc = Signal(data.ArrayLayout(signed(ACC_BITS), L))
        with m.If(v2):
            for j in range(L):
                m.d.sync += acc[j].eq(Mux(first2, b_rd.data[j], acc[j]) + prod[j])
        v3, last3 = stage("v3", 1, v2), stage("last3", 1, last2)
        layer3, g3 = stage("layer3", range(4), layer2), stage("g3", g.shape(), g2)
        obase3, final3 = stage("obase3", obase2.shape(), obase2), stage("final3", 1, final2)

        # ---- S3: capture for write-back, or action values ------------------------------------
        hold = Signal(data.ArrayLayout(signed(ACC_BITS), L))   # lane 0 next: shifted down per byte
        wb_left = Signal(range(L + 1))       # bytes still to requantise
        wb_i = Signal(range(L))
        wb_addr = Signal(obase3.shape())
        wb_layer = Signal(range(3))
        wb_shift = Signal(5)                 # the layer's requantisation shift s
        wb_high = Signal(ACC_BITS)           # bits at or above s + 8: the shifted value exceeds a byte
        values = Signal(data.ArrayLayout(signed(ACC_BITS), A))
        capture = Signal()
        m.d.comb += capture.eq(v3 & last3 & (layer3 != 3))
        with m.If(v3 & last3):
            with m.If(layer3 != 3):
                s_cap = Signal(5)
                m.d.comb += s_cap.eq(shifts[layer3])
                m.d.sync += [hold.eq(acc), wb_i.eq(0), wb_addr.eq(obase3), wb_layer.eq(layer3),
                             wb_shift.eq(s_cap), wb_high.eq(Const((1 << ACC_BITS) - 1, ACC_BITS) << (s_cap + 8)),
                             wb_left.eq(Mux(g3 == n_groups[layer3] - 1, last_active[layer3], L))]
            with m.Else():
                for o in range(A):
                    with m.If(g3 == o // L):
                        m.d.sync += values[o].eq(acc[o % L])
        # (a capture never meets a busy write-back: active <= L <= K, the group length)

        # ---- W1..W3: requantise and write back, one byte per cycle --------------------------
        # min((max(x, 0) + 2**(s-1)) >> s, act_max) (hls_models.policy_int8.requantize) without a
        # 33-bit add: (x >> s) + x[s-1] (round half up), saturated when a bit at s + 8 or above is
        # set or the byte sum exceeds act_max. W1 takes the byte x[s+7..s], the round bit and the
        # high flag; W2 adds and saturates.
        wb_busy = Signal()
        m.d.comb += wb_busy.eq(wb_left != 0)
        x = Signal(signed(ACC_BITS))
        m.d.comb += x.eq(hold[0])
        r1_lo, r1_round, r1_high = Signal(8), Signal(), Signal()
        r1_v, r1_addr, r1_layer = Signal(), Signal(wb_addr.shape()), Signal(range(3))
        m.d.sync += r1_v.eq(wb_busy)
        with m.If(wb_busy & ~capture):
            m.d.sync += [wb_left.eq(wb_left - 1), wb_i.eq(wb_i + 1)]
            for j in range(L - 1):
                m.d.sync += hold[j].eq(hold[j + 1])
        with m.If(wb_busy):
            pos = Signal(ACC_BITS)
            m.d.comb += pos.eq(Mux(x[-1], 0, x.as_unsigned()))
            m.d.sync += [r1_lo.eq((pos >> wb_shift)[:8]),
                         r1_round.eq((wb_shift != 0) & (pos >> (wb_shift - 1)[:5])[0]),
                         r1_high.eq((pos & wb_high) != 0),
                         r1_addr.eq(wb_addr + wb_i), r1_layer.eq(wb_layer)]
        r2 = Signal(8)
        r2_v, r2_addr, r2_layer = Signal(), Signal(wb_addr.shape()), Signal(range(3))
        rounded = Signal(9)
        m.d.comb += rounded.eq(r1_lo + r1_round)
        m.d.sync += [r2_v.eq(r1_v), r2.eq(Mux(r1_high | (rounded > act_max), act_max, rounded)), r2_addr.eq(r1_addr),
                     r2_layer.eq(r1_layer)]
        m.d.comb += [a_wr.addr.eq(r2_addr), a_wr.data.eq(r2), a_wr.en.eq(r2_v & (r2_layer != 1)),
                     c_wr.addr.eq(r2_addr), c_wr.data.eq(r2), c_wr.en.eq(r2_v & (r2_layer == 1))]

        # ---- control: start, layer gaps, done, output stream --------------------------------
        pipe_busy = Signal()
        m.d.comb += pipe_busy.eq(v1 | v1b | v2 | v3 | wb_busy | r1_v)
        with m.If(waiting & ~pipe_busy):
            m.d.sync += [waiting.eq(0), issuing.eq(1)]
        m.d.sync += self.control.done.eq(v3 & final3)
        with m.If(v3 & final3):
            m.d.sync += self.control.busy.eq(0)
        with m.If(self.control.start & ~self.control.busy):
            m.d.sync += [self.control.busy.eq(1), issuing.eq(1), waiting.eq(0), layer.eq(0), *reset_loops(0)]
        out = self.action_values
        with m.If(out.valid & out.ready):
            m.d.sync += out.valid.eq(0)
        with m.If(v3 & final3):
            m.d.sync += out.valid.eq(1)
        m.d.comb += [out.payload.values.eq(values), out.payload.count.eq(n_actions)]
        return m


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
