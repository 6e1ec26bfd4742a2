"""``--array RxC``: one parser (:func:`nc2600.host.cli_types.array_shape`) for mesh, report, instance-play and
synth; bad text is one line and exit 2 at parse time, good text is ``(rows, cols)``."""
import argparse

import pytest

from nc2600.host.cli import build_parser, main

#: each command with the options it requires (parsing only: nothing is run)
COMMANDS = {
    "mesh": ["mesh"],
    "report": ["report"],
    "instance-play": ["instance-play", "--game", "pong", "--params", "p.npy"],
    "synth": ["synth"],
}


def _refused(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("cmd", sorted(COMMANDS))
@pytest.mark.parametrize("text, message", [
    ("16x", "expected ROWSxCOLS, e.g. 16x16, got '16x'"),
    ("16x16x2", "expected ROWSxCOLS, e.g. 16x16, got '16x16x2'"),
    ("abc", "expected ROWSxCOLS, e.g. 16x16, got 'abc'"),
    ("-16x16", "expected ROWSxCOLS, e.g. 16x16, got '-16x16'"),
    (" 16x16", "expected ROWSxCOLS, e.g. 16x16, got ' 16x16'"),
    # nc2600.hls_models.policy_array.check_shape: rows in (4, 8, 16, 32, 64), cols in (4, 8, 16), cols <= rows
    ("0x16", "'0x16': rows must be one of (4, 8, 16, 32, 64), got 0"),
    ("12x12", "'12x12': rows must be one of (4, 8, 16, 32, 64), got 12"),
    ("16x32", "'16x32': cols must be one of (4, 8, 16), got 32"),
    ("8x16", "'8x16': cols (16) must not exceed rows (8)"),
])
def test_bad_array_text_is_one_line_exit_2(capsys, cmd, text, message):
    line = _refused(capsys, [*COMMANDS[cmd], f"--array={text}"])
    assert line.startswith(f"nc2600 {cmd}: error: argument --array: {message}"), line


@pytest.mark.parametrize("cmd", sorted(COMMANDS))
def test_array_value_starting_with_a_dash_is_a_missing_argument(capsys, cmd):
    """``--array -16x16`` (a space, not ``=``): argparse reads ``-16x16`` as an option, so
    ``--array`` has no value; still one line and exit 2."""
    line = _refused(capsys, [*COMMANDS[cmd], "--array", "-16x16"])
    assert line == f"nc2600 {cmd}: error: argument --array: expected one argument"


@pytest.mark.parametrize("cmd", sorted(COMMANDS))
@pytest.mark.parametrize("text, shape", [("16x16", (16, 16)), ("32x8", (32, 8)), ("8X4", (8, 4)),
                                         ("004x4", (4, 4)),
                                         # tiles the nature network only (its dense layer's 3,136 inputs)
                                         ("64x16", (64, 16))])
def test_good_array_text_parses_to_rows_cols(cmd, text, shape):
    args = build_parser().parse_args([*COMMANDS[cmd], "--array", text])
    assert args.array == shape and type(args.array[0]) is int and type(args.array[1]) is int


def test_array_shape_is_the_engine_rule_for_some_network():
    from nc2600.hls_models.policy_array import check_shape
    from nc2600.host.cli_types import array_shape
    with pytest.raises(ValueError):
        check_shape(64, 16, "small")           # the small network's dense layer: 2,592 inputs
    assert array_shape("64x16") == check_shape(64, 16, "nature") == (64, 16)
    with pytest.raises(argparse.ArgumentTypeError):
        array_shape("64x32")


def test_array_default_is_the_engines_default(capsys):
    """No --array: the 16 x 16 array engine of nc2600.hls_models.engines, in mesh's options and
    instance-play's shape (the lane engine's instance is built with the same default)."""
    from nc2600.hls_models.engines import DEFAULT_COLS, DEFAULT_ROWS
    from nc2600.host.commands.instance_play import _array_shape
    from nc2600.host.commands.mesh import _engine_shape
    assert (DEFAULT_ROWS, DEFAULT_COLS) == (16, 16)
    parser = build_parser()
    assert _engine_shape(parser.parse_args(["mesh"])) == (16, 16)
    assert _engine_shape(parser.parse_args(["mesh", "--array", "8x8"])) == (8, 8)
    assert _engine_shape(parser.parse_args(["mesh", "--engine", "lane"])) is None
    play = COMMANDS["instance-play"]
    assert _array_shape(parser.parse_args([*play, "--colour-clocks", "1"])) == (16, 16)
    assert _array_shape(parser.parse_args([*play, "--array", "32x8"])) == (32, 8)
    assert _array_shape(parser.parse_args([*play, "--engine", "lane"])) == (16, 16)


def test_report_refuses_a_shape_its_instance_cannot_take(capsys, tmp_path):
    """report checks the parsed shape for its instance (the small network): 64x16 parses (the
    nature network's) but is refused before the output folder is made."""
    rc = main(["report", "--no-instance", "--array", "64x16", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("nc2600: error: --array: rows (64) must divide") and len(err.splitlines()) == 1
    assert not (tmp_path / "r").exists()
