"""The patterns a user gives (`--only`, `--group`, `--metric`'s globs), matched by the core
(`Pattern`: Rust's `regex` crate, in time linear in the pattern and the name): a pattern
past its bounds is refused in one line (exit 2), never a traceback; a pattern that a
backtracking engine would take forever over is answered in one pass.

The refusals and the answers are reasoned from the patterns: `a{99999999999}` asks for
more repetitions than any count the engine takes, 2,000 nested groups are deeper than its
bound of 100, and `(a+)+$` cannot match a name ending in `!` (a backtracking engine tries
every way of splitting its a's between the two `+` first)."""

from __future__ import annotations

import fnmatch
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hostile import GIGABYTE, capped_cli
from overbrainer_contract._core import Pattern
from overbrainer_contract.cli import plot

HANG_GUARD = 60.0
"""Seconds a child may take: each is answered in one or two (Python's start)."""

MEMORY = 2 * GIGABYTE
"""Address space a child may take: matplotlib's and the core's start, and room."""

LINE = '{"event":"log","time":1.5,"step":1,"loss":0.5}\n'

NESTED = "(" * 2000 + "a" + ")" * 2000


def command(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return capped_cli(*args, cwd=cwd, memory=MEMORY, timeout=HANG_GUARD)


def sweep(folder: Path, *names: str) -> Path:
    for name in names:
        (folder / "sweep" / name).mkdir(parents=True)
        (folder / "sweep" / name / "metrics.jsonl").write_text(LINE)
    return folder / "sweep"


@pytest.mark.parametrize(
    ("args", "option", "why"),
    [
        (("status", "sweep", "--only", "a{99999999999}"), "--only", "decimal"),
        (("plot", "sweep", "-o", "x.png", "--only", "a{99999999999}"), "--only", "decimal"),
        (("plot", "sweep", "-o", "x.png", "--group", NESTED), "--group", "nest"),
        (("status", "sweep", "--only", "a{1000}{1000}"), "--only", "size limit"),
        (("status", "sweep", "--only", r"\p{Greek}"), "--only", "Unicode property not found"),
        (("plot", "sweep", "-o", "x.png", "--metric", "?" * 100_000), "--metric", "size limit"),
    ],
)
def test_a_pattern_past_the_engines_bounds_is_one_line(
    tmp_path: Path, args: tuple[str, ...], option: str, why: str
) -> None:
    sweep(tmp_path, "a", "b")
    done = command(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert f"error: argument {option}: not a" in line
    assert why in line, line
    assert not (tmp_path / "x.png").exists()


def test_a_pattern_that_backtracks_elsewhere_is_answered(tmp_path: Path) -> None:
    # 200 a's and a `!`: 2^200 ways for a backtracking engine to fail
    sweep(tmp_path, "a" * 200 + "!", "aaa", "b")
    done = command("status", "sweep", "--only", "(a+)+$", "-o", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["name"] == "aaa"  # one run left: its record alone
    grouped = command(
        "plot", "sweep", "--group", "(a+)+$", "--metric", "loss", "-o", "x.png", cwd=tmp_path
    )
    assert grouped.returncode == 0, grouped.stderr
    assert grouped.stdout.endswith("3 runs (1 group, 2 alone)\n")


def test_the_binding_matches_a_long_name_in_one_pass() -> None:
    name = "a" * 100_000 + "!"
    pattern = Pattern("(a+)+$")
    assert (pattern.search(name), pattern.key(name)) == (False, None)
    assert pattern.key(name[:-1]) == name[:-1]  # the group's one turn took every a
    assert pattern.groups
    assert not pattern.glob
    assert pattern.pattern == "(a+)+$"
    many = Pattern("*a" * 50 + "*b", glob=True)
    assert not many.search("a" * 300_000)
    with pytest.raises(ValueError, match="nest") as refused:
        Pattern(NESTED)
    assert "\n" not in str(refused.value)


def test_a_groups_key_is_its_first_capture_group_else_the_match() -> None:
    names = ["a-lr1-s1", "b-lr2-s1", "a-lr1-s2", "solo", "b-lr2-s2"]
    entries = plot.entries_of(names, Pattern(r"lr(\d)"))
    assert [(entry.key, entry.members) for entry in entries] == [
        ("1", [0, 2]),
        ("2", [1, 4]),
        (None, [3]),
    ]
    whole = plot.entries_of(names, Pattern(r"lr\d"))
    assert [entry.key for entry in whole] == ["lr1", "lr2", None]
    # a first group that takes no part in the match: the key ""
    either = plot.entries_of(["seed1", "x"], Pattern("(y)|seed"))
    assert [entry.key for entry in either] == ["", None]


def test_a_name_that_is_not_utf8_is_matched_as_its_bytes() -> None:
    name = b"lr\xff-seed1".decode("utf-8", "surrogateescape")  # as os.fsdecode gives it
    assert Pattern(r"seed\d$").search(name)
    assert Pattern(r"^(lr(?-u:\xFF))").key(name) == name[:3]
    assert not Pattern("^lr.-").search(name)  # `.` is a character, not a stray byte


KEYS = [
    "loss", "eval_loss", "learning_rate", "rewards/chosen", "rewards/rejected", "a-b", "a.b",
    "a]b", "x[1]", "x!", "Ünïcode/ß", "", "*", "?", "[", "a\nb", "a\\b", "a^b", "a&&b", "x~~y",
]  # fmt: skip
GLOBS = [
    "*", "?", "??*", "rewards/*", "*/*", "*loss", "[el]*", "[!el]*", "[a-f]*", "[z-a]*",
    "a[.-]b", "a[]]b", "x[[]1]", "x[!]]*", "x[1", "[", "[!]", "*[!/]", "Ü*", "*ß", "\\*",
    "a?b", "[*]", "[?]", "a[\\]b", "a[^]b", "a[&]&b", "x[~]~y", "[!a-z]*", "a[--.]b",
]  # fmt: skip


def test_a_glob_matches_as_fnmatchcase() -> None:
    for glob in GLOBS:
        pattern = plot.glob(glob)
        got = [key for key in KEYS if pattern.search(key)]
        assert got == [key for key in KEYS if fnmatch.fnmatchcase(key, glob)], glob


def test_the_pattern_picked_is_named_when_nothing_matches(
    tmp_path: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    sweep(tmp_path, "seed1")
    none = cli("status", "sweep", "--only", "seed[0-9]{2}")
    assert none.code == 2
    assert none.err == (
        "overbrainer-contract: error: --only 'seed[0-9]{2}': no run's name matches it"
        " (the runs: seed1)\n"
    )
