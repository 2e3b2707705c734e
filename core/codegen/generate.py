"""The reader core's Rust types, generated from `schema/`: `core/reader/src/generated.rs`.

    python core/codegen/generate.py SCHEMA_DIR OUT.rs      (what `nox -s generate` runs)

The types are those of overbrainer 0.8.2's `metrics.rs`, written as the same serde derives,
so that serde_json reads them exactly as it reads the reference's:

- `metrics-line.schema.json`: its `oneOf` becomes the enum named by its `title`, tagged by
  its `discriminator` (`#[serde(tag = ...)]`), one variant per `$defs` entry in order, named
  by the entry's `title`; the variants' tags are their `event` consts (`rename_all =
  "lowercase"` where every tag is its title in lower case). A variant's fields are its
  `properties` in order (the tag aside): serde reads a sequence in that order and names a
  missing field in it. A required property is a plain field; an optional one an `Option`
  with `#[serde(default)]` (its `"default": null`). `$defs/U64` and any integer bounded to
  0..=u64::MAX is `u64`, a number `f64`, `job-stage.schema.json` the `JobStage` enum.
- the annotation `"x-serde": {"newtype": NAME}` on a variant makes it a newtype variant
  around a struct NAME holding its fields (the reference's `Log(TrainMetric)`); JSON Schema
  has no word for that, and serde's messages name the struct (`struct TrainMetric with 8
  elements`).
- the annotation `"x-serde": {"skip": true}` on a property's type (`$defs/Scalars`) marks a
  field the reference does not know: it is written `#[serde(skip)]`, so that serde reads the
  key as the reference does (ignored) and writes the line as it does (without it); the core
  fills it beside the reading (`crate::scalars`), an `Option` of the Rust type named by the
  type's `title`. A variant has at most one such field; `EXTRAS` names it.
- `job-stage.schema.json`: a unit enum, one variant per `enum` value, `rename_all =
  "lowercase"`.
- `snapshot.schema.json`: a struct of its properties (strings `String`, nullable `Option`).

Besides the types it writes the tables the hand-written code reads them by (each variant's
fields and their kinds, the union of all fields) and the conversions to and from `Value`s.
Nothing here is edited by hand: a change to the schema is a change to this output, which the
drift check (`nox -s generated`) compares with the committed file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

U64_MAX = 18446744073709551615
HEADER = """\
// @generated from schema/ by core/codegen/generate.py: do not edit.
// Regenerate with `nox -s generate`; `nox -s generated` fails when this file is stale.
"""


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # the Kind variant: F64, U64, OptF64, OptU64, Stage
    doc: str

    @property
    def optional(self) -> bool:
        return self.kind.startswith("Opt")

    @property
    def rust(self) -> str:
        return {
            "F64": "f64",
            "U64": "u64",
            "OptF64": "Option<f64>",
            "OptU64": "Option<u64>",
            "Stage": "JobStage",
        }[self.kind]


@dataclass(frozen=True)
class Variant:
    name: str
    tag: str
    doc: str
    fields: tuple[Field, ...]
    newtype: str | None  # the struct a newtype variant wraps
    extra: Field | None  # the field the reference does not know (`x-serde` skip), if any


def _load(folder: Path, name: str) -> dict:
    return json.loads((folder / name).read_text(encoding="utf-8"))


def _resolve(schema: dict, node: dict) -> dict:
    ref = node.get("$ref")
    if ref is None:
        return node
    if ref.startswith("#/$defs/"):
        return _resolve(schema, schema["$defs"][ref.removeprefix("#/$defs/")])
    return {"$ref-file": ref}


def _scalar(schema: dict, node: dict, where: str) -> str:
    """The kind of a non-null value: U64, F64 or Stage."""
    node = _resolve(schema, node)
    if node.get("$ref-file") == "job-stage.schema.json":
        return "Stage"
    kind = node.get("type")
    if kind == "integer" and node.get("minimum") == 0 and node.get("maximum") == U64_MAX:
        return "U64"
    if kind == "number":
        return "F64"
    raise SystemExit(f"{where}: no Rust type for {json.dumps(node)}")


def _field(schema: dict, name: str, node: dict, required: bool, where: str) -> Field:
    doc = node.get("description", "")
    options = node.get("anyOf")
    if options is not None:
        values = [option for option in options if option.get("type") != "null"]
        if len(values) != 1 or len(options) != 2:
            raise SystemExit(f"{where}: a union other than a value or null")
        if required or "default" not in node or node["default"] is not None:
            raise SystemExit(f"{where}: a nullable field must be optional with default null")
        return Field(name, "Opt" + _scalar(schema, values[0], where), doc)
    if not required:
        raise SystemExit(f"{where}: an optional field must be nullable with default null")
    return Field(name, _scalar(schema, node, where), doc)


def variants(folder: Path) -> tuple[str, str, str, list[Variant]]:
    """The line enum's name, tag field, doc and variants."""
    schema = _load(folder, "metrics-line.schema.json")
    tag_field = schema["discriminator"]["propertyName"]
    found = []
    for option in schema["oneOf"]:
        ref = option["$ref"].removeprefix("#/$defs/")
        node = schema["$defs"][ref]
        required = set(node["required"])
        fields = []
        extras = []
        tag = None
        for name, prop in node["properties"].items():
            if name == tag_field:
                tag = prop["const"]
                continue
            target = _resolve(schema, prop)
            if target.get("x-serde", {}).get("skip"):
                if name in required:
                    raise SystemExit(f"$defs/{ref}/{name}: a field the reference skips is required")
                extras.append(Field(name, target["title"], prop.get("description", "")))
                continue
            fields.append(_field(schema, name, prop, name in required, f"$defs/{ref}/{name}"))
        if tag is None:
            raise SystemExit(f"$defs/{ref}: no {tag_field} const")
        newtype = node.get("x-serde", {}).get("newtype")
        if len(extras) > 1:
            raise SystemExit(f"$defs/{ref}: more than one field the reference skips")
        doc = node.get("description", "")
        extra = extras[0] if extras else None
        found.append(Variant(node["title"], tag, doc, tuple(fields), newtype, extra))
    return schema["title"], tag_field, schema.get("description", ""), found


