"""`overbrainer-contract export`: three real Trainer runs to Parquet, queried by DuckDB and
polars with the queries of docs/table.md; the other formats, partitions, errors and faults.

The expected best eval loss of each run is computed here from the metrics files with
`json` alone, not from anything the package reads or writes.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest
from hostile import tmpfs
from overbrainer_contract.table import SCHEMA, read_runs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
RUNS = ["tiny-run", "sweep-lr3e-2-seed1", "sweep-lr3e-4-seed2"]
PAGE = "docs/table.md"
SECTION = (ROOT / PAGE).read_text(encoding="utf-8")
SQL = re.search(r"```sql\n(.*?)```", SECTION, re.S)
POLARS = re.search(r"```python\n(.*?)```", SECTION, re.S)
SHELL = re.search(r"```sh\n(.*?)```", SECTION, re.S)


def fetched(query: str) -> list[tuple[Any, ...]]:
    """The rows DuckDB answers `query` with (a query: it has rows, unlike a statement)."""
    relation = duckdb.sql(query)
    assert relation is not None, query
    return relation.fetchall()


def expected_best() -> list[tuple[str, float, int]]:
    """(run, lowest eval loss, its step: the earliest on a tie) from the raw lines,
    lowest first."""
    best = []
    for run in RUNS:
        evaluations = [
            (line["eval_loss"], line["step"])
            for text in (EXAMPLES / run / "metrics.jsonl").read_text(encoding="utf-8").splitlines()
            if (line := json.loads(text))["event"] == "log" and line.get("eval_loss") is not None
        ]
        assert evaluations, f"{run} has no evaluation"
        best.append((run, *min(evaluations)))
    return sorted(best, key=lambda item: item[1])


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page's export command, run in a folder holding the examples."""
    folder = tmp_path_factory.mktemp("export")
    assert SHELL is not None
    command = SHELL.group(1).split()
    assert command[:2] == ["overbrainer-contract", "export"]
    assert command[2:-2] == [f"examples/{run}" for run in RUNS]
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", *command[1:-1], str(folder / command[-1])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "exported 268 rows of 3 runs" in done.stderr
    return folder


def test_the_examples_are_three_real_runs_with_evaluations() -> None:
    best = expected_best()
    assert len({step for _, _, step in best}) > 1
    lines = (EXAMPLES / "sweep-lr3e-2-seed1" / "metrics.jsonl").read_text().splitlines()
    last_eval = [json.loads(t) for t in lines if '"eval_loss":null' not in t and "eval_loss" in t]
    assert last_eval[-1]["step"] != best[0][2], "the best comes before the last evaluation"


