"""The fabric driver's register access by name (host/drivers/instance.py) over a recording MMIO object:
the words it writes are the hand-packed values of the register map (offsets and bit positions
read off nc2600.rdl by hand), and a value that does not fit raises ValueError naming the field."""
import pytest

from nc2600.host.drivers.instance import InstanceDriver, error_names


class RecordingMmio:
    """pynq.MMIO's read/write; ID reads 'NC26', every other read 0."""

    def __init__(self):
        self.writes = []

    def read(self, offset):
        return 0x4E433236 if offset == 0 else 0

    def write(self, offset, value):
        self.writes.append((offset, value))


def test_fields_written_by_name_are_the_hand_packed_words():
    from nc2600.hls_models.registers import INSTANCE as R
    mmio = RecordingMmio()
    d = InstanceDriver(mmio)
    d.write(R.EP_CFG, noops=3, noop_index=0, fire_en=1, fire_index=1, frame_skip=4, n_actions=6)
    d.write(R.ACTION_TABLE, 17, swcha=0xEF, inpt4=0, inpt5=1, paddle=2)
    d.write(R.CONTROL, manual=1)
    d.write(R.INPUTS, swchb=0x0B)                       # the rest at their reset values
    d.write(R.PARAM_ADDR, lane=5, row=0x3FFFF, space=2)
    d.write(R.REWARD, value=-2)
    assert mmio.writes == [
        (0x010, 3 | 1 << 10 | 1 << 11 | 4 << 16 | 6 << 24),
        (0x0C0 + 17 * 4, 0xEF | 0 << 8 | 1 << 9 | 2 << 10),
        (0x008, 2),
        (0x01C, 0xFF | 0x0B << 8 | 1 << 16 | 1 << 17 | 0xAA << 18),
        (0x190, 5 | 0x3FFFF << 8 | 2 << 26),
        (0x034, 0xFFFFFFFE),
    ]


def test_a_value_that_does_not_fit_names_the_field():
    from nc2600.hls_models.registers import INSTANCE as R
    mmio = RecordingMmio()
    d = InstanceDriver(mmio)
    with pytest.raises(ValueError, match=r"EP_CFG\.frame_skip: 256 does not fit 8 bits"):
        d.write(R.EP_CFG, frame_skip=256)
    with pytest.raises(ValueError, match=r"PARAM_ADDR\.row: 262144 does not fit 18 bits"):
        d.write(R.PARAM_ADDR, row=1 << 18)
    assert mmio.writes == []                            # nothing reached the bus


def test_error_names_from_the_status_fields():
    assert error_names(1 << 17 | 1 << 22 | 1 << 10) == ["bad ROM size", "rules out of turn or parameters while busy"]
    assert error_names(0x7F << 16) == [
        "start or manual frame without a ROM", "bad ROM size", "command while busy", "preprocessor sync error",
        "CPU jam", "memory write past the end", "rules out of turn or parameters while busy"]


#: ``PARAM_ADDR``'s stepping by hand, per engine: ``({space: lane step}, {space: lanes per row})``
#: for weights (0), biases (1) and the configuration (2). The lane engine: a weight write carries
#: four int8 weights, so 4 lanes, rows of 16 lanes; biases and configuration one per write. The
#: array engine: one lane per write; a weight row of R x C int8 is R*C/4 words (16 x 16: 64;
#: 8 x 4: 8), a bias row (and the configuration's) C values.
HAND_STEPS = {("lane", 16, 16, 16): ({0: 4, 1: 1, 2: 1}, {0: 16, 1: 16, 2: 16}),
              ("array", 16, 16, 16): ({0: 1, 1: 1, 2: 1}, {0: 64, 1: 16, 2: 16}),
              ("array", 16, 8, 4): ({0: 1, 1: 1, 2: 1}, {0: 8, 1: 4, 2: 4})}


class ParamPortMmio(RecordingMmio):
    """The instance's PARAM_ADDR / PARAM_DATA as the RTL steps them (oracle: the hand-worked
    :data:`HAND_STEPS`): every PARAM_DATA write is recorded at the address it lands on."""

    def __init__(self, engine, lanes=16, rows=16, cols=16):
        super().__init__()
        self.step, self.per_row = HAND_STEPS[(engine, lanes, rows, cols)]
        self.lanes, self.cols, self.engine = lanes, cols, engine
        self.addr = (0, 0, 0)
        self.landed = []

    def write(self, offset, value):
        from nc2600.hls_models.registers import INSTANCE as R
        super().write(offset, value)
        if offset == R.PARAM_ADDR.address():
            f = R.PARAM_ADDR.unpack(value)
            self.addr = (f.space, f.row, f.lane)
        elif offset == R.PARAM_DATA.address():
            space, row, lane = self.addr
            self.landed.append((space, row, lane, value))
            lane += self.step[space]
            wrap = self.per_row[space]
            self.addr = (space, row + 1, 0) if lane >= wrap else (space, row, lane)


