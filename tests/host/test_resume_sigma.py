"""``nc2600 run --resume DIR --sigma S``: the run's own mutation power, given by its value, is no
change (a run started without ``--sigma`` records None and uses the algorithm's default: GA 0.002,
ES 0.02, Such et al. 2017 / Salimans et al. 2017); another value is refused naming the one in use."""
import json

import pytest

from nc2600.host.cli import build_parser
from nc2600.host.commands.run import build
from nc2600.host.errors import UserError


@pytest.mark.parametrize("algo, default", [("ga", 0.002), ("es", 0.02)])
def test_resume_with_the_default_sigma_by_value(tmp_path, algo, default):
    (tmp_path / "config.json").write_text(json.dumps({"config": {"game": "pong", "algo": algo}}))
    parse = build_parser().parse_args
    cfg, out, resume = build(parse(["run", "--resume", str(tmp_path), "--sigma", str(default)]))
    assert resume and cfg.sigma is None and cfg.effective_sigma() == default
    with pytest.raises(UserError, match=rf"--sigma differs from the run being resumed \({default}\)"):
        build(parse(["run", "--resume", str(tmp_path), "--sigma", "0.005"]))
