"""Runs, found: the RUN arguments of a command (`check`, `status`, `export`, `plot`...)
as the runs they name, each with a name of its own.

A path given is, in this order:

- `-`: standard input (one run, named `-`);
- a **run folder**: a folder holding `metrics.jsonl` (or `metrics.jsonl.gz`, when there is
  no `metrics.jsonl`);
- a **folder of runs**: any other folder; every folder below it, at any depth, that is a
  run folder is a run (not descending into a run folder — its checkpoints are not walked
  — nor into hidden folders, `.git`, nor through symlinks to folders). Runs in the order
  of their paths, the numbers in them as numbers (`seed2` before `seed10`:
  `natural_key`, which `status --sort name` uses too). A folder with no run below is
  refused: `no metrics.jsonl in this folder or below`;
- a **metrics file**: a file named `*.jsonl` or `*.jsonl.gz` (read gzip-compressed), or
  any file that is not a regular file (a FIFO, `/dev/stdin`, `<(zcat run.gz)`: read as
  a stream — no glob gives one by accident). Only a path named so is read as a stream:
  the metrics file of a run folder (given, or found by the walk) is read only when it is
  a regular file (a symlink to one is followed); a FIFO there, whose writer may hold it
  open and never write, is that run's one line, `PATH: a FIFO, not a file`
  (`Run.named`, `Run.open_metrics`, which every command opens it with);
- a regular file of any other name is a metrics file **given on purpose** only when it
  is the only path given (`check notes.txt`). Among several paths — what a glob such as
  `examples/*` gives — it is refused with one line naming it (`examples/make_example.py:
  not a run folder nor a metrics file (.jsonl, .jsonl.gz)`): a command exits 2 for it.
- anything missing is refused (`no such file or folder`).

The same run named twice (`runs/7` and `runs/7/metrics.jsonl`) is read once.

A run's **name** (`Run.label`: the `run` column of `export`, the rows of `status`, the
legend of `plot`) is its path relative to the folder the runs have in common: the
nearest folder holding them all — a run folder stands for itself, a metrics file named
`metrics.jsonl` or `metrics.jsonl.gz` for its folder, any other metrics file for itself.
`check nest` or `export nest/*/*` name `nest/exp1/seed1` and `nest/exp2/seed1` as
`exp1/seed1` and `exp2/seed1`; one run, or runs side by side, are named by their folder
(`runs/7` is `7`), as before. Two different runs never share a name: names are distinct
paths below one folder.

API:

- `discover(paths) -> Found`: `Found.runs` (a `runs.state.Run` each, `label` set) and
  `Found.refused` (`(path, why)` for each path refused, in the order given);
- `find_runs(paths) -> list[Run]`: the runs, or `RunError` (`"PATH: why"`) for the first
  path refused;
- `is_metrics_name(name)`, `METRICS_NAMES`, `METRICS_SUFFIXES`;
- `natural_key(text)`: the order of names, numbers in them compared as numbers.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from .._core import NaturalKey
from ..contract.constants import METRICS_FILE
from ..files import sidefile
from .state import METRICS_NAMES, STDIN, Run, RunError, names_of, resolve, unit_of

METRICS_SUFFIXES = (".jsonl", ".jsonl.gz")
"""What a metrics file's name ends with, for a file given among other paths."""

natural_key = NaturalKey
"""`seed2` before `seed10`: the core's natural order (`sorted(names, key=natural_key)`), runs
of ASCII digits compared as numbers of any length, the rest by code point."""


NOT_A_RUN = "not a run folder nor a metrics file (.jsonl, .jsonl.gz)"


def is_metrics_name(name: str) -> bool:
    """Whether a file's name says it is a metrics file: `*.jsonl`, `*.jsonl.gz`."""
    return name.endswith(METRICS_SUFFIXES)


@dataclass
class Found:
    """What the paths given name: the runs, and the paths refused with why."""

    runs: list[Run] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    """`(path as given, why)`: missing, a folder without runs, a file of another name."""


def find_runs(paths: Sequence[str] | str | os.PathLike[str]) -> list[Run]:
    """The runs that `paths` name (one path, or many), or `RunError` for the first path
    refused, as `PATH: why`."""
    found = discover(paths)
    if found.refused:
        name, why = found.refused[0]
        raise RunError(f"{name}: {why}")
    return found.runs


