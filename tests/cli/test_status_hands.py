"""`status` over a run folder written by several hands: what its files and folder names
hold is data. Each case is made for real (folders named with escape sequences, newlines
and rich's markup, a `snapshot.json` whose checkpoint holds an escape, side files that are
symlinks to a private token) and run in a child process under a timeout; the child's
stdout and stderr bytes are read back.

What is expected comes from the rules, not from the command's output: a string from the
run is shown through `text.shown.shown()` (an ESC as the four characters `\\x1b`, a
newline as `\\n`), rich reads no markup in it (a run's name shows as its path), `-o json`
is JSON whose strings decode to the names as they are, and a side file that is a symlink is
refused unread with `PATH: a symlink, not read` (exit 2, as a FIFO there), so nothing it
points to is ever printed."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from cli_samples import PROOF, VALID, make_run
from hostile import capped_cli

TIMEOUT = 60.0
"""Seconds one command may take here: each needs a fraction of one."""

MEMORY = 512 * 2**20
"""The child's address space: `status` with rich's table, far below it."""

TOKEN = "s3cr3t-t0ken-4f9a"
"""A private one-word file's content: it matches the request's pattern, so a request read
through a link to it would show it as its reason."""

ESC_NAME = "\x1b[31mred"
NEWLINE_NAME = "a\nb"
CHECKPOINT = "out/\x1b]0;pwned\x07checkpoint-2"
"""A checkpoint path holding an OSC escape that would set the terminal's title."""

ESCAPED_PROOF = json.dumps(
    {"checkpoint": CHECKPOINT, "step": 2, "time": 1764467481.0, "reason": "manual"}
)
"""A valid `snapshot.json` (any string is a checkpoint's path) with that checkpoint."""

SYMLINK = "a symlink, not read"


def status(*args: str, cwd: Path, columns: int = 200) -> tuple[int, str, str]:
    """`status ARGS` in a child: its exit status, stdout and stderr (latin-1: every byte)."""
    env = {**os.environ, "COLUMNS": str(columns)}
    env.pop("NO_COLOR", None)
    done = capped_cli("status", *args, cwd=cwd, memory=MEMORY, timeout=TIMEOUT, env=env)
    return done.returncode, done.stdout, done.stderr


def no_raw_controls(text: str, allowed_sgr: bool = False) -> None:
    """No control character reaches the output raw: no BEL, no OSC, no ESC at all unless
    `allowed_sgr` (our own colours, `--color always`), then only as an SGR (`ESC[...m`)."""
    assert "\x07" not in text
    assert "\x1b]" not in text
    if not allowed_sgr:
        assert "\x1b" not in text
    else:
        for piece in text.split("\x1b")[1:]:
            assert piece.startswith("["), repr(piece[:20])
            body = piece[1 : piece.index("m")]
            assert all(c.isdigit() or c == ";" for c in body), repr(piece[:20])
    for line in text.splitlines():
        assert "\r" not in line


@pytest.fixture
def token(tmp_path: Path) -> Path:
    """A 0600 file holding one word, outside every run folder."""
    path = tmp_path / "private" / "token"
    path.parent.mkdir()
    path.write_text(TOKEN + "\n")
    path.chmod(0o600)
    return path


# -- a side file that is a symlink is refused unread ------------------------------


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_request_linked_to_a_token_is_refused_and_the_token_never_shown(
    tmp_path: Path, token: Path, output: str
) -> None:
    run = make_run(tmp_path / "run", VALID)
    os.symlink(token, run / "snapshot.request")
    code, out, err = status("run", "-o", output, cwd=tmp_path)
    assert TOKEN not in out + err
    assert code == 2
    assert err.strip().splitlines() == [
        f"overbrainer-contract: error: run/snapshot.request: {SYMLINK}"
    ]


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_linked_request_in_a_sweep_is_that_run_s_error_the_others_shown(
    tmp_path: Path, token: Path, output: str
) -> None:
    make_run(tmp_path / "sweep" / "good", VALID)
    bad = make_run(tmp_path / "sweep" / "linked", VALID)
    os.symlink(token, bad / "snapshot.request")
    code, out, err = status("sweep", "-o", output, cwd=tmp_path)
    assert TOKEN not in out + err
    assert code == 2
    assert f"sweep/linked/snapshot.request: {SYMLINK}" in err
    if output == "json":
        assert [json.loads(line)["name"] for line in out.splitlines()] == ["good"]
    else:
        assert "good" in out
        assert "linked" not in out


