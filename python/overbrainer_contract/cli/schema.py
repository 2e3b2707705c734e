"""`schema [NAME]`: print a schema of the contract, or list them with their paths."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..contract.schemas import schema_paths
from ._common import EXIT_CODES, OK, PROG, CliError, formatter

DESCRIPTION = """\
The contract's JSON Schemas (2020-12), for other languages: without NAME, list them
with their paths; with NAME, print that schema."""

EPILOG = f"""\
examples:
  {PROG} schema
  {PROG} schema metrics-line > metrics-line.schema.json

{EXIT_CODES}"""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "schema",
        parents=parents,
        help="print a JSON Schema, or list them",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument("name", nargs="?", metavar="NAME", help="e.g. metrics-line, snapshot")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    paths = schema_paths()
    if args.name is None:
        width = max(len(name) for name in paths)
        for name, path in paths.items():
            print(f"{name.ljust(width)}  {path}")
        return OK
    if args.name not in paths:
        raise CliError(f"no schema {args.name!r}; known: {', '.join(paths)}")
    text = paths[args.name].read_text(encoding="utf-8")
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return OK
