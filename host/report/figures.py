"""The report's vocabulary: a :class:`Figure` with its kind (measured on the RTL, computed, by
place and route, quoted, missing), its basis (a ceiling or a sustained throughput), the published
machine's anchors, and :func:`ratio`, which forms a ratio only between two figures of one basis."""
from __future__ import annotations

from dataclasses import dataclass

from nc2600.hls_models.platform import NTSC_COLOUR_CLOCKS_PER_FRAME

RTL, MODEL, PUBLISHED, MISSING = ("measured on the RTL", "computed by a model", "quoted from a publication",
                                  "missing")
DERIVED = "computed from RTL measurements"   #: arithmetic on RTL-measured figures (and model ones)
PNR = "measured by place and route on an ECP5-85 (not the Zynq-7045)"   #: nc2600.hwtools.ecp5_pnr.pnr_block
#: nc2600.hwtools.nexus.pnr_block on its default part (nc2600.hwtools.nexus.label("LIFCL-40-9BG400C"))
PNR_NEXUS = "measured: nextpnr-nexus place and route, LIFCL-40 speed 9, 28 nm; a proxy, not the XC7Z045"
KINDS = (RTL, DERIVED, PNR, PNR_NEXUS, MODEL, PUBLISHED, MISSING)
#: Game instances per device (one Zynq-7045 per node, two instances per node) and in the whole
#: published fabric (416 nodes; arXiv 2005.04536).
INSTANCES_PER_DEVICE = 2
FABRIC_INSTANCES = 832
#: Placer seeds over which the consoles' LIFCL-40 Fmax spread is reported.
NEXUS_SEEDS = (1, 2, 3)

#: NTSC frame: 262 scanlines x 228 colour clocks (:mod:`nc2600.hls_models.platform`).
NTSC_COLOUR_CLOCKS = NTSC_COLOUR_CLOCKS_PER_FRAME
#: Published figures (arXiv 2005.04536 and 2003.11178, 2020; see PUBLISHED_SOURCE).
PUBLISHED_FABRIC_FPS = 1.2e6           #: sustained training throughput (quoted), basis SUSTAINED
PUBLISHED_CEILING_FPS = 2.09e6         #: 832 instances x 2514 frames/s
PUBLISHED_INSTANCE_FPS = 2514          #: at 150 MHz
PUBLISHED_CLOCK_MHZ = 150.0
#: The published machine's ceiling per instance in the same terms as ours: its stated clock over
#: the NTSC frame (150 MHz / 59,736 colour clocks = 2,511 frames/s; the inference pipelined behind
#: the emulation, so it costs the console nothing), basis CEILING; per device two instances.
PUBLISHED_INSTANCE_CEILING_FPS = PUBLISHED_CLOCK_MHZ * 1e6 / NTSC_COLOUR_CLOCKS_PER_FRAME
PUBLISHED_DEVICE_CEILING_FPS = 2 * PUBLISHED_INSTANCE_CEILING_FPS

#: What a frames/s figure measures (``Figure.basis``, the results records' ``basis``): CEILING, the
#: emulation and the decision path only (no resets, GA generations or host loop); SUSTAINED, the
#: training throughput of a whole fabric (quoted, or projected by mesh_sim with resets, generations
#: and the schedule). A ratio is formed only between two figures of one basis (:func:`ratio`).
CEILING, SUSTAINED = "ceiling", "sustained"
BASES = (CEILING, SUSTAINED)
PUBLISHED_SOURCE = ("Asseman, Antoine, Ozcan, \"Accelerating Deep Neuroevolution on Distributed FPGAs for "
                    "Reinforcement Learning Problems\", arXiv 2005.04536 (2020); \"Overview of the IBM Neural "
                    "Computer Architecture\", arXiv 2003.11178 (2020)")
ACTION_SELECT_LANES = 18               #: the RTL block is built for ALE's full action set


@dataclass
class Figure:
    """One reported number: ``value`` in ``unit``, its ``kind`` (:data:`KINDS`), source and command.

    ``value`` is None exactly when ``kind`` is :data:`MISSING` (then ``source`` says why).
    """

    section: str
    name: str
    game: str | None
    value: float | int | None
    unit: str
    kind: str
    source: str
    command: str = ""
    basis: str = ""                       # CEILING, SUSTAINED, or "" (not a throughput figure)
    operands: tuple = ()                  # a ratio's (numerator, denominator) Figures (:func:`ratio`)
    record: str = ""                      # its figure name in docs/results (written by ``--record``), or ""



def ratio(section: str, name: str, game: str | None, num: Figure, den: Figure) -> Figure:
    """The ratio ``num / den`` as a Figure (unit ``x``) of their common basis, its operands kept.

    Raises:
        ValueError: either figure has no basis (:data:`BASES`) or their bases differ (a ceiling
            set against a sustained figure), or either value is missing or the denominator is 0.
    """
    if num.basis not in BASES or den.basis not in BASES:
        raise ValueError(f"ratio {name!r}: both figures need a basis of {BASES}, not {num.basis!r} and {den.basis!r}")
    if num.basis != den.basis:
        raise ValueError(f"ratio {name!r}: a {num.basis} figure ({num.name}) against a {den.basis} one ({den.name})")
    if num.value is None or den.value is None or not den.value:
        raise ValueError(f"ratio {name!r}: a missing or zero operand")
    kind = MODEL if MODEL in (num.kind, den.kind) else DERIVED
    return Figure(section, name, game, float(num.value) / float(den.value), "x", kind,
                  f"{num.name} ({num.value:,.6g} {num.unit}) / {den.name} ({den.value:,.6g} {den.unit}); both "
                  f"{num.basis}",
                  num.command or den.command, basis=num.basis, operands=(num, den))
