"""The Signatures between the instance's blocks, each defined once here and imported by the
producer and the consumer alike (no block imports another block for its Signature).

The two buses have their own modules: the 6507's bus as its chips see it and the host's load port
(:mod:`nc2600.hw.bus`), and the host interface (:mod:`nc2600.hw.axi_lite`). Here, in the order of the data's
path through one fabric instance (arXiv 2005.04536):

* console inputs: :data:`PaddlesSignature`, :data:`ControllerSignature`;
* console <-> frame-skip controller: :data:`FrameSignature` (inside :data:`ConsoleDriveSignature`);
* console -> preprocessor: :data:`PixelStreamSignature`, :data:`PixelStream3Signature`;
* frame-skip controller -> preprocessor: :data:`PreprocessorControlSignature`;
* policy engine -> preprocessor: :data:`ObservationReadSignature` (the lane engine, a byte per
  read), :func:`observation_word_signature` (the array engine, an ``R``-byte word per read);
* host -> policy engine: :data:`ParameterWriteSignature` (:class:`ParameterSpace`);
* frame-skip controller <-> policy engine: :data:`InferenceControlSignature`;
* policy engine -> action select: :func:`action_values_signature` (:func:`action_values_layout`);
* action select -> frame-skip controller: :func:`chosen_action_signature`.

Each Signature is written from its producer's side (``Out`` flows from the producer) unless its
comment says otherwise.
"""
from __future__ import annotations

from amaranth import signed
from amaranth.lib import data, enum, stream, wiring
from amaranth.lib.wiring import In, Out

from nc2600.hls_models import policy_engine as _engine_model
from nc2600.hls_models.action_select import MAX_ACTIONS
from nc2600.hls_models.frame_skip import PaddleMode
from nc2600.hls_models.preprocessor import OUT_SIZE, STACK

__all__ = ["ACC_BITS", "OBS_PIXELS", "OBS_BYTES", "PaddlesSignature", "ControllerSignature", "FrameSignature",
           "ConsoleDriveSignature", "PixelStreamSignature", "PixelStream3Signature",
           "PreprocessorControlSignature", "ObservationReadSignature", "observation_word_signature", "ParameterSpace",
           "ParameterWriteSignature", "InferenceControlSignature", "action_values_layout",
           "action_values_signature", "chosen_action_signature"]

ACC_BITS = 32    #: the policy engine's accumulator and action-value width (int32)
OBS_PIXELS = OUT_SIZE * OUT_SIZE       #: 7056 pixels per observation frame (84 x 84)
OBS_BYTES = STACK * OBS_PIXELS         #: 28,224 bytes of the observation stack (4 frames)


#: The four paddles' drive of the TIA's INPT0..3 dump-capacitor rule, paddle ``i`` at index ``i``
#: (producer: the console's controllers, :data:`ControllerSignature`; consumer: the TIA).
PaddlesSignature = wiring.Signature({
    "needed": Out(32).array(4),        # CPU cycles from the dump's release until the capacitor is charged
    "mode": Out(2, init=PaddleMode.NONE).array(4),   # PaddleMode: timing rule, always or never charged
})


#: The console's controller inputs, Stella's pins (producer: whoever plays: the frame-skip
#: controller's drive, :data:`ConsoleDriveSignature`, or a harness; consumer: the
#: console, which passes SWCHA/SWCHB to the RIOT and the fire buttons and paddles to the TIA).
#: Initial values: nothing pressed, switches as ALE leaves them, no paddle attached.
ControllerSignature = wiring.Signature({
    "swcha": Out(8, init=0xFF),   # joystick directions of both ports (bits 7..4 left port: right, left,
                                  # down, up; 3..0 right port), paddle fire buttons; active low
    "swchb": Out(8, init=0x3F),   # console switches: 0 reset, 1 select (both active low), 3 colour
                                  # (0 = black and white), 6/7 left/right difficulty (0 = B)
    "inpt4": Out(1, init=1),      # left joystick fire (INPT4 bit 7), active low
    "inpt5": Out(1, init=1),      # right joystick fire (INPT5 bit 7), active low
    "paddles": Out(PaddlesSignature),   # paddles 0..3 (INPT0..3)
})


