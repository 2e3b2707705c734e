"""Opening the files of a run folder that someone else may have put there: without
blocking, only when they are what they should be, with a bound on what is read.

A run folder is written by a training job, an orchestrator and people; any of its files
may be a FIFO (opening it for reading would wait for a writer for ever), a symlink to
`/dev/zero` (reading it would never end), a sparse file of a terabyte, a symlink loop or
a folder. Every file the command line opens goes through here: it is opened with
`O_NONBLOCK` (a FIFO opens at once), looked at with `fstat` on what was opened (no race
with a rename), and refused, with one line naming the path and what it is, unless it is a
regular file — a metrics file may also be a pipe, as standard input is.

The side files (`snapshot.request`, `snapshot.json`) are opened with `O_NOFOLLOW` too: a
symlink there is refused unread (`a symlink, not read`), whatever it points to. They are
written by the plugin and by `snapshot`, never as links; one planted in the folder could
point at a file its planter may not read (a token, a key) that `status` would print
otherwise. A metrics file may be a link: an orchestrator may set one up before the run.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

# The most bytes `snapshot.request` and `snapshot.json` may hold: the contract's
# `max_bytes` (schema/contract.json), the request's what the plugin reads of it.
from ..contract.constants import PROOF_LIMIT as PROOF_LIMIT
from ..contract.constants import REQUEST_LIMIT as REQUEST_LIMIT
from .signatures import FILE_BOM_NOTE, starts_with_bom

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class SideFileError(OSError):
    """A file that cannot be read as one: its message is the one line the user sees."""

    def __init__(self, path: Path | str, what: str) -> None:
        super().__init__(f"{path}: {what}")
        self.message = f"{path}: {what}"
        self.what = what

    def __str__(self) -> str:
        return self.message


def what_it_is(mode: int) -> str:
    """`a FIFO`, `a folder`, ... for a file's mode; `a regular file` for one."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


SYMLINK = "a symlink, not read"
"""What a side file that is a symlink is said to be (it is refused unread)."""


def _is_link(path: Path | str) -> bool:
    """Whether `path` itself (its last component) is a symlink."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _reason(path: Path | str, error: OSError, *, follow: bool = True) -> SideFileError:
    """The one line for a failed open or stat (`follow`: whether the open followed a
    symlink at `path`; without, a symlink there fails with ELOOP too)."""
    if error.errno == errno.ELOOP:
        if not follow and _is_link(path):
            return SideFileError(path, SYMLINK)
        return SideFileError(path, "a symlink loop (too many levels of symbolic links)")
    if error.errno == errno.ENXIO:  # a socket, or a device without its driver
        try:
            return SideFileError(path, f"{what_it_is(os.stat(path).st_mode)}, not a file")
        except OSError:
            pass
    return SideFileError(path, (error.strerror or str(error)).lower())


def _open(path: Path | str, *, follow: bool = True) -> tuple[int, os.stat_result]:
    """A descriptor opened without blocking, and what it is; FileNotFoundError if missing.
    Without `follow`, a symlink at `path` is refused (`O_NOFOLLOW`), a dangling one too."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow:
        flags |= os.O_NOFOLLOW
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise _reason(path, error, follow=follow) from error
    try:
        return descriptor, os.fstat(descriptor)
    except OSError as error:  # pragma: no cover - fstat of an open descriptor
        os.close(descriptor)
        raise _reason(path, error) from error


def read_side_file(path: Path, limit: int) -> bytes | None:
    """The bytes of `path`, a regular file (not a symlink) of at most `limit` bytes; None
    when it does not exist. Anything else raises `SideFileError`, without blocking, without
    following a link and without reading more than `limit + 1` bytes."""
    read = read_stamped(path, limit)
    return None if read is None else read[0]


def read_stamped(path: Path, limit: int) -> tuple[bytes, int] | None:
    """As `read_side_file`, with the file's modification time (ns) of what was read."""
    try:
        descriptor, info = _open(path, follow=False)
    except FileNotFoundError:
        return None
    try:
        if not stat.S_ISREG(info.st_mode):
            raise SideFileError(path, f"{what_it_is(info.st_mode)}, not a file")
        if info.st_size > limit:
            raise SideFileError(path, f"{info.st_size:,} bytes, over the {limit:,} it may hold")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # it may grow after fstat: read at most one byte too many
            chunk = os.read(descriptor, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise SideFileError(path, f"over the {limit:,} bytes it may hold")
        return b"".join(chunks), info.st_mtime_ns
    except SideFileError:
        raise
    except OSError as error:
        raise _reason(path, error) from error
    finally:
        os.close(descriptor)


def exists(path: Path) -> bool:
    """Whether something is at `path` (a dangling symlink is nothing; a loop is something)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def open_metrics(path: Path | str, *, pipe: bool = True) -> BinaryIO:
    """`path` opened for reading binary lines: a regular file, or (`pipe`) a FIFO read as a
    stream, as standard input is — a FIFO without a writer reads as empty, at once.
    FileNotFoundError when it does not exist; anything else is a `SideFileError`."""
    descriptor, info = _open(path)
    mode = info.st_mode
    if not (stat.S_ISREG(mode) or (pipe and stat.S_ISFIFO(mode))):
        os.close(descriptor)
        raise SideFileError(path, f"{what_it_is(mode)}, not a file")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


# -- snapshot.json, every problem in the line findings' words ----------------------------


class ProofError(msgspec.ValidationError):
    """A `snapshot.json` that is not a proof: `problems`, every one found, each `(JSON
    path, message)` in the words of the line findings (serde's: `missing field `step``,
    `invalid value: integer `-1`, expected u64`); its text, all of them, `; `-joined."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{path}: {message}" for path, message in problems))