def test_a_linked_proof_is_refused_and_what_it_points_to_never_shown(tmp_path: Path) -> None:
    elsewhere = tmp_path / "private" / "snapshot.json"
    elsewhere.parent.mkdir()
    elsewhere.write_text(PROOF.replace("out/checkpoint-2", TOKEN))
    elsewhere.chmod(0o600)
    run = make_run(tmp_path / "run", VALID)
    os.symlink(elsewhere, run / "snapshot.json")
    for output in ("text", "json"):
        code, out, err = status("run", "-o", output, cwd=tmp_path)
        assert TOKEN not in out + err
        assert code == 2
        assert f"run/snapshot.json: {SYMLINK}" in err


def test_check_refuses_a_linked_request_as_status_does(tmp_path: Path, token: Path) -> None:
    run = make_run(tmp_path / "run", VALID)
    os.symlink(token, run / "snapshot.request")
    env = {**os.environ}
    done = capped_cli("check", "run", cwd=tmp_path, memory=MEMORY, timeout=TIMEOUT, env=env)
    assert TOKEN not in done.stdout + done.stderr
    assert done.returncode == 2
    assert f"run/snapshot.request: {SYMLINK}" in done.stderr


@pytest.mark.parametrize("command", ["check", "status"])
def test_a_dangling_link_for_a_request_is_there_for_check_and_status(
    tmp_path: Path, command: str
) -> None:
    """The plugin takes a link's presence as a request (`os.path.lexists`): to `check` and
    `status` a dangling one is there too, and refused unread — never skipped as absent."""
    run = make_run(tmp_path / "run", VALID)
    os.symlink(tmp_path / "nowhere", run / "snapshot.request")
    done = capped_cli(command, "run", cwd=tmp_path, memory=MEMORY, timeout=TIMEOUT)
    assert done.returncode == 2
    assert f"run/snapshot.request: {SYMLINK}" in done.stderr


# -- control characters from the run are shown escaped -----------------------------


@pytest.mark.parametrize("colour", ["never", "always"])
def test_one_run_screen_shows_its_name_and_checkpoint_escaped(tmp_path: Path, colour: str) -> None:
    make_run(tmp_path / ESC_NAME, VALID, proof=ESCAPED_PROOF + "\n")
    code, out, err = status(ESC_NAME, "--color", colour, cwd=tmp_path)
    assert code == 0, err
    no_raw_controls(out, allowed_sgr=colour == "always")
    assert "\x1b[31mred" not in out
    assert "\\x1b[31mred" in out  # the name, as shown() writes it
    assert "out/\\x1b]0;pwned\\x07checkpoint-2" in out
    assert err == ""


def test_one_run_json_keeps_the_strings_as_they_are(tmp_path: Path) -> None:
    make_run(tmp_path / ESC_NAME, VALID, proof=ESCAPED_PROOF + "\n")
    code, out, err = status(ESC_NAME, "-o", "json", cwd=tmp_path)
    assert code == 0, err
    assert "\x1b" not in out  # JSON escapes them, once
    assert "\x07" not in out
    document = json.loads(out.encode("latin-1"))
    assert document["run"] == ESC_NAME
    assert document["snapshot"]["taken"]["checkpoint"] == CHECKPOINT


