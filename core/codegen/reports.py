"""The run-level report types of the reader core, generated from `schema/`:
`core/reader/src/reports.rs`.

    python core/codegen/reports.py SCHEMA_DIR OUT.rs      (what `nox -s generate` runs)

The reports are what the commands write as JSON (`check -o json`, `status -o json`): the
core makes them, every language's face writes or shows them. Each schema below becomes
serde types that serialise to the schema's JSON, field for field, in its order:

- `check-report.schema.json`: its `oneOf` becomes the enum named by its `title`, tagged by
  its `discriminator` (`#[serde(tag = ...)]`), one newtype variant per `$defs` entry,
  named by the entry's tag (`finding` -> `Finding(ReportFinding)`).
- `check-total.schema.json`, `status-report.schema.json`: a struct of the properties (a
  `type` const, the tag of a JSON Lines stream, a `&'static str` field fixed by `new`-less
  construction: the struct's constant `TYPE`).
- in any of them: an object `$defs` entry is a struct named by its title; a string `enum`
  an enum (each value renamed to itself); `Count` and any integer with minimum 0 or 1
  `u64`; a number `f64`; a boolean `bool`; a string `String`; `anyOf` with null an
  `Option`, written as null (never left out); `job-stage.schema.json` the `JobStage` and
  `snapshot.schema.json` the `Snapshot` of `generated.rs`; `metrics-line.schema.json`'s
  `Scalar` and `Scalars` the core's (`crate::scalars`); an object of `additionalProperties`
  a `BTreeMap` from its keys (written in their order); a property not required takes its
  `default` when read and is always written.

After the types, the rule of a stale ETA, `stale` in `contract.json`, as constants
(module `stale`: `STEPS`, `FLOOR_SECONDS`, documented by `contract.schema.json`), and the
rules of a run's alerts, `alerts` (module `alerts`): the core judges staleness and alerts by
the contract's numbers, never by numbers of its own. An array property becomes a `Vec`.

Nothing here is edited by hand: `nox -s generated` compares this output with the committed
file and names the command that fixes it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HEADER = """\
// @generated from schema/ by core/codegen/reports.py: do not edit.
// Regenerate with `nox -s generate`; `nox -s generated` fails when this file is stale.
"""

SCHEMAS = ("check-report.schema.json", "check-total.schema.json", "status-report.schema.json")
FILES = {
    "job-stage.schema.json": "JobStage",
    "snapshot.schema.json": "Snapshot",
    "metrics-line.schema.json#/$defs/Scalar": "Scalar",
    "metrics-line.schema.json#/$defs/Scalars": "Scalars",
}


def _doc(text: str, indent: str) -> list[str]:
    return [f"{indent}/// {line}".rstrip() for line in text.splitlines()] if text else []


def _camel(text: str) -> str:
    return "".join(part.capitalize() for part in text.replace("-", "_").split("_"))


class Schema:
    """One schema file's types, written as they are met (each `$defs` entry once)."""

    def __init__(self, name: str, schema: dict) -> None:
        self.name = name
        self.schema = schema
        self.items: list[list[str]] = []
        self.done: set[str] = set()

    def rust(self, node: dict, where: str) -> str:
        """The Rust type of a property's value."""
        options = node.get("anyOf")
        if options is not None:
            values = [option for option in options if option.get("type") != "null"]
            if len(values) != 1 or len(options) != 2:
                raise SystemExit(f"{self.name} {where}: a union other than a value or null")
            return f"Option<{self.rust(values[0], where)}>"
        ref = node.get("$ref")
        if ref is not None:
            if ref in FILES:
                return FILES[ref]
            if not ref.startswith("#/$defs/"):
                raise SystemExit(f"{self.name} {where}: no Rust type for {ref}")
            return self.define(ref.removeprefix("#/$defs/"))
        kind = node.get("type")
        if kind == "object" and "additionalProperties" in node and "properties" not in node:
            value = self.rust(node["additionalProperties"], f"{where}/additionalProperties")
            return f"BTreeMap<String, {value}>"
        if kind == "array" and "items" in node:
            return f"Vec<{self.rust(node['items'], f'{where}/items')}>"
        if kind == "integer" and node.get("minimum") in (0, 1):
            return "u64"
        if kind == "number":
            return "f64"
        if kind == "boolean":
            return "bool"
        if kind == "string" and "enum" not in node:
            return "String"
        raise SystemExit(f"{self.name} {where}: no Rust type for {json.dumps(node)}")

    def define(self, key: str) -> str:
        """The type of `$defs/KEY`, written once."""
        node = self.schema["$defs"][key]
        title = node.get("title", key)
        if node.get("type") in ("integer", "number", "boolean") or (
            node.get("type") == "string" and "enum" not in node
        ):
            return self.rust({k: v for k, v in node.items() if k != "title"}, f"$defs/{key}")
        if key in self.done:
            return title
        self.done.add(key)
        if node.get("type") == "string":
            self.items.append(self._enum(title, node))
        elif node.get("type") == "object":
            self.items.append(self.struct(title, node, f"$defs/{key}"))
        else:
            raise SystemExit(f"{self.name} $defs/{key}: no Rust type for {json.dumps(node)}")
        return title

    def _enum(self, title: str, node: dict) -> list[str]:
        out = _doc(node.get("description", ""), "")
        out += [
            "#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]",
            f"pub enum {title} {{",
        ]
        for value in node["enum"]:
            out += [f'    #[serde(rename = "{value}")]', f"    {_camel(value)},"]
        out += ["}", "", f"impl {title} {{", "    /// The name the schema gives it."]
        out += ["    #[must_use]", "    pub const fn name(self) -> &'static str {"]
        out += ["        match self {"]
        out += [f'            Self::{_camel(value)} => "{value}",' for value in node["enum"]]
        out += ["        }", "    }", "}"]
        return out

    def struct(self, title: str, node: dict, where: str) -> list[str]:
        """A struct of `node`'s properties, in order; a `type` const is its tag (`TYPE`),
        written by the enum that holds it or, for a whole line, as a field."""
        required = set(node.get("required", []))
        fields: list[str] = []
        tag: str | None = None
        for name, prop in node["properties"].items():
            if "const" in prop:
                tag = prop["const"]
                continue
            rust = self.rust(prop, f"{where}/{name}")
            fields += _doc(prop.get("description", ""), "    ")
            if name not in required:
                # an addition to a report: read as its default where an older one lacks it
                if "default" not in prop or prop["default"] not in (None, {}, []):
                    raise SystemExit(f"{self.name} {where}/{name}: optional without a default")
                fields.append("    #[serde(default)]")
            fields.append(f"    pub {name}: {rust},")
        out = _doc(node.get("description", ""), "")
        out += ["#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]"]
        out.append(f"pub struct {title} {{")
        out += fields
        out.append("}")
        if tag is not None:
            out += ["", f"impl {title} {{", "    /// Its `type`: the tag of its line."]
            out += [f'    pub const TYPE: &\'static str = "{tag}";', "}"]
        return out

    def tagged(self) -> None:
        """The schema's `oneOf`, tagged by its discriminator."""
        schema = self.schema
        field = schema["discriminator"]["propertyName"]
        variants = []
        for option in schema["oneOf"]:
            key = option["$ref"].removeprefix("#/$defs/")
            tag = schema["$defs"][key]["properties"][field]["const"]
            variants.append((tag, self.define(key), schema["$defs"][key].get("description", "")))
        out = _doc(schema.get("description", ""), "")
        out += [
            "#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]",
            f'#[serde(tag = "{field}")]',
            f"pub enum {schema['title']} {{",
        ]
        for tag, rust, doc in variants:
            out += _doc(doc, "    ")
            out += [f'    #[serde(rename = "{tag}")]', f"    {_camel(tag)}({rust}),"]
        out.append("}")
        self.items.append(out)

    def whole(self) -> None:
        """A schema that is one object: its struct, the tag (if any) a field of it."""
        schema = self.schema
        title = schema["title"]
        if "type" in schema.get("properties", {}):
            # A line of its own stream (`check --total`): the tag is a field, fixed.
            props = dict(schema["properties"])
            const = props.pop("type")["const"]
            body = dict(schema, properties=props)
            lines = self.struct(title, body, "")
            at = lines.index(f"pub struct {title} {{") + 1
            lines[at:at] = [
                "    /// Always `TYPE`: the tag of the line.",
                '    #[serde(rename = "type")]',
                f"    pub kind: {title}Tag,",
            ]
            lines += [
                "",
                f"/// The `type` of a `{title}` line: `{const}`.",
                "#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]",
                f"pub enum {title}Tag {{",
                f'    #[serde(rename = "{const}")]',
                "    #[default]",
                f"    {_camel(const)},",
                "}",
            ]
            self.items.append(lines)
            return
        self.items.append(self.struct(title, schema, ""))


