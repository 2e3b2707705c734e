"""`plugin [--path | --copy DIR]`: where the Axolotl plugin is; copy it into a run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..files.atomic import write_atomically
from ..plugin.source import PLUGIN_CLASS, PLUGIN_FILE, PLUGIN_PATH
from ..text.shown import shown
from ._common import EXIT_CODES, OK, PROG, CliError, formatter

DESCRIPTION = f"""\
The Axolotl plugin, {PLUGIN_FILE}: print its path (the default), or copy it into a
folder (created if needed) to put on PYTHONPATH; Axolotl's config then names it
`plugins: [{PLUGIN_CLASS}]`. The copy replaces whatever has its name there (an older
copy, a symlink: never written through), put in place whole by a rename."""

EPILOG = f"""\
examples:
  {PROG} plugin --path
  {PROG} plugin --copy runs/7/plugin

{EXIT_CODES}"""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "plugin",
        parents=parents,
        help="where the Axolotl plugin is; copy it into a run",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--path", action="store_true", help="print the plugin's path (default)")
    group.add_argument("--copy", metavar="DIR", help=f"copy {PLUGIN_FILE} into DIR")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.copy is None:
        print(PLUGIN_PATH)
        return OK
    folder = Path(args.copy)
    target = folder / PLUGIN_FILE
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Written beside it, then renamed onto its name: whatever stands there (an older
        # copy, a symlink) is replaced, never written through.
        write_atomically(target, PLUGIN_PATH.read_bytes())
    except OSError as error:
        raise CliError(f"{shown(str(target))}: {error.strerror or error}") from error
    print(shown(str(target)))
    return OK
