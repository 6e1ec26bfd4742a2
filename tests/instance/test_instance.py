"""The fabric instance RTL (hw/instance.py, Verilated) through its AXI4-Lite host interface and
the host driver (host/drivers/instance.py): bus error responses, and whole episodes equal to the launcher's
ALE backend with the int8 policy (oracle: ale-py 0.12 + nc2600.hls_models.policy_int8, per decision).

Every decision is the instance's own: console, preprocessor, int8 engine (the default 16 x 16
array engine with the preprocessor's stack in its words, or the 16-lane engine), action select and
frame-skip controller in one Verilated design; the host answers the rules.

Verilated builds (3-5 minutes each, cached by content): the fast set uses the default instance
(array engine, three colour clocks per clock; Boxing, Pong's paddles, H.E.R.O.'s F8 banks), the
one-colour-clock one and the lane engine's for Air Raid (PAL, 250 rows), one build each; every
other configuration is in the slow set.
"""
import numpy as np
import pytest

from nc2600.hls_models.registers import INSTANCE as R
from nc2600.host.drivers.instance import InstanceDriver, InstanceEpisodeRunner, InstanceError

CONTROL, STATUS, ROM_SIZE = R.CONTROL.offset, R.STATUS.offset, R.ROM_SIZE.offset
C_START, C_MANUAL = R.CONTROL.pack(start=1), R.CONTROL.pack(manual=1)


@pytest.fixture(scope="module")
def sim():
    from nc2600.hwtools.instance_harness import InstanceSim
    return InstanceSim(210, "NTSC")


def test_id_and_unmapped_reads_decerr(sim):
    from nc2600.hwtools.instance_harness import BusError
    assert sim.read(0) == 0x4E433236
    with pytest.raises(BusError, match="DECERR"):
        sim.read(0x3F0)
    with pytest.raises(BusError, match="DECERR"):
        sim.write(0x3F0, 1)
    with pytest.raises(BusError, match="DECERR"):
        sim.read(0x10000)


def test_bad_rom_size_and_start_without_rom(sim):
    from nc2600.hwtools.instance_harness import BusError
    d = InstanceDriver(sim)
    d.clear_errors()
    with pytest.raises(InstanceError, match="bad ROM size"):
        d.load_rom(bytes(3000))
    with pytest.raises(BusError, match="SLVERR"):
        sim.write(CONTROL, C_START)
    assert sim.read(STATUS) >> 16 & 1          # error bit: start without a ROM
    with pytest.raises(BusError, match="SLVERR"):
        sim.write(CONTROL, C_MANUAL)
    with pytest.raises(InstanceError, match="rules out of turn"):
        d._write(0x30, 0)                      # RULES while not waiting for them
    d.clear_errors()
    assert sim.read(STATUS) >> 16 == 0
    sim.write(ROM_SIZE, 4096)                  # a good size is accepted


def _ale_int8_episode(rom, qp, seed, cap):
    from nc2600.host.episodes.env import AleEnv
    inst = AleEnv(rom, episode_frames=cap)
    stack = np.zeros((4, 84, 84), np.uint8)
    frames = inst.reset(seed, stack)
    actions, ret = [], 0.0
    while not inst.over:
        a = int(qp.act(stack[None])[0])
        actions.append(a)
        r, f, _ = inst.step(a, stack)
        ret += r
        frames += f
    return actions, ret, frames


def _policy(rom, n_actions, seed, centred=False):
    """``init_params(seed)`` quantised on 8 observations of random play; ``centred``: the last
    layer's biases set to minus the mean float action values on those observations, so that the
    decisions follow what changes on the screen (random networks are nearly constant in games
    where little of the screen moves, e.g. Pong)."""
    from nc2600.hls_models.policy_int8 import quantize
    from nc2600.host.episodes.env import AleEnv
    from nc2600.host.episodes.policy import forward, init_params, unflatten
    inst = AleEnv(rom, episode_frames=400)
    stack = np.zeros((4, 84, 84), np.uint8)
    inst.reset(99, stack)
    rng = np.random.default_rng(5)
    calib = []
    for _ in range(8):
        for _ in range(3):
            inst.step(int(rng.integers(inst.n_actions)), stack)
        calib.append(stack.copy())
    calib = np.stack(calib)
    flat = init_params(seed, n_actions)
    if centred:
        p = unflatten(flat[None], n_actions)
        q = forward(calib, {k: np.broadcast_to(v, (len(calib), *v.shape[1:])) for k, v in p.items()})
        unflatten(flat, n_actions)["b4"][:] = -q.mean(0)
    return quantize(flat, n_actions, calib)


