"""`check_stream` (whole files checked by the core: `reader.CheckScan` finds the lines, of
any length, answers them on every core and makes the findings) fed a file in any chunks
against the same file given whole: the same findings, in the same order, and the same
summary, exactly, on any file, however its bytes come in chunks (one, a byte at a time,
any sizes), with or without the user's bound. What the findings say of each run is held
by the run-level golden suite (tests/conformance/runs/).

Files of every kind are made from lines in several forms (valid lines as the plugin and
other writers write them, bad and odd lines, empty lines, bytes that are not UTF-8, lines
out of order, a last line cut short or without its newline), small ones by hypothesis line
by line, large ones (over the 128 KiB from which the core answers lines in parts on its
threads) from a seed with bad lines at places hypothesis draws. Then the golden suite's
files and the examples, through `check_stream` and through the command line (`check -o
json` and text) against the reporters fed the whole file's findings; and a child process on
one core and on several, byte for byte. Every test is bounded by its examples, not by
time."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from line_kinds import split_lines
from overbrainer_contract._models.check_report_schema import Category, Severity
from overbrainer_contract.check.checker import FileResult, Finding, check_stream
from overbrainer_contract.check.reporter import JsonReporter, TextReporter
from overbrainer_contract.cli import main
from overbrainer_contract.files.chunks import read_chunks
from overbrainer_contract.text.nonfinite import NONFINITE_HINT

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = sorted((ROOT / "tests" / "conformance" / "cases").glob("*.jsonl"))
EXAMPLES = sorted((ROOT / "examples").glob("*/metrics.jsonl"))

T = 1764467476.5

PARALLEL_FROM = 128 * 1024
"""The bytes of complete lines from which the core answers them in parts, on its threads
(`scanner.rs`)."""

MEBIBYTE = 2**20
"""The length of a line under way at which the splitter first looks at its start
(`split::FIRST_LOOK`): junk longer than it is decided and skipped, not held."""


# --- lines ---------------------------------------------------------------------------


def line(**fields: Any) -> bytes:
    return json.dumps(fields, separators=(",", ":")).encode()


def log(step: int, form: int) -> bytes:
    if form == 0:  # the plugin's form: every key, compact
        return line(
            event="log",
            time=T + step,
            step=step,
            epoch=step / 10,
            max_steps=100,
            loss=2.5,
            eval_loss=None,
            learning_rate=0.0002,
            grad_norm=1.25,
        )
    if form == 1:  # another writer: keys left out, another order, an extra metric
        return line(step=step, event="log", time=T + step, loss=0.5, tokens_per_second=512.5)
    if form == 2:  # spaced, an integer time
        return b'{ "event" : "log", "time": %d, "step": %d }' % (int(T) + step, step)
    if form == 3:  # zeros
        return line(event="log", time=T + step, step=step, loss=0.0, learning_rate=0.0)
    # pretty-printed on one line, a unicode metric name, white space after the value
    return (
        b'{"event": "log", "time": %d.25, "step": %d, "\xce\xbb": 1e-3, "note": "\\u00e9"}  \t'
        % (int(T) + step, step)
    )


def other(kind: str, step: int) -> bytes:
    if kind == "begin":
        return line(event="begin", time=T, max_steps=100)
    if kind == "end":
        return line(event="end", time=T + step, step=step)
    if kind == "eval":
        return line(event="eval", time=T + step, step=step, total=4)
    return line(event="stage", name="train", time=int(T))


BAD = (
    b"not json",
    b'{"event":"log","time":1.0,"st',
    b'{"event":"log","time":NaN,"step":1}',
    b'{"event":"log","time":1.0,"step":1,"step":2}',
    b'{"event":"log","time":1.0,"step":"one"}',
    b'{"event":"log","time":1.0,"step":-0}',
    b'{"event":"party","time":1.0}',
    b"",
    b'{"event":"log","time":1.0,"step":1}\xff',  # not UTF-8
    b'{"event":"log","time":1.0,"step":1}],[{"event":"log","time":2.0,"step":2}',  # one line
    b'{"event":"log","time":1.0,"step":1,"note":"],["}',  # valid: a string holding `],[`
    b'{"event":"log","time":1.0,"step":1,"time":2.0}',  # a known key twice
    b'{"event":"log","time":1.0,"step":1,"extra":1,"extra":2}',  # an unknown key twice
    b'{"event":"log","time":1e309,"step":1}',  # out of f64's range
    # and more odd ones
    b"\x00\x00",
    b"\xff\xfe{}",
    b'{"event":"log","time":1.0,"step":1,"note":"\xc3\x28"}',  # bad UTF-8 in a string
    b'{"event":"log","time":1.0,"step":1,"note":"\xe2\x82"}',  # a character cut short
    b'{"event":"log","time":1.0,"step":1,"note":"a\tb"}',  # a control character
    b'{"event":"begin","time":1.0,"max_steps":4}\r',  # a CR before the newline: white space
    b'{"event":"end","time":1.0,"step":2} {"event":"end","time":1.0,"step":2}',
    b"[]",
    b"{}",
    b"null",
    b"   ",
    b'{"event":"log","time":1.0,"step":18446744073709551616}',  # over u64
    b'{"event":"log","time":1.0,"step":1.5}',
    b'["log", 1.0, 1]',
)
"""Lines that are bad, or odd: each read by `parse_line` as the reference reads it."""


def pick(roll: int, value: int, form: int) -> tuple[str, int, int]:
    """A file's entry from a roll of 0-99: mostly valid logs, as real files are; the rest
    the other events, bad and odd lines, empty lines, lines over a small bound, junk."""
    if roll < 70:
        return "log", value, form
    if roll < 80:
        return ("eval", "stage")[roll % 2], value, 0
    if roll < 84:
        return ("begin", "end")[roll % 2], value, 0
    if roll < 92:
        return "bad", value, 0
    if roll < 94:
        return "empty", 0, 0
    if roll < 97:
        return "long", value, 0
    return "junk", value, form


entry = st.builds(pick, st.integers(0, 99), st.integers(0, 40), st.integers(0, 4))


def render(kind: str, value: int, form: int, junk: bytes = b"") -> bytes:
    if kind == "log":
        return log(value, form)
    if kind == "bad":
        return BAD[value % len(BAD)]
    if kind == "empty":
        return b""
    if kind == "long":  # valid, but over a small bound
        return line(event="log", time=T, step=value, note="x" * 300)
    if kind == "junk":
        return junk
    return other(kind, value)


def mostly_in_order(entries: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """A begin first, steps mostly rising, an end only at the end: many files need no
    warning (a log with value 0 goes back to step 0)."""
    middle = [
        (kind, index if kind == "log" and value else value, form)
        for index, (kind, value, form) in enumerate(entries)
        if kind not in ("begin", "end")
    ]
    return [("begin", 0, 0), *middle, ("end", len(entries), 0)]


@st.composite
def files(draw: st.DrawFn, min_size: int = 0, max_size: int = 60) -> bytes:
    """A metrics file: its lines (in order, or any), then how it ends — its newline, none,
    or a last line cut short anywhere."""
    entries = draw(st.lists(entry, min_size=min_size, max_size=max_size))
    if draw(st.booleans()):
        entries = mostly_in_order(entries)
    junk = st.binary(max_size=40).map(lambda data: data.replace(b"\n", b""))
    lines = [render(*item, junk=draw(junk) if item[0] == "junk" else b"") for item in entries]
    data = b"\n".join(lines)
    ending = draw(st.sampled_from(["newline", "none", "cut"]))
    if ending == "newline" and lines:
        return data + b"\n"
    if ending == "cut":
        last = draw(st.sampled_from([log(7, 0), log(8, 4), other("end", 9), BAD[0], BAD[16]]))
        cut = draw(st.integers(0, len(last)))
        return data + (b"\n" if lines else b"") + last[:cut]
    return data


# --- chunks --------------------------------------------------------------------------

Cutting = Callable[[bytes], Iterator[bytes]]


def sized(sizes: list[int]) -> Cutting:
    """Chunks of `sizes` bytes in turn, over and over."""

    def cut(data: bytes) -> Iterator[bytes]:
        at, turn = 0, 0
        while at < len(data):
            size = sizes[turn % len(sizes)]
            yield data[at : at + size]
            at, turn = at + size, turn + 1

    return cut


def whole(data: bytes) -> Iterator[bytes]:
    if data:
        yield data


def with_empty(data: bytes) -> Iterator[bytes]:
    """Empty chunks between the others (an empty read is not the end here)."""
    for chunk in sized([7, 1, 30])(data):
        yield b""
        yield chunk
    yield b""


cuttings = st.one_of(
    st.just(whole),
    st.just(sized([1])),
    st.just(with_empty),
    st.lists(st.integers(1, 64), min_size=1, max_size=8).map(sized),
    st.lists(st.integers(1, 4096), min_size=1, max_size=4).map(sized),
)
bounds = st.one_of(st.none(), st.integers(0, 200))


# --- the comparison ------------------------------------------------------------------


def streamed(
    data: bytes, cut: Cutting, max_line: int | None = None, name: str = "f"
) -> tuple[list[Finding], FileResult]:
    found: list[Finding] = []
    result = check_stream(cut(data), name, found.append, max_line)
    return found, result


def line_by_line(
    data: bytes, max_line: int | None = None, name: str = "f"
) -> tuple[list[Finding], FileResult]:
    """The check of `data` given whole, in one chunk: what every cut must give (what the
    findings mean is held by the run-level golden suite, tests/conformance/runs/)."""
    return streamed(data, whole, max_line, name)


def same(data: bytes, cut: Cutting, max_line: int | None = None) -> None:
    got, expected = streamed(data, cut, max_line), line_by_line(data, max_line)
    assert got[1] == expected[1]
    assert got[0] == expected[0]


@settings(max_examples=600, deadline=None)
@given(files(), cuttings, bounds)
def test_any_file_in_any_chunks_is_checked_as_line_by_line(
    data: bytes, cut: Cutting, max_line: int | None
) -> None:
    same(data, cut, max_line)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), cuttings, bounds)
def test_any_bytes_are_checked_as_line_by_line(
    data: bytes, cut: Cutting, max_line: int | None
) -> None:
    same(data, cut, max_line)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([b"\n", b"{}", b"\x00", b"\xff", b" ", b'"', b"1"]), max_size=40),
    cuttings,
    bounds,
)
def test_newlines_and_odd_bytes_in_any_mix(
    pieces: list[bytes], cut: Cutting, max_line: int | None
) -> None:
    same(b"".join(pieces), cut, max_line)


@pytest.mark.parametrize(
    "data",
    [b"", b"\n", b"\n\n\n", b"{}", b"{}\n", b"x", b"x\n", b"\n" + log(1, 0)],
    ids=repr,
)
@pytest.mark.parametrize("max_line", [None, 0, 1, 2])
def test_small_cases_in_every_cut(data: bytes, max_line: int | None) -> None:
    for cut in (whole, sized([1]), with_empty):
        same(data, cut, max_line)


# --- large files: the lines answered in parts, on the core's threads ---------------------

INSERTS = ("bad", "empty", "junk", "back", "early end", "eval after end", "no newline")


def large_file(seed: int, lines: int, inserts: list[tuple[float, str, int]]) -> bytes:
    """A valid run of `lines` logs (forms by `seed`), with each of `inserts` (where, as a
    fraction of the file; what; a value) put in at its place."""
    rng = random.Random(seed)
    body = [other("stage", 0), other("begin", 0)]
    body += [log(step, rng.randrange(5)) for step in range(1, lines + 1)]
    body.insert(len(body) // 3, other("eval", lines // 3))
    for where, what, value in sorted(inserts, reverse=True):
        at = 2 + int(where * (len(body) - 2))
        if what == "bad":
            new = [BAD[value % len(BAD)]]
        elif what == "empty":
            new = [b""]
        elif what == "junk":
            new = [rng.randbytes(value % 200).replace(b"\n", b"")]
        elif what == "back":
            new = [log(value % 5, 0)]
        elif what == "early end":
            new = [other("end", value), log(value, 1), other("begin", 0)]
        elif what == "eval after end":
            new = [other("end", value), other("eval", value), other("begin", 0)]
        else:
            new = []
        body[at:at] = new
    body += [other("end", lines), other("stage", 0)]
    data = b"\n".join(body)
    return data if any(what == "no newline" for _, what, _ in inserts) else data + b"\n"


inserts = st.lists(
    st.tuples(st.floats(0, 1), st.sampled_from(INSERTS), st.integers(0, 1000)), max_size=25
)
large_cuttings = st.one_of(
    st.just(whole),
    st.just(sized([4 * MEBIBYTE])),
    st.lists(st.integers(PARALLEL_FROM, 400_000), min_size=1, max_size=4).map(sized),
    st.lists(st.integers(1, 400_000), min_size=1, max_size=4).map(sized),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 2**32),
    st.integers(4_000, 12_000),
    inserts,
    large_cuttings,
    st.one_of(st.none(), st.just(150), st.just(MEBIBYTE)),
)
def test_large_files_with_bad_lines_anywhere_keep_their_order(
    seed: int,
    lines: int,
    inserted: list[tuple[float, str, int]],
    cut: Cutting,
    max_line: int | None,
) -> None:
    """Files of 360 KB to 1.1 MB (over `PARALLEL_FROM`: the lines of a chunk answered in
    parts, on threads, and taken in order), bad lines at any place, in any part: the
    findings are line by line's, in its order."""
    data = large_file(seed, lines, inserted)
    assert len(data) > 2 * PARALLEL_FROM
    same(data, cut, max_line)


