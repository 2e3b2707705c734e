"""`plugin [--path | --copy DIR]`: where the Axolotl plugin is; copy it into a run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..plugin.source import PLUGIN_CLASS, PLUGIN_FILE, PLUGIN_PATH
from ._common import EXIT_CODES, OK, PROG, CliError, formatter

DESCRIPTION = f"""\
The Axolotl plugin, {PLUGIN_FILE}: print its path (the default), or copy it into a
folder (created if needed) to put on PYTHONPATH; Axolotl's config then names it
`plugins: [{PLUGIN_CLASS}]`."""

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
    try:
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / PLUGIN_FILE
        import shutil  # here: every command's start would pay for it (bz2, lzma...)

        shutil.copyfile(PLUGIN_PATH, target)
    except OSError as error:
        raise CliError(f"{folder}: {error.strerror or error}") from error
    print(target)
    return OK
