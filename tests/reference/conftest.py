"""The reference runner, built once per session (see reference_runner.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from reference_runner import Answerer, runner_path


@pytest.fixture(scope="session")
def runner() -> Path:
    return runner_path()


@pytest.fixture(scope="session")
def reference(runner: Path) -> Iterator[Answerer]:
    answerer = Answerer(runner)
    yield answerer
    answerer.close()
