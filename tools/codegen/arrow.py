"""Generate the Arrow schema of a table of metrics lines from `schema/`.

Run by `nox -s generate` (and checked by `nox -s generated`) beside datamodel-code-generator:

    python tools/codegen/arrow.py schema OUT/metrics_line_arrow.py

It writes a small Python module that builds the `pyarrow.Schema`: one column per field of
any variant of `metrics-line.schema.json`, in the order the variants first declare them,
after two columns of the table itself, `run` and `line`. No maintained JSON-Schema-to-Arrow
converter reads this schema (a `oneOf` of variants, `anyOf` with null for an optional
field, u64 bounds, a `$ref` to another file's enum), so this one maps only what the
contract uses and refuses anything else:

- `const` or `enum` of strings: a dictionary-encoded string (`event`, the stage `name`);
- `integer` from 0 to 18446744073709551615: `uint64`; `number`: `float64`;
- `anyOf` of one of those and `null`: the same type; a field is non-null only when every
  variant requires it;
- a field whose type says `"x-serde": {"skip": true}` (a log's `scalars`, an end's
  `summary`: maps of any keys) is no fixed column: its keys become columns of their own,
  named by the keys, when a table is built (`table.scalars`).

It runs in the `generate` session without the package installed: standard library and
`referencing` only.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referencing import Registry, Resource

Resolver = Any  # referencing's resolver (its class is not exported)

SOURCE = "metrics-line.schema.json"
U64_MAX = 2**64 - 1

TABLE_COLUMNS = (
    (
        "run",
        "pa.dictionary(pa.int32(), pa.string())",
        "The run: its folder's name, or the metrics file's name when it is not metrics.jsonl.",
    ),
    ("line", "pa.uint64()", "The line's number in its run's metrics file, from 1."),
)
"""The columns the table adds before the schema's fields: (name, Arrow type, description)."""

TAG_DESCRIPTION = "The line's variant: the tag of the schema's `oneOf`."


@dataclass
class Column:
    """One field of the schema as a column: its Arrow type and where it comes from."""

    name: str
    arrow: str
    """The `pyarrow` expression of its type."""
    values: tuple[str, ...] = ()
    """The strings a dictionary column may hold, in the schema's order."""
    events: list[str] = field(default_factory=list)
    """The variants (their `event`) that have the field."""
    required_in: list[str] = field(default_factory=list)
    descriptions: dict[str, str] = field(default_factory=dict)


