"""The contract's tables in the docs, written from `schema/`.

The README and `docs/contract.md` hold the line format (`events`: each event, then its
fields, their types, whether a line must hold them and what they hold, from
`metrics-line.schema.json`) between the markers ``<!-- BEGIN generated: events -->`` and
``<!-- END generated: events -->``; `docs/contract.md` holds the snapshot files (`snapshot`,
from `snapshot.schema.json` and `snapshot-request.schema.json`) the same way. From the
project's root, `nox -s generate` writes them with the rest of the generated code, or alone:

    python -m tools.codegen.docs_tables          # write the tables in place
    python -m tools.codegen.docs_tables --check  # exit 1 where one differs
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SCHEMA = Path(__file__).resolve().parents[2] / "schema"
"""The checkout's `schema/`, which the tables are written from."""


def load_schema(name: str) -> dict[str, Any]:
    """The schema `schema/<name>.schema.json` of the checkout, as a JSON object."""
    loaded: dict[str, Any] = json.loads((SCHEMA / f"{name}.schema.json").read_text("utf-8"))
    return loaded


FILES = {"README.md": ("events",), "docs/contract.md": ("events", "snapshot")}
"""Each file that holds tables, and the tables it holds."""
COMMAND = "nox -s generate"


def _type(spec: dict[str, Any], defs: dict[str, Any], stages: dict[str, Any]) -> str:
    """The type of a field, in a few words."""
    if "const" in spec:
        return f'`"{spec["const"]}"`'
    if "anyOf" in spec:
        return " or ".join(_type(option, defs, stages) for option in spec["anyOf"])
    ref = spec.get("$ref")
    if ref == "job-stage.schema.json":
        return "one of " + ", ".join(f"`{name}`" for name in stages["enum"])
    if ref is not None:
        name = str(ref).rsplit("/", 1)[-1]
        if name == "Scalars":
            return 'object: key to number, null, `"NaN"`, `"Infinity"` or `"-Infinity"`'
        return {"U64": "u64", "UnixTime": "number"}.get(name, name)
    return str(spec["type"])


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def events_table(schema: dict[str, Any], stages: dict[str, Any]) -> str:
    """The Markdown table of every event of `schema` (the metrics line's) and its fields."""
    defs = schema["$defs"]
    rows = [
        "| event | field | type | required | what it holds |",
        "|---|---|---|---|---|",
    ]
    for variant in schema["oneOf"]:
        definition = defs[variant["$ref"].rsplit("/", 1)[-1]]
        properties = definition["properties"]
        event = properties["event"]["const"]
        rows.append(f"| `{event}` | | | | {_cell(definition['description'])} |")
        for name, spec in properties.items():
            if name == "event":
                continue
            if name in definition["required"]:
                required = "yes"
            elif "$ref" in spec and "anyOf" not in spec:
                required = "no (left out when empty)"  # a map, never null
            else:
                required = "no (`null` when absent)"
            kind = _type(spec, defs, stages)
            rows.append(f"| | `{name}` | {kind} | {required} | {_cell(spec['description'])} |")
    u64 = defs["U64"]
    notes = [
        f"`u64`: {u64['description']} From {u64['minimum']} to {u64['maximum']}. {u64['$comment']}",
        f"`number`: {defs['UnixTime']['$comment']}",
        f"Beyond JSON Schema: {schema['$comment']}",
    ]
    return "\n".join(rows) + "\n\n" + "\n\n".join(notes) + "\n"


def snapshot_table(proof: dict[str, Any], request: dict[str, Any]) -> str:
    """The Markdown table of `snapshot.json`'s fields (`proof`, the snapshot schema), then
    what `snapshot.request` holds (`request`, its schema)."""
    rows = [
        "| field | type | required | what it holds |",
        "|---|---|---|---|",
    ]
    for name, spec in proof["properties"].items():
        if "anyOf" in spec:
            kind = " or ".join(
                "a word" if "Word" in option.get("$ref", "") else option["type"]
                for option in spec["anyOf"]
            )
        elif "U64" in spec.get("$ref", ""):
            kind = "u64"
        else:
            kind = spec["type"]
        required = "yes" if name in proof["required"] else "no"
        rows.append(f"| `{name}` | {kind} | {required} | {_cell(spec['description'])} |")
    notes = [
        f"`snapshot.json`: {proof['description']} {proof['$comment']}",
        f"`snapshot.request`: {request['description']}",
    ]
    return "\n".join(rows) + "\n\n" + "\n\n".join(notes) + "\n"


def fresh_tables() -> dict[str, str]:
    """Each table by its marker's name, as the shipped schemas give it."""
    return {
        "events": events_table(load_schema("metrics-line"), load_schema("job-stage")),
        "snapshot": snapshot_table(load_schema("snapshot"), load_schema("snapshot-request")),
    }


def _block(name: str) -> re.Pattern[str]:
    begin, end = markers(name)
    return re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.S)


def markers(name: str) -> tuple[str, str]:
    """The lines that hold the table `name` between them."""
    return f"<!-- BEGIN generated: {name} -->", f"<!-- END generated: {name} -->"


def rewrite(text: str, tables: dict[str, str]) -> str:
    """`text` with each of `tables` between its markers replaced by its fresh text;
    ValueError names a table whose markers `text` lacks."""
    for name, table in tables.items():
        begin, end = markers(name)
        found = _block(name).search(text)
        if found is None:
            raise ValueError(f"no {begin} ... {end}")
        text = f"{text[: found.start()]}{begin}\n{table}{end}{text[found.end() :]}"
    return text


def _tables_of(name: str, tables: dict[str, str]) -> dict[str, str]:
    return {table: tables[table] for table in FILES[name]}


def stale(root: Path) -> list[str]:
    """The files under `root` whose tables differ from fresh ones."""
    tables = fresh_tables()
    return [
        name
        for name in FILES
        if rewrite(text := (root / name).read_text(encoding="utf-8"), _tables_of(name, tables))
        != text
    ]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    root = Path(next((arg for arg in args if arg != "--check"), "."))
    if check:
        behind = stale(root)
        for name in behind:
            print(f"{name}: a table differs from schema/: run `{COMMAND}`")
        return 1 if behind else 0
    tables = fresh_tables()
    for name in FILES:
        path = root / name
        text = path.read_text(encoding="utf-8")
        fresh = rewrite(text, _tables_of(name, tables))
        if fresh != text:
            path.write_text(fresh, encoding="utf-8")
            print(f"wrote the tables of {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
