"""Waveforms of the Verilated instance (``InstanceSim(trace=True)``, ``instance-play --fst``).

The FST file is checked against the format itself (fstapi's block layout; the block and LZ4 readers
are the ones of tests/sim_framework/test_sim_driver.py):
the header block (type 0) holds the first and last time stamps, which must be the window asked
for (clock ``c`` at times ``2c+1`` and ``2c+2``); the hierarchy block (type 4 gzip, 6 LZ4 or 7
double LZ4) must name the instance's ports.
"""
import re
import struct
import zlib

import numpy as np
import pytest

from tests.sim_framework.test_sim_driver import fst_blocks, lz4_block_decode


def _fst_window(path) -> tuple[int, int, bytes]:
    blocks = fst_blocks(open(path, "rb").read())
    start, end = struct.unpack(">QQ", blocks[0][:16])
    if 4 in blocks:
        hier = zlib.decompress(blocks[4][8:], 31)
    else:
        kind = 6 if 6 in blocks else 7
        size = struct.unpack(">Q", blocks[kind][:8])[0]
        if kind == 6:
            hier = lz4_block_decode(blocks[6][8:], size)
        else:                                   # LZ4 twice: first-stage length, then the data
            size1 = struct.unpack(">Q", blocks[7][8:16])[0]
            hier = lz4_block_decode(lz4_block_decode(blocks[7][16:], size1), size)
    return start, end, hier


def test_trace_window_and_signal_names(tmp_path):
    from nc2600.hwtools.instance_harness import InstanceSim
    sim = InstanceSim(210, "NTSC", trace=True)
    c0 = sim.cycles
    path = tmp_path / "w.fst"
    sim.trace(path, 1000, after=10)
    sim.idle(2000)
    with pytest.raises(RuntimeError, match="one waveform per simulation"):
        sim.trace(tmp_path / "again.fst", 10)
    sim.close()
    start, end, hier = _fst_window(path)
    assert (start, end) == (2 * (c0 + 10) + 1, 2 * (c0 + 10 + 1000))
    for name in (b"clk", b"rst", b"bus__awaddr", b"bus__rdata"):    # "name [hi:lo]" for vectors
        assert re.search(rb"[\x00-\x1f]" + name + rb"( \[\d+:0\])?\x00", hier), name


def test_untraced_simulation_refuses_a_waveform(tmp_path):
    from nc2600.hwtools.instance_harness import InstanceSim
    sim = InstanceSim(210, "NTSC")
    with pytest.raises(RuntimeError, match="without waveform tracing"):
        sim.trace(tmp_path / "w.fst", 100)
    with pytest.raises(ValueError, match="node"):
        InstanceSim(210, "NTSC", node=True, trace=True)


def test_instance_play_fst(tmp_path, capsys):
    """``instance-play --fst``: the file appears complete under its name (no ``.partial`` left),
    with exactly the window of clocks asked for; a path in a missing folder is one line, exit 2."""
    from nc2600.host.cli import main
    from nc2600.host.episodes.policy import init_params
    p = tmp_path / "p.npy"
    np.save(p, init_params(1, 18))
    assert main(["instance-play", "--game", "boxing", "--params", str(p), "--fst", str(tmp_path / "no" / "w.fst")]) == 2
    assert "--fst" in capsys.readouterr().err
    fst = tmp_path / "w.fst"
    with pytest.raises(SystemExit) as exc:
        main(["instance-play", "--game", "boxing", "--params", str(p), "--episode-frames", "8"])
    assert exc.value.code == 2
    assert "--episode-frames" in capsys.readouterr().err        # shorter than an episode's start
    assert main(["instance-play", "--game", "boxing", "--params", str(p), "--episode-frames", "40",
                 "--fst", str(fst), "--fst-cycles", "3000", "--fst-after", "100"]) == 0
    assert fst.is_file() and not (tmp_path / "w.fst.partial").exists()
    start, end, hier = _fst_window(fst)
    assert end - start == 2 * 3000 - 1
    assert re.search(rb"[\x00-\x1f]bus__wdata \[31:0\]\x00", hier)