def test_duckdb_gives_the_best_eval_loss_of_each_run(
    exported: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert SQL is not None
    monkeypatch.chdir(exported)
    rows = fetched(SQL.group(1))
    assert rows == expected_best()  # floats exact: the Parquet holds the lines' values


def test_polars_gives_the_same(exported: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert POLARS is not None
    monkeypatch.chdir(exported)
    scope: dict[str, Any] = {}
    exec(compile(POLARS.group(1), f"{PAGE} (polars)", "exec"), scope)
    best = scope["best"]
    assert isinstance(best, pl.DataFrame)
    assert best.rows() == expected_best()


def test_the_pages_result_table_is_what_the_query_gives() -> None:
    table = re.findall(r"^\| ([\w.-]+) \| ([\d.]+) \| (\d+) \|$", SECTION, re.M)
    assert [(run, round(loss, 4), step) for run, loss, step in expected_best()] == [
        (run, float(loss), int(step)) for run, loss, step in table
    ]


def test_partitioned_export_reads_the_same(tmp_path: Path) -> None:
    out = tmp_path / "runs.parquet"
    code, _, err = _cli(
        "export", *(str(EXAMPLES / run) for run in RUNS), "--partition-by", "run", "-o", str(out)
    )
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == sorted(f"run={run}" for run in RUNS)
    assert SQL is not None
    query = SQL.group(1).replace(
        "'runs.parquet'", f"read_parquet('{out}/*/*.parquet', hive_partitioning = true)"
    )
    assert fetched(query) == expected_best()
    part = pq.read_table(out / "run=tiny-run" / "part-0.parquet")
    assert part.column("line").to_pylist() == list(range(1, part.num_rows + 1))  # in order


@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".csv"])
def test_every_format_holds_the_rows_of_read_runs(tmp_path: Path, suffix: str) -> None:
    runs = [str(EXAMPLES / run) for run in RUNS]
    out = tmp_path / f"runs{suffix}"
    code, _, err = _cli("export", *runs, "-o", str(out))
    assert code == 0, err
    expected = read_runs(runs).to_pylist()
    if suffix == ".parquet":
        back = pq.read_table(out)
        assert back.schema.equals(SCHEMA, check_metadata=True)
    elif suffix == ".arrow":
        back = pa.ipc.open_file(str(out)).read_all()
        assert back.schema.equals(SCHEMA, check_metadata=True)
    else:
        types = {
            f.name: pa.string() if isinstance(f.type, pa.DictionaryType) else f.type for f in SCHEMA
        }
        options = pyarrow.csv.ConvertOptions(column_types=types, strings_can_be_null=True)
        back = pyarrow.csv.read_csv(out, convert_options=options)  # an empty cell is null
    assert back.to_pylist() == expected
    assert os.listdir(tmp_path) == [out.name]  # no temporary left


# --- the command line: errors, exit codes, faults ---


@pytest.fixture
def cli_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., tuple[int, str, str]]:
    monkeypatch.chdir(tmp_path)
    return _cli


