"""Fixtures the plugin's test modules share: the plugin imported as a run imports it, and a
tiny model, tokenizer and data set built once per module (nothing from a hub)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from plugin_helpers import load_plugin, tiny_assets


@pytest.fixture(scope="module")
def om() -> ModuleType:
    return load_plugin()


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    return tiny_assets(tmp_path_factory.mktemp("assets"))