def _varied_policy(rom, n_actions, seed, cap):
    """The first network (init_params(s), s = 0..9, then the same centred) whose ALE int8 episode
    takes at least three different actions (a constant policy would not test the decisions)."""
    for centred in (False, True):
        for s in range(10):
            qp = _policy(rom, n_actions, s, centred)
            ref = _ale_int8_episode(rom, qp, seed, cap)
            if len(set(ref[0])) >= 3:
                return qp, ref
    pytest.fail(f"{rom.name} seed {seed}, {cap} frames: no network with varied actions among init_params(0..9), "
                "plain or centred (a deterministic search: the configuration must change)")


def _check_episode(game, seed, cap, colour_clocks=3, engine="array"):
    """The episode ``seed`` (start state replayed), then ``seed + 1`` and ``seed`` again (start
    state restored from the harness's snapshot): each equal to ALE int8 decision by decision.
    ``engine``: the instance's engine (``"array"``: 16 x 16, the default; ``"lane"``: 16 lanes)."""
    from nc2600.host.games import game_info, resolve_rom
    from nc2600.hwtools.instance_harness import InstanceSim
    _, rom = resolve_rom(game=game)
    info = game_info(game, rom)
    d = InstanceDriver(InstanceSim(info.screen_height, info.display, colour_clocks=colour_clocks,
                                 engine=engine))
    runner = InstanceEpisodeRunner(d, game, rom, episode_frames=cap)
    qp, ref = _varied_policy(rom, len(runner.ids), seed, cap)
    refs = {seed: ref, seed + 1: _ale_int8_episode(rom, qp, seed + 1, cap)}
    eps = []
    for i, s in enumerate((seed, seed + 1, seed)):
        ref_actions, ref_ret, ref_frames = refs[s]
        ep = runner.run(s, qp, record_actions=True)
        assert ep.restored == (i > 0)
        # the replay: about 196 frames (59,736 clocks each, 19,912 with three colour clocks per clock)
        assert (ep.reset_cycles > 10_000_000 // colour_clocks) == (i == 0)
        assert ep.actions == ref_actions
        assert ep.episode_return == ref_ret
        assert ep.frames == ref_frames
        assert ep.decisions == len(ref_actions)
        assert ep.cycles["emulation"] > 0 and ep.cycles["inference"] > 0
        eps.append(ep)
    assert eps[2].cycles == eps[0].cycles       # the same episode from the restored state, clock for clock
    return eps[0]


def _check_one_episode(game, seed, cap):
    """One episode (start state replayed) on the default instance equal to ALE int8 decision by
    decision; returns it and ALE's return."""
    from nc2600.host.games import game_info, resolve_rom
    from nc2600.hwtools.instance_harness import InstanceSim
    _, rom = resolve_rom(game=game)
    info = game_info(game, rom)
    runner = InstanceEpisodeRunner(InstanceDriver(InstanceSim(info.screen_height, info.display)), game, rom,
                                   episode_frames=cap)
    qp, (ref_actions, ref_ret, ref_frames) = _varied_policy(rom, len(runner.ids), seed, cap)
    ep = runner.run(seed, qp, record_actions=True)
    assert (ep.actions, ep.episode_return, ep.frames, ep.decisions) == \
        (ref_actions, ref_ret, ref_frames, len(ref_actions))
    return ep, ref_ret


@pytest.mark.parametrize("game,seed,cap", [
    ("pong", 5, 120),          # paddles (swapped, right port)
    ("hero", 4, 120),          # F8 bank switching, 18 actions
])
def test_one_episode_equals_ale_int8_paddles_and_bank_switching(game, seed, cap):
    """One short episode each of a paddle game and a bank-switched one on the default instance
    (the build the Boxing episodes use): every decision, the return and the frames."""
    _check_one_episode(game, seed, cap)


def _check_array_cycles(ep):
    """Each decision's inference phase (engine start to done) is the array engine's model cycles,
    nc2600.hls_models.policy_array.engine_cycles (11,655 for 18 actions), and with action select's 5 the
    model's 11,660 from start to the chosen action; the load is one AXI write (3 clocks: handshake,
    write, response) per word of the array's format and the few address writes where the sequence
    jumps (the last layer's 2 of 16 columns)."""
    from nc2600.hls_models.action_select import latency
    from nc2600.hls_models.policy_array import engine_cycles, inference_cycles, load_cycles
    assert (engine_cycles(18, 16, 16), inference_cycles(18, 16, 16)) == (11_655, 11_660)
    assert ep.cycles["inference"] == ep.decisions * engine_cycles(18, 16, 16)
    assert ep.cycles["action_select"] == ep.decisions * latency(18)
    words = load_cycles(18, 16, 16)
    assert 3 * words <= ep.load_cycles < 3 * words * 1.01


def test_episode_equals_ale_int8_boxing():
    """Every decision's action, the return and the frame count of short Boxing episodes
    (replayed and restored start state) on the default instance: the 16 x 16 array engine (the
    preprocessor's stack in 16-byte words, the parameters loaded in the array's format) and the
    three-colour-clock console (one CPU cycle per clock, the preprocessor taking its three pixels
    per clock); the inference and load cycles are the array model's."""
    ep = _check_episode("boxing", 7, 60)
    # one CPU cycle per clock: Boxing's 262-line frames are 262 x 76 = 19,912 clocks of emulation
    # (59,736 colour clocks / 3), within a scanline per frame for the controller's boundaries
    assert abs(ep.cycles["emulation"] / ep.frames - 262 * 76) <= 76
    _check_array_cycles(ep)


def test_episode_equals_ale_int8_boxing_one_colour_clock():
    """The same with the one-colour-clock console (the CPU every third clock): every decision,
    the return and the frames."""
    ep = _check_episode("boxing", 7, 60, colour_clocks=1)
    # 262 x 228 = 59,736 colour clocks a frame, within a scanline per frame for the controller's boundaries
    assert abs(ep.cycles["emulation"] / ep.frames - 262 * 228) <= 228
    _check_array_cycles(ep)


def test_episode_equals_ale_int8_air_raid_pal_lane_engine():
    """The instance with the 16-lane engine (``engine="lane"``, the preprocessor's byte stack) on
    a PAL game (Air Raid: 250 rows, the PAL palette): every decision, the return and the frames
    equal ALE int8 (the lane engine's CI build is this PAL one, so that CI checks PAL without
    another build; Boxing on the lane engine is in the slow set). Air Raid also reads INPT0 on
    its joystick port into an object's colour: with no paddle the pin never charges (bit 7 is 0,
    ALE 0.12), so this case fails when the instance's paddle pins default to another mode."""
    _check_episode("air_raid", 2, 60, engine="lane")


@pytest.mark.slow
def test_episode_equals_ale_int8_boxing_lane_engine():
    """The 16-lane engine on Boxing (NTSC, 210 rows)."""
    _check_episode("boxing", 7, 60, engine="lane")


@pytest.mark.slow
def test_episode_equals_ale_int8_boxing_lane_engine_one_colour_clock():
    """The 16-lane engine with the one-colour-clock console."""
    _check_episode("boxing", 7, 60, colour_clocks=1, engine="lane")


def test_array_engine_refuses_a_stack_it_cannot_read():
    """Three pixels per cycle need two or more columns per word (the two column banks): a
    4-row array is refused, as is an engine name the instance does not know."""
    from nc2600.hw.instance import GameInstance
    with pytest.raises(ValueError, match="rows >= 8"):
        GameInstance(colour_clocks=3, engine="array", rows=4, cols=4)
    with pytest.raises(ValueError, match="engine must be one of"):
        GameInstance(engine="systolic")


def test_restored_start_state_reloads_other_parameters():
    """The snapshot holds the engine parameters loaded when it was taken: an episode of another
    network after a restore must reload them (its actions equal ALE's for that network)."""
    from nc2600.host.games import game_info, resolve_rom
    from nc2600.hwtools.instance_harness import InstanceSim
    _, rom = resolve_rom(game="boxing")
    info = game_info("boxing", rom)
    runner = InstanceEpisodeRunner(InstanceDriver(InstanceSim(info.screen_height, info.display)), "boxing", rom,
                                 episode_frames=40)
    qa, qb = _policy(rom, 18, 1), _policy(rom, 18, 2)
    first = runner.run(3, qa)
    assert not first.restored and first.load_cycles > 0
    ep = runner.run(3, qb, record_actions=True)
    assert ep.restored and ep.load_cycles > 0
    ref_actions, ref_ret, ref_frames = _ale_int8_episode(rom, qb, 3, 40)
    assert (ep.actions, ep.episode_return, ep.frames) == (ref_actions, ref_ret, ref_frames)
    again = runner.run(3, qa)
    assert again.restored and again.load_cycles < 10      # qa is in the snapshot: no reload (one CYCLE read)
    assert (again.episode_return, again.frames, again.cycles) == (first.episode_return, first.frames, first.cycles)


def test_bad_colour_clocks_is_refused():
    from nc2600.hw.instance import GameInstance
    from nc2600.hwtools.instance_harness import InstanceSim
    with pytest.raises(ValueError, match="colour_clocks must be 1 or 3"):
        GameInstance(colour_clocks=2)
    with pytest.raises(ValueError, match="colour_clocks must be 1 or 3"):
        InstanceSim(210, "NTSC", colour_clocks=2)


def test_model_state_of_another_build_is_refused():
    from nc2600.hwtools.instance_harness import InstanceSim, ModelState
    sim = InstanceSim(210, "NTSC")
    with pytest.raises(ValueError, match="another instance build"):
        sim.restore_state(ModelState("elsewhere/libinstance.so", b"", 0))
    with pytest.raises(ValueError, match="another instance build"):
        sim.restore_state(b"not a state")


@pytest.mark.slow
@pytest.mark.parametrize("game,seed,cap", [
    ("boxing", 3, 600),        # 2K, NTSC, 18 actions, seed-dependent RAM
    ("pong", 5, 200),          # paddles (swapped, right port)
    ("air_raid", 2, 200),      # PAL (250 rows)
    ("hero", 4, 200),          # F8 bank switching, 18 actions
])
def test_episode_equals_ale_int8_slow(game, seed, cap):
    """Longer episodes and other games on the default instance (the 16 x 16 array engine, three
    colour clocks per clock; Air Raid's 250 rows: the word stack's resize at another height)."""
    _check_episode(game, seed, cap)


@pytest.mark.slow
@pytest.mark.parametrize("game,seed,cap,colour_clocks,engine", [
    ("air_raid", 2, 200, 3, "lane"),   # PAL, 250 rows, the lane engine's byte stack
    ("pong", 5, 200, 1, "array"),      # paddles, one colour clock per clock
    ("hero", 4, 200, 1, "array"),      # F8 bank switching, 18 actions
    ("hero", 4, 200, 3, "lane"),
])
def test_episode_equals_ale_int8_other_configurations_slow(game, seed, cap, colour_clocks, engine):
    _check_episode(game, seed, cap, colour_clocks=colour_clocks, engine=engine)


@pytest.mark.slow
def test_ga_generation_fabric_equals_ale_int8(tmp_path):
    """One GA generation (population 3, one elite candidate x 1 episode, 1 test episode) on
    --backend fabric and on --backend ale --policy int8: every episode's return, frames, decisions
    and actions (CRC-32). Space Invaders, 300 frames, seed 5: ALE's returns differ (5, 0, 5, 5, 5)."""
    import json
    import subprocess
    import sys

    def run(backend):
        out = tmp_path / backend
        args = ["run", "--game", "space_invaders", "--population", "3", "--generations", "1", "--truncation", "2",
                "--episode-frames", "300", "--elite-candidates", "1", "--elite-episodes", "1",
                "--test-episodes", "1", "--workers", "1", "--no-video", "--policy", "int8", "--seed", "5",
                "--backend", backend, "--out", str(out), "--progress", "lines"]
        proc = subprocess.run([sys.executable, "-m", "nc2600.host.cli", *args], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]

    ale, fabric = run("ale"), run("fabric")
    assert len(ale) == len(fabric) >= 5
    assert len({e["return"] for e in ale}) > 1 and len({e["actions_crc32"] for e in ale}) > 1, ale
    key = lambda e: (e["generation"], e["kind"], e["individual"], e["episode"])  # noqa: E731
    for a, f in zip(sorted(ale, key=key), sorted(fabric, key=key)):
        assert key(a) == key(f)
        assert (a["return"], a["frames"], a["steps"], a["actions_crc32"]) == \
            (f["return"], f["frames"], f["steps"], f["actions_crc32"])


@pytest.mark.slow
def test_instance_play_ale_comparison(tmp_path, capsys):
    """``nc2600 instance-play --ale``: two Boxing episodes (the second restored), each equal to ALE int8
    as the command reports it, and the same returns and frames as the test's own ALE episodes."""
    import json

    from nc2600.host.cli import main
    from nc2600.host.episodes.policy import init_params
    p = tmp_path / "p.npy"
    np.save(p, init_params(1, 18))
    assert main(["instance-play", "--game", "boxing", "--params", str(p), "--episodes", "2", "--episode-frames", "40",
                 "--seed", "3", "--ale", "--json"]) == 0
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["start_state"] for r in recs] == ["replayed", "restored"]
    for r in recs:
        assert r["ale"]["equal"] and (r["ale"]["return"], r["ale"]["frames"]) == (r["return"], r["frames"])
        assert r["frames"] == 40 and r["cpu_s"] > 0
    # the test's own ALE episodes with the network quantised as the command documents it
    from nc2600.hls_models.policy_int8 import quantize
    from nc2600.host.games import resolve_rom
    from nc2600.host.episodes.calibration import calibration_observations
    _, rom = resolve_rom(game="boxing")
    qp = quantize(init_params(1, 18), 18, calibration_observations(rom, 4, 40, 0, 32))
    for r, seed in zip(recs, (3, 4)):
        actions, ret, frames = _ale_int8_episode(rom, qp, seed, 40)
        assert (r["return"], r["frames"], r["decisions"]) == (ret, frames, len(actions))
