"""`check` over files and folders written by other hands: every case a real `check` in a
child process under a timeout (`hostile.capped_cli`), its output read back as bytes.

- A file of nothing but bad lines is checked in flat memory, text and `-o json`: its
  findings are written as they come, never all held. 400k one-byte bad lines under a cap of
  64 MiB of address space (the goal's figure; the child starts in about 35), where a check
  that holds a chunk's findings at once needs hundreds.
- `NaN`, `Infinity` and `-Infinity` (what Python's `json.dumps` writes by default) keep the
  reference's words, and text output says, once after the finding, what they are and what
  the plugin writes instead; `-o json` is the schema's objects only.
- Names and contents echoed by findings reach the terminal escaped (`text.shown`), and a
  run named `sw/[/]` is never read as rich markup, the progress bar's label included.
- A `.jsonl.gz` cut short: its lines before the cut checked and counted, the cut one
  error, exit 1.

Every expected message is the reference's (serde_json's error: `expected value` where a
JSON value cannot start, at the 1-based byte column of the token), never one copied from
the command's output."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest
from hostile import capped_cli

TIMEOUT = 60.0
"""Seconds one command may take here: each needs a few."""

MEMORY = 64 * 2**20
"""The cap on a child's address space where memory is the point: the goal's 64 MiB."""

ROOMY = 512 * 2**20
"""The cap elsewhere: any `check` of a small file fits."""

HINT = (
    "  hint: NaN, Infinity and -Infinity are not JSON (Python's json.dumps writes them unless"
    " allow_nan=False); the plugin writes null for a value that is not a finite number"
)


def check(cwd: Path, *args: str, memory: int = ROOMY) -> tuple[int, bytes, bytes]:
    """`check ARGS` in a capped child: its exit status and its outputs' bytes."""
    done = capped_cli("check", *args, cwd=cwd, memory=memory, timeout=TIMEOUT)
    return done.returncode, done.stdout.encode("latin-1"), done.stderr.encode("latin-1")


# --- findings in flat memory -----------------------------------------------------------

BAD_LINES = 400_000


@pytest.mark.parametrize("output", ["text", "json"])
def test_bad_lines_are_checked_in_flat_memory(tmp_path: Path, output: str) -> None:
    """`x` is no JSON value: serde_json's `expected value at column 1` on every line."""
    (tmp_path / "bad.jsonl").write_bytes(b"x\n" * BAD_LINES)
    code, out, err = check(tmp_path, "bad.jsonl", "-o", output, memory=MEMORY)
    assert code == 1, err.decode("latin-1")[-500:]
    lines = out.splitlines()
    if output == "json":
        findings = [json.loads(line) for line in lines[:-1]]
        assert len(findings) == BAD_LINES
        assert findings[-1]["line"] == BAD_LINES
        assert findings[-1]["message"] == "expected value at column 1"
        assert json.loads(lines[-1])["errors"] == BAD_LINES
    else:
        assert lines[0] == b"bad.jsonl:1 $: expected value at column 1 (the line is not JSON)"
        assert f"{BAD_LINES:,} errors".encode() in lines[-1]


# --- NaN and Infinity ------------------------------------------------------------------


def dumped(**metrics: float) -> bytes:
    """A log line as Python's json.dumps writes it by default (allow_nan=True)."""
    return json.dumps({"event": "log", "time": 1.0, "step": 1, **metrics}).encode()


@pytest.mark.parametrize(
    ("value", "token", "words"),
    [
        (math.nan, b"NaN", "expected value"),
        (math.inf, b"Infinity", "expected value"),
        (-math.inf, b"Infinity", "invalid number"),  # serde_json points past the sign
    ],
)
def test_a_nonfinite_value_keeps_the_reference_words_and_is_explained(
    tmp_path: Path, value: float, token: bytes, words: str
) -> None:
    begin = b'{"event":"begin","time":1.0}'
    line = dumped(loss=value)
    column = line.index(token) + 1
    (tmp_path / "m.jsonl").write_bytes(begin + b"\n" + line + b"\n" + line + b"\n")
    code, out, _ = check(tmp_path, "m.jsonl")
    assert code == 1
    finding = f"m.jsonl:2 $.loss: {words} at column {column} (the line is not JSON)".encode()
    assert out.splitlines()[:4] == [
        finding,
        HINT.encode(),  # once per file, after the first
        f"m.jsonl:3 $.loss: {words} at column {column} (the line is not JSON)".encode(),
        b"m.jsonl: invalid: 3 lines (begin 1, log 0, eval 0, stage 0, end 0),"
        b" 2 errors, 0 warnings (2 invalid lines)",
    ]
    code, out, _ = check(tmp_path, "m.jsonl", "-o", "json")
    found = [json.loads(text) for text in out.splitlines()]
    assert [item["message"] for item in found if item["type"] == "finding"] == [
        f"{words} at column {column}"
    ] * 2
    assert b"hint" not in out


