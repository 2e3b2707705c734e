"""Breaking-change check of the contract's JSON Schemas against their last release.

Every released version of `schema/` is kept in `schema-releases/<version>/`. This module compares
the working schemas with the newest release, keyword by keyword, and names each change with a
rule id and the JSON path where it happens, as buf's breaking-change rules do.

Readers of this contract are strict: the reference refuses an unknown `event` or stage name, a
float where it reads a u64, a missing required field. So a change breaks in one of two
directions, the compatibility modes of a schema registry:

- **backward**: a reader of the new version refuses what a writer of the release wrote (old
  runs' logs, an old plugin): the schema was narrowed;
- **forward**: a reader of the release (an overbrainer already deployed) refuses what a writer
  of the new version writes: the schema was widened.

The mode says which directions fail the check: ``full`` (the default: both, since old runs are
read by new readers and old readers meet new plugins), ``backward`` or ``forward``.

===================================  ========  ============================================
rule                                 breaks    change
===================================  ========  ============================================
``FILE_NO_DELETE``                   both      a schema file removed
``DEF_NO_DELETE``                    both      a `$defs` entry removed (others `$ref` it)
``PROPERTY_NO_DELETE``               both      a property removed or renamed: a reader
                                               loses it, or misses it
``CONST_NO_CHANGE``                  both      a `const` changed
``PATTERN_NO_CHANGE``                both      a `pattern` changed
``REF_NO_CHANGE``                    both      a `$ref` pointing elsewhere
``DEFAULT_NO_CHANGE``                both      a `default` changed (a reader fills in
                                               another value)
``KEYWORD_NO_CHANGE``                both      any other assertion keyword changed
                                               (`format`, `discriminator`, `allOf`...):
                                               not proven compatible (an `x-` keyword
                                               is an annotation, below)
``REQUIRED_NO_ADD``                  backward  a property made required
``TYPE_NO_NARROW``                   backward  a type dropped from `type` (or `integer`
                                               from `number`)
``ENUM_VALUE_NO_DELETE``             backward  an `enum` value removed
``ENUM_NO_ADD``                      backward  an `enum` added where any value was allowed
``CONST_NO_ADD``                     backward  a `const` added
``PATTERN_NO_ADD``                   backward  a `pattern` added
``BOUND_NO_TIGHTEN``                 backward  a bound tightened: minimum up, maximum down,
                                               an exclusive bound, minLength/maxLength,
                                               minItems/maxItems, minProperties/
                                               maxProperties, multipleOf, uniqueItems
``ONE_OF_VARIANT_NO_DELETE``         backward  a `oneOf`/`anyOf` variant removed
``ADDITIONAL_PROPERTIES_NO_CLOSE``   backward  `additionalProperties` (or
                                               `unevaluatedProperties`) closed
``REQUIRED_NO_DELETE``               forward   a property no longer required
``TYPE_NO_WIDEN``                    forward   a type added, a subschema removed
``ENUM_VALUE_NO_ADD``                forward   an `enum` value added (a new stage name)
``ENUM_NO_DELETE``                   forward   an `enum` removed
``CONST_NO_DELETE``                  forward   a `const` removed
``PATTERN_NO_DELETE``                forward   a `pattern` removed
``BOUND_NO_LOOSEN``                  forward   a bound loosened
``ONE_OF_VARIANT_NO_ADD``            forward   a `oneOf`/`anyOf` variant added (a new event)
``ADDITIONAL_PROPERTIES_NO_OPEN``    forward   `additionalProperties` opened
``PROPERTY_NO_ADD_TO_CLOSED``        forward   a property added where the release closed
                                               `additionalProperties`
===================================  ========  ============================================

Compatible in every mode, listed and never failing: an optional property, a `$defs` entry or a
schema file added (``PROPERTY_ADD``, ``DEF_ADD``, ``FILE_ADD``: serde ignores unknown fields),
a constant added to `contract.json`, with its property in `contract.schema.json` even where
that closes `additionalProperties` (``CONSTANT_ADD``: each version reads its own constants),
an annotation changed or a default added (``ANNOTATION_CHANGE``: `title`, `description`,
`$comment`, `examples`, and any keyword whose name starts with `x-`, such as `x-serde`: an
annotation for code generators, which no validator reads), `$id`/`$schema` changed
(``ID_CHANGE``: the `$id`s carry the version).

    python -m tools.release.compat [--baseline DIR] [--current DIR] [--mode MODE]

Exit status 0 when no change breaks in the mode, 1 when one does, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from .releases import Problem, contract_version, edited_releases, latest_release, version_problems

SUFFIX: Final = ".schema.json"
CONSTANTS: Final = "contract.json"
CONSTANTS_SCHEMA: Final = "contract.schema.json"

BACKWARD: Final = "backward"
FORWARD: Final = "forward"
BOTH: Final = frozenset({BACKWARD, FORWARD})
NEITHER: Final = frozenset[str]()
MODES: Final = {"full": BOTH, BACKWARD: frozenset({BACKWARD}), FORWARD: frozenset({FORWARD})}

# Rule ids of changes that break in both directions.
FILE_NO_DELETE: Final = "FILE_NO_DELETE"
DEF_NO_DELETE: Final = "DEF_NO_DELETE"
PROPERTY_NO_DELETE: Final = "PROPERTY_NO_DELETE"
CONST_NO_CHANGE: Final = "CONST_NO_CHANGE"
PATTERN_NO_CHANGE: Final = "PATTERN_NO_CHANGE"
REF_NO_CHANGE: Final = "REF_NO_CHANGE"
DEFAULT_NO_CHANGE: Final = "DEFAULT_NO_CHANGE"
KEYWORD_NO_CHANGE: Final = "KEYWORD_NO_CHANGE"
CONSTANT_NO_CHANGE: Final = "CONSTANT_NO_CHANGE"
CONSTANT_NO_DELETE: Final = "CONSTANT_NO_DELETE"
# ... that narrow the schema: a new reader refuses what an earlier writer wrote.
REQUIRED_NO_ADD: Final = "REQUIRED_NO_ADD"
TYPE_NO_NARROW: Final = "TYPE_NO_NARROW"
ENUM_VALUE_NO_DELETE: Final = "ENUM_VALUE_NO_DELETE"
ENUM_NO_ADD: Final = "ENUM_NO_ADD"
CONST_NO_ADD: Final = "CONST_NO_ADD"
PATTERN_NO_ADD: Final = "PATTERN_NO_ADD"
BOUND_NO_TIGHTEN: Final = "BOUND_NO_TIGHTEN"
ONE_OF_VARIANT_NO_DELETE: Final = "ONE_OF_VARIANT_NO_DELETE"
ADDITIONAL_PROPERTIES_NO_CLOSE: Final = "ADDITIONAL_PROPERTIES_NO_CLOSE"
# ... that widen it: an earlier reader refuses what a new writer writes.
REQUIRED_NO_DELETE: Final = "REQUIRED_NO_DELETE"
TYPE_NO_WIDEN: Final = "TYPE_NO_WIDEN"
ENUM_VALUE_NO_ADD: Final = "ENUM_VALUE_NO_ADD"
ENUM_NO_DELETE: Final = "ENUM_NO_DELETE"
CONST_NO_DELETE: Final = "CONST_NO_DELETE"
PATTERN_NO_DELETE: Final = "PATTERN_NO_DELETE"
BOUND_NO_LOOSEN: Final = "BOUND_NO_LOOSEN"
ONE_OF_VARIANT_NO_ADD: Final = "ONE_OF_VARIANT_NO_ADD"
ADDITIONAL_PROPERTIES_NO_OPEN: Final = "ADDITIONAL_PROPERTIES_NO_OPEN"
PROPERTY_NO_ADD_TO_CLOSED: Final = "PROPERTY_NO_ADD_TO_CLOSED"
# Kinds of changes compatible in every direction.
FILE_ADD: Final = "FILE_ADD"
DEF_ADD: Final = "DEF_ADD"
PROPERTY_ADD: Final = "PROPERTY_ADD"
ANNOTATION_CHANGE: Final = "ANNOTATION_CHANGE"
ID_CHANGE: Final = "ID_CHANGE"
CONSTANT_ADD: Final = "CONSTANT_ADD"

RULE_BREAKS: Final[dict[str, frozenset[str]]] = {
    **dict.fromkeys(
        (
            FILE_NO_DELETE,
            DEF_NO_DELETE,
            PROPERTY_NO_DELETE,
            CONST_NO_CHANGE,
            PATTERN_NO_CHANGE,
            REF_NO_CHANGE,
            DEFAULT_NO_CHANGE,
            KEYWORD_NO_CHANGE,
            CONSTANT_NO_CHANGE,
            CONSTANT_NO_DELETE,
        ),
        BOTH,
    ),
    **dict.fromkeys(
        (
            REQUIRED_NO_ADD,
            TYPE_NO_NARROW,
            ENUM_VALUE_NO_DELETE,
            ENUM_NO_ADD,
            CONST_NO_ADD,
            PATTERN_NO_ADD,
            BOUND_NO_TIGHTEN,
            ONE_OF_VARIANT_NO_DELETE,
            ADDITIONAL_PROPERTIES_NO_CLOSE,
        ),
        frozenset({BACKWARD}),
    ),
    **dict.fromkeys(
        (
            REQUIRED_NO_DELETE,
            TYPE_NO_WIDEN,
            ENUM_VALUE_NO_ADD,
            ENUM_NO_DELETE,
            CONST_NO_DELETE,
            PATTERN_NO_DELETE,
            BOUND_NO_LOOSEN,
            ONE_OF_VARIANT_NO_ADD,
            ADDITIONAL_PROPERTIES_NO_OPEN,
            PROPERTY_NO_ADD_TO_CLOSED,
        ),
        frozenset({FORWARD}),
    ),
    **dict.fromkeys(
        (FILE_ADD, DEF_ADD, PROPERTY_ADD, ANNOTATION_CHANGE, ID_CHANGE, CONSTANT_ADD), NEITHER
    ),
}
BREAKING_RULES: Final = tuple(rule for rule, breaks in RULE_BREAKS.items() if breaks)

ANNOTATIONS: Final = frozenset(
    {"title", "description", "$comment", "examples", "deprecated", "readOnly", "writeOnly"}
)
# Keywords named `x-...` annotate a schema for code generators (`x-serde`): no validator reads them.
EXTENSION_PREFIX: Final = "x-"
IDENTIFIERS: Final = frozenset({"$id", "$schema", "$anchor", "$dynamicAnchor"})
TYPES: Final = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})

# keyword: (tightening direction, kind); "up" means a larger value is tighter.
LOWER_BOUNDS: Final = ("minimum", "minLength", "minItems", "minProperties", "minContains")
UPPER_BOUNDS: Final = ("maximum", "maxLength", "maxItems", "maxProperties", "maxContains")
EXCLUSIVE_LOWER: Final = "exclusiveMinimum"
EXCLUSIVE_UPPER: Final = "exclusiveMaximum"

SCHEMA_MAPS: Final = ("properties", "patternProperties", "dependentSchemas")
DEF_MAPS: Final = ("$defs", "definitions")
SINGLE_SCHEMAS: Final = (
    "items",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
)
VARIANT_LISTS: Final = ("oneOf", "anyOf")
CLOSING: Final = ("additionalProperties", "unevaluatedProperties")


@dataclass(frozen=True)
class Change:
    """One change between two versions of a schema, at `file#pointer`."""

    rule: str
    file: str
    pointer: str
    message: str

    @property
    def breaks(self) -> frozenset[str]:
        """The directions it breaks in: `backward`, `forward`, both or none."""
        return RULE_BREAKS[self.rule]

    @property
    def path(self) -> str:
        return f"{self.file}#{self.pointer}"

    def __str__(self) -> str:
        return f"{self.path}: {self.message} [{self.rule}]"


@dataclass
class Report:
    """Every change found; those that break in `mode` fail the check."""

    baseline: Path
    current: Path
    changes: list[Change] = field(default_factory=list)
    mode: str = "full"

    @property
    def breaking(self) -> list[Change]:
        return [c for c in self.changes if c.breaks & MODES[self.mode]]

    @property
    def compatible(self) -> list[Change]:
        return [c for c in self.changes if not c.breaks & MODES[self.mode]]

    @property
    def ok(self) -> bool:
        return not self.breaking

    def summary(self) -> str:
        verdict = "compatible" if self.ok else "breaking"
        return (
            f"{verdict} ({self.mode}): {len(self.changes)} changes, {len(self.breaking)} breaking"
        )


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _json(value: Any) -> str:
    """A canonical text of a JSON value: `1`, `1.0` and `true` stay distinct."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _types(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type")
    if declared is None:
        return set(TYPES)
    if isinstance(declared, str):
        return {declared}
    return {str(t) for t in declared}


