"""The hidden decision's wait model (:func:`nc2600.hls_models.frame_skip.hidden_stall`), by hand: the
engine starts in the observation's clock t, the action comes 11,660 clocks later, six stages put
it into the inputs, so the console may run its controller read from clock t + 11,667; its clock k
of the frame runs at t + 2 + k. A read at k = 1,600 waits 11,665 - 1,600 = 10,065 clocks, plus the
observation's clock."""
import pytest

from nc2600.hls_models.frame_skip import hidden_stall, serial_stall


def test_hidden_stall_by_hand():
    assert hidden_stall(1600, 19_912, 11_660) == 1 + 10_065
    assert hidden_stall(0, 19_912, 11_660) == 1 + 11_665          # a read in the frame's first clocks
    assert hidden_stall(11_665, 19_912, 11_660) == 1              # late enough: only the observation's clock
    assert hidden_stall(None, 19_912, 11_660) == 1                # no read: the frame's end is later
    assert hidden_stall(None, 10_000, 11_660) == 1 + 1_665        # no read and a short frame: its end waits
    assert hidden_stall(15_000, 10_000, 11_660) == 1 + 1_665
    assert serial_stall(11_660) == 11_661
    with pytest.raises(ValueError):
        hidden_stall(-1, 10, 10)
