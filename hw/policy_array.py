"""The array inference engine: ``R x C`` MACs computing the Such et al. network bit for bit.

Computes exactly :meth:`nc2600.hls_models.policy_int8.QuantizedPolicy.action_values` for conv 16
8x8/4 -> conv 32 4x4/2 -> dense 256 -> dense ``A`` (``A <= max_actions``, loaded at run time).
Each cycle the ``R`` rows take one ``R``-byte word of the layer's input (observation word or
activation word, one read), each of the ``C`` columns multiplies it by its own ``R`` weights
(one ``R*C``-byte weight word) and sums the products in a registered adder tree into its int32
accumulator. Schedule, memory layout and banking, parameter-load format and the exact cycle
count: :mod:`nc2600.hls_models.policy_array` (``engine_cycles``).

Pipeline (cycle after the issue of an input word: stage):

- 0: the loop counters (layer, position ``py, px``, column group ``g``, pass cycle
  ``hh, ww, cc``) address the input word (observation port, buffer ``A`` or ``B``, the same
  address) and the weight word;
- 1: the input word (picked by layer) and the weight word, registered;
- 2: ``prod[r][j] = a[r] * w[r][j]`` (8-bit code x int8, one DSP48E1 multiplier each), registered;
- 3 .. 2 + log2 R: one registered adder-tree level per stage, per column;
- 3 + log2 R: ``acc[j] = (first ? bias[j] : acc[j]) + sum[j]`` (the bias row read the cycle before);
- 4 + log2 R: at a pass's end, ``C`` requantisers at once take the byte ``x[s+7..s]``, the round
  bit ``x[s-1]`` and a flag for any bit at ``s + 8`` or above of ``max(acc, 0)`` (the last layer:
  the accumulators go to the action-value registers and ``done`` follows);
- 5 + log2 R: ``min(byte + round, act_max)`` or ``act_max`` when flagged
  (:func:`nc2600.hls_models.policy_int8.requantize`);
- 6 + log2 R: the ``C`` bytes are written into ``C`` consecutive lanes of one word of the next
  buffer (byte enables).

A layer's first read comes :func:`nc2600.hls_models.policy_array.layer_gap_cycles` idle cycles after
the previous layer's last (a countdown), so it sees that layer's last write.

Ports (each a :class:`wiring.Signature`):

- ``obs``: Out(:func:`nc2600.hw.interfaces.observation_word_signature`): ``addr`` driven, ``data`` (``R`` bytes, lane
  ``r`` in bits ``8r..8r+7``) one cycle later, the stack in
  :func:`nc2600.hls_models.policy_array.obs_words`'s layout; the engine must finish before the stack
  changes.
- ``params``: In(:data:`nc2600.hw.policy_engine.ParameterWriteSignature`), ``control``
  (:data:`nc2600.hw.policy_engine.InferenceControlSignature`) and ``action_values``
  (:func:`nc2600.hw.policy_engine.action_values_signature`) as :class:`nc2600.hw.policy_engine.PolicyEngine`'s:
  writes accepted only while not busy, out-of-range rows/lanes/configuration values dropped;
  ``done`` a strobe :func:`nc2600.hls_models.policy_array.engine_cycles` cycles after ``start``.
"""
from __future__ import annotations

from functools import lru_cache

from amaranth import Array, Cat, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from nc2600.hls_models import policy_array as model
from nc2600.hls_models.action_select import MAX_ACTIONS
from nc2600.hls_models.policy_engine import CONFIG_ACT_MAX, CONFIG_N_ACTIONS, CONFIG_SHIFT0, MAX_SHIFT, check_actions
from nc2600.hw import reproducible
from nc2600.hw.interfaces import (ACC_BITS, OBS_BYTES, InferenceControlSignature, ParameterSpace,
                           ParameterWriteSignature, action_values_signature, observation_word_signature)

def array_engine_signature(rows: int, max_actions: int = MAX_ACTIONS) -> wiring.Signature:
    """The ports of :class:`ArrayPolicyEngine` (module doc)."""
    return wiring.Signature({
        "obs": Out(observation_word_signature(rows)),
        "params": In(ParameterWriteSignature),
        "control": Out(InferenceControlSignature),
        "action_values": Out(action_values_signature(max_actions)),
    })