def test_other_bad_values_get_no_hint(tmp_path: Path) -> None:
    """`nan` (lower case) and `x`: the same `expected value`, no NaN of Python's."""
    lines = [b'{"event":"log","time":1.0,"step":1,"loss":nan}', b'{"loss":x}', b"Na"]
    (tmp_path / "m.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    code, out, _ = check(tmp_path, "m.jsonl")
    assert code == 1
    assert b"hint" not in out
    assert out.count(b"expected value") == 2


def test_a_nan_in_the_last_line_and_across_reads_is_explained(tmp_path: Path) -> None:
    """A bad line at the end of 1M valid bytes of lines (more than one feed of the core),
    and the same line last, without its newline."""
    valid = b'{"event":"begin","time":1.0}\n' * 40_000
    line = dumped(loss=math.nan)
    column = line.index(b"NaN") + 1
    (tmp_path / "a.jsonl").write_bytes(valid + line + b"\n")
    (tmp_path / "b.jsonl").write_bytes(line)
    code, out, _ = check(tmp_path, "a.jsonl", "b.jsonl")
    assert code == 1
    assert out.splitlines()[:2] == [
        f"a.jsonl:40001 $.loss: expected value at column {column} (the line is not JSON)".encode(),
        HINT.encode(),
    ]
    assert out.splitlines()[3:5] == [
        f"b.jsonl:1 $.loss: expected value at column {column}"
        " (the last line, without its newline; the line is not JSON)".encode(),
        HINT.encode(),
    ]


# --- names and contents on the terminal -------------------------------------------------


def test_names_and_contents_reach_the_terminal_escaped(tmp_path: Path) -> None:
    """A folder named with an escape sequence and a newline, an unknown event and an object
    key holding control characters (JSON escapes in the file, decoded by the reader)."""
    run = tmp_path / "sw" / "a\x1b[2Jb\nforged: valid"
    run.mkdir(parents=True)
    (run / "metrics.jsonl").write_bytes(
        b'{"event":"begin","time":1.0}\n'
        b'{"event":"l\\u001b]0;owned\\u0007og","time":2.0,"step":1}\n'
        b'{"event":"log","time":2.0,"step":1,"k\\u009b31m":NaN}\n'
    )
    code, out, err = check(tmp_path, "sw/")
    assert code == 1, err
    assert not any(byte < 0x20 and byte != 0x0A for byte in out)
    assert "\x9b" not in out.decode("utf-8")  # a C1 control, CSI
    name = b"sw/a\\x1b[2Jb\\nforged: valid/metrics.jsonl"
    lines = out.splitlines()
    assert lines[0].startswith(name + b":2 $.event: unknown variant `l\\x1b]0;owned\\x07og`")
    assert lines[1].startswith(name + b':3 $["k\\x9b31m"]: expected value at column ')
    assert lines[3].startswith(name + b": invalid: 3 lines")
    assert len(lines) == 4  # no line forged by the name
    # -o json stays JSON, its strings as they are
    code, out, _ = check(tmp_path, "sw/", "-o", "json")
    first = json.loads(out.splitlines()[0])
    assert first["file"] == "sw/a\x1b[2Jb\nforged: valid/metrics.jsonl"
    assert "l\x1b]0;owned\x07og" in first["message"]


def test_a_run_named_like_markup_is_shown_as_it_is(tmp_path: Path) -> None:
    """rich's progress description reads markup: `[/]` closes a tag never opened."""
    run = tmp_path / "sw" / "[/]" / "[bold]x"
    run.mkdir(parents=True)
    (run / "metrics.jsonl").write_bytes(b'{"event":"begin","time":1.0}\n' + b"garbage\n")
    code, out, err = check(tmp_path, "sw", "--progress", "always")
    assert b"MarkupError" not in err
    assert code == 1, err
    assert out.splitlines() == [
        b"sw/[/]/[bold]x/metrics.jsonl:2 $: expected value at column 1 (the line is not JSON)",
        b"sw/[/]/[bold]x/metrics.jsonl: invalid: 2 lines (begin 1, log 0, eval 0, stage 0,"
        b" end 0), 1 error, 0 warnings (1 invalid line)",
    ]


# --- a .gz cut short --------------------------------------------------------------------


def test_a_cut_gzip_is_checked_up_to_the_cut(tmp_path: Path) -> None:
    """1,000 begin lines then `{"event":"log","ti`, the gzip stream cut before its end
    (its 8-byte trailer and some of its last block gone)."""
    data = b'{"event":"begin","time":1.0}\n' * 1000 + b'{"event":"log","ti'
    whole = gzip.compress(data)
    (tmp_path / "m.jsonl.gz").write_bytes(whole[:-12])
    with gzip.open(tmp_path / "m.jsonl.gz") as stream, pytest.raises(EOFError):
        stream.read()  # cut for real
    code, out, err = check(tmp_path, "m.jsonl.gz", "-o", "json")
    assert code == 1, err
    found = [json.loads(text) for text in out.splitlines()]
    findings = [item for item in found if item["type"] == "finding"]
    assert len(findings) == 1
    assert findings[0]["severity"] == "error"
    assert findings[0]["category"] == "truncated"
    assert findings[0]["message"].startswith("gzip data cut short after ")
    summary = found[-1]
    assert summary["type"] == "file"
    assert summary["events"]["begin"] == 1000
    assert summary["errors"] == 1
    code, out, _ = check(tmp_path, "m.jsonl.gz")
    assert code == 1
    assert out.splitlines()[-1].startswith(b"m.jsonl.gz: invalid: 1,001 lines (begin 1,000,")
