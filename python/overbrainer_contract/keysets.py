"""Decoders specialised for the unknown keys a writer repeats on every line.

msgspec's typed decode drops unknown keys without a word, so a line holding one is
read twice (the typed decode, then `extras` lists its keys). A writer writes the same
keys on every line: once `extras` has vouched for a line whose unknown values are all
scalars, its variant gets a Struct of its own (`learn`), its known fields typed as the
generated model's and each unknown key learned so far an optional field typed so that
msgspec itself checks what serde demands of a value it ignores:

- a float strictly within `SAFE_MAGNITUDE` (beyond it serde_json's reading may say
  "out of range");
- an integer within i64 (a larger one is read by serde as an f64, which msgspec
  would not bound: such a line is left to the usual path);
- a string (msgspec checks its UTF-8, its escapes and surrogates as serde_json does),
  a boolean or null.

The live decoder then reads such a line once; `parser` vouches for it (its quotes those
of the keys present and the string values, so that no key written twice and no other
unknown key can hide) and builds the generated model from it. Anything it cannot vouch
for goes to the usual path, whose verdicts are the reference's.

Bounded: at most `MAX_KEYS` unknown keys a variant and `MAX_BUILDS` decoders built in a
process; a variant's Struct is dropped after `IDLE_LINES` lines in a row without any of
its unknown keys (the plugin's form then reads as before).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
from msgspec import NODEFAULT, UNSET, UnsetType

from ._serde import VARIANTS, MetricLine
from .vouched import IGNORED_NUMBER

MAX_KEYS = 64
MAX_BUILDS = 256
IDLE_LINES = 1024

# What serde accepts of an ignored scalar, as msgspec checks it (see the module's doc):
# `vouched`'s ignored number, a boolean or null, or a string.
IGNORED_SCALAR = IGNORED_NUMBER | str | UnsetType

# (line, decoded, quote count) -> the generated model, or None: the usual path answers.
Voucher = Callable[[Any, Any, int], MetricLine | None]
# (variant, the specialised Struct, its unknown fields' attribute names, its idle counter
# and a function dropping it) -> its voucher
VoucherFactory = Callable[
    [type[MetricLine], type[msgspec.Struct], tuple[str, ...], list[int], Callable[[], None]],
    Voucher,
]


class KeySets:
    """The learned unknown keys of each variant, their Structs, and the live decoder.

    `install(decode)` is called with the decoder to use each time it changes (`plain`
    when no variant is specialised)."""

    def __init__(
        self,
        plain: Callable[[Any], Any],
        compile_voucher: VoucherFactory,
        install: Callable[[Callable[[Any], Any]], None],
    ) -> None:
        self.plain = plain
        self.compile_voucher = compile_voucher
        self.install = install
        self.keys: dict[type[MetricLine], tuple[str, ...]] = {}
        self.vouchers: dict[type, Voucher] = {}  # by specialised Struct
        self.structs: dict[type[MetricLine], type[msgspec.Struct]] = {}
        self.builds = 0
        self.known: dict[type[MetricLine], frozenset[str]] = {
            line: frozenset(["event", *(field.name for field in msgspec.structs.fields(line))])
            for line in VARIANTS.values()
        }

    def learn(self, variant: type[MetricLine], keys: Iterable[str]) -> None:
        """Note the keys of a line of `variant` that `extras` vouched for, its unknown
        values all scalars; a new unknown key specialises the variant's decoder."""
        if self.builds >= MAX_BUILDS:  # looked up here: tests lower it
            return
        learned = self.keys.get(variant, ())
        new = [key for key in keys if key not in self.known[variant] and key not in learned]
        if not new or len(learned) + len(new) > MAX_KEYS:
            return
        self.keys[variant] = learned + tuple(new)
        self._rebuild()

    def drop(self, variant: type[MetricLine]) -> None:
        """Forget `variant`'s unknown keys: its lines go back to the generated model."""
        if self.keys.pop(variant, None) is not None:
            self._rebuild()

    def forget(self) -> None:
        """Back to the start: nothing learned, the plain decoder, every build available."""
        self.keys.clear()
        self._rebuild()
        self.builds = 0

    def _rebuild(self) -> None:
        self.builds += 1
        self.vouchers = {}
        self.structs = {}
        for variant, keys in self.keys.items():
            struct, names = _specialised(variant, keys)
            idle = [0]
            self.structs[variant] = struct
            self.vouchers[struct] = self.compile_voucher(
                variant, struct, names, idle, functools.partial(self.drop, variant)
            )
        if not self.structs:
            self.install(self.plain)
            return
        members = tuple(self.structs.get(variant, variant) for variant in VARIANTS.values())
        union: Any = members[0]
        for member in members[1:]:
            union = union | member
        self.install(msgspec.json.Decoder(union).decode)


def _specialised(
    variant: type[MetricLine], keys: tuple[str, ...]
) -> tuple[type[msgspec.Struct], tuple[str, ...]]:
    """`variant`'s fields, then one optional field per unknown key (named `extra_<n>`,
    read from the key's own name)."""
    fields: list[Any] = []
    for field in msgspec.structs.fields(variant):
        if field.default is NODEFAULT:
            fields.append((field.name, field.type))
        else:
            fields.append((field.name, field.type, field.default))
    names = tuple(f"extra_{index}" for index in range(len(keys)))
    fields += [(name, IGNORED_SCALAR, UNSET) for name in names]
    struct = msgspec.defstruct(
        f"{variant.__name__}WithKeys",
        fields,
        tag_field="event",
        tag=variant.__struct_config__.tag,
        rename=dict(zip(names, keys, strict=True)),
    )
    return struct, names