class ArrayPolicyEngine(wiring.Component):
    """The array inference engine (module doc).

    Args:
        rows: array rows ``R`` (inputs per column per cycle), 4..32, a power of two.
        cols: array columns ``C`` (outputs per pass), 4..16, a power of two, ``C <= R``
            (:func:`nc2600.hls_models.policy_array.check_shape`).
        max_actions: largest action count (the action-value registers), 1..18.
        weight_words: the weight memory's depth in words of ``R * C`` bytes; None (the default):
            every word of the network (:func:`nc2600.hls_models.policy_array.weight_rows`). A smaller
            memory (a power of two, 16..4096; the word address wraps) keeps the datapath and the
            control as they are, for placing and routing them on a part whose block RAM cannot hold
            the network's weights (the LIFCL-40: 3.1 Mbit against 5.4 Mbit); such an engine does not
            compute the network.
    Raises:
        ValueError: a parameter outside its range, named.
    """

    def __init__(self, rows: int = 16, cols: int = 16, max_actions: int = MAX_ACTIONS,
                 weight_words: int | None = None):
        try:
            try:
                self.rows, self.cols = model.check_shape(rows, cols)
            except ValueError as exc:
                raise ValueError(f"ArrayPolicyEngine: {exc}") from None
            self.max_actions = check_actions(max_actions, MAX_ACTIONS)
            if weight_words is not None and (isinstance(weight_words, bool) or not isinstance(weight_words, int)
                                             or weight_words not in [1 << k for k in range(4, 13)]):
                raise ValueError(f"ArrayPolicyEngine: weight_words must be None or a power of two in 16..4096, "
                                 f"got {weight_words!r}")
        except ValueError:
            self._MustUse__silence = True   # not built: no unused-elaboratable warning
            raise
        self.plan = model.layer_plan(self.rows, self.cols, self.max_actions)
        self.weight_words = weight_words
        super().__init__(array_engine_signature(self.rows, self.max_actions))

    # ---- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _table(values, shape=None):
        values = [int(v) for v in values]
        return Array(Const(v, shape or range(max(values) + 1)) for v in values)

    def _parameters(self, m, wmem, bmem, busy):
        """The parameter write port: weights, biases, configuration registers."""
        R, C, A = self.rows, self.cols, self.max_actions
        w_wr, b_wr = wmem.write_port(granularity=4), bmem.write_port(granularity=1)
        n_actions = Signal(range(A + 1), init=A)
        act_max = Signal(8, init=255)
        shifts = Array(Signal(5, name=f"s{i + 1}") for i in range(3))
        p = self.params
        accept = Signal()
        m.d.comb += [accept.eq(p.valid & ~busy),
                     w_wr.addr.eq(p.row), w_wr.data.as_value().eq(p.data.replicate(R * C // 4)),
                     b_wr.addr.eq(p.row), b_wr.data.as_value().eq(p.data.replicate(C))]
        with m.If(accept & (p.space == ParameterSpace.WEIGHTS) & (p.row < wmem.depth)):
            m.d.comb += w_wr.en.eq(Cat(p.lane == i for i in range(R * C // 4)))
        with m.If(accept & (p.space == ParameterSpace.BIASES) & (p.row < bmem.depth)):
            m.d.comb += b_wr.en.eq(Cat(p.lane == j for j in range(C)))
        with m.If(accept & (p.space == ParameterSpace.CONFIG)):
            with m.Switch(p.row):
                with m.Case(CONFIG_N_ACTIONS):
                    with m.If((p.data >= 1) & (p.data <= A)):
                        m.d.sync += n_actions.eq(p.data)
                with m.Case(CONFIG_ACT_MAX):
                    with m.If((p.data == 127) | (p.data == 255)):
                        m.d.sync += act_max.eq(p.data)
                for i in range(3):
                    with m.Case(CONFIG_SHIFT0 + i):
                        with m.If(p.data <= MAX_SHIFT):
                            m.d.sync += shifts[i].eq(p.data)
        return n_actions, act_max, shifts

    def _write_target(self, layer, py, px, g):
        """``(word, lane block)`` of the next buffer where a pass's ``C`` outputs go (model doc):
        conv1 -> conv2's tiled input, conv2 -> dense1's flat input, dense1 -> dense2's. Every
        divisor is a power of two (shifts and slices)."""
        R, C = self.rows, self.cols
        lg = lambda v: int(v).bit_length() - 1           # noqa: E731
        nxt = self.plan[1]
        rc, rh, rw = nxt["tiling"]
        n_cc, gc = nxt["in_c"] // rc, g << lg(C)
        conv1_word = ((py >> lg(rh)) * (nxt["in_w"] // rw) + (px >> lg(rw))) * n_cc + (gc >> lg(rc))
        conv1_lane = (((py[:lg(rh)] if rh > 1 else 0) * rw + (px[:lg(rw)] if rw > 1 else 0)) * rc
                      + gc[:lg(rc)])
        k2 = (py * nxt["out_w"] + px) * nxt["N"] + gc
        word = Mux(layer == 0, conv1_word, Mux(layer == 1, k2 >> lg(R), gc >> lg(R)))
        lane = Mux(layer == 0, conv1_lane, Mux(layer == 1, k2[:lg(R)], gc[:lg(R)]))
        return word, lane >> lg(C)

    # ---- elaboration ------------------------------------------------------------------------
    def elaborate(self, platform):
        m = Module()
        R, C, A, plan = self.rows, self.cols, self.max_actions, self.plan
        levels = model.tree_levels(R)
        wrows, brows = model.weight_rows(R, C, A), model.bias_rows(R, C, A)
        wbase, bbase = model.bases(wrows), model.bases(brows)

        w_depth = sum(wrows) if self.weight_words is None else self.weight_words
        m.submodules.weights = wmem = Memory(shape=data.ArrayLayout(signed(8), R * C), depth=w_depth, init=[])
        m.submodules.biases = bmem = Memory(shape=data.ArrayLayout(signed(ACC_BITS), C), depth=sum(brows), init=[])
        a_depth = max(plan[0]["P"] * plan[0]["N"], plan[2]["N"]) // R
        m.submodules.act_a = amem = Memory(shape=data.ArrayLayout(8, R), depth=a_depth, init=[])  # conv1, dense1 out
        m.submodules.act_b = cmem = Memory(shape=data.ArrayLayout(8, R), depth=plan[1]["P"] * plan[1]["N"] // R,
                                           init=[])                                              # conv2 out
        w_rd, b_rd, a_rd, c_rd = wmem.read_port(), bmem.read_port(), amem.read_port(), cmem.read_port()
        a_wr, c_wr = amem.write_port(granularity=1), cmem.write_port(granularity=1)
        busy = self.control.busy
        n_actions, act_max, shifts = self._parameters(m, wmem, bmem, busy)

        issue = self._issue(m, n_actions, wbase, bbase)
        addr, wrow = issue["addr"], issue["wrow"]
        m.d.comb += [self.obs.addr.eq(addr), a_rd.addr.eq(addr), c_rd.addr.eq(addr), w_rd.addr.eq(wrow)]

        def delay(value, n, name):
            """``value`` registered ``n`` times: ``[value, d1, ..., dn]``."""
            out = [value]
            for i in range(n):
                sig = Signal.like(value, name=f"{name}_d{i + 1}")
                m.d.sync += sig.eq(out[-1])
                out.append(sig)
            return out

        acc_stage = 3 + levels                                  # stage of the accumulate
        v = delay(issue["valid"], acc_stage + 1, "v")
        first = delay(issue["first"], acc_stage, "first")
        last = delay(issue["last"], acc_stage + 1, "last")
        final = delay(issue["final"], acc_stage + 1, "final")
        layer = delay(issue["layer"], acc_stage + 1, "layer")
        group = delay(issue["g"], acc_stage + 1, "g")
        brow = delay(issue["brow"], acc_stage - 1, "brow")
        word = delay(issue["wr_word"], acc_stage + 1, "wr_word")
        block = delay(issue["wr_block"], acc_stage + 1, "wr_block")
        m.d.comb += b_rd.addr.eq(brow[acc_stage - 1])

        # ---- 1: operands; 2: products; 3..: adder tree; accumulate -------------------------------
        a_in = Signal(8 * R)
        with m.Switch(layer[1]):
            with m.Case(0):
                m.d.comb += a_in.eq(self.obs.data)
            with m.Case(2):
                m.d.comb += a_in.eq(c_rd.data.as_value())
            with m.Default():
                m.d.comb += a_in.eq(a_rd.data.as_value())
        # every datapath register of stage k + 1 loads only when stage k holds a valid word
        # (v[k]; the multipliers' and adders' clock enables): between inferences and in the layer
        # gaps the array holds still, and the values that reach the accumulate are the same
        a_r = Signal(data.ArrayLayout(unsigned(8), R))
        w_r = Signal(data.ArrayLayout(signed(8), R * C))
        with m.If(v[1]):
            m.d.sync += [a_r.eq(a_in), w_r.eq(w_rd.data)]
        level = []
        for j in range(C):
            col = []
            for r in range(R):
                p = Signal(signed(17), name=f"prod_{r}_{j}")
                with m.If(v[2]):
                    m.d.sync += p.eq(a_r[r] * w_r[r * C + j])
                col.append(p)
            level.append(col)
        for lv in range(levels):
            nxt_level = []
            for j, col in enumerate(level):
                sums = []
                for i in range(0, len(col), 2):
                    s = Signal(signed(18 + lv), name=f"sum{lv + 1}_{i // 2}_{j}")
                    with m.If(v[3 + lv]):
                        m.d.sync += s.eq(col[i] + col[i + 1])
                    sums.append(s)
                nxt_level.append(sums)
            level = nxt_level
        # one sum per column after log2 R levels; the memory read, the operand and product registers
        # and the tree levels are the stages before the accumulate, as the model counts them
        assert all(len(col) == 1 for col in level)
        assert acc_stage + 1 == model.mac_pipeline_cycles(R)
        acc = Signal(data.ArrayLayout(signed(ACC_BITS), C))
        with m.If(v[acc_stage]):
            for j in range(C):
                m.d.sync += acc[j].eq(Mux(first[acc_stage], b_rd.data[j], acc[j]) + level[j][0])

        self._writeback(m, acc, act_max, shifts, a_wr, c_wr,
                        {k: s[acc_stage + 1] for k, s in (("v", v), ("last", last), ("layer", layer),
                                                          ("word", word), ("block", block))},
                        layer[acc_stage])

        # ---- the last layer: action values, done ---------------------------------------------
        values = Signal(data.ArrayLayout(signed(ACC_BITS), A))
        fin = v[acc_stage + 1] & final[acc_stage + 1]
        with m.If(v[acc_stage + 1] & last[acc_stage + 1] & (layer[acc_stage + 1] == 3)):
            for o in range(A):
                with m.If(group[acc_stage + 1] == o // C):
                    m.d.sync += values[o].eq(acc[o % C])
        m.d.sync += self.control.done.eq(fin)
        with m.If(fin):
            m.d.sync += busy.eq(0)
        with m.If(self.control.start & ~busy):
            m.d.sync += busy.eq(1)
        out = self.action_values
        with m.If(out.valid & out.ready):
            m.d.sync += out.valid.eq(0)
        with m.If(fin):
            m.d.sync += out.valid.eq(1)
        m.d.comb += [out.payload.values.eq(values), out.payload.count.eq(n_actions)]
        return m

    def _issue(self, m, n_actions, wbase, bbase):
        """Stage 0: the loop nest, the input and weight addresses, the layer gaps. Returns the
        stage-0 signals (``valid, first, last, final, layer, g, brow, wr_word, wr_block, addr, wrow``)."""
        R, C, A, plan = self.rows, self.cols, self.max_actions, self.plan
        T = self._table
        n_layers = len(plan)

        def conv(p, key, default):
            return p[key] if p["kind"] == "conv" else default

        n_cc = [p["in_c"] // p["tiling"][0] if p["kind"] == "conv" else p["T"] for p in plan]
        n_ww = [conv(p, "kernel", 1) // conv(p, "tiling", (1, 1, 1))[2] for p in plan]
        n_hh = [conv(p, "kernel", 1) // conv(p, "tiling", (1, 1, 1))[1] for p in plan]
        row_words = [p["in_w"] // p["tiling"][2] * n_cc[i] if p["kind"] == "conv" else 0 for i, p in enumerate(plan)]
        st_ww = [n_cc[i] if p["kind"] == "conv" else 0 for i, p in enumerate(plan)]
        st_px = [p["stride"] // p["tiling"][2] * n_cc[i] if p["kind"] == "conv" else 0 for i, p in enumerate(plan)]
        st_py = [p["stride"] // p["tiling"][1] * row_words[i] if p["kind"] == "conv" else 0
                 for i, p in enumerate(plan)]
        lim_px, lim_py = [p["out_w"] for p in plan], [p["out_h"] for p in plan]
        g_last = T([max(1, -(-a // C)) for a in range(A + 1)])[n_actions]
        n_groups = Array([Const(p["G"]) for p in plan[:-1]] + [g_last])

        issuing, layer = Signal(), Signal(range(n_layers))
        wait = Signal(range(model.layer_gap_cycles(R) + 1))
        py, px = Signal(range(max(lim_py))), Signal(range(max(lim_px)))
        g = Signal(range(max(p["G"] for p in plan)))
        cc, ww, hh = Signal(range(max(n_cc))), Signal(range(max(n_ww))), Signal(range(max(n_hh)))
        depth = max(OBS_BYTES // R, max(p["in_h"] * p["in_w"] * p["in_c"] // R for p in plan))
        off_pos, off_hh, off_ww = (Signal(range(depth), name=n) for n in ("off_pos", "off_hh", "off_ww"))
        off_row = Signal(range(depth))                 # off_pos at the start of the current position row
        wrow = Signal(range(sum(model.weight_rows(R, C, A))))
        addr = Signal(range(depth))
        m.d.comb += addr.eq(off_pos + off_hh + off_ww + cc)

        limits = {"cc": T(n_cc), "ww": T(n_ww), "hh": T(n_hh), "g": n_groups, "px": T(lim_px), "py": T(lim_py)}
        lim_top = max(max(n_cc), max(n_ww), max(n_hh), max(p["G"] for p in plan), max(lim_px), max(lim_py))
        lim1 = {k: Signal(range(lim_top), name=f"lim1_{k}") for k in limits}
        last_cc, last_ww, last_hh = cc == lim1["cc"], ww == lim1["ww"], hh == lim1["hh"]
        last_t, last_g = Signal(), Signal()
        last_px, last_pos = Signal(), Signal()
        m.d.comb += [last_t.eq(last_cc & last_ww & last_hh), last_g.eq(g == lim1["g"]),
                     last_px.eq(px == lim1["px"]), last_pos.eq(last_px & (py == lim1["py"]))]

        def reset_loops(next_layer):
            return [py.eq(0), px.eq(0), g.eq(0), cc.eq(0), ww.eq(0), hh.eq(0), off_pos.eq(0), off_row.eq(0),
                    off_hh.eq(0), off_ww.eq(0), wrow.eq(T(wbase)[next_layer]),
                    *(lim1[k].eq(t[next_layer] - 1) for k, t in limits.items())]

        with m.If(issuing):
            m.d.sync += wrow.eq(wrow + 1)
            with m.If(~last_cc):
                m.d.sync += cc.eq(cc + 1)
            with m.Else():
                m.d.sync += cc.eq(0)
                with m.If(~last_ww):
                    m.d.sync += [ww.eq(ww + 1), off_ww.eq(off_ww + T(st_ww)[layer])]
                with m.Else():
                    m.d.sync += [ww.eq(0), off_ww.eq(0)]
                    with m.If(~last_hh):
                        m.d.sync += [hh.eq(hh + 1), off_hh.eq(off_hh + T(row_words)[layer])]
                    with m.Else():
                        m.d.sync += [hh.eq(0), off_hh.eq(0)]
                        with m.If(~last_g):
                            m.d.sync += g.eq(g + 1)
                        with m.Else():
                            m.d.sync += [g.eq(0), wrow.eq(T(wbase)[layer])]
                            with m.If(~last_px):
                                m.d.sync += [px.eq(px + 1), off_pos.eq(off_pos + T(st_px)[layer])]
                            with m.Else():
                                m.d.sync += [px.eq(0), py.eq(py + 1), off_pos.eq(off_row + T(st_py)[layer]),
                                             off_row.eq(off_row + T(st_py)[layer])]
                            with m.If(last_pos):       # the layer's last input this cycle
                                m.d.sync += issuing.eq(0)
                                with m.If(layer != n_layers - 1):
                                    m.d.sync += [wait.eq(model.layer_gap_cycles(R)), layer.eq(layer + 1),
                                                 *reset_loops(layer + 1)]
        with m.If(wait != 0):
            m.d.sync += wait.eq(wait - 1)
            with m.If(wait == 1):
                m.d.sync += issuing.eq(1)
        with m.If(self.control.start & ~self.control.busy):
            m.d.sync += [issuing.eq(1), wait.eq(0), layer.eq(0), *reset_loops(0)]

        word, block = self._write_target(layer, py, px, g)
        wr_word = Signal(range(max(p["in_h"] * p["in_w"] * p["in_c"] // R for p in plan[1:])), name="wr_word")
        wr_block = Signal(range(R // C), name="wr_block")
        brow = Signal(range(sum(model.bias_rows(R, C, A))), name="brow")
        m.d.comb += [wr_word.eq(word), wr_block.eq(block), brow.eq(T(bbase)[layer] + g)]
        first = Signal(name="first")
        final = Signal(name="final")
        m.d.comb += [first.eq((cc == 0) & (ww == 0) & (hh == 0)),
                     final.eq(last_t & last_g & last_pos & (layer == n_layers - 1))]
        last = Signal(name="last")
        m.d.comb += last.eq(last_t)
        return {"valid": issuing, "first": first, "last": last, "final": final, "layer": layer, "g": g,
                "brow": brow, "wr_word": wr_word, "wr_block": wr_block, "addr": addr, "wrow": wrow}

    def _writeback(self, m, acc, act_max, shifts, a_wr, c_wr, cap, layer_acc):
        """Stages 4..6 + log2 R: ``C`` requantisers and the word write of a pass's outputs.
        ``cap``: the capture stage's ``v, last, layer, word, block``; ``layer_acc``: the layer at
        the accumulate stage (selects the shift one cycle early)."""
        R, C = self.rows, self.cols
        s = Signal(5)
        high_mask = Signal(ACC_BITS)
        s_next = Signal(5)
        m.d.comb += s_next.eq(shifts[layer_acc])
        m.d.sync += [s.eq(s_next), high_mask.eq(Const((1 << ACC_BITS) - 1, ACC_BITS) << (s_next + 8))]
        lo = [Signal(8, name=f"rq_lo{j}") for j in range(C)]
        rnd = [Signal(name=f"rq_round{j}") for j in range(C)]
        high = [Signal(name=f"rq_high{j}") for j in range(C)]
        v1, word1, block1, buf1 = Signal(), Signal.like(cap["word"]), Signal.like(cap["block"]), Signal()
        m.d.sync += [v1.eq(cap["v"] & cap["last"] & (cap["layer"] != 3)), word1.eq(cap["word"]),
                     block1.eq(cap["block"]), buf1.eq(cap["layer"] == 1)]
        for j in range(C):
            x = acc[j]
            pos = Signal(ACC_BITS, name=f"rq_pos{j}")
            m.d.comb += pos.eq(Mux(x[-1], 0, x.as_unsigned()))
            m.d.sync += [lo[j].eq((pos >> s)[:8]), rnd[j].eq((s != 0) & (pos >> (s - 1)[:5])[0]),
                         high[j].eq((pos & high_mask) != 0)]
        v2, word2, block2, buf2 = Signal(), Signal.like(word1), Signal.like(block1), Signal()
        out = Signal(data.ArrayLayout(8, C))
        m.d.sync += [v2.eq(v1), word2.eq(word1), block2.eq(block1), buf2.eq(buf1)]
        for j in range(C):
            rounded = Signal(9, name=f"rq_rounded{j}")
            m.d.comb += rounded.eq(lo[j] + rnd[j])
            m.d.sync += out[j].eq(Mux(high[j] | (rounded > act_max), act_max, rounded))
        en = Signal(R)
        m.d.comb += en.eq(Cat((block2 == b).replicate(C) for b in range(R // C)))
        wdata = out.as_value().replicate(R // C)
        m.d.comb += [a_wr.addr.eq(word2), a_wr.data.as_value().eq(wdata), c_wr.addr.eq(word2),
                     c_wr.data.as_value().eq(wdata)]
        assert model.WRITEBACK_CYCLES == 3      # W1 (byte, round, high), W2 (saturate), the write
        with m.If(v2 & ~buf2):
            m.d.comb += a_wr.en.eq(en)
        with m.If(v2 & buf2):
            m.d.comb += c_wr.en.eq(en)


def generate(rows: int = 16, cols: int = 16, max_actions: int = MAX_ACTIONS) -> dict[str, str]:
    """``{"policy_array.v": Verilog}`` of :class:`ArrayPolicyEngine` (module ``policy_array``),
    reproducible; ``rtl/policy_array.v`` is the 16 x 16 engine. Cached per process.

    Raises:
        ValueError: a parameter outside its range.
    """
    return dict(_generate(rows, cols, max_actions))


@lru_cache(maxsize=8)
def _generate(rows: int, cols: int, max_actions: int, weight_words: int | None = None,
              top_name: str = "policy_array") -> tuple[tuple[str, str], ...]:
    top = ArrayPolicyEngine(rows, cols, max_actions, weight_words=weight_words)
    text = reproducible.convert(top, top_name)
    return ((f"{top_name}.v", reproducible.tidy_memories(text)),)


#: The shape of :func:`generate_datapath`'s engine: 8 rows and 4 columns, 32 multipliers. synth_nexus
#: maps each 8-bit code x int8 product to an 18 x 18 multiplier (nextpnr-nexus ``MULT18_CORE``), of which
#: the LIFCL-40 has 56: the default 16 x 16 (256 products) and 16 x 4 (64) do not fit. Every stage of
#: the datapath is registered (operands, products, one adder-tree level per stage, the accumulate),
#: so the shape sets the fan-out and the tree's depth in stages, not a stage's logic.
DATAPATH_SHAPE = (8, 4)

#: The weight memory's depth of :func:`generate_datapath`: 512 words, the depth of one EBR in its
#: 36-bit mode (Lattice FPGA-TN-02094, DP16K 512 x 36), so that the word's width alone sets the
#: number of EBRs.
DATAPATH_WEIGHT_WORDS = 512


def generate_datapath() -> dict[str, str]:
    """``{"policy_array_datapath.v": Verilog}``: the array engine of :data:`DATAPATH_SHAPE` with a
    weight memory of :data:`DATAPATH_WEIGHT_WORDS` words (module ``policy_array_datapath``), the
    datapath and control of :class:`ArrayPolicyEngine` unchanged, for placing and routing on the
    proxy devices (``nc2600 synth --block policy_array_datapath --pnr ecp5|nexus``), whose block RAM
    cannot hold the network's weights and whose multipliers cannot hold the default engine's products
    (the LIFCL-40's 56). It does not compute the network (the weight address wraps)."""
    return dict(_generate(*DATAPATH_SHAPE, MAX_ACTIONS, DATAPATH_WEIGHT_WORDS, "policy_array_datapath"))