def _cli(*argv: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def test_rejected_lines_are_left_out_counted_and_exit_1(
    cli_in: Callable[..., tuple[int, str, str]], tmp_path: Path
) -> None:
    (tmp_path / "bad.jsonl").write_bytes(
        b'{"event":"end","time":1,"step":2}\n'
        b"not json\n"
        b'{"event":"end","time":1,"step":-1}\n'
        b'{"event":"log","time":3,"step":3}\n'
        b'{"event":"end"'
    )
    code, out, err = cli_in("export", "bad.jsonl", "-o", "t.parquet")
    assert code == 1
    assert out == ""
    assert "bad.jsonl: 2 lines left out, rejected by the reference (syntax 1, data 1); " in err
    assert "the first at line 2" in err
    assert "bad.jsonl: warning: the last line is cut short" in err
    assert "exported 2 rows of 1 run to t.parquet; 2 lines left out" in err
    table = pq.read_table(tmp_path / "t.parquet")
    assert table.column("line").to_pylist() == [1, 4]
    assert table.column("run").to_pylist() == ["bad.jsonl", "bad.jsonl"]


def test_a_cut_last_line_alone_is_a_warning(
    cli_in: Callable[..., tuple[int, str, str]], tmp_path: Path
) -> None:
    (tmp_path / "live.jsonl").write_bytes(b'{"event":"end","time":1,"step":2}\n{"event":"lo')
    code, _, err = cli_in("export", "live.jsonl", "-o", "t.csv")
    assert code == 0, err
    assert "warning: the last line is cut short" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["examples/tiny-run", "-o", "t.txt"], "unknown output format"),
        (["nowhere", "-o", "t.parquet"], "nowhere: no such file or folder"),
        (["examples/tiny-run", "examples/make_example.py", "-o", "t.csv"], "not a run folder"),
        (["examples/tiny-run", "-o", "missing/t.parquet"], "missing"),
        (["examples/tiny-run", "--partition-by", "event", "-o", "t.parquet"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    code, _, err = _cli("export", *argv)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert not (ROOT / "t.parquet").exists()
    assert not (ROOT / "t.csv").exists()


def test_a_partitioned_export_never_writes_into_a_folder_that_holds_something(
    cli_in: Callable[..., tuple[int, str, str]], tmp_path: Path
) -> None:
    (tmp_path / "runs.parquet").mkdir()
    (tmp_path / "runs.parquet" / "keep.txt").write_text("mine")
    run = str(EXAMPLES / "tiny-run")
    code, _, err = cli_in("export", run, "--partition-by", "run", "-o", "runs.parquet")
    assert code == 2
    assert "already exists" in err
    assert [p.name for p in (tmp_path / "runs.parquet").iterdir()] == ["keep.txt"]
    code, _, err = cli_in("export", run, "-o", "runs.parquet")  # a file where a folder is
    assert code == 2
    assert "is a folder" in err
    (tmp_path / "runs.parquet" / "keep.txt").unlink()  # an empty folder is taken
    code, _, err = cli_in("export", run, "--partition-by", "run", "-o", "runs.parquet")
    assert code == 0, err


def test_without_pyarrow_export_says_what_to_install(tmp_path: Path) -> None:
    script = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "from overbrainer_contract.cli import main\n"
        f"sys.exit(main(['export', {str(EXAMPLES / 'tiny-run')!r}, '-o', 'x.parquet']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "pip install 'overbrainer-contract[table]'" in done.stderr


@pytest.mark.parametrize("partitioned", [False, True], ids=["file", "partitions"])
def test_an_interrupted_export_leaves_the_previous_file(tmp_path: Path, partitioned: bool) -> None:
    """A run that is a FIFO, fed a few lines and then left open: SIGINT stops the export
    mid-stream; exit 130, the previous output untouched (a partitioned export: nothing),
    no temporary file or folder left."""
    fifo = tmp_path / "live.jsonl"
    os.mkfifo(fifo)
    out = tmp_path / "runs.parquet"
    options = ["--partition-by", "run"] if partitioned else []
    if not partitioned:
        out.write_bytes(b"the previous export")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "overbrainer_contract",
            "export",
            str(fifo),
            *options,
            "-o",
            str(out),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with fifo.open("wb") as writer:
            writer.write(b'{"event":"end","time":1,"step":2}\n' * 70_000)  # a batch and more
            writer.flush()
            deadline = time.monotonic() + 30
            while not any(p.name.endswith(".tmp") for p in tmp_path.iterdir()):
                assert time.monotonic() < deadline, "the export never started writing"
                time.sleep(0.02)
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "interrupted" in err
    if partitioned:
        assert sorted(p.name for p in tmp_path.iterdir()) == ["live.jsonl"]
    else:
        assert out.read_bytes() == b"the previous export"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["live.jsonl", "runs.parquet"]


def _stderr_on_a_terminal(argv: list[str]) -> tuple[int, bytes]:
    """Runs the command with its standard error on a pseudo-terminal: exit status and
    everything written there."""
    import pty
    import select

    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "overbrainer_contract", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env={**os.environ, "TERM": "xterm", "COLUMNS": "100"},
    )
    os.close(slave)
    seen = b""
    try:
        while select.select([master], [], [], 60)[0]:
            try:
                data = os.read(master, 65536)
            except OSError:  # the other end closed
                break
            if not data:
                break
            seen += data
        assert process.wait(timeout=60) is not None
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    return process.returncode, seen


def test_a_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    source = tmp_path / "metrics.jsonl"
    line = '{"event":"log","time":1.5,"step":%d,"loss":2.5}\n'
    source.write_text("".join(line % step for step in range(1, 50_001)))
    out = tmp_path / "runs.parquet"
    code, seen = _stderr_on_a_terminal(["export", str(source), "-o", str(out)])
    assert code == 0, seen
    assert b"export \x1b[" in seen  # the bar, in colour
    assert b"MB" in seen  # bytes read of the file's
    assert pq.read_table(out).num_rows == 50_000
    code, seen = _stderr_on_a_terminal(
        ["export", str(source), "--progress", "never", "-o", str(out)]
    )
    assert code == 0
    assert b"\x1b[" not in seen
    code, _, err = _cli("export", str(source), "-o", str(out))  # not a terminal: no bar
    assert code == 0
    assert "\x1b[" not in err
    assert err.strip() == f"overbrainer-contract: exported 50,000 rows of 1 run to {out}"


def test_a_run_that_cannot_be_read_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    run = tmp_path / "broken"
    (run / "metrics.jsonl").mkdir(parents=True)  # a folder where the file should be
    out = tmp_path / "runs.parquet"
    code, _, err = _cli("export", str(EXAMPLES / "tiny-run"), str(run), "-o", str(out))
    assert code == 2
    assert err == f"overbrainer-contract: error: {run}/metrics.jsonl: a folder, not a file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken"]


