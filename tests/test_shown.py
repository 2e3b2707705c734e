"""`text.shown`: what a terminal is given of a string from a file or a name."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st
from overbrainer_contract.text.shown import is_plain, shown


@pytest.mark.parametrize(
    ("raw", "seen"),
    [
        ("exp\x1b[31mred", "exp\\x1b[31mred"),
        ("a\nb", "a\\nb"),
        ("a\rb", "a\\rb"),
        ("tab\there", "tab\\there"),
        ("del\x7f", "del\\x7f"),
        ("csi\x9b2J", "csi\\x9b2J"),
        ("rtl\u202efdp.exe", "rtl\\u202efdp.exe"),
        ("iso\u2066x\u2069", "iso\\u2066x\\u2069"),
        ("sep\u2028x", "sep\\u2028x"),
        (os.fsdecode(b"latin\xe9"), "latin\\xe9"),
        ("plain run/seed 1 [lr=0.1] $x$ é 漢", "plain run/seed 1 [lr=0.1] $x$ é 漢"),
    ],
)
def test_each_kind_of_character_is_shown_as_an_escape(raw: str, seen: str) -> None:
    assert shown(raw) == seen
    assert is_plain(raw) == (raw == seen)


@given(st.text())
def test_what_is_shown_never_holds_a_control_or_an_override(text: str) -> None:
    out = shown(text)
    assert is_plain(out)
    assert all(not (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F) for c in out)
    out.encode("utf-8")  # no lone surrogate left: a UTF-8 terminal takes it