@pytest.mark.parametrize("where", [0.0, 0.25, 0.5, 0.999, 1.0])
def test_a_finding_at_each_place_of_a_large_file(where: float) -> None:
    data = large_file(7, 20_000, [(where, "bad", 0), (where, "back", 3)])
    for cut in (whole, sized([4 * MEBIBYTE]), sized([300_001])):
        same(data, cut)


# --- lines of junk over a mebibyte: decided by their start, skipped unheld --------------

JUNK = {
    "zeros": b"\x00" * (2 * MEBIBYTE),
    "nul then not UTF-8": b"\x00" + b"\xff" * (2 * MEBIBYTE),
    "not UTF-8 then nul": b"\xff" + b"\x00" * (2 * MEBIBYTE),
    "bad UTF-8 in a long string": b'{"event":"log","x":"'
    + b"a" * MEBIBYTE
    + b"\xff"
    + b"a" * MEBIBYTE
    + b'"}',
    "a control character in a long string": b'{"event":"log","x":"'
    + b"a" * (2 * MEBIBYTE)
    + b'\x01"}',
    "junk after a value and long white space": line(event="begin", time=T, max_steps=4)
    + b" " * (2 * MEBIBYTE)
    + b"x",
    "long white space then nul": b" " * (2 * MEBIBYTE) + b"\x00",
    "white space only": b" " * (2 * MEBIBYTE),
    "deep arrays": b"[" * (2 * MEBIBYTE),
    "a long number": b"1" * (2 * MEBIBYTE),
    "a long number in a field": b'{"event":"log","time":' + b"9" * (2 * MEBIBYTE) + b"}",
    "a bad escape": b'{"event":"log","x":"\\q' + b"a" * (2 * MEBIBYTE) + b'"}',
    "a character cut at the first look": b'{"event":"log","x":"'
    + b"a" * (MEBIBYTE - 21)
    + b"\xe2\x82"
    + b"\x00",
    "random bytes": random.Random(1).randbytes(3 * MEBIBYTE).replace(b"\n", b""),
    "random text": bytes(byte % 95 + 32 for byte in random.Random(2).randbytes(3 * MEBIBYTE)),
    "a known key twice": b'{"event":"begin","event":"begin",' + b" " * (2 * MEBIBYTE) + b"}",
}
"""Lines longer than the splitter's first look: some it decides from their start (and
skips), some it must hold to their end; either way the reference's answer on the line."""