def _closed(schema: dict[str, Any]) -> bool:
    """Whether `schema` refuses (or constrains) properties it does not name."""
    return any(schema.get(key, True) not in (True, {}) for key in CLOSING)


class _Comparer:
    def __init__(self, file: str) -> None:
        self.file = file
        self.changes: list[Change] = []

    def add(self, rule: str, pointer: str, message: str) -> None:
        self.changes.append(Change(rule, self.file, pointer, message))

    def schema(self, old: Any, new: Any, at: str) -> None:
        """Compare two (sub)schemas found at the same pointer."""
        if isinstance(old, bool) or isinstance(new, bool):
            self._boolean_schema(old, new, at)
            return
        if not isinstance(old, dict) or not isinstance(new, dict):
            if _json(old) != _json(new):
                self.add(KEYWORD_NO_CHANGE, at, "not a schema, and changed")
            return
        handled: set[str] = set()
        for keys, check in self._checks():
            handled |= set(keys)
            check(old, new, at)
        for key in sorted((old.keys() | new.keys()) - handled):
            if key.startswith(EXTENSION_PREFIX):
                self._extension(key, old, new, at)
            else:
                self._other(key, old, new, at)

    def _checks(
        self,
    ) -> list[tuple[Sequence[str], Callable[[dict[str, Any], dict[str, Any], str], None]]]:
        return [
            (("$ref",), self._ref),
            (("type",), self._type),
            (("enum",), self._enum),
            (("const",), self._const),
            (("required",), self._required),
            (("pattern",), self._pattern),
            (LOWER_BOUNDS + UPPER_BOUNDS + (EXCLUSIVE_LOWER, EXCLUSIVE_UPPER), self._bounds),
            (("multipleOf", "uniqueItems"), self._other_bounds),
            (("default",), self._default),
            (CLOSING, self._closing),
            (SCHEMA_MAPS, self._properties),
            (DEF_MAPS, self._defs),
            (SINGLE_SCHEMAS, self._single),
            (("prefixItems",), self._prefix_items),
            (VARIANT_LISTS, self._variants),
            (tuple(ANNOTATIONS), self._annotations),
            (tuple(IDENTIFIERS), self._identifiers),
        ]

    def _boolean_schema(self, old: Any, new: Any, at: str) -> None:
        if _json(old) == _json(new):
            return
        if new is False:
            self.add(KEYWORD_NO_CHANGE, at, "schema became false: nothing is allowed")
        elif old is False or new is True:
            message = f"schema {_json(old)} became {_json(new)}"
            self.add(TYPE_NO_WIDEN, at, message)
        else:  # old is true: each keyword of the new schema is a restriction, named by its rule
            self.schema({}, new, at)

    def _ref(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        before, after = old.get("$ref"), new.get("$ref")
        if before != after:
            what = f"$ref {_json(before)} became {_json(after)}"
            self.add(REF_NO_CHANGE, f"{at}/$ref", what)

    def _type(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        if "type" not in old and "type" not in new:
            return
        before, after = _types(old), _types(new)
        lost = {t for t in before if t not in after and not (t == "integer" and "number" in after)}
        gained = {
            t for t in after if t not in before and not (t == "integer" and "number" in before)
        }
        if lost:
            message = (
                f"type {_json(old.get('type', 'any'))} narrowed to {_json(new.get('type', 'any'))}"
            )
            self.add(TYPE_NO_NARROW, f"{at}/type", message)
        elif gained:
            message = (
                f"type {_json(old.get('type', 'any'))} widened to {_json(new.get('type', 'any'))}"
            )
            self.add(TYPE_NO_WIDEN, f"{at}/type", message)

    def _enum(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        if "enum" not in old and "enum" not in new:
            return
        if "enum" not in new:
            self.add(ENUM_NO_DELETE, f"{at}/enum", "enum removed: any value is allowed")
            return
        if "enum" not in old:
            self.add(ENUM_NO_ADD, f"{at}/enum", "enum added: other values are refused")
            return
        before = {_json(v): v for v in old["enum"]}
        after = {_json(v): v for v in new["enum"]}
        for key in sorted(before.keys() - after.keys()):
            self.add(ENUM_VALUE_NO_DELETE, f"{at}/enum", f"enum value {key} removed")
        for key in sorted(after.keys() - before.keys()):
            self.add(ENUM_VALUE_NO_ADD, f"{at}/enum", f"enum value {key} added")

    def _const(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        if "const" not in new:
            if "const" in old:
                self.add(CONST_NO_DELETE, f"{at}/const", "const removed")
            return
        if "const" not in old:
            message = f"const {_json(new['const'])} added"
            self.add(CONST_NO_ADD, f"{at}/const", message)
        elif _json(old["const"]) != _json(new["const"]):
            message = f"const {_json(old['const'])} became {_json(new['const'])}"
            self.add(CONST_NO_CHANGE, f"{at}/const", message)

    def _required(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        before, after = set(old.get("required", [])), set(new.get("required", []))
        for name in sorted(after - before):
            self.add(REQUIRED_NO_ADD, f"{at}/required", f"property {name!r} made required")
        for name in sorted(before - after):
            message = f"property {name!r} no longer required"
            self.add(REQUIRED_NO_DELETE, f"{at}/required", message)

    def _pattern(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        before, after = old.get("pattern"), new.get("pattern")
        if before == after:
            return
        if after is None:
            self.add(PATTERN_NO_DELETE, f"{at}/pattern", "pattern removed")
        elif before is None:
            self.add(PATTERN_NO_ADD, f"{at}/pattern", f"pattern {_json(after)} added")
        else:
            message = f"pattern {_json(before)} became {_json(after)}"
            self.add(PATTERN_NO_CHANGE, f"{at}/pattern", message)

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        for key in (*LOWER_BOUNDS, EXCLUSIVE_LOWER, *UPPER_BOUNDS, EXCLUSIVE_UPPER):
            lower = key in LOWER_BOUNDS or key == EXCLUSIVE_LOWER
            before, after = old.get(key), new.get(key)
            if _json(before) == _json(after):
                continue
            if after is None:
                tighter = False
            elif before is None:
                tighter = True
            else:
                tighter = after > before if lower else after < before
            message = f"{key} {_json(before) if before is not None else 'absent'} became " + (
                _json(after) if after is not None else "absent"
            )
            if tighter:
                self.add(BOUND_NO_TIGHTEN, f"{at}/{key}", message)
            else:
                self.add(BOUND_NO_LOOSEN, f"{at}/{key}", message)

    def _other_bounds(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        before, after = old.get("multipleOf"), new.get("multipleOf")
        if _json(before) != _json(after):
            # Every old value still passes when the new divisor divides the old one.
            looser = after is None or (before is not None and (before / after).is_integer())
            message = f"multipleOf {_json(before)} became {_json(after)}"
            if looser:
                self.add(BOUND_NO_LOOSEN, f"{at}/multipleOf", message)
            else:
                self.add(BOUND_NO_TIGHTEN, f"{at}/multipleOf", message)
        unique_before, unique_after = old.get("uniqueItems", False), new.get("uniqueItems", False)
        if unique_before != unique_after:
            message = f"uniqueItems {_json(unique_before)} became {_json(unique_after)}"
            if unique_after:
                self.add(BOUND_NO_TIGHTEN, f"{at}/uniqueItems", message)
            else:
                self.add(BOUND_NO_LOOSEN, f"{at}/uniqueItems", message)

    def _default(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        if "default" in old and _json(old.get("default")) != _json(new.get("default")):
            before = _json(old["default"])
            after = _json(new["default"]) if "default" in new else "absent"
            message = f"default {before} became {after}"
            self.add(DEFAULT_NO_CHANGE, f"{at}/default", message)
        elif "default" in new and "default" not in old:
            message = f"default {_json(new['default'])} added"
            self.add(ANNOTATION_CHANGE, f"{at}/default", message)

    def _closing(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        for key in CLOSING:
            before, after = old.get(key, True), new.get(key, True)
            if _json(before) == _json(after):
                continue
            open_before, open_after = before in (True, {}), after in (True, {})
            if open_before and not open_after:
                message = f"{key} closed: {_json(after)}"
                self.add(ADDITIONAL_PROPERTIES_NO_CLOSE, f"{at}/{key}", message)
            elif open_after:
                message = f"{key} opened: {_json(before)} became {_json(after)}"
                self.add(ADDITIONAL_PROPERTIES_NO_OPEN, f"{at}/{key}", message)
            elif before is False:
                message = f"{key} false became {_json(after)}"
                self.add(ADDITIONAL_PROPERTIES_NO_OPEN, f"{at}/{key}", message)
            else:
                self.schema(before, after, f"{at}/{key}")

    def _properties(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        for key in SCHEMA_MAPS:
            before, after = old.get(key, {}), new.get(key, {})
            for name in sorted(before.keys() - after.keys()):
                added = sorted(
                    n
                    for n in after.keys() - before.keys()
                    if _json(after[n]) == _json(before[name])
                )
                renamed = f" (renamed to {added[0]!r}?)" if added else ""
                pointer = f"{at}/{key}/{_escape(name)}"
                self.add(
                    PROPERTY_NO_DELETE,
                    pointer,
                    f"property {name!r} removed{renamed}",
                )
            for name in sorted(after.keys() - before.keys()):
                pointer = f"{at}/{key}/{_escape(name)}"
                required = name in new.get("required", [])
                message = f"property {name!r} added" + (
                    " (required)" if required else " (optional)"
                )
                if key == "properties" and _closed(old):
                    message += ": the release closed additionalProperties"
                    self.add(PROPERTY_NO_ADD_TO_CLOSED, pointer, message)
                else:
                    self.add(PROPERTY_ADD, pointer, message)
            for name in sorted(before.keys() & after.keys()):
                self.schema(before[name], after[name], f"{at}/{key}/{_escape(name)}")

    def _defs(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        for key in DEF_MAPS:
            before, after = old.get(key, {}), new.get(key, {})
            for name in sorted(before.keys() - after.keys()):
                pointer = f"{at}/{key}/{_escape(name)}"
                self.add(DEF_NO_DELETE, pointer, f"definition {name!r} removed")
            for name in sorted(after.keys() - before.keys()):
                pointer = f"{at}/{key}/{_escape(name)}"
                self.add(DEF_ADD, pointer, f"definition {name!r} added")
            for name in sorted(before.keys() & after.keys()):
                self.schema(before[name], after[name], f"{at}/{key}/{_escape(name)}")

    def _single(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        for key in SINGLE_SCHEMAS:
            if key not in old and key not in new:
                continue
            if key not in new and key not in ("if", "then", "else"):
                message = f"{key} removed"
                self.add(TYPE_NO_WIDEN, f"{at}/{key}", message)
            elif key not in old or key not in new:
                self.add(KEYWORD_NO_CHANGE, f"{at}/{key}", f"{key} added or removed")
            else:
                self.schema(old[key], new[key], f"{at}/{key}")

    def _prefix_items(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        before, after = old.get("prefixItems", []), new.get("prefixItems", [])
        if _json(before) == _json(after):
            return
        for index in range(min(len(before), len(after))):
            self.schema(before[index], after[index], f"{at}/prefixItems/{index}")
        if len(before) != len(after):
            message = f"prefixItems went from {len(before)} to {len(after)} items"
            self.add(KEYWORD_NO_CHANGE, f"{at}/prefixItems", message)

    def _variants(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        for key in VARIANT_LISTS:
            if key not in old and key not in new:
                continue
            before, after = old.get(key), new.get(key)
            if before is None or after is None:
                what = "added" if before is None else "removed"
                # a oneOf appearing restricts values; one disappearing leaves its branches' union
                self.add(
                    KEYWORD_NO_CHANGE if before is None else TYPE_NO_WIDEN,
                    f"{at}/{key}",
                    f"{key} {what}",
                )
                continue
            self._variant_list(key, before, after, at)

    def _variant_list(self, key: str, before: list[Any], after: list[Any], at: str) -> None:
        old_keys = [_variant_key(v) for v in before]
        new_keys = [_variant_key(v) for v in after]
        matched_new: set[int] = set()
        leftovers: list[int] = []
        for i, name in enumerate(old_keys):
            j = next(
                (j for j, n in enumerate(new_keys) if n == name and j not in matched_new), None
            )
            if j is None:
                leftovers.append(i)
            else:
                matched_new.add(j)
                self.schema(before[i], after[j], f"{at}/{key}/{j}")
        spare = [j for j in range(len(after)) if j not in matched_new]
        # What is left is paired in order: a variant edited in place is compared, not removed.
        for i, j in zip(leftovers, spare, strict=False):
            self.schema(before[i], after[j], f"{at}/{key}/{j}")
        for i in leftovers[len(spare) :]:
            message = f"{key} variant {old_keys[i]} removed"
            self.add(ONE_OF_VARIANT_NO_DELETE, f"{at}/{key}/{i}", message)
        for j in spare[len(leftovers) :]:
            self.add(ONE_OF_VARIANT_NO_ADD, f"{at}/{key}/{j}", f"{key} variant {new_keys[j]} added")

    def _annotations(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        for key in sorted(ANNOTATIONS):
            if _json(old.get(key)) != _json(new.get(key)):
                self.add(ANNOTATION_CHANGE, f"{at}/{_escape(key)}", f"{key} changed")

    def _identifiers(self, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        for key in sorted(IDENTIFIERS):
            if _json(old.get(key)) != _json(new.get(key)):
                message = f"{key} {_json(old.get(key))} became {_json(new.get(key))}"
                self.add(ID_CHANGE, f"{at}/{_escape(key)}", message)

    def _extension(self, key: str, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        """An `x-` keyword added, removed or changed: an annotation, whatever it holds."""
        before = _json(old[key]) if key in old else "absent"
        after = _json(new[key]) if key in new else "absent"
        if before != after:
            message = f"{key} {before} became {after}: an annotation for code generators"
            self.add(ANNOTATION_CHANGE, f"{at}/{_escape(key)}", message)

    def _other(self, key: str, old: dict[str, Any], new: dict[str, Any], at: str) -> None:
        if _json(old.get(key)) != _json(new.get(key)):
            before = _json(old[key]) if key in old else "absent"
            after = _json(new[key]) if key in new else "absent"
            message = f"{key} {before} became {after}: not proven compatible"
            self.add(KEYWORD_NO_CHANGE, f"{at}/{_escape(key)}", message)


def _variant_key(variant: Any) -> str:
    """What names a variant across versions: its `$ref`, its title, its tag, else its text."""
    if isinstance(variant, dict):
        if isinstance(variant.get("$ref"), str):
            return f"$ref {variant['$ref']}"
        if isinstance(variant.get("title"), str):
            return f"title {variant['title']}"
        properties = variant.get("properties")
        if isinstance(properties, dict):
            for name, schema in sorted(properties.items()):
                if isinstance(schema, dict) and "const" in schema:
                    return f"{name}={_json(schema['const'])}"
    return _json(variant)


def compare_schema(previous: Any, current: Any, file: str = "") -> list[Change]:
    """Every change from `previous` to `current`, two versions of one schema document."""
    comparer = _Comparer(file)
    comparer.schema(previous, current, "")
    return comparer.changes


def _load_dir(folder: Path) -> dict[str, Any]:
    return {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(folder.glob(f"*{SUFFIX}"))
    }


def compare_constants(previous: Any, current: Any, file: str = CONSTANTS) -> list[Change]:
    """Every change from `previous` to `current`, two versions of the constants document:
    a file name or an environment variable renamed breaks every orchestrator."""
    changes: list[Change] = []

    def walk(old: Any, new: Any, at: str) -> None:
        if isinstance(old, dict) and isinstance(new, dict):
            for key in sorted(old.keys() - new.keys()):
                message = f"constant {at[1:]}/{key} removed".replace(" /", " ")
                changes.append(Change(CONSTANT_NO_DELETE, file, f"{at}/{_escape(key)}", message))
            for key in sorted(new.keys() - old.keys()):
                message = f"constant {at[1:]}/{key} added".replace(" /", " ")
                changes.append(Change(CONSTANT_ADD, file, f"{at}/{_escape(key)}", message))
            for key in sorted(old.keys() & new.keys()):
                walk(old[key], new[key], f"{at}/{_escape(key)}")
        elif _json(old) != _json(new):
            rule = {"/version": ID_CHANGE, "/$schema": ID_CHANGE, "/reference": ANNOTATION_CHANGE}
            message = f"{at[1:]} {_json(old)} became {_json(new)}"
            changes.append(Change(rule.get(at, CONSTANT_NO_CHANGE), file, at, message))

    walk(previous, current, "")
    return changes


def _constant_added(change: Change) -> Change:
    """In the constants' own schema, a property added where the release closed the object is
    a constant added: each version reads the `contract.json` it ships with, never another
    version's, so no deployed reader meets it (a constant renamed or removed still breaks)."""
    if change.rule != PROPERTY_NO_ADD_TO_CLOSED:
        return change
    message = change.message.split(":")[0] + ": a constant of this version's contract.json"
    return Change(CONSTANT_ADD, change.file, change.pointer, message)


def compare_dirs(baseline: Path, current: Path, mode: str = "full") -> Report:
    """Every change from the schemas (and constants) of `baseline` to those of `current`,
    judged in `mode`."""
    report = Report(baseline, current, mode=mode)
    before, after = _load_dir(baseline), _load_dir(current)
    for name in sorted(before.keys() - after.keys()):
        report.changes.append(Change(FILE_NO_DELETE, name, "", "schema file removed"))
    for name in sorted(after.keys() - before.keys()):
        report.changes.append(Change(FILE_ADD, name, "", "schema file added"))
    for name in sorted(before.keys() & after.keys()):
        changes = compare_schema(before[name], after[name], name)
        if name == CONSTANTS_SCHEMA:
            changes = [_constant_added(change) for change in changes]
        report.changes += changes
    constants = (baseline / CONSTANTS, current / CONSTANTS)
    if all(path.is_file() for path in constants):
        old, new = (json.loads(path.read_text(encoding="utf-8")) for path in constants)
        report.changes += compare_constants(old, new)
    return report


def render(report: Report) -> Iterable[str]:
    """The lines `main` prints: breaking changes, compatible ones, then the summary."""
    yield (
        f"{report.current} (contract {contract_version(report.current) or '?'}) against "
        f"{report.baseline} (contract {contract_version(report.baseline) or '?'})"
    )
    for change in report.breaking:
        directions = "+".join(sorted(change.breaks & MODES[report.mode]))
        yield f"BREAKING {change} ({directions})"
    for change in report.compatible:
        yield f"ok       {change}"
    yield report.summary()


def release_problems(report: Report, releases_folder: Path | None) -> list[Problem]:
    """The release rules (see `releases`): the version raised with any change since the
    baseline release, and, given the folder of releases, none of them edited."""
    problems: list[Problem] = []
    if contract_version(report.baseline) is not None:
        changed = sum(1 for change in report.changes if change.rule != ID_CHANGE)
        problems += version_problems(report.baseline, report.current, changed)
    if releases_folder is not None:
        problems += edited_releases(releases_folder)
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.release.compat",
        description="Fail on a schema change that breaks a reader or a writer of the contract, "
        "on a change without a version raised, and on an edited release.",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a released schema/ (default: the newest folder of --releases)",
    )
    parser.add_argument(
        "--current", type=Path, default=Path("schema"), help="the working schemas (default: schema)"
    )
    parser.add_argument(
        "--releases",
        type=Path,
        default=Path("schema-releases"),
        help="the folder of releases, one per version (default: schema-releases)",
    )
    parser.add_argument(
        "--mode",
        choices=list(MODES),
        default="full",
        help="which readers must keep working: full (default) = backward + forward; "
        "backward = new readers of old files; forward = old readers of new files",
    )
    args = parser.parse_args(argv)
    baseline: Path | None = args.baseline
    releases_folder: Path | None = None
    if baseline is None:
        releases_folder = args.releases
        baseline = latest_release(args.releases)
        if baseline is None:
            parser.error(f"no release in {args.releases}/: pass --baseline DIR")
    for folder in (baseline, args.current):
        if not folder.is_dir() or not any(folder.glob(f"*{SUFFIX}")):
            parser.error(f"{folder}: no *{SUFFIX} there")
    report = compare_dirs(baseline, args.current, args.mode)
    for line in render(report):
        print(line)
    problems = release_problems(report, releases_folder)
    for problem in problems:
        print(f"RELEASE  {problem}")
    if releases_folder is not None and not problems:
        print(f"releases: {releases_folder}/ as released, version {contract_version(args.current)}")
    return 0 if report.ok and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
