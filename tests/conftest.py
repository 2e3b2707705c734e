import os
import sys
from pathlib import Path

# tests import their helpers (schema_registry) as top-level modules
sys.path.insert(0, str(Path(__file__).parent))


import pytest
from sweep import Sweep, build_sweep


@pytest.fixture(autouse=True)
def _no_size_from_readline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pytest-xdist worker has GNU readline loaded, which exports the size of a terminal
    the worker has none of (COLUMNS=80, LINES=24): the commands a test runs, in this process
    or a child, see no size but one the test sets (a pipe's output as wide as its rows)."""
    if "PYTEST_XDIST_WORKER" in os.environ:
        monkeypatch.delenv("COLUMNS", raising=False)
        monkeypatch.delenv("LINES", raising=False)


@pytest.fixture(scope="session")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Sweep:
    """A sweep of 40 runs (42 with the real Trainer runs), built once (`tests/sweep.py`
    says its layout): nested two deep, some with bad lines, one resumed, one stalled 30 h,
    one gzip-compressed, one with a snapshot, one evaluating."""
    return build_sweep(tmp_path_factory.mktemp("sweep"))