def discover(paths: Sequence[str] | str | os.PathLike[str]) -> Found:
    """The runs that `paths` name, each labelled (see the module's docstring)."""
    given = [os.fspath(paths)] if isinstance(paths, str | os.PathLike) else list(paths)
    given = [os.fspath(path) for path in given]
    found = Found()
    seen: set[str] = set()
    alone = len(given) == 1
    for name in given:
        try:
            runs = _runs_of(name, alone)
        except RunError as error:
            found.refused.append((name, str(error).removeprefix(f"{name}: ")))
            continue
        for run in runs:
            key = _identity(run)
            if key not in seen:
                seen.add(key)
                found.runs.append(run)
    found.runs = _labelled(found.runs)
    return found


def _runs_of(name: str, alone: bool) -> list[Run]:
    if name == STDIN:
        return [resolve(name)]
    try:
        mode: int | None = os.stat(name).st_mode
    except FileNotFoundError:
        mode = None
    except OSError:
        return [resolve(name)]  # its words for a loop, a file on the way...
    if mode is None:
        return [resolve(name)]  # no such file or folder
    if stat.S_ISDIR(mode):
        if metrics_in(Path(name)) is not None:
            return [resolve(name)]
        runs = list(_walk(Path(name)))
        if not runs:
            if Path(name).name in METRICS_NAMES:
                raise RunError(f"{name}: a folder, not a file")
            raise RunError(f"{name}: no {METRICS_FILE} in this folder or below")
        return runs
    if stat.S_ISREG(mode) and not alone and not is_metrics_name(Path(name).name):
        raise RunError(f"{name}: {NOT_A_RUN}")
    return [resolve(name)]


def metrics_in(folder: Path) -> Path | None:
    """The metrics file of a run folder (`metrics.jsonl`, else `metrics.jsonl.gz`), or None
    when `folder` holds neither."""
    for name in METRICS_NAMES:
        path = folder / name
        if sidefile.exists(path):  # whatever it is: reading it says what is wrong
            return path
    return None


def _walk(top: Path) -> Iterator[Run]:
    """The run folders below `top`, in the order of their paths (`natural_key`).

    A depth-first walk over an explicit stack of folders, not a recursion (`os.walk`
    recurses on Python 3.10 and 3.11: a chain of a thousand folders is a `RecursionError`),
    so a sweep of any depth is walked in flat memory. Not walked: hidden folders, symlinks
    to folders, a run folder's own folders (its checkpoints hold no runs); a folder that
    cannot be listed (no permission, a path longer than the system takes) is passed over,
    as `os.walk` does.
    """
    stack = [top]
    while stack:
        here = stack.pop()
        if here != top and _holds_metrics(here):
            yield resolve(str(here))
            continue
        names = sorted(_folders_in(here), key=natural_key)
        stack.extend(here / name for name in reversed(names))  # the first name popped first


def _holds_metrics(folder: Path) -> bool:
    """Whether the walk finds a run in `folder`: `metrics_in`, but a path longer than the
    system takes (`ENAMETOOLONG`, thousands of folders deep) holds nothing it can read."""
    for name in METRICS_NAMES:
        try:
            os.stat(folder / name)
        except FileNotFoundError:
            continue
        except OSError as error:  # a loop, or not a folder on the way: reading it says so
            if error.errno == errno.ENAMETOOLONG:
                return False
        return True
    return False


def _folders_in(folder: Path) -> list[str]:
    """The names of the folders in `folder` that the walk enters: not hidden, not symlinks."""
    try:
        with os.scandir(folder) as entries:
            return [entry.name for entry in entries if _enters(entry)]
    except OSError:
        return []


def _enters(entry: os.DirEntry[str]) -> bool:
    if entry.name.startswith("."):
        return False
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _identity(run: Run) -> str:
    unit = unit_of(run)
    return STDIN if unit is None else os.path.realpath(unit)


def _labelled(runs: list[Run]) -> list[Run]:
    """The runs with their names among them (`runs.state.names_of`: the core's rule)."""
    return [replace(run, label=name) for run, name in zip(runs, names_of(runs), strict=True)]