def stale_constants(folder: Path) -> list[str]:
    """`stale` of `contract.json` as Rust constants, each documented by its property in
    `contract.schema.json`: `steps` a `u64`, `floor_seconds` an `f64`."""
    stale = json.loads((folder / "contract.json").read_text(encoding="utf-8"))["stale"]
    schema = json.loads((folder / "contract.schema.json").read_text(encoding="utf-8"))
    node = schema["properties"]["stale"]
    out = ["// contract.json: stale", *_doc(node.get("description", ""), "")]
    out += ["pub mod stale {"]
    for key, rust, value in (
        ("steps", "u64", str(int(stale["steps"]))),
        ("floor_seconds", "f64", repr(float(stale["floor_seconds"]))),
    ):
        out += _doc(node["properties"][key].get("description", ""), "    ")
        out.append(f"    pub const {key.upper()}: {rust} = {value};")
    out.append("}")
    return out


def alerts_constants(folder: Path) -> list[str]:
    """`alerts` of `contract.json` as Rust constants (module `alerts`), each documented by
    its property in `contract.schema.json`: the spike's `ratio` an `f64`, its `window` and
    `min_logs` `usize`, the keys watched for a value that is not finite a `[&str; N]`."""
    rules = json.loads((folder / "contract.json").read_text(encoding="utf-8"))["alerts"]
    schema = json.loads((folder / "contract.schema.json").read_text(encoding="utf-8"))
    node = schema["properties"]["alerts"]
    spike = node["properties"]["spike"]
    nonfinite = node["properties"]["nonfinite"]
    keys = [str(key) for key in rules["nonfinite"]["keys"]]
    out = ["// contract.json: alerts", *_doc(node.get("description", ""), "")]
    out += ["pub mod alerts {"]
    out.append(f"    // spike: {spike.get('description', '')}")
    for key, name, rust, value in (
        ("ratio", "SPIKE_RATIO", "f64", repr(float(rules["spike"]["ratio"]))),
        ("window", "SPIKE_WINDOW", "usize", str(int(rules["spike"]["window"]))),
        ("min_logs", "SPIKE_MIN_LOGS", "usize", str(int(rules["spike"]["min_logs"]))),
    ):
        out += _doc(spike["properties"][key].get("description", ""), "    ")
        out.append(f"    pub const {name}: {rust} = {value};")
    out.append(f"    // nonfinite: {nonfinite.get('description', '')}")
    out += _doc(nonfinite["properties"]["keys"].get("description", ""), "    ")
    listed = ", ".join(json.dumps(key) for key in keys)
    out.append(f"    pub const NONFINITE_KEYS: [&str; {len(keys)}] = [{listed}];")
    out.append("}")
    return out


