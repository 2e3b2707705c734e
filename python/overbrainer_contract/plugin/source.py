"""The Axolotl plugin as an orchestrator uploads it, and the job's stage lines.

The plugin itself is one standalone module, `plugin/overbrainer_metrics.py`, shipped
in the wheel as a data file (it must travel alone, so it never imports this package).
This module exposes where it is and what it says, as the reference's
`METRICS_PLUGIN`, `PLUGIN_FILE` and `PLUGIN_CLASS` do, and renders the shell command
that the job's shell runs before each of its commands (the plugin run as a script).
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
    newline. The command runs the plugin itself as a script,
    `python3 -m overbrainer_metrics stage <name>`: the module is on the job's `PYTHONPATH`
    (Axolotl finds the plugin there) and the job's `python3` is the training's, so the line
    is written by the callback's own writer under its rules, which a shell's `>>` cannot
    keep: it never blocks (a FIFO without a reader), appends only to a regular file never
    reached through a link as the last component, writes the whole line or nothing (a
    write a full disk cut short is truncated back), and starts a fresh line when the
    file's last byte is not a newline. Only the standard library is imported on that path.

    The command never fails the job: when the variable is unset or empty it writes
    nothing and says nothing, and a line that cannot be written leaves one message on
    stderr and status 0.

    Raises `ValueError` when `name` is not one of `train`, `merge`, `export`, `compare`.
    """
    if name not in JOB_STAGES:
        raise ValueError(f"not a job stage: {name!r} (one of {', '.join(JOB_STAGES)})")
    env = CONTRACT.env.metrics
    module = CONTRACT.plugin.module
    return f'[ -z "${{{env}:-}}" ] || python3 -m {module} stage {name} || true'
