"""The Axolotl plugin as an orchestrator uploads it, and the job's stage lines.

The plugin itself is one standalone module, `plugin/overbrainer_metrics.py`, shipped
in the wheel as a data file (it must travel alone, so it never imports this package).
This module exposes where it is and what it says, as the reference's
`METRICS_PLUGIN`, `PLUGIN_FILE` and `PLUGIN_CLASS` do, and renders the shell command
that the job's shell runs before each of its commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from overbrainer_contract.contract.constants import CONTRACT

__all__ = [
    "JOB_STAGES",
    "METRICS_PLUGIN",
    "PLUGIN_CLASS",
    "PLUGIN_FILE",
    "PLUGIN_PATH",
    "stage_command",
]

PLUGIN_FILE: Final[str] = CONTRACT.plugin.file
"""File name of the plugin module, inside the run's plugin folder (on `PYTHONPATH`)."""

PLUGIN_CLASS: Final[str] = CONTRACT.plugin.qualified_name
"""The plugin as Axolotl's `plugins` list names it: module, then class."""

PLUGIN_PATH: Final[Path] = Path(__file__).resolve().parent / PLUGIN_FILE
"""Where the plugin's source lies, in a checkout or an installed wheel."""

METRICS_PLUGIN: Final[str] = PLUGIN_PATH.read_text(encoding="utf-8")
"""The plugin's source text, to upload as `PLUGIN_FILE` (the reference's `include_str!`)."""

JOB_STAGES: Final[tuple[str, ...]] = ("train", "merge", "export", "compare")
"""The commands of a training job, as their stage lines name them."""


def stage_command(name: str) -> str:
    """The POSIX shell command that appends the `stage` line of `name` to the metrics file.

    The line is `{"event":"stage","name":"<name>","time":<epoch seconds>}` followed by a
    newline, appended to `"$OVERBRAINER_METRICS"` in one `printf`. The command never
    fails the job: when the variable is unset or empty it writes nothing, and a file
    that cannot be written leaves the shell's error message on stderr and status 0.

    Raises `ValueError` when `name` is not one of `train`, `merge`, `export`, `compare`.
    """
    if name not in JOB_STAGES:
        raise ValueError(f"not a job stage: {name!r} (one of {', '.join(JOB_STAGES)})")
    env = CONTRACT.env.metrics
    line = f'{{"event":"stage","name":"{name}","time":%s}}\\n'
    return f'[ -z "${{{env}:-}}" ] || printf \'{line}\' "$(date +%s)" >> "${env}" || true'