JUNK_CUTTINGS = {
    "one": whole,
    "4M": sized([4 * MEBIBYTE]),
    "64K": sized([64 * 1024]),
    "odd": sized([1000, 77_777, 3]),
}


@pytest.mark.parametrize("newline", [False, True], ids=["last", "then-a-line"])
@pytest.mark.parametrize("cutting", JUNK_CUTTINGS)
@pytest.mark.parametrize("junk", JUNK)
def test_junk_over_a_mebibyte_is_the_references_error_on_it(
    junk: str, cutting: str, newline: bool
) -> None:
    data = JUNK[junk]
    if newline:
        data += b"\n" + other("end", 1) + b"\n"
    same(data, JUNK_CUTTINGS[cutting])


@pytest.mark.parametrize("cutting", ["64K", "odd"])
def test_junk_over_a_bound_of_a_mebibyte_or_more_is_a_length_error(cutting: str) -> None:
    """The user's bound comes first, line by line (the checker always did so): junk longer
    than `max_line` is `length`, however its chunks come."""
    data = JUNK["zeros"] + b"\n" + other("end", 1) + b"\n"
    bound = 3 * MEBIBYTE // 2
    expected = line_by_line(data, bound)
    assert expected[0][0].category is Category.length
    assert streamed(data, whole, bound) == expected  # one chunk crosses the bound
    assert streamed(data, JUNK_CUTTINGS[cutting], bound) == expected


