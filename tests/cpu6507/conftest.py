import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def harness():
    """The RTL core (ALE decimal rule) in the fast Verilator harness (built once, cached)."""
    from nc2600.hwtools.cpu6507_harness import Cpu6507Sim
    return Cpu6507Sim()


@pytest.fixture(scope="session")
def harness_nmos():
    """The RTL core built with decimal="nmos"."""
    from nc2600.hwtools.cpu6507_harness import Cpu6507Sim
    return Cpu6507Sim(decimal="nmos")