def _doc(text: str, indent: str) -> list[str]:
    return [f"{indent}/// {line}".rstrip() for line in text.splitlines()] if text else []


def _field_lines(field: Field, indent: str, public: bool) -> list[str]:
    out = _doc(field.doc, indent)
    if field.optional:
        out.append(f"{indent}#[serde(default)]")
    out.append(f"{indent}{'pub ' if public else ''}{field.name}: {field.rust},")
    return out


def _extra_lines(field: Field, indent: str, public: bool) -> list[str]:
    out = _doc(field.doc, indent)
    out.append(f"{indent}#[serde(skip)]")
    out.append(f"{indent}{'pub ' if public else ''}{field.name}: Option<{field.kind}>,")
    return out


def _lowercase(names: list[tuple[str, str]]) -> bool:
    return all(name.lower() == value for name, value in names)


def _job_stage(folder: Path) -> list[str]:
    schema = _load(folder, "job-stage.schema.json")
    values = schema["enum"]
    names = [(value.capitalize(), value) for value in values]
    if not _lowercase(names):  # pragma: no cover - every stage is one lower-case word
        raise SystemExit("job-stage.schema.json: a stage that is not one lower-case word")
    title = schema["title"]
    out = _doc(schema["description"], "")
    out += [
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]",
        '#[serde(rename_all = "lowercase")]',
        f"pub enum {title} {{",
    ]
    out += [f"    {name}," for name, _ in names]
    out += [
        "}",
        "",
        f"impl {title} {{",
        "    /// Every stage, in the schema's order.",
        f"    pub const ALL: [Self; {len(names)}] = [{', '.join(f'Self::{n}' for n, _ in names)}];",
        "",
        "    /// The name its stage event carries.",
        "    #[must_use]",
        "    pub const fn name(self) -> &'static str {",
        "        match self {",
    ]
    out += [f'            Self::{name} => "{value}",' for name, value in names]
    out += ["        }", "    }", "}"]
    return out


def _snapshot(folder: Path) -> list[str]:
    schema = _load(folder, "snapshot.schema.json")
    required = set(schema["required"])
    out = _doc(schema["description"], "")
    out += [
        "#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]",
        f"pub struct {schema['title']} {{",
    ]
    for name, prop in schema["properties"].items():
        nullable = "anyOf" in prop and {"type": "null"} in prop["anyOf"]
        node = next(o for o in prop.get("anyOf", [prop]) if o.get("type") != "null")
        if node.get("type") == "string" or ("$ref" in node and "snapshot-request" in node["$ref"]):
            rust = "String"
        elif node.get("type") == "number":
            rust = "f64"
        elif node.get("$ref", "").endswith("#/$defs/U64"):
            rust = "u64"
        else:
            raise SystemExit(f"snapshot.schema.json/{name}: no Rust type for {json.dumps(node)}")
        if nullable:
            rust = f"Option<{rust}>"
        if name not in required:  # pragma: no cover - every property is required today
            raise SystemExit(f"snapshot.schema.json/{name}: an optional property")
        out += _doc(prop.get("description", ""), "    ")
        out.append(f"    pub {name}: {rust},")
    out.append("}")
    return out


