"""Unit checks of the console's ALE-derived rules against independent references."""
import pytest

from nc2600.hls_models.frame_skip import paddle_needed
from nc2600.host.drivers.rtl_console import _Mt, joystick_inputs, paddle_inputs
from nc2600.hw.tia import hmove_motion


def test_system_rng_is_std_mt19937():
    # C++ [rand.predef]: the 10000th draw of a default-constructed std::mt19937 (seed 5489)
    # is 4123659995; ALE's system RNG is std::mt19937.
    rng = _Mt(5489)
    for _ in range(9999):
        rng.next()
    assert rng.next() == 4123659995


@pytest.mark.parametrize("cycle,hm,expected", [
    # HBLANK (cycle 3): full motion, 8 - (hm ^ 8): hm 7 -> -7 (left 7), hm 8 -> +8
    (3, 7, -7), (3, 8, 8), (3, 0, 0), (3, 15, 1),
    # Stella 2.4.2 table rows worked by hand: cycle 4 caps the extra clocks at 14,
    # cycle 12 at 8, cycle 20 at 2; cycles 21..53 move nothing; cycle 73 moves 8 left for hm 0
    (4, 7, -6), (12, 3, 0), (20, 0, 6), (30, 7, 0), (55, 7, -1), (73, 0, -8), (75, 7, -7),
])
def test_hmove_motion_rows(cycle, hm, expected):
    assert hmove_motion(cycle, hm) == expected


def test_joystick_inputs_match_stella_pins():
    # Stella: SWCHA bits 4..7 = up, down, left, right of the left joystick, active low;
    # SWCHB = 0xFF with both difficulty switches B (bits 6, 7 clear), colour (bit 3 set).
    assert joystick_inputs(0) == {"swcha": 0xFF, "swchb": 0x3F, "inpt4": 1, "inpt5": 1}
    assert joystick_inputs(14)["swcha"] == 0xFF & ~0x10 & ~0x80   # UPRIGHTFIRE
    assert joystick_inputs(14)["inpt4"] == 0
    assert joystick_inputs(40)["swchb"] == 0x3E                   # RESET held


def test_paddle_needed_formula():
    # (uint32)(1.6 * r * 0.01e-6 * 1.19e6): midpoint of ALE's range 408823 ohms -> 7783 cycles
    assert paddle_needed(408823) == int(1.6 * 408823 * 0.01e-6 * 1.19e6) == 7783
    d = paddle_inputs(11, (27450, 408823))   # RIGHTFIRE: fire is SWCHA bit 7 on paddles
    assert d["swcha"] == 0x7F and d["paddle_mode"] == (0, 0, 2, 2)   # right port: joystick, never charged


def test_tia_hmove_logic_matches_motion_table():
    # the TIA's HMOVE logic (the cycle's rule code kept in registers, the distance change
    # inc - motion from two tables, the add and its two wrap-arounds as bit logic) against
    # hmove_motion (the rows above) for every CPU cycle of the line, every motion nibble, both
    # column advances and distances to the pixel column at both ends of the 160-pixel line
    from amaranth import Module, Signal, signed
    from amaranth.sim import Simulator
    from nc2600.hw.tia import Tia, _Tables
    m = Module()
    tables = _Tables(m)
    cyc, hm, inc, dist = Signal(7), Signal(4), Signal(), Signal(8)
    k, d = Signal(signed(6)), Signal(8)
    m.d.comb += [k.eq(Tia._hmove_k(tables, tables("hm_code", cyc), hm, inc)),
                 d.eq(Tia._hmove_distance(dist, k))]
    bad = []

    async def bench(ctx):
        for c in range(76):
            for h in range(16):
                for i in (0, 1):
                    for x in (0, 3, 7, 80, 152, 155, 159):
                        ctx.set(cyc, c)
                        ctx.set(hm, h)
                        ctx.set(inc, i)
                        ctx.set(dist, x)
                        want = hmove_motion(c, h)
                        # the position moves by want: its distance to the column (which moves by i)
                        # changes by i - want
                        if ctx.get(k) != i - want or ctx.get(d) != (x + i - want) % 160:
                            bad.append((c, h, i, x, ctx.get(k), ctx.get(d), want))
    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert bad == []