#: The console's frame handshake with whoever runs it (producer of the status: the console, which
#: takes it as ``Out``; the frame-skip controller takes it as ``In`` and drives ``start_frame``):
#: ``start_frame`` (in) the first clock of a new frame, pulsed at a frame boundary; ``insn_start``
#: (out) a clock in which the CPU starts an instruction (an opcode fetch); ``at_boundary`` (out)
#: ``insn_start`` once the frame-ending write was made (ALE's frame boundary: the frame is over);
#: ``jammed`` (out) the CPU executed a KIL/JAM opcode and stopped (:mod:`nc2600.hw.console`).
#: ``at_boundary_next``, ``insn_start_next``, ``jammed_next`` (out): the values those three take at
#: the next clock if the console's clock is enabled in this one (with this clock's
#: ``start_frame``); a console whose clock is not enabled keeps them. The frame-skip controller
#: registers its stop from these, so that no path runs from the console's state into the
#: console's own clock enable (xc7 logic depth); the console harness checks them at every clock.
#: ``input_next`` (out): the CPU's access at the next clock (if this clock is enabled) reads a
#: controller input that a chosen action drives: SWCHA (RIOT I/O, A2..A0 = 0) or INPT0..5 (TIA,
#: A3..A0 = 8..13); any such read, a dummy or a RDY-held one included. SWCHB (the console
#: switches, fixed through an episode) is not one. The frame-skip controller stalls the console
#: there while a decision is pending (:mod:`nc2600.hw.frame_skip`).
FrameSignature = wiring.Signature({
    "start_frame": In(1), "at_boundary": Out(1), "insn_start": Out(1), "jammed": Out(1),
    "at_boundary_next": Out(1), "insn_start_next": Out(1), "jammed_next": Out(1), "input_next": Out(1),
})


#: The controller's drive of the console (producer: the controller): its clock enable, the frame
#: handshake (:data:`FrameSignature`: the frame start and the frame's stop conditions)
#: and the controller inputs (:data:`ControllerSignature`), both the console's own and
#: joined with ``wiring.connect``.
ConsoleDriveSignature = wiring.Signature({
    "ce": Out(1),             # the console's clock enable (it runs this cycle)
    "frame": In(FrameSignature),
    "controllers": Out(ControllerSignature),
})


#: The console -> preprocessor stream, one beat per colour clock (producer: the console).
PixelStreamSignature = wiring.Signature({
    "pixel": Out(8),        # palette index of this colour clock (ALE getScreen value)
    "visible": Out(1),      # pixel inside ALE's screen window (rows YStart..YStart+H-1, clocks 68..227)
    "line_end": Out(1),     # strobe: last colour clock (227) of a drawn scanline
    "frame_end": Out(1),    # strobe: ALE's frame boundary (the clock that starts the next frame)
})


#: The console -> preprocessor stream of the three-colour-clock console, one beat per CPU cycle
#: (producer: the console): element/bit ``k`` is colour clock ``k`` of the cycle.
PixelStream3Signature = wiring.Signature({
    "pixel": Out(data.ArrayLayout(8, 3)),   # palette indices of the cycle's three colour clocks
    "visible": Out(3),      # bit k: colour clock k is inside ALE's screen window
    "line_end": Out(1),     # strobe: the cycle ends a drawn scanline (its colour clock 2 is 227)
    "frame_end": Out(1),    # strobe: ALE's frame boundary (the cycle that starts the next frame)
})