# --- the golden suite's files and the examples ---------------------------------------

FILES = [*GOLDEN, *EXAMPLES]


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_files_are_there() -> None:
    assert len(GOLDEN) >= 20
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_each_golden_and_example_file_as_line_by_line(path: Path) -> None:
    data = path.read_bytes()
    found: list[Finding] = []
    with path.open("rb") as handle:  # as `check` reads a file
        result = check_stream(read_chunks(handle), "f", found.append)
    assert (found, result) == line_by_line(data)
    for cut in (sized([1]), sized([13, 4096])):
        same(data, cut)
    same(data, whole, 100)


def _oracle_report(data: bytes, name: str, output: str) -> str:
    """What `check NAME -o OUTPUT` prints for a file of `data`, by the oracle: the
    reporters `cli/check.py` makes (text: no colour off a terminal, 20 problems a file by
    default; JSON: every finding), fed `check_lines`'s findings and summary."""
    out = io.StringIO()
    reporter: TextReporter | JsonReporter
    lines = split_lines(data)
    if output == "text":
        text = TextReporter(out, colour=False, limit=20)
        reporter = text

        def emit(finding: Finding) -> None:  # with the hint the rule gives its whole line
            text.finding(finding)
            if _nonfinite(lines, finding):
                text.hint(finding, NONFINITE_HINT)

        reporter.result(check_stream([data], name, emit))
    else:
        reporter = JsonReporter(out, 0)
        reporter.result(check_stream([data], name, reporter.finding))
    reporter.close()
    return out.getvalue()


