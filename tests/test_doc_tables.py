"""The tables of the README and docs/contract.md are the ones `schema/` gives
(`nox -s generate` writes them: `tools/codegen/docs_tables.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.codegen import docs_tables as tables

ROOT = Path(__file__).resolve().parents[1]


def test_the_committed_tables_are_a_fresh_generation() -> None:
    stale = tables.stale(ROOT)
    assert not stale, (
        f"{', '.join(stale)}: a table differs from schema/; run `{tables.COMMAND}` "
        "from the project's root and commit the result"
    )


def test_every_event_and_field_of_the_schema_is_a_row() -> None:
    table = tables.fresh_tables()["events"]
    for event in ("begin", "log", "stage", "eval", "end"):
        assert f"| `{event}` | | | |" in table
    assert "| | `step` | u64 | yes |" in table
    assert "| | `loss` | number or null | no (`null` when absent) |" in table
    assert "one of `train`, `merge`, `export`, `compare`" in table


def test_an_edited_table_is_found_and_rewritten(tmp_path: Path) -> None:
    for name in tables.FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        text = (ROOT / name).read_text(encoding="utf-8")
        (tmp_path / name).write_text(text.replace("Optimizer steps done.", "Steps."))
    assert tables.stale(tmp_path) == list(tables.FILES)
    assert tables.main([str(tmp_path)]) == 0
    assert tables.stale(tmp_path) == []


def test_a_page_without_its_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="BEGIN generated: events"):
        tables.rewrite("no table here\n", tables.fresh_tables())
