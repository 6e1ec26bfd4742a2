"""The run settings stated once (:mod:`nc2600.host.launcher.settings`): the options of ``nc2600 run``, the
bounds :meth:`RunConfig.validate` checks and the resume rules come from ``RunConfig``'s fields.

Oracles: the rules as the user guide (docs/user-guide.md) states them (only --generations, --max-frames, --workers,
--envs-per-block, --no-video, --cluster and --ray-address may change on --resume; the run's sizes
are integers in ``[1, bound]``), and argparse's own parse of a command line.
"""
import argparse
import dataclasses

import pytest

from nc2600.host.commands import run as run_cmd
from nc2600.host.errors import UserError
from nc2600.host.launcher.settings import LIMITS, RESUME_MUTABLE, RunConfig


def _parser():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    run_cmd.register(sub, {})
    return p


def test_resume_rules_and_bounds_come_from_the_fields():
    assert RESUME_MUTABLE == ("generations", "max_frames", "workers", "envs_per_block", "video", "cluster",
                              "ray_address")
    assert LIMITS["population"] == 1_000_000 and LIMITS["frame_skip"] == 64 and LIMITS["calibration_obs"] == 100_000
    assert "seed" not in LIMITS and "sigma" not in LIMITS
    names = {f.name for f in dataclasses.fields(RunConfig)}
    assert set(RESUME_MUTABLE) <= names and set(LIMITS) <= names


def test_every_option_is_a_field_and_parses_into_it():
    """Each field with help is an option whose value lands in the field of the same name; the
    fields without help (noise_table_seed, calibration_obs) are not options."""
    fields = [f.name for f in run_cmd.option_fields()]
    assert {"noise_table_seed", "calibration_obs"}.isdisjoint(fields) and "es_l2" in fields
    args = _parser().parse_args(["run", "--population", "12", "--no-video", "--backend", "rtl",
                                 "--cluster", "ray", "--sigma", "0.5", "--seed", "0x10"])
    assert (args.population, args.video, args.backend, args.cluster, args.sigma, args.seed) == (
        12, False, "rtl", "ray", 0.5, 16)
    assert all(getattr(args, f) is None for f in fields if f not in (
        "population", "video", "backend", "cluster", "sigma", "seed"))


@pytest.mark.parametrize("argv", [["--population", "1000001"], ["--frame-skip", "65"], ["--sigma", "0"],
                                  ["--es-lr", "1.5"], ["--backend", "tpu"], ["--cluster", "slurm"]])
def test_out_of_bounds_options_are_refused_by_the_parser(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        _parser().parse_args(["run", *argv])
    assert exc.value.code == 2
    assert argv[0] in capsys.readouterr().err


def test_validate_uses_the_field_bounds():
    with pytest.raises(UserError, match=r"--frame-skip must be an integer in \[1, 64\], got 65"):
        RunConfig(frame_skip=65).validate()
    RunConfig(frame_skip=64, episode_frames=200).validate()
