"""`export RUN... -o FILE`: many runs as one table (Parquet, Arrow IPC or CSV)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..check.reporter import plural
from ..files.sidefile import SideFileError
from ..runs.state import RunError
from ..text.shown import shown
from ..text.sizes import size_text
from ._common import (
    EXIT_CODES,
    INVALID,
    OK,
    PROG,
    CliError,
    add_max_line,
    add_only,
    formatter,
    only_runs,
    say,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from .._core import Pattern
    from ..table import KeptBatches, RunCounts, RunReader

DESCRIPTION = """\
Export runs as one table: a row per line, read by parse_line as overbrainer reads it,
with the run's name and the line's number; a RUN is a run folder, a metrics file, or
a folder of runs at any depth, and a run's name is its path below the folder the runs
have in common (`export sweep` names sweep/exp1/seed1 `exp1/seed1`; `export runs/*`
names runs/7 `7`). A file of another name than *.jsonl or *.jsonl.gz among several
paths is refused (exit 2): `runs/*/` names only the folders; one column per field of
any metrics line (schema: `python -c "from overbrainer_contract.table import SCHEMA;
print(SCHEMA)"`), then one float column per scalar key the runs' lines hold (a log's
`scalars`, an end's `summary`: `eval_accuracy`, `rewards/chosen`, named by the key as
it is; NaN and infinities as those floats, null where a line has none), up to a bound
on the keys (WIDE_KEYS_MOST), past it refused before anything is written, in one line
naming --long (exit 2). --long writes every scalar as a
row of its own instead, of any number of keys: run, line, event, step, time, key, value
(schema: LONG_SCHEMA). Standard input (-) is read once, as it comes. The format
follows the output's suffix: .parquet, .arrow (Arrow IPC file) or .csv. Lines the
reference rejects are left out and counted (exit 1), and so
are lines over --max-line bytes (category `length`, read in flat memory as `check`
reads them); a last line cut short (a run still writing) is left out with a warning,
one that no byte could make valid is an invalid line (as `check` says); a .gz cut short
gives its lines up to the cut, and the cut is said (exit 1). --only REGEX exports only
the runs whose names match (anywhere; Rust's regex syntax, as `plot --group`; the names
as the `run` column holds them), their
scalar keys alone the wide table's columns; none matching is an error (exit 2).
A metrics file is opened as `check` opens it: a FIFO is read as a stream, a device or
a folder is refused (exit 2). Streams in record
batches (flat memory); the output is replaced only once complete, never by a table of
no rows, and never when it is one of the inputs (exit 2). --partition-by run
writes a folder of Hive partitions (OUT/run=NAME/part-0.parquet; a name too long for a
file name is cut and its sha256 added, the files' run column holding it whole) instead. A
byte of a name that is not UTF-8 is `\\xff` in the run column. Needs
pyarrow: pip install 'overbrainer-contract[table]'."""

EPILOG = f"""\
examples:
  {PROG} export runs/* -o runs.parquet
  {PROG} export runs/7 runs/8/metrics.jsonl -o runs.csv
  {PROG} export runs/* --partition-by run -o runs.parquet   # runs.parquet/run=7/...
  {PROG} export runs/* --long -o scalars.parquet   # a row per scalar
  {PROG} export sweep/ --only 'seed[12]$' -o seeds.parquet
  duckdb -c "SELECT run, min(eval_loss) FROM 'runs.parquet' GROUP BY run"
  duckdb -c "SELECT run, max(value) FROM 'scalars.parquet' WHERE key = 'eval_accuracy' GROUP BY run"

{EXIT_CODES}"""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "export",
        parents=parents,
        help="export runs as one table: Parquet, Arrow or CSV",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="a run folder, a metrics file, -")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="OUT.parquet, OUT.arrow or OUT.csv (a folder with --partition-by)",
    )
    parser.add_argument(
        "--partition-by",
        choices=("run",),
        help="write a folder of Hive partitions, one per run",
    )
    parser.add_argument(
        "--long",
        action="store_true",
        help="a row per scalar (run, line, event, step, time, key, value), not a row per line",
    )
    parser.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr: auto shows it on a terminal",
    )
    add_only(parser)
    add_max_line(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        from ..table import KeptBatches
    except ImportError as error:
        raise CliError("export needs pyarrow: pip install 'overbrainer-contract[table]'") from error

    output = Path(args.output)
    # The wide table's columns are every scalar key of the runs, known once they are read:
    # a reading of its own before the rows. Standard input, read once, is read as it comes
    # in that reading, what its lines gave kept for the rows (`KeptBatches`: never its
    # bytes, so a stream of junk or of lines over --max-line takes no room).
    kept = KeptBatches() if "-" in args.runs and not args.long else None
    try:
        return _export(args, output, kept)
    finally:
        if kept is not None:
            kept.close()


def _export(args: argparse.Namespace, output: Path, kept: KeptBatches | None) -> int:
    import pyarrow as pa

    from ..table import LONG_SCHEMA, OutputError, RunReader, format_of, scalar_keys, write_batches

    keys: list[str] = []
    try:
        format_of(output)
        reader = _only(RunReader(args.runs, max_line=args.max_line), args.only)
        read_here = reader.reading(output)  # standard input as it is, before any reading
        if read_here is None and not args.long:
            # the keys of the runs kept alone (each named by its path: their names in the
            # table are the reader's, made over every run given)
            given = args.runs if args.only is None else [run.name for run in reader.runs]
            keys, streams = scalar_keys(given, max_line=args.max_line, kept=kept)
            for name in streams:
                say(
                    f"{shown(name)}: a stream, read once: its scalar keys are not columns of"
                    " the wide table (--long exports every scalar)"
                )
            reader = RunReader(args.runs, max_line=args.max_line, scalars=keys, kept=kept)
            reader = _only(reader, args.only)
    except (OutputError, RunError, ValueError, SideFileError) as error:
        raise CliError(shown(str(error))) from error
    except OSError as error:
        where = getattr(error, "filename", None) or "-"
        raise CliError(f"{shown(str(where))}: {error.strerror or error}") from error
    if read_here is not None:
        raise CliError(
            f"{shown(str(output))}: is the metrics file of the run {shown(read_here)}"
            " (an input): the output must be another file"
        )

    def any_rows() -> bool:
        return any(item.rows for item in reader.counts)

    scalars: list[int] | None = [] if args.long else None  # the long rows written

    try:
        written = write_batches(
            _counted(_shown(reader, args), scalars),
            output,
            schema=LONG_SCHEMA if args.long else reader.schema,
            partition_by=args.partition_by,
            replace_if=any_rows,
        )
    except (OutputError, SideFileError) as error:
        raise CliError(shown(str(error))) from error
    except OSError as error:
        where = getattr(error, "filename", None) or output
        raise CliError(f"{shown(str(where))}: {error.strerror or error}") from error
    except pa.ArrowException as error:
        raise CliError(f"{shown(str(output))}: {error}") from error
    return _summary(reader.counts, output, reader.max_line, written, scalars)


def _only(reader: RunReader, pattern: Pattern | None) -> RunReader:
    """`reader` cut to the runs whose names `pattern` matches (`--only`), their names as
    they were among every run given; none matching is a usage error (`only_runs`)."""
    if pattern is not None:
        reader.keep(only_runs(reader.runs, pattern))
    return reader


def _shown(reader: RunReader, args: argparse.Namespace) -> Iterator[pa.RecordBatch]:
    """The reader's batches, with a transient progress bar on stderr when asked for."""
    show = args.progress == "always" or (args.progress == "auto" and sys.stderr.isatty())
    source = reader.long_batches if args.long else reader.batches
    if not show:
        return source()
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )
    except ImportError:  # no rich: no bar
        return source()

    def batches() -> Iterator[pa.RecordBatch]:
        columns = (
            TextColumn("export"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
        )
        console = Console(stderr=True)
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task("export", total=reader.bytes_total or None)
            for batch in source():
                bar.update(task, completed=reader.bytes_read)
                yield batch

    return batches()


def _counted(batches: Iterator[pa.RecordBatch], rows: list[int] | None) -> Iterator[pa.RecordBatch]:
    """`batches`, each one's rows added to `rows` (when given) as it passes."""
    for batch in batches:
        if rows is not None:
            rows.append(batch.num_rows)
        yield batch


def _summary(
    counts: list[RunCounts],
    output: Path,
    max_line: int | None,
    written: bool,
    scalars: list[int] | None = None,
) -> int:
    rows = sum(item.rows for item in counts)
    rejected = 0
    cut_gzip = False
    for item in counts:
        path = shown(item.path)
        bad = sum(item.rejected.values())
        rejected += bad
        if bad:
            kinds = ", ".join(
                f"{kind} {n}" for kind, n in item.rejected.items() if n and kind != "length"
            )
            why = [f"rejected by the reference ({kinds})"] if kinds else []
            if item.rejected["length"] and max_line is not None:
                why.append(
                    f"over --max-line {size_text(max_line)} (length {item.rejected['length']})"
                )
            say(
                f"{path}: {plural(bad, 'line')} left out, {'; '.join(why)};"
                f" the first at line {item.first_rejected}"
            )
        if item.gzip_cut is not None:
            cut_gzip = True
            say(f"{path}: {shown(item.gzip_cut)}: the lines before the cut exported")
        if item.cut:
            say(f"{path}: warning: the last line is cut short (no newline): left out")
    if not written:
        say(
            f"{shown(str(output))}: left as it was: no row was read"
            f" ({plural(len(counts), 'run')}"
            + (f", {plural(rejected, 'line')} left out)" if rejected else ")")
        )
        return INVALID
    what = plural(rows, "row")
    if scalars is not None:  # the long table: a row per scalar of those lines
        what = f"{plural(sum(scalars), 'scalar')} of {plural(rows, 'line')}"
    say(
        f"exported {what} of {plural(len(counts), 'run')} to {shown(str(output))}"
        + (f"; {plural(rejected, 'line')} left out" if rejected else "")
    )
    return INVALID if rejected or cut_gzip else OK