@pytest.mark.parametrize("colour", ["never", "always"])
def test_a_sweep_table_shows_names_escaped_and_no_line_is_forged(
    tmp_path: Path, colour: str
) -> None:
    for name in (ESC_NAME, NEWLINE_NAME, "plain"):
        make_run(tmp_path / "sweep" / name, VALID)
    code, out, err = status("sweep", "--color", colour, cwd=tmp_path)
    assert code == 0, err
    no_raw_controls(out, allowed_sgr=colour == "always")
    assert "\\x1b[31mred" in out
    assert "a\\nb" in out
    plain = [line for line in _unpainted(out).splitlines() if line.strip()]
    # a heading, a rule, three rows, the count: no line begins with the name's second half
    assert not any(line.startswith("b ") or line == "b" for line in plain)
    assert len(plain) == 6, plain


def test_a_sweep_s_json_lines_keep_the_names_as_they_are(tmp_path: Path) -> None:
    for name in (ESC_NAME, NEWLINE_NAME):
        make_run(tmp_path / "sweep" / name, VALID)
    code, out, err = status("sweep", "-o", "json", cwd=tmp_path)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2
    assert sorted(json.loads(line)["name"] for line in lines) == sorted([ESC_NAME, NEWLINE_NAME])


def test_error_lines_echo_names_escaped(tmp_path: Path) -> None:
    """A run's error line (a FIFO request) and its invalid-lines line, on stderr, each one
    line with the name escaped."""
    fifo_run = make_run(tmp_path / "sweep" / ESC_NAME, VALID)
    os.mkfifo(fifo_run / "snapshot.request")
    make_run(tmp_path / "sweep" / NEWLINE_NAME, VALID + "GARBAGE\n")
    code, _, err = status("sweep", cwd=tmp_path)
    assert code == 2
    no_raw_controls(err)
    lines = err.splitlines()
    assert len(lines) == 2, lines
    assert "sweep/\\x1b[31mred/snapshot.request: a FIFO, not a file" in lines[0]
    assert lines[1].startswith("overbrainer-contract: sweep/a\\nb: ")


def test_a_run_that_cannot_be_read_is_said_escaped(tmp_path: Path) -> None:
    run = make_run(tmp_path / ESC_NAME, VALID)
    os.mkfifo(run / "snapshot.json")
    code, out, err = status(ESC_NAME, cwd=tmp_path)
    assert code == 2
    assert out == ""
    no_raw_controls(err)
    assert err == "overbrainer-contract: error: \\x1b[31mred/snapshot.json: a FIFO, not a file\n"


# -- names are never read as rich markup -------------------------------------------


@pytest.mark.parametrize("colour", ["never", "always"])
def test_names_that_look_like_markup_show_as_their_paths(tmp_path: Path, colour: str) -> None:
    for name in ("exp[lr=0.1]", "[bold]x", "plain"):
        make_run(tmp_path / "sweep" / name, VALID)
    code, out, err = status("sweep", "--color", colour, cwd=tmp_path)
    assert code == 0, err
    rows = [line.split()[0] for line in _unpainted(out).splitlines()[2:5]]
    assert sorted(rows) == sorted(["exp[lr=0.1]", "[bold]x", "plain"])


def test_a_run_at_a_closing_tag_s_path_is_shown(tmp_path: Path) -> None:
    """`sw/[/]`: a folder `[` holding a run `]`; its name `[/]` is rich's closing tag."""
    make_run(tmp_path / "sw" / "[" / "]", VALID)
    make_run(tmp_path / "sw" / "other", VALID)
    code, out, err = status("sw", "--color", "always", cwd=tmp_path)
    assert code == 0, err
    assert "MarkupError" not in err
    rows = [line.split()[0] for line in _unpainted(out).splitlines()[2:4]]
    assert sorted(rows) == sorted(["[/]", "other"])


def _unpainted(text: str) -> str:
    """`text` without our own SGR colours (checked by `no_raw_controls` to be only those)."""
    return re.sub("\x1b\\[[0-9;]*m", "", text)