def _line_enum(name: str, tag_field: str, doc: str, found: list[Variant]) -> list[str]:
    out: list[str] = []
    for variant in found:
        if variant.newtype:
            out += _doc(variant.doc, "")
            out += [
                "#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]",
                f"pub struct {variant.newtype} {{",
            ]
            for field in variant.fields:
                out += _field_lines(field, "    ", public=True)
            if variant.extra:
                out += _extra_lines(variant.extra, "    ", public=True)
            out += ["}", ""]
    rename = _lowercase([(v.name, v.tag) for v in found])
    out += _doc(doc, "")
    out += ["#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]"]
    out += [f'#[serde(tag = "{tag_field}"' + (', rename_all = "lowercase")]' if rename else ")]")]
    out.append(f"pub enum {name} {{")
    for variant in found:
        out += _doc(variant.doc, "    ")
        if not rename:
            out.append(f'    #[serde(rename = "{variant.tag}")]')
        if variant.newtype:
            out.append(f"    {variant.name}({variant.newtype}),")
            continue
        out.append(f"    {variant.name} {{")
        for field in variant.fields:
            out += _field_lines(field, "        ", public=False)
        if variant.extra:
            out += _extra_lines(variant.extra, "        ", public=False)
        out.append("    },")
    out.append("}")
    return out


def _tables(name: str, tag_field: str, found: list[Variant]) -> list[str]:
    union: dict[str, str] = {}
    for variant in found:
        for field in variant.fields:
            if union.setdefault(field.name, field.kind) != field.kind:
                raise SystemExit(f"field {field.name}: two kinds across variants")
    slots = list(union)
    names = ", ".join(json.dumps(v.name) for v in found)
    tags = ", ".join(json.dumps(v.tag) for v in found)
    out = [
        "/// The field that holds a line's tag.",
        f'pub const TAG_FIELD: &str = "{tag_field}";',
        "",
        "/// Each variant's name (its `title`: the generated models' class names).",
        f"pub const NAMES: [&str; {len(found)}] = [{names}];",
        "",
        "/// Each variant's tag, in declaration order (a variant's index in the tables below).",
        f"pub const TAGS: [&str; {len(found)}] = [{tags}];",
        "",
        "/// Each variant's fields and their kinds, in declaration order.",
        f"pub const FIELDS: [&[(&str, Kind)]; {len(found)}] = [",
    ]
    for variant in found:
        items = ", ".join(f'("{f.name}", Kind::{f.kind})' for f in variant.fields)
        out.append(f"    &[{items}],")
    out += [
        "];",
        "",
        "/// Every field of any variant, with its kind: a name has one kind in every variant.",
        f"pub const UNION: [(&str, Kind); {len(union)}] = [",
    ]
    out += [f'    ("{n}", Kind::{k}),' for n, k in union.items()]
    out += [
        "];",
        "",
        "/// Each variant's fields as indices in `UNION`, in declaration order.",
        f"pub const SLOTS: [&[usize]; {len(found)}] = [",
    ]
    out += [f"    &[{', '.join(str(slots.index(f.name)) for f in v.fields)}]," for v in found]
    out += [
        "];",
        "",
        "/// Each variant's field that the reference does not know, if any (its key).",
        f"pub const EXTRAS: [Option<&str>; {len(found)}] = [",
        *[f'    Some("{v.extra.name}"),' if v.extra else "    None," for v in found],
        "];",
        "",
        "/// The most fields a variant has.",
        f"pub const MAX_FIELDS: usize = {max(len(v.fields) for v in found)};",
        "",
        "/// The index in `UNION` of a field's name.",
        "#[must_use]",
        "pub fn union_index(name: &str) -> Option<usize> {",
        "    match name {",
    ]
    out += [f'        "{n}" => Some({i}),' for i, n in enumerate(union)]
    out += ["        _ => None,", "    }", "}", "", f"impl {name} {{"]
    # variant()
    out += [
        "    /// The index of this line's variant in `TAGS` and `FIELDS`.",
        "    #[must_use]",
        "    pub const fn variant(&self) -> usize {",
        "        match self {",
    ]
    for index, variant in enumerate(found):
        pattern = f"({'_'})" if variant.newtype else " { .. }"
        out.append(f"            Self::{variant.name}{pattern} => {index},")
    out += ["        }", "    }", ""]
    # values()
    out += [
        "    /// Each field's value, in declaration order (`FIELDS[self.variant()]`).",
        "    pub fn for_each_value<F: FnMut(Value)>(&self, mut each: F) {",
        "        match self {",
    ]
    for variant in found:
        names = [field.name for field in variant.fields]
        if variant.newtype:
            out.append(f"            Self::{variant.name}(line) => {{")
            out += [
                f"                each(Value::{f.kind}(line.{f.name}));" for f in variant.fields
            ]
        else:
            rest = ", .." if variant.extra else ""
            out.append(f"            Self::{variant.name} {{ {', '.join(names)}{rest} }} => {{")
            out += [f"                each(Value::{f.kind}(*{f.name}));" for f in variant.fields]
        out.append("            }")
    out += ["        }", "    }", ""]
    # from_values()
    out += [
        "    /// The line of variant `variant` with these values, in declaration order; `None`",
        "    /// when their number or kinds are not the variant's.",
        "    #[must_use]",
        "    pub fn from_values(variant: usize, values: &[Value]) -> Option<Self> {",
        "        match (variant, values) {",
    ]
    for index, variant in enumerate(found):
        pattern = ", ".join(f"Value::{f.kind}({f.name})" for f in variant.fields)
        names = ", ".join(f"{f.name}: *{f.name}" for f in variant.fields)
        if variant.extra:
            names += f", {variant.extra.name}: None"
        out.append(f"            ({index}, [{pattern}]) => Some(")
        if variant.newtype:
            out.append(f"                Self::{variant.name}({variant.newtype} {{ {names} }}),")
        else:
            out.append(f"                Self::{variant.name} {{ {names} }},")
        out.append("            ),")
    out += ["            _ => None,", "        }", "    }", ""]
    out += [
        "    /// The field the reference does not know (`EXTRAS[self.variant()]`), to fill.",
        "    pub fn extra_mut(&mut self) -> Option<&mut Option<Scalars>> {",
        "        match self {",
    ]
    out += _extra_arms(found, "Some(&mut line.{e})", "Some({e})")
    out += ["            _ => None,", "        }", "    }", ""]
    out += [
        "    /// The field the reference does not know, when the line holds it.",
        "    #[must_use]",
        "    pub const fn extra(&self) -> Option<&Scalars> {",
        "        match self {",
    ]
    out += _extra_arms(found, "line.{e}.as_ref()", "{e}.as_ref()")
    out += ["            _ => None,", "        }", "    }", "}"]
    return out


