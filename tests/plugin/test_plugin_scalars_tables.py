"""The scalars of two real Trainer runs, through `export` and DuckDB.

The runs are conftest.py's, which test_plugin_scalars.py reads too (4 steps of the tiny
model, evaluating every 2): one whose evaluations compute an accuracy (`compute_metrics`),
one whose training logs a callback fills with TRL's keys (a None, a NaN). Each is exported
by the command line as a wide table (`export RUN -o wide.parquet`: a float column per scalar
key) and as a long one (`export RUN --long -o long.parquet`: a row per scalar), and queried
with DuckDB; what each query must give is read off the metrics file with `json` alone, its
numbers read as the reference reads them (`reference_float`): the tables hold the
reference's values, to the bit.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

duckdb = pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")
pytest.importorskip("torch")
pytest.importorskip("transformers")

from trained_runs import SUMMARY  # noqa: E402

RUNS = ["evaluated", "rewarded"]
LONG_COLUMNS = ["run", "line", "event", "step", "time", "key", "value"]


class Exported:
    """A run's metrics file, its lines as `json` reads them (numbers as the reference reads
    them), and its two tables, exported by the command line."""

    def __init__(self, metrics: Path, tables: Path) -> None:
        self.metrics = metrics
        self.run = metrics.parent.name  # a run folder alone is named by its folder
        self.lines: list[dict[str, Any]] = [
            json.loads(raw, parse_float=reference_float) for raw in metrics.read_text().splitlines()
        ]
        self.wide = tables / "wide.parquet"
        self.long = tables / "long.parquet"
        export(metrics.parent, "-o", str(self.wide))
        export(metrics.parent, "--long", "-o", str(self.long))

    def keys(self) -> list[str]:
        """Every scalar key of the lines, each once, sorted (the wide table's key columns)."""
        return sorted({key for line in self.lines for key in scalars_of(line)})

    def query(self, table: Path, sql: str) -> list[tuple[Any, ...]]:
        """`sql` over `table`, named `t` in it, its rows in the file's order (`row`)."""
        relation = duckdb.sql(
            f"WITH t AS (SELECT *, file_row_number AS row FROM read_parquet(?, "
            f"file_row_number = true)) {sql}",
            params=[str(table)],
        )
        rows: list[tuple[Any, ...]] = relation.fetchall()
        return rows


def export(run: Path, *args: str) -> None:
    """`overbrainer-contract export RUN ARGS...`, run as a command: exit 0."""
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "export", str(run), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def exported(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Exported]:
    """Each real run, exported wide and long."""
    tables = {}
    for name in RUNS:
        _, metrics, _ = request.getfixturevalue(name)
        tables[name] = Exported(metrics, tmp_path_factory.mktemp(f"{name}-tables"))
    return tables


def reference_float(text: str) -> float:
    """A JSON number with a fraction or an exponent, as the reference reads it: serde_json
    1.0.87 without `float_roundtrip` (docs/fidelity.md), which gathers the digits into a u64,
    converts it, then multiplies or divides by the power of ten of its table. Not correctly
    rounded: `json.loads` alone is one float away on many of the plugin's numbers (times)."""
    mantissa, _, written_exponent = text.lower().partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole.lstrip("-") + fraction
    exponent = int(written_exponent or "0") - len(fraction)
    # What the plugin writes (Python's shortest repr) gathers whole into a u64, never past
    # the table: serde_json's other paths (digits dropped, 1e308 steps) are not needed.
    assert int(digits) < 2**64, text
    assert abs(exponent) <= 308, text
    power = float(f"1e{abs(exponent)}")  # the table's power: the literal's float
    value = float(int(digits))  # `significand as f64`, rounded to nearest as Rust's `as` is
    value = value * power if exponent >= 0 else value / power
    return -value if whole.startswith("-") else value


def scalars_of(line: dict[str, Any]) -> dict[str, Any]:
    """A line's scalars: a log's `scalars`, an end's `summary` (none for the others)."""
    found: dict[str, Any] = line.get("scalars", line.get("summary", {}))
    return found


NAN = "NaN"  # what a NaN is compared as: NaN equals nothing, itself included


def as_float(value: Any) -> float | str | None:
    """A scalar of a line as a float64 column holds it: `"NaN"` and the infinities as those
    floats (NaN as `NAN`, to compare), `null` as None."""
    if value is None:
        return None
    if value == "NaN":
        return NAN
    if value in ("Infinity", "-Infinity"):
        return math.inf if value == "Infinity" else -math.inf
    assert isinstance(value, int | float), value
    return float(value)


def got(value: float | None) -> float | str | None:
    """A value DuckDB gave, NaN as `NAN`."""
    return NAN if value is not None and math.isnan(value) else value


def quoted(key: str) -> str:
    return '"' + key.replace('"', '""') + '"'


@pytest.mark.parametrize("name", RUNS)
def test_the_wide_table_is_a_row_per_line_and_a_column_per_key(
    name: str, exported: dict[str, Exported]
) -> None:
    run = exported[name]
    rows = run.query(run.wide, "SELECT run, line, event, step FROM t ORDER BY row")
    want = [
        (run.run, number, line["event"], line.get("step"))
        for number, line in enumerate(run.lines, start=1)
    ]
    assert rows == want
    columns = [
        row[0]
        for row in duckdb.sql(
            "DESCRIBE SELECT * FROM read_parquet(?)", params=[str(run.wide)]
        ).fetchall()
    ]
    keys = run.keys()
    assert columns[-len(keys) :] == keys, "a column per key, named by it, sorted"
    assert not set(columns[: -len(keys)]) & set(keys)


@pytest.mark.parametrize("name", RUNS)
def test_every_scalar_of_the_lines_is_its_row_value_in_the_wide_table(
    name: str, exported: dict[str, Exported]
) -> None:
    run = exported[name]
    keys = run.keys()
    rows = run.query(run.wide, f"SELECT {', '.join(map(quoted, keys))} FROM t ORDER BY row")
    assert len(rows) == len(run.lines)
    for number, (line, row) in enumerate(zip(run.lines, rows, strict=True), start=1):
        scalars = scalars_of(line)
        want = [as_float(scalars.get(key)) for key in keys]
        assert [got(value) for value in row] == want, f"line {number}"


def test_the_evaluations_accuracy_is_the_eval_accuracy_column(
    exported: dict[str, Exported],
) -> None:
    run = exported["evaluated"]
    evaluations = [
        (number, line["step"], line["eval_loss"], line["scalars"]["eval_accuracy"])
        for number, line in enumerate(run.lines, start=1)
        if line["event"] == "log" and "eval_accuracy" in line.get("scalars", {})
    ]
    assert [step for _, step, _, _ in evaluations] == [2, 4]
    rows = run.query(
        run.wide,
        "SELECT line, step, eval_loss, eval_accuracy FROM t"
        " WHERE eval_accuracy IS NOT NULL ORDER BY row",
    )
    assert rows == evaluations
    best = run.query(run.wide, "SELECT max(eval_accuracy), count(eval_accuracy) FROM t")
    assert best == [(max(a for *_, a in evaluations), 2)]


def test_a_nan_is_nan_and_a_null_is_null_in_both_tables(exported: dict[str, Exported]) -> None:
    run = exported["rewarded"]
    training = [
        (number, line)
        for number, line in enumerate(run.lines, start=1)
        if line["event"] == "log" and line["loss"] is not None
    ]
    assert [line["step"] for _, line in training] == [1, 2, 3, 4]
    assert all(line["scalars"]["rewards/margins"] == "NaN" for _, line in training)
    assert all(line["scalars"]["rewards/rejected"] is None for _, line in training)
    rows = run.query(
        run.wide,
        'SELECT line, "rewards/margins" IS NULL, isnan("rewards/margins"),'
        ' "rewards/rejected" IS NULL, "rewards/chosen" FROM t WHERE loss IS NOT NULL ORDER BY row',
    )
    assert rows == [
        (number, False, True, True, line["scalars"]["rewards/chosen"]) for number, line in training
    ]
    rows = run.query(
        run.long,
        "SELECT key, count(*), count(value), count(*) FILTER (WHERE isnan(value)) FROM t"
        " WHERE key IN ('rewards/margins', 'rewards/rejected') GROUP BY key ORDER BY key",
    )
    assert rows == [("rewards/margins", 4, 4, 4), ("rewards/rejected", 4, 0, 0)]


@pytest.mark.parametrize("name", RUNS)
def test_the_end_lines_summary_is_a_column_each_on_its_row(
    name: str, exported: dict[str, Exported]
) -> None:
    run = exported[name]
    (end,) = [(n, line) for n, line in enumerate(run.lines, start=1) if line["event"] == "end"]
    number, line = end
    summary = line["summary"]
    assert set(summary) >= SUMMARY
    keys = sorted(summary)
    rows = run.query(
        run.wide, f"SELECT line, event, {', '.join(map(quoted, keys))} FROM t WHERE event = 'end'"
    )
    assert rows == [(number, "end", *(float(summary[key]) for key in keys))]


@pytest.mark.parametrize("name", RUNS)
def test_the_long_table_is_a_row_per_scalar_of_the_lines(
    name: str, exported: dict[str, Exported]
) -> None:
    run = exported[name]
    want = [
        (run.run, number, line["event"], line["step"], line["time"], key, as_float(value))
        for number, line in enumerate(run.lines, start=1)
        for key, value in scalars_of(line).items()
    ]
    assert len(want) > 10
    (count,) = run.query(run.long, "SELECT count(*) FROM t")
    assert count == (len(want),)
    rows = run.query(run.long, f"SELECT {', '.join(LONG_COLUMNS)} FROM t ORDER BY row")
    assert [(*row[:6], got(row[6])) for row in rows] == want, "in the order of the lines"
    per_key = run.query(run.long, "SELECT key, count(*) FROM t GROUP BY key ORDER BY key")
    counted = Counter(key for line in run.lines for key in scalars_of(line))
    assert per_key == sorted(counted.items())