#: The frame-skip controller's drive of the preprocessor, as the controller sees it (it takes it
#: as ``Out``, the preprocessor as ``In``): ``push``, ``zero_prev``, ``clear`` and ``obs_valid`` as
#: described in :class:`nc2600.hw.preprocessor.Preprocessor`.
PreprocessorControlSignature = wiring.Signature({
    "push": Out(1), "zero_prev": Out(1), "clear": Out(1), "obs_valid": In(1),
})


#: The preprocessor's read port as seen by the inference engine.
ObservationReadSignature = wiring.Signature({
    "frame": Out(2),                 # 0 = oldest .. 3 = newest
    "index": Out(range(OBS_PIXELS)),  # row * 84 + column
    "data": In(8),                    # grey level, one cycle after frame/index
})


def observation_word_signature(rows: int) -> wiring.Signature:
    """The array engine's read port of the observation stack (``R = rows`` bytes per read), as
    seen by the engine: ``addr`` (word ``0 .. 28224/R - 1``) Out, ``data`` (``8 R`` bits, lane
    ``r`` in bits ``8r .. 8r+7``) In, one cycle after ``addr``. The words are
    :func:`nc2600.hls_models.policy_array.obs_words`'s layout (conv1's tiling; frame 0 the oldest)."""
    return wiring.Signature({"addr": Out(range(OBS_BYTES // rows)), "data": In(8 * rows)})


class ParameterSpace(enum.Enum, shape=2):
    """Which memory a parameter write goes to (:mod:`nc2600.hls_models.policy_engine` layout)."""
    WEIGHTS = _engine_model.SPACE_WEIGHTS   # row, lane = first of 4 lanes, data = 4 int8 (lane in bits 0..7)
    BIASES = _engine_model.SPACE_BIASES     # row, lane, data = int32
    CONFIG = _engine_model.SPACE_CONFIG     # row = 0 n_actions, 1 act_max, 2..4 s1..s3; data


#: The host -> engine parameter-load port (producer: the host interface; consumer: the engine).
#: One write per cycle while ``valid``; no back-pressure.
ParameterWriteSignature = wiring.Signature({
    "valid": Out(1),
    "space": Out(ParameterSpace),
    "row": Out(_engine_model.ROW_BITS),
    "lane": Out(_engine_model.LANE_BITS),
    "data": Out(32),
})


#: Start and completion of one inference (producer of ``busy``/``done``: the engine, which takes
#: it as ``Out``; the frame-skip controller takes it as ``In`` and drives ``start``): ``start`` a
#: one-cycle strobe (ignored while ``busy``); ``busy`` high from the cycle after ``start`` until
#: the cycle before ``done``; ``done`` a one-cycle strobe as the action-values beat becomes valid.
InferenceControlSignature = wiring.Signature({"start": In(1), "busy": Out(1), "done": Out(1)})


def action_values_layout(n: int = MAX_ACTIONS, width: int = ACC_BITS) -> data.StructLayout:
    """One beat of action values: ``values`` (``n`` signed ``width``-bit, lane ``i`` = action
    ``i``) and ``count`` (valid lanes, ``0..n``)."""
    return data.StructLayout({"values": data.ArrayLayout(signed(width), n), "count": range(n + 1)})


def action_values_signature(n: int = MAX_ACTIONS, width: int = ACC_BITS) -> stream.Signature:
    """The engine -> action-select stream (valid/ready), payload :func:`action_values_layout`."""
    return stream.Signature(action_values_layout(n, width))


def chosen_action_signature(n: int = MAX_ACTIONS, width: int = 32) -> wiring.Signature:
    """The action select -> controller arrow (producer: :class:`nc2600.hw.action_select.ActionSelect`): ``valid`` for
    one cycle per beat taken, ``nc2600.hls_models.action_select.latency(n)`` cycles after it; ``index``
    (``range(max(n, 2))``), the
    chosen action (the lowest index among the largest values); ``value`` (signed ``width``), its value."""
    return wiring.Signature({"valid": Out(1), "index": Out(range(max(n, 2))), "value": Out(signed(width))})