def decode_proof(data: bytes) -> Any:
    """The `Snapshot` model of a `snapshot.json`'s bytes; `ProofError` listing every
    problem when it is not one (`proof_problems`)."""
    from ..contract.models import Snapshot

    try:
        return msgspec.json.decode(data, type=Snapshot)
    except (msgspec.ValidationError, msgspec.DecodeError):
        raise ProofError(proof_problems(data)) from None


def proof_problems(data: bytes) -> list[tuple[str, str]]:
    """Every problem of a `snapshot.json`'s bytes against the generated `Snapshot` model,
    as `(JSON path, message)`: JSON that is not JSON in the reference's words (serde_json,
    through the core: `expected value at column 1`); then each field, missing or not what
    its type and bounds say (`invalid type: string "x", expected u64`, `invalid value:
    string "", expected a string of at least 1 character`), in the model's order. The
    words for what is expected come from the model (its types, bounds, titles and
    descriptions), so from the schema. Empty for a valid proof."""
    from ..contract.models import Snapshot

    try:
        document = msgspec.json.decode(data)
    except msgspec.DecodeError as error:
        path, message = _not_json(data, error)
        if starts_with_bom(data):
            message += f" ({FILE_BOM_NOTE})"
        return [(path, message)]
    if not isinstance(document, dict):
        return [("$", f"invalid type: {_unexpected(document)}, expected struct Snapshot")]
    info = msgspec.inspect.type_info(Snapshot)
    assert isinstance(info, msgspec.inspect.StructType)
    problems: list[tuple[str, str]] = []
    for model_field, annotated in zip(info.fields, msgspec.structs.fields(Snapshot), strict=True):
        name = model_field.encode_name
        if name not in document:
            if model_field.required:
                problems.append(("$", f"missing field `{name}`"))
            continue
        value = document[name]
        try:
            msgspec.convert(value, annotated.type)
        except msgspec.ValidationError:
            fits = _fits(value, model_field.type)
            how = "invalid value" if fits else "invalid type"
            expected = _expected(model_field.type)
            problems.append((f"$.{name}", f"{how}: {_unexpected(value)}, expected {expected}"))
    return problems


def _not_json(data: bytes, error: Exception) -> tuple[str, str]:
    """JSON that does not parse, in the reference's words when the core has them."""
    from ..reader import ParseError, parse_line

    try:
        parse_line(data)
    except ParseError as parsed:
        if parsed.category in ("syntax", "eof") or "UTF-8" in str(parsed):
            return (parsed.path or "$", str(parsed))
    except Exception:  # any other answer: msgspec's words, below
        pass
    text = str(error)
    return ("$", text[:1].lower() + text[1:])


def _unexpected(value: Any) -> str:
    """A JSON value as serde names what it did not expect."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{'true' if value else 'false'}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value!r}`"
    if isinstance(value, str):
        import json

        return f"string {json.dumps(value)}"
    return "sequence" if isinstance(value, list) else "map"


def _unwrap(kind: Any) -> tuple[Any, dict[str, Any]]:
    """A msgspec type without its metadata, and the metadata's JSON Schema words."""
    extra: dict[str, Any] = {}
    while isinstance(kind, msgspec.inspect.Metadata):
        extra = {**(kind.extra_json_schema or {}), **extra}
        kind = kind.type
    return kind, extra


def _fits(value: Any, kind: Any) -> bool:
    """Whether `value` is of the kind `kind` takes (a bound or pattern aside)."""
    kind, _ = _unwrap(kind)
    inspect = msgspec.inspect
    if isinstance(kind, inspect.UnionType):
        return any(_fits(value, each) for each in kind.types)
    if isinstance(value, bool):
        return isinstance(kind, inspect.BoolType)
    if isinstance(value, int):
        return isinstance(kind, inspect.IntType | inspect.FloatType)
    if isinstance(value, float):
        return isinstance(kind, inspect.FloatType)
    if isinstance(value, str):
        return isinstance(kind, inspect.StrType)
    return value is None and isinstance(kind, inspect.NoneType)


def _expected(kind: Any) -> str:
    """What a field of the model takes, in words: `u64`, `f64`, `null`, `a string of at
    least 1 character`, a titled type by its title and what it is (`a Word (a string
    matching ^[A-Za-z0-9_-]{1,64}$)`)."""
    kind, extra = _unwrap(kind)
    inspect = msgspec.inspect
    if isinstance(kind, inspect.UnionType):
        return " or ".join(_expected(each) for each in kind.types)
    title = extra.get("title")
    if title == "U64" and isinstance(kind, inspect.IntType):
        return "u64"
    if title:
        return f"a {title} ({_expected(kind)})"
    if isinstance(kind, inspect.FloatType):
        return "f64"
    if isinstance(kind, inspect.NoneType):
        return "null"
    if isinstance(kind, inspect.BoolType):
        return "a boolean"
    if isinstance(kind, inspect.IntType):
        bounds = [f">= {kind.ge}"] if kind.ge is not None else []
        bounds += [f"<= {kind.le}"] if kind.le is not None else []
        return "an integer" + (f" {' and '.join(bounds)}" if bounds else "")
    if isinstance(kind, inspect.StrType):
        words = "a string"
        if kind.min_length:
            words += f" of at least {kind.min_length} character" + "s" * (kind.min_length > 1)
        if kind.pattern:
            words += f" matching {kind.pattern}"
        return words
    return "a JSON value"