def _extra_arms(found: list[Variant], newtype: str, fields: str) -> list[str]:
    """The match arms of the variants that have a field the reference does not know: each
    gives `newtype` (a newtype variant's line, `line`) or `fields` (a struct variant's field
    bound by its name), `{e}` the field's name."""
    arms = []
    for variant in found:
        if variant.extra is None:
            continue
        e = variant.extra.name
        if variant.newtype:
            arms.append(f"            Self::{variant.name}(line) => {newtype.format(e=e)},")
        else:
            arms.append(f"            Self::{variant.name} {{ {e}, .. }} => {fields.format(e=e)},")
    return arms


def generate(folder: Path) -> str:
    name, tag_field, doc, found = variants(folder)
    parts = [
        HEADER,
        "use serde::{Deserialize, Serialize};",
        "",
        "use crate::scalars::Scalars;",
        "use crate::values::{Kind, Value};",
        "",
        *_line_enum(name, tag_field, doc, found),
        "",
        *_job_stage(folder),
        "",
        *_snapshot(folder),
        "",
        *_tables(name, tag_field, found),
    ]
    return "\n".join(parts) + "\n"


def formatted(source: str) -> str:
    """`source` as `cargo fmt` leaves it (rustfmt, from the Rust toolchain), so that the
    committed file passes `cargo fmt --check` as it is generated."""
    rustfmt = shutil.which("rustfmt")
    if rustfmt is None:
        raise SystemExit("rustfmt not found: install the Rust toolchain (rustup) to generate")
    done = subprocess.run(
        [rustfmt, "--edition", "2021"], input=source, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"rustfmt refused the generated code:\n{done.stderr}")
    return done.stdout


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        return 2
    Path(argv[1]).write_text(formatted(generate(Path(argv[0]))), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
