"""Fixtures the plugin's test modules share: the plugin imported as a run imports it, a run
folder with the env variables set, and a tiny model, tokenizer and data set built once per
module (nothing from a hub); two real Trainer runs with scalars (`trained_runs`), made once
per session for the modules that read them."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING

import pytest
from plugin_helpers import load_plugin, tiny_assets

if TYPE_CHECKING:
    from trained_runs import Trained


@pytest.fixture(scope="module")
def om() -> ModuleType:
    return load_plugin()


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """A run folder with the env variables set, and the working directory: `folder`, and
    `metrics` the file the plugin writes."""
    metrics = tmp_path / "metrics.jsonl"
    monkeypatch.setenv("OVERBRAINER_METRICS", str(metrics))
    monkeypatch.setenv("OVERBRAINER_SNAPSHOT", str(tmp_path / "snapshot.request"))
    monkeypatch.chdir(tmp_path)
    return SimpleNamespace(folder=tmp_path, metrics=metrics)


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    return tiny_assets(tmp_path_factory.mktemp("assets"))


@pytest.fixture(scope="session")
def trained_assets(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[ModuleType, tuple[Path, Path, Path]]:
    """The plugin and the tiny model's files of the session's real runs."""
    return load_plugin(), tiny_assets(tmp_path_factory.mktemp("trained-assets"))


@pytest.fixture(scope="session")
def evaluated(
    trained_assets: tuple[ModuleType, tuple[Path, Path, Path]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Trained:
    """A run whose evaluations compute an accuracy."""
    from trained_runs import accuracy, train

    om, assets = trained_assets
    return train(om, assets, tmp_path_factory.mktemp("evaluated"), [], compute_metrics=accuracy)


@pytest.fixture(scope="session")
def rewarded(
    trained_assets: tuple[ModuleType, tuple[Path, Path, Path]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Trained:
    """A run whose training logs a callback fills with TRL's keys, counting input tokens (so
    that every training log holds `train_runtime` too)."""
    from trained_runs import TrlRewards, train

    om, assets = trained_assets
    folder = tmp_path_factory.mktemp("rewarded")
    return train(om, assets, folder, [TrlRewards()], include_num_input_tokens_seen=True)