@pytest.mark.parametrize("output", ["json", "text"])
@pytest.mark.parametrize("path", FILES, ids=_id)
def test_each_golden_and_example_file_through_the_command_line(
    path: Path, output: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(path.parent)
    monkeypatch.delenv("NO_COLOR", raising=False)
    expected = _oracle_report(path.read_bytes(), path.name, output)
    code = main(["check", path.name, "-o", output])
    captured = capsys.readouterr()
    assert captured.out == expected
    summary = expected.splitlines()[-1]
    valid = json.loads(summary)["valid"] if output == "json" else ": valid: " in summary
    assert code == (0 if valid else 1)


def _nonfinite(lines: list[bytes], finding: Finding) -> bool:
    """Whether `text.nonfinite`'s rule, given the whole line, finds a NaN or an Infinity
    where the reference rejected it."""
    if finding.line is None or finding.severity is not Severity.error:
        return False
    line = lines[finding.line - 1]
    if finding.category is not Category.syntax or not finding.column:
        return False
    # serde_json points at the token itself, past the sign of -Infinity
    return line[finding.column - 1 :].startswith((b"NaN", b"Infinity", b"-Infinity"))


def _hinted(data: bytes, cut: Cutting) -> list[int | None]:
    """The lines `check_stream` hints at, `data` in chunks as `cut` gives them."""
    hinted: list[int | None] = []
    check_stream(cut(data), "f", lambda _: None, hint=lambda found, _: hinted.append(found.line))
    return hinted


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                b'{"event":"log","time":1,"step":1,"loss":NaN}',
                b'{"event":"log","time":1,"step":1,"loss":-Infinity}',
                b'{"event":"log","time":1,"step":1,"loss":Infinity}',
                b'{"event":"log","time":1,"step":1,"loss":nan}',
                b'{"event":"log","time":1,"step":1,"NaN":1,"loss":x}',
                b'{"event":"log","time":1,"step":1,"' + b"k" * 5_000 + b'":NaN}',
                b"NaN",
                b"x",
                b"",
            ]
        ),
        max_size=12,
    ),
    st.booleans(),
    cuttings,
)
def test_the_nonfinite_hint_is_the_rule_on_whole_lines(
    lines: list[bytes], newline_last: bool, cut: Cutting
) -> None:
    """Every rejected line whose bytes at the error's column read NaN or Infinity, and no
    other, however the file comes in chunks: a token across chunks, in a line longer than
    a chunk (within the 64 KiB of a line's start the checker keeps for it), in the last
    line without its newline."""
    data = b"\n".join(lines) + (b"\n" if newline_last and lines else b"")
    found, _ = line_by_line(data)
    split = split_lines(data)
    expected = [finding.line for finding in found if _nonfinite(split, finding)]
    assert _hinted(data, cut) == expected