def test_standard_input_is_a_run_named_dash(tmp_path: Path) -> None:
    out = tmp_path / "runs.parquet"
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "export", "-", "-o", str(out)],
        input=(EXAMPLES / "tiny-run" / "metrics.jsonl").read_bytes(),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    table = pq.read_table(out)
    assert set(table.column("run").to_pylist()) == {"-"}
    assert table.num_rows == 76


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs mounted for the test (root only), unmounted after it."""
    with tmpfs(tmp_path / "disk", "256k") as disk:
        yield disk


def test_a_full_disk_fails_cleanly_and_a_freed_one_takes_the_export(small_disk: Path) -> None:
    """The disk fills while the Parquet file is written: exit 2 with the system's reason,
    no temporary left behind; once space is freed the same command succeeds."""
    filler = small_disk / "filler"
    with filler.open("wb") as handle:  # leave 8 KiB: less than the export needs (~23 KiB)
        handle.write(b"\0" * (256 - 8) * 1024)
    out = small_disk / "runs.parquet"
    runs = [str(EXAMPLES / run) for run in RUNS]
    code, _, err = _cli("export", *runs, "-o", str(out))
    assert code == 2
    assert "No space left on device" in err
    assert len(err.strip().splitlines()) == 1, err
    assert os.listdir(small_disk) == ["filler"]
    filler.unlink()
    code, _, err = _cli("export", *runs, "-o", str(out))
    assert code == 0, err
    assert pq.read_table(out).num_rows == 268


def test_on_a_tie_both_queries_give_the_earlier_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "tied"
    run.mkdir()
    evaluations = [(30, 2.0), (20, 1.25), (10, 1.25), (40, 1.5)]  # a resumed run: steps go back
    (run / "metrics.jsonl").write_text(
        "".join(
            json.dumps({"event": "log", "time": 1.0, "step": step, "eval_loss": loss}) + "\n"
            for step, loss in evaluations
        )
    )
    assert _cli("export", str(run), "-o", str(tmp_path / "runs.parquet"))[0] == 0
    monkeypatch.chdir(tmp_path)
    assert SQL is not None
    assert POLARS is not None
    assert fetched(SQL.group(1)) == [("tied", 1.25, 10)]
    scope: dict[str, Any] = {}
    exec(compile(POLARS.group(1), f"{PAGE} (polars)", "exec"), scope)
    assert scope["best"].rows() == [("tied", 1.25, 10)]


def test_a_run_name_with_hive_delimiters_is_percent_encoded_and_reads_back(
    tmp_path: Path,
) -> None:
    run = tmp_path / "lr=3e-4 seed"  # a folder name holding `=` and a space
    run.mkdir()
    (run / "metrics.jsonl").write_bytes((EXAMPLES / "tiny-run" / "metrics.jsonl").read_bytes())
    out = tmp_path / "runs.parquet"
    code, _, err = _cli("export", str(run), "--partition-by", "run", "-o", str(out))
    assert code == 0, err
    assert [p.name for p in out.iterdir()] == ["run=lr%3D3e-4%20seed"]
    names = fetched(
        f"SELECT DISTINCT run FROM read_parquet('{out}/*/*.parquet', hive_partitioning = true)"
    )
    assert names == [("lr=3e-4 seed",)]
    frame = pl.scan_parquet(out, hive_partitioning=True).select("run").unique().collect()
    assert frame["run"].to_list() == ["lr=3e-4 seed"]