@pytest.mark.parametrize("kind,shape", [("lane", None), ("array", (16, 16)), ("array", (8, 4))])
def test_parameter_load_lands_every_word_at_its_format_address(kind, shape):
    """The driver writes PARAM_ADDR only where the sequence jumps; with the instance's own stepping
    every word of the engine's load format (nc2600.hls_models.policy_engine / policy_array.load_words)
    lands at its (space, row, lane)."""
    import numpy as np

    from nc2600.hls_models.policy_int8 import quantize
    from nc2600.host.drivers.instance import EngineConfig
    from nc2600.host.episodes.policy import init_params
    calib = np.random.default_rng(3).integers(0, 256, (2, 4, 84, 84), dtype=np.uint8)
    qp = quantize(init_params(4, 18), 18, calib)
    rows, cols = shape or (16, 16)
    engine = EngineConfig(kind, 16, rows, cols)
    mmio = ParamPortMmio(kind, 16, rows, cols)
    d = InstanceDriver(mmio, engine=engine)
    n = d.load_params(qp)
    want = engine.load_words(qp)
    assert n == len(want) and np.array_equal(np.array(mmio.landed, np.int64), want)
    assert engine.param_step() == (mmio.step, mmio.per_row)
    # the address is written only where the sequence jumps: most words step by themselves
    assert 0 < len(mmio.writes) - n < n // 20


@pytest.mark.parametrize("kind,lanes,rows,cols", list(HAND_STEPS))
def test_instance_and_driver_take_the_models_stepping(kind, lanes, rows, cols):
    """nc2600.hw.instance.param_step (what the RTL is built from) and the driver's EngineConfig.param_step
    both give the hand-worked stepping, through the engine models' one rule."""
    from nc2600.hls_models.registers import ENUMS
    from nc2600.host.drivers.engine import EngineConfig
    from nc2600.hw.instance import param_step
    space = ENUMS["param_space_e"]
    assert (space.WEIGHTS, space.BIASES, space.CONFIG) == (0, 1, 2)
    assert param_step(kind, lanes, rows, cols) == HAND_STEPS[(kind, lanes, rows, cols)]
    assert EngineConfig(kind, lanes, rows, cols).param_step() == HAND_STEPS[(kind, lanes, rows, cols)]


def test_one_engine_dispatch_and_one_default():
    """The instance and the driver take the engine kinds, the default engine and the stepping rule
    from nc2600.hls_models.engines: the default engine is the 16 x 16 array (rtl/instance_cc3.v's build), its
    stepping the hand-worked one, and an unknown kind is refused by the one dispatcher."""
    import nc2600.hw.instance
    from nc2600.hls_models import engines
    from nc2600.host.drivers.engine import EngineConfig
    assert nc2600.hw.instance.param_step is engines.param_step
    d = EngineConfig()
    assert (d.kind, d.lanes, d.rows, d.cols) == (nc2600.hw.instance.DEFAULT_ENGINE, nc2600.hw.instance.DEFAULT_LANES,
                                                 nc2600.hw.instance.DEFAULT_ROWS,
                                                 nc2600.hw.instance.DEFAULT_COLS) == ("array", 16, 16, 16)
    assert d.param_step() == HAND_STEPS[("array", 16, 16, 16)]
    with pytest.raises(ValueError, match="engine must be one of"):
        EngineConfig("systolic").param_step()
    with pytest.raises(ValueError, match="engine must be one of"):
        nc2600.hw.instance.check_config(1, "systolic")


def test_no_paddle_is_one_mode_in_the_register_map_and_the_console_drive():
    """The released controller (no paddle attached: INPT0-3 never charge, as ALE 0.12 reads a joystick
    port's pin) is the same mode in nc2600.rdl's resets (PADDLE_CFG, INPUTS) and in the console's
    PaddlesSignature init: 2 (mode 0 the timing rule, 1 always charged, 2 never charged)."""
    from nc2600.hls_models.frame_skip import PaddleMode
    from nc2600.hls_models.registers import INSTANCE as R
    from nc2600.hw.interfaces import PaddlesSignature
    assert PaddleMode.NONE == 2 and (PaddleMode.TIMING, PaddleMode.CHARGED) == (0, 1)
    resets = [R.PADDLE_CFG[f"mode{i}"].reset for i in range(4)] + [R.INPUTS[f"paddle_mode{i}"].reset for i in range(4)]
    assert resets == [PaddleMode.NONE] * 8
    assert PaddlesSignature.members["mode"].init == PaddleMode.NONE
