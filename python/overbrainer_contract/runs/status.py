"""A run's status: the core's `StatusReport` record of its lines, with its snapshot files.

`read_run` is the library's function for one run (re-exported by the package root); `report`
and `snapshot_status` are what the `status` command uses for a run it has already resolved.
The record and the snapshot state are the core's (`overbrainer_core::status`, `::side`): this
module opens the files (safely: `files.sidefile`) and hands the core their bytes.
"""

from __future__ import annotations

import os

import msgspec

from .. import _core
from .._models.status_report_schema import SnapshotState, StatusReport
from ..files.sidefile import PROOF_LIMIT, REQUEST_LIMIT
from ..text.shown import as_text
from . import clock
from .state import Run, StatusRead, read_side, read_status, resolve


def snapshot_status(target: Run) -> SnapshotState:
    """The core's snapshot state of a run folder (`overbrainer_core::side`): whether a
    snapshot was requested (and why), whether it was taken, whether the request is pending
    (there, and newer than the proof if there is one), and `problem`, the errors `check`
    finds in the snapshot files in its words (`snapshot.json: $.step: ...`). The files are
    read here, safely (`SideFileError` for one that is not a small regular file)."""
    assert target.request is not None
    assert target.snapshot is not None
    request = read_side(target.request, REQUEST_LIMIT)
    proof = read_side(target.snapshot, PROOF_LIMIT)
    return msgspec.json.decode(_core.snapshot_state(request, proof), type=SnapshotState)


def report(target: Run, read: StatusRead, at: float) -> StatusReport:
    """The run's status at the time `at` (`schema/status-report.schema.json`): the core's
    record of its lines (`read.scan`), with its snapshot files (a run folder's)."""
    snapshot = snapshot_status(target) if target.is_folder else None
    data = read.scan.report(
        as_text(target.name),  # a name that is not UTF-8 as the text shows it
        as_text(target.label or target.name),
        at,
        None if snapshot is None else msgspec.json.encode(snapshot),
        snapshot is None or snapshot.problem is None,
    )
    return msgspec.json.decode(data, type=StatusReport)


def read_run(
    path: str | os.PathLike[str], *, max_line: int | None = None, now: float | None = None
) -> StatusReport:
    """The state of one run as `status` shows it: a run folder, a metrics file (`.jsonl`,
    `.jsonl.gz`) or `-` (standard input), told at `now` (seconds since the epoch; the time
    now by default).

    The core's record, the `StatusReport` `status -o json` writes field for field
    (`schema/status-report.schema.json`): `phase`, `stage`, `step`, `max_steps`, `loss`,
    `eval_loss`, `best_eval_loss`, `learning_rate`, `evaluation`, `ended`, `begins`,
    `eta_seconds` (the pace's, as overbrainer computes it), `eta_remaining_seconds` and
    `eta_stale` (at `now`), `last_time`, `lines`, `invalid_lines`, `snapshot` (a run
    folder's snapshot files), `valid`. A `.gz` cut short gives the state of its lines up to
    the cut, not `valid`. Raises `RunError` for a path that names no run.

    >>> report = read_run("examples/tiny-run")  # doctest: +SKIP
    >>> report.phase.value, report.step, report.eta_seconds  # doctest: +SKIP
    ('ended', 60, 0.0)
    """
    target = resolve(os.fspath(path))
    return report(target, read_status(target, max_line), clock.now() if now is None else now)