def _registry(folder: Path) -> Registry[Any]:
    resources = []
    for path in sorted(folder.glob("*.schema.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents["$id"], Resource.from_contents(contents)))
    return Registry[Any]().with_resources(resources)


def _resolve(node: dict[str, Any], resolver: Resolver) -> tuple[dict[str, Any], Resolver]:
    """`node` with its `$ref`s followed (the target, and the resolver for its own refs)."""
    while "$ref" in node:
        resolved = resolver.lookup(node["$ref"])
        node, resolver = resolved.contents, resolved.resolver
    return node, resolver


def _kind(node: dict[str, Any], resolver: Resolver, where: str) -> tuple[str, tuple[str, ...]]:
    """The Arrow type of a field's value (and a dictionary's values); `null` excluded."""
    node, resolver = _resolve(node, resolver)
    if "anyOf" in node:
        kinds = {
            _kind(member, resolver, where)
            for member in node["anyOf"]
            if _resolve(member, resolver)[0] != {"type": "null"}
        }
        if len(kinds) != 1:
            raise SystemExit(f"{where}: anyOf of several types has no Arrow column type")
        return kinds.pop()
    if "const" in node and isinstance(node["const"], str):
        return "pa.dictionary(pa.int8(), pa.string())", (node["const"],)
    if "enum" in node and all(isinstance(value, str) for value in node["enum"]):
        return "pa.dictionary(pa.int8(), pa.string())", tuple(node["enum"])
    if node.get("type") == "integer":
        if node.get("minimum") == 0 and node.get("maximum") == U64_MAX:
            return "pa.uint64()", ()
        raise SystemExit(f"{where}: only u64 integers (0 to {U64_MAX}) have a column type")
    if node.get("type") == "number":
        return "pa.float64()", ()
    raise SystemExit(f"{where}: no Arrow column type for {json.dumps(node)[:80]}")


def _nullable_anyof(node: dict[str, Any], resolver: Resolver) -> bool:
    node, resolver = _resolve(node, resolver)
    return any(_resolve(m, resolver)[0] == {"type": "null"} for m in node.get("anyOf", ()))


def _skipped(node: dict[str, Any], resolver: Resolver) -> bool:
    """Whether a field is one the reference does not know (`x-serde` skip): a map of scalars."""
    target, _ = _resolve(node, resolver)
    return bool(target.get("x-serde", {}).get("skip"))


def columns(folder: Path) -> tuple[list[str], dict[str, list[str]], list[Column]]:
    """The variants' tags, each variant's fields in order, and the schema's columns."""
    registry = _registry(folder)
    top = json.loads((folder / SOURCE).read_text(encoding="utf-8"))
    resolver = registry.resolver(base_uri=top["$id"])
    events: list[str] = []
    fields: dict[str, list[str]] = {}
    found: dict[str, Column] = {}
    variants = [_resolve(member, resolver) for member in top["oneOf"]]
    # Columns in the order the widest variant (a `log`: what most lines are) declares them.
    for variant, inner in sorted(variants, key=lambda v: -len(v[0]["properties"])):
        tag = variant["properties"]["event"]["const"]
        for name, node in variant["properties"].items():
            if _skipped(node, inner):
                continue
            where = f"{SOURCE}: {variant.get('title', tag)}.{name}"
            arrow, values = _kind(node, inner, where)
            column = found.setdefault(name, Column(name, arrow))
            if column.arrow != arrow:
                raise SystemExit(f"{where}: {arrow}, but {column.arrow} in another variant")
            column.values = column.values or values
            column.events.append(tag)
            required = name in variant.get("required", ()) and not _nullable_anyof(node, inner)
            if required:
                column.required_in.append(tag)
            description = node.get("description") or _resolve(node, inner)[0].get("description")
            if description:
                column.descriptions[tag] = description
    for variant, inner in variants:  # the schema's order
        tag = variant["properties"]["event"]["const"]
        events.append(tag)
        fields[tag] = [
            name
            for name, node in variant["properties"].items()
            if name != "event" and not _skipped(node, inner)
        ]
    for column in found.values():  # each in the schema's order of variants
        column.events = [tag for tag in events if tag in column.events]
        column.descriptions = {
            t: column.descriptions[t] for t in events if t in column.descriptions
        }
    tag_column = found["event"]
    tag_column.values = tuple(events)  # one `const` in each variant
    tag_column.descriptions = {"": TAG_DESCRIPTION}
    return events, fields, list(found.values())


def _description(column: Column) -> str:
    texts = set(column.descriptions.values())
    if not texts:
        return ""
    if len(texts) == 1:
        return texts.pop()
    return " ".join(f"{tag}: {text}" for tag, text in column.descriptions.items())


def render(folder: Path) -> str:
    """The source of the generated module."""
    events, fields, found = columns(folder)
    out = [
        "# generated by tools/codegen/arrow.py:",
        f"#   filename:  {SOURCE}",
        '"""The Arrow schema of a table of metrics lines, generated from `schema/`."""',
        "",
        "from __future__ import annotations",
        "",
        "import pyarrow as pa",
        "",
        f"EVENTS: tuple[str, ...] = {tuple(events)!r}",
        '"""The values of `event`, in the order of the schema\'s variants."""',
        "",
        "VARIANT_FIELDS: dict[str, tuple[str, ...]] = {",
    ]
    out += [f"    {tag!r}: {tuple(names)!r}," for tag, names in fields.items()]
    out += [
        "}",
        '"""The fields of each variant (but `event`), in declaration order."""',
        "",
    ]
    dictionaries = {c.name: c.values for c in found if c.values}
    out.append("DICTIONARIES: dict[str, tuple[str, ...]] = {")
    out += [f"    {name!r}: {values!r}," for name, values in dictionaries.items()]
    out += [
        "}",
        '"""The values of each dictionary-encoded column of the schema, in the schema\'s order."""',
        "",
        "METRICS_LINE_SCHEMA = pa.schema(",
        "    [",
    ]
    for name, arrow, description in TABLE_COLUMNS:
        metadata = {"description": description, "origin": "table"}
        out.append(f"        pa.field({name!r}, {arrow}, nullable=False, metadata={metadata!r}),")
    for column in found:
        nullable = set(column.required_in) != set(events)
        metadata = {
            "description": _description(column),
            "events": " ".join(column.events),
            "origin": SOURCE,
        }
        out.append(
            f"        pa.field({column.name!r}, {column.arrow}, nullable={nullable}, "
            f"metadata={metadata!r}),"
        )
    out += [
        "    ]",
        ")",
        '"""One column per field of any variant (null where a line\'s variant lacks it or the',
        "line holds null), after `run` and `line`. u64 fields are `uint64`, f64 fields `float64`,",
        '`event` and `name` dictionary-encoded strings."""',
        "",
    ]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: arrow.py SCHEMA_FOLDER OUTPUT.py", file=sys.stderr)
        return 2
    folder, output = Path(argv[0]), Path(argv[1])
    output.write_text(render(folder), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