def max_bytes_constants(folder: Path) -> list[str]:
    """`max_bytes` of `contract.json` as Rust constants (`usize`), each documented by its
    property in `contract.schema.json`: the most bytes a run folder's side file may hold."""
    limits = json.loads((folder / "contract.json").read_text(encoding="utf-8"))["max_bytes"]
    schema = json.loads((folder / "contract.schema.json").read_text(encoding="utf-8"))
    node = schema["properties"]["max_bytes"]
    out = ["// contract.json: max_bytes", *_doc(node.get("description", ""), "")]
    out += ["pub mod max_bytes {"]
    for key in ("snapshot_request", "snapshot"):
        out += _doc(node["properties"][key].get("description", ""), "    ")
        out.append(f"    pub const {key.upper()}: usize = {int(limits[key])};")
    out.append("}")
    return out


def side_constants(folder: Path) -> list[str]:
    """What the core checks of a run folder's side files beyond their Rust types, from the
    schemas: the files' names (`contract.json` `files`), the proof's required fields in
    order and its checkpoint's `minLength` (`snapshot.schema.json`), the `Word` a reason is
    (its title and pattern) and the request's pattern (`snapshot-request.schema.json`)."""

    def read(name: str) -> Any:
        return json.loads((folder / name).read_text(encoding="utf-8"))

    files = read("contract.json")["files"]
    proof = read("snapshot.schema.json")
    request = read("snapshot-request.schema.json")
    word = request["$defs"]["Word"]
    required = ", ".join(json.dumps(name) for name in proof["required"])

    def text(value: str) -> str:
        return json.dumps(value, ensure_ascii=False)

    return [
        "// snapshot.schema.json, snapshot-request.schema.json, contract.json: files",
        "/// What the core checks of a run folder's side files beyond their Rust types.",
        "pub mod side {",
        "    /// The request's file name.",
        f"    pub const REQUEST_FILE: &str = {text(files['snapshot_request'])};",
        "    /// The proof's file name.",
        f"    pub const PROOF_FILE: &str = {text(files['snapshot'])};",
        "    /// The proof's required fields, in the schema's order.",
        f"    pub const PROOF_REQUIRED: [&str; {len(proof['required'])}] = [{required}];",
        "    /// The proof's `checkpoint`: its `minLength`.",
        "    pub const CHECKPOINT_MIN_LENGTH: usize ="
        f" {int(proof['properties']['checkpoint']['minLength'])};",
        f"    /// {word['description']}",
        f"    pub const WORD_TITLE: &str = {text(word['title'])};",
        "    /// The pattern of a `Word`.",
        f"    pub const WORD_PATTERN: &str = {text(word['pattern'])};",
        "    /// The request's text: its schema's pattern.",
        f"    pub const REQUEST_PATTERN: &str = {text(request['pattern'])};",
        "}",
    ]


def generate(folder: Path) -> str:
    parts = [
        HEADER,
        "#![allow(clippy::doc_markdown)]",
        "",
        "use std::collections::BTreeMap;",
        "",
        "use serde::{Deserialize, Serialize};",
        "",
        "use crate::generated::{JobStage, Snapshot};",
        "use crate::scalars::{Scalar, Scalars};",
        "",
    ]
    for name in SCHEMAS:
        schema = json.loads((folder / name).read_text(encoding="utf-8"))
        made = Schema(name, schema)
        if "oneOf" in schema:
            made.tagged()
        else:
            made.whole()
        parts.append(f"// {name}")
        for item in made.items:
            parts += [*item, ""]
    parts += [*stale_constants(folder), ""]
    parts += [*alerts_constants(folder), ""]
    parts += [*max_bytes_constants(folder), ""]
    parts += [*side_constants(folder), ""]
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.splitlines()[3].strip(), file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).parent))
    from generate import formatted  # the rustfmt step, shared with the line types

    Path(argv[1]).write_text(formatted(generate(Path(argv[0]))), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