# --- one core and several --------------------------------------------------------------


def _child_check(path: Path, threads: str | None) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.pop("RAYON_NUM_THREADS", None)
    if threads is not None:
        env["RAYON_NUM_THREADS"] = threads
    return subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "check", path.name, "-o", "json"],
        cwd=path.parent,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )


def test_one_core_and_several_write_the_same_report(tmp_path: Path) -> None:
    """A file of 9 MB (over two 4 MiB chunks, each answered in parts on the threads), bad
    lines and order warnings spread over it: `check -o json` on one thread, on this
    machine's count, and on seven, byte for byte the same, and the oracle's."""
    rng = random.Random(11)
    inserted = [(rng.random(), rng.choice(INSERTS[:-1]), rng.randrange(1000)) for _ in range(300)]
    data = large_file(5, 100_000, inserted)
    assert len(data) > 2 * 4 * MEBIBYTE
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(data)
    reports = {threads: _child_check(path, threads) for threads in ("1", None, "7")}
    for threads, report in reports.items():
        assert report.returncode == 1, (threads, report.stderr[-2000:])
        assert report.stderr == b""
    one = reports["1"].stdout
    assert reports[None].stdout == one
    assert reports["7"].stdout == one
    assert one.decode() == _oracle_report(data, path.name, "json")
    assert one.count(b'"type":"finding"') > 300
