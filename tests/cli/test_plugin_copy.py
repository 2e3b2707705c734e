"""`plugin --copy DIR` into a folder where `overbrainer_metrics.py` is already something:
the plugin's file is put in place by a rename (`files.atomic`), so what stood at its name is
replaced, never written through — a symlink planted there to a file elsewhere leaves that
file byte for byte as it was, and an earlier copy is updated whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from overbrainer_contract.plugin.source import PLUGIN_FILE, PLUGIN_PATH

OUTSIDE = b"a private file of someone else's\n"


def test_a_symlink_at_the_plugins_name_is_replaced_not_followed(
    tmp_path: Path, cli: Callable[..., Any]
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(OUTSIDE)
    run = tmp_path / "run"
    run.mkdir()
    (run / PLUGIN_FILE).symlink_to(outside)
    done = cli("plugin", "--copy", str(run))
    assert done.code == 0, done.err
    assert outside.read_bytes() == OUTSIDE
    copied = run / PLUGIN_FILE
    assert not copied.is_symlink()
    assert copied.read_bytes() == PLUGIN_PATH.read_bytes()
    assert done.out == f"{copied}\n"
    assert sorted(path.name for path in run.iterdir()) == [PLUGIN_FILE]  # no temporary left


def test_a_dangling_symlink_creates_nothing_where_it_points(
    tmp_path: Path, cli: Callable[..., Any]
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / PLUGIN_FILE).symlink_to(tmp_path / "planted.py")
    done = cli("plugin", "--copy", str(run))
    assert done.code == 0, done.err
    assert not (tmp_path / "planted.py").exists()
    assert (run / PLUGIN_FILE).read_bytes() == PLUGIN_PATH.read_bytes()


def test_an_earlier_copy_is_updated_and_a_folder_in_the_way_refused(
    tmp_path: Path, cli: Callable[..., Any]
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / PLUGIN_FILE).write_bytes(b"# an older plugin\n")
    assert cli("plugin", "--copy", str(run)).code == 0
    assert (run / PLUGIN_FILE).read_bytes() == PLUGIN_PATH.read_bytes()
    other = tmp_path / "other"
    (other / PLUGIN_FILE).mkdir(parents=True)
    done = cli("plugin", "--copy", str(other))
    assert done.code == 2
    assert len(done.err.splitlines()) == 1
    assert sorted(path.name for path in other.iterdir()) == [PLUGIN_FILE]
