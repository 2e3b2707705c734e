"""overbrainer's Axolotl plugin: training metrics to `metrics.jsonl`, snapshots on request.

This one file is uploaded into every run and found through `PYTHONPATH`; a config
names it `plugins: [overbrainer_metrics.OverbrainerMetricsPlugin]`. It imports only
the standard library, transformers, torch (for the decision shared by all ranks)
and, when it can be imported, axolotl.

What it does, on the world's process zero only:

- appends one strict JSON line per event to the file named by `OVERBRAINER_METRICS`:
  `begin` (training starts), `log` (every Trainer log), `eval` (evaluation progress,
  at most one line every 2 seconds) and `end` (the training loop ended);
- writes every scalar a log holds: `loss`, `eval_loss`, `learning_rate`, `grad_norm`
  and `epoch` in fields of their own (a value that is not a finite number: `null`);
  every other numeric value under its own key in the line's `scalars` (`eval_accuracy`,
  `rewards/chosen`, `num_input_tokens_seen`), which is left out of a line with none.
  A `loss`, `eval_loss`, `learning_rate` or `grad_norm` that is not finite is `null` in
  its field and its name (`"NaN"`, `"Infinity"`, `"-Infinity"`) under the same key in
  `scalars`, so that what it was is kept where the reference, which ignores `scalars`,
  still reads the line as before.
  The Trainer's final log (`train_runtime`, `train_loss`, `total_flos`...) keeps its
  `log` line, without `scalars`; its values are the `end` line's `summary`. A scalar
  is a finite number (an int stays an int; one of 2**1023 or more in magnitude is
  written as its double, what the reference reads of it, or as the infinity that
  overflows to), `null` for `None`, or `"NaN"`, `"Infinity"`, `"-Infinity"`; numpy
  scalars and one-element tensors count by their value. Bools, strings, containers,
  larger tensors and keys that are not strings are left out, counted, and named in
  one warning when the training ends;
- watches the file named by `OVERBRAINER_SNAPSHOT`: once it exists, every rank saves
  a checkpoint at the end of the current step and stops, and `snapshot.json` appears
  beside the request once the checkpoint is on disk. The request is never deleted;
- with `OVERBRAINER_SNAPSHOT_ON_SIGTERM=1`, takes SIGTERM (a preemption) as a request
  with reason `preempted` on every rank (the first SIGTERM only, during training).

It never blocks (the request may be a FIFO), never leaves a cut line that a later
line could join, and writes only lines of the contract, whatever the Trainer or
another callback puts in the state and the logs. A fault (an unset variable, an
unwritable or vanished folder, a full disk) is logged once and never stops the training.

A run folder is written by several hands (this plugin, the job's shell, the
orchestrator, people), so the plugin follows no link planted in it:

- the folders of `OVERBRAINER_METRICS` and `OVERBRAINER_SNAPSHOT` are resolved once,
  when the training begins (a run folder reached through a link set up beforehand
  works); their last component is never followed (`O_NOFOLLOW`), then or later. The
  metrics file is appended to only when it is a regular file, checked on the open
  descriptor (`fstat`): a link or any other kind of file in its place, whenever it
  appears, is one warning and no line written there. Name the real file in the
  variable rather than a link to it;
- the request's presence, whatever it is, is the request; its reason is read only from
  a regular file opened without following a link (a link to a token is not read: the
  reason is `null`, with one warning);
- the proof is written to a temporary file created exclusively (`O_EXCL|O_NOFOLLOW`,
  a name with the pid and a random part), then renamed over `snapshot.json`.

Run as a script, `python3 -m overbrainer_metrics stage NAME`, it appends the job's stage
line to `OVERBRAINER_METRICS` with the same writer and rules as the callback's lines
(the command overbrainer renders for the job's shell; it stops before it imports
transformers or torch); it exits 1 with one message on stderr when no line was written.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import math
import operator
import os
import re
import signal
import stat
import sys
import tempfile
import time
from typing import Any

__all__ = [
    "EVAL_PROGRESS_INTERVAL_SECONDS",
    "JOB_STAGES",
    "METRICS_ENV",
    "SNAPSHOT_ENV",
    "SNAPSHOT_FILE",
    "SNAPSHOT_ON_SIGTERM_ENV",
    "OverbrainerMetricsCallback",
    "OverbrainerMetricsPlugin",
    "append_line",
    "stage_line",
]

# The contract's constants. This file travels alone, so it holds its own copies;
# a test of overbrainer-contract proves they equal `schema/contract.json`.
METRICS_ENV = "OVERBRAINER_METRICS"
"""Env variable naming the file the plugin appends to."""
SNAPSHOT_ENV = "OVERBRAINER_SNAPSHOT"
"""Env variable naming the snapshot request the plugin watches for."""
SNAPSHOT_ON_SIGTERM_ENV = "OVERBRAINER_SNAPSHOT_ON_SIGTERM"
"""Env variable: `1` makes SIGTERM a snapshot request with reason `preempted`."""
SNAPSHOT_FILE = "snapshot.json"
"""The proof of a snapshot, written beside the request."""
EVAL_PROGRESS_INTERVAL_SECONDS = 2.0
"""At most one `eval` line per this many seconds."""
JOB_STAGES = ("train", "merge", "export", "compare")
"""The commands of a training job, as their stage lines name them."""

_CHECKPOINT_PREFIX = "checkpoint"  # transformers' PREFIX_CHECKPOINT_DIR
_WORD = re.compile(rb"[A-Za-z0-9_-]{1,64}")
_SPACE = b" \t\r\n"
_PREEMPTED = "preempted"  # the reason of a snapshot taken on SIGTERM
_REQUEST_READ_LIMIT = 64 * 1024  # any word padded with white space fits
_U64_MAX = 2**64 - 1
# The keys a `log` line holds in fields of their own; every other numeric value of a log
# goes into its `scalars`.
_KNOWN = frozenset({"epoch", "loss", "eval_loss", "learning_rate", "grad_norm"})
# Of them, those whose value, when not finite, is also written by its name in `scalars`.
_NAMED_WHEN_NOT_FINITE = frozenset({"loss", "eval_loss", "learning_rate", "grad_norm"})
# The Trainer's final log, after the loop, holds both; with `include_num_input_tokens_seen`
# every training log holds `train_runtime` too, never `train_loss`.
_FINAL_KEYS = ("train_runtime", "train_loss")
# An integer literal this large is read by the reference (serde_json's best-effort integer
# reading) through a product that overflows within an ulp of the largest double, where
# Python's exact conversion does not: such an int is written as its double instead.
_EXACT_INT_LIMIT = 2**1023
_LEFT_OUT = object()  # what `_scalar` answers for a value that is not a number
_LEFT_OUT_KEPT = 256  # distinct (key, type) pairs counted by name; the rest in one count
_LEFT_OUT_SHOWN = 10  # of them named in the one message
_NONBLOCK = os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
# O_NONBLOCK: a FIFO in place of the metrics file fails at once instead of waiting for a reader.
# O_NOFOLLOW: a link in place of the file fails (ELOOP) instead of being written through.
_APPEND = os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | _NONBLOCK
_READ = os.O_RDONLY | os.O_NOFOLLOW | _NONBLOCK
_FULL = frozenset({errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)})
# `.snapshot.json.<pid>.<random>.tmp` (tempfile's random part), and the `<pid>.tmp` of before.
_STRAY_PROOF = re.compile(re.escape(f".{SNAPSHOT_FILE}.") + r"[0-9]+(?:\.[a-z0-9_]+)?\.tmp")
# The decision shared by the ranks (the largest wins): nothing, the request file, a SIGTERM.
_NOTHING, _REQUESTED, _SIGNALLED = 0, 1, 2

log = logging.getLogger("overbrainer_metrics")


# --- the writer: the callback's lines and the job's stage lines ---------------------------


class CutShortError(OSError):
    """A write the disk cut short. `stayed`: a fragment is left at the file's end (another
    writer appended after it, so it could not be taken back)."""

    def __init__(self, written: int, wanted: int, stayed: bool) -> None:
        super().__init__(errno.ENOSPC, f"cut short: {written} of {wanted} bytes (a full disk?)")
        self.written, self.wanted, self.stayed = written, wanted, stayed


def settled(path: str) -> str:
    """`path` with its folders resolved now (links included) and its last component as is:
    what the callback opens for the whole training, whatever is planted later."""
    absolute = os.path.abspath(path)
    return os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))


def append_line(path: str, line: bytes, *, look: bool = True) -> None:
    """Appends `line` (one line, its newline included) to the file at `path`: whole, in one
    `write` on an `O_APPEND` descriptor, or nothing.

    - it never blocks: opened `O_NONBLOCK` (a FIFO without a reader fails at once);
    - it writes only to a regular file reached without following a link as the last
      component (`O_NOFOLLOW`), checked on the descriptor (`fstat`): a FIFO with a
      reader, a device, a socket or a link are refused;
    - with `look`, a newline goes first when the file's last byte is not one (a cut line
      left by a killed writer or by a full disk), so no line is ever joined to another;
    - a write cut short (a full disk) is truncated back to the size before it when
      nothing was appended after it, and raises `CutShortError`.

    Raises `OSError` (with its path) when nothing could be appended.
    """
    try:
        try:
            fd = os.open(path, (os.O_RDWR if look else os.O_WRONLY) | _APPEND, 0o644)
        except PermissionError:
            if not look:
                raise
            look = False  # a file we may write but not read: appended to without a look
            fd = os.open(path, os.O_WRONLY | _APPEND, 0o644)
    except OSError as error:
        raise _refusal(error, path) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.ENXIO, "not a regular file: nothing written to it", path)
        data = line
        if look and info.st_size:
            try:
                if os.pread(fd, 1, info.st_size - 1) != b"\n":
                    data = b"\n" + line
            except OSError:
                data = b"\n" + line
        written = os.write(fd, data)
        if written < len(data):
            raise CutShortError(written, len(data), _take_back(fd, written))
    finally:
        os.close(fd)


def _refusal(error: OSError, path: str) -> OSError:
    """The error of an open that met a link or a FIFO, said as such."""
    if error.errno == errno.ELOOP:
        return OSError(errno.ELOOP, "a symbolic link: not written through", path)
    if error.errno == errno.ENXIO:
        return OSError(
            errno.ENXIO, "not a regular file (a FIFO or a socket): nothing written", path
        )
    return error


def _take_back(fd: int, written: int) -> bool:
    """Truncates the `written` bytes of a short write away; whether a fragment stayed."""
    if written == 0:
        return False
    try:
        end = os.lseek(fd, 0, os.SEEK_CUR)  # O_APPEND: just after what this write added
        if os.fstat(fd).st_size == end:  # nothing appended after it: remove it
            os.ftruncate(fd, end - written)
            return False
    except OSError:
        pass
    return True


def stage_line(name: str, when: float | None = None) -> bytes:
    """The job's stage line: `{"event":"stage","name":NAME,"time":<integer epoch seconds>}`."""
    seconds = int(time.time() if when is None else when)
    return f'{{"event":"stage","name":"{name}","time":{seconds}}}\n'.encode("ascii")


def _main(argv: list[str]) -> int:
    """`stage NAME`: appends the stage line to `$OVERBRAINER_METRICS`; 1 and one line on
    stderr when nothing was appended (the job's shell ignores the status), 2 on misuse."""
    if len(argv) != 2 or argv[0] != "stage" or argv[1] not in JOB_STAGES:
        stages = "|".join(JOB_STAGES)
        print(f"usage: python3 -m overbrainer_metrics stage {{{stages}}}", file=sys.stderr)
        return 2
    name, path = argv[1], os.environ.get(METRICS_ENV)
    if not path:
        print(f"overbrainer_metrics: {METRICS_ENV} is not set: no stage line", file=sys.stderr)
        return 1
    try:
        append_line(path, stage_line(name))
    except CutShortError as error:
        kept = "a fragment stayed" if error.stayed else "nothing written"
        print(
            f"overbrainer_metrics: {path!r}: stage {name}: {error.strerror}; {kept}",
            file=sys.stderr,
        )
        return 1
    except OSError as error:
        why = error.strerror or str(error)
        print(f"overbrainer_metrics: {path!r}: stage {name}: {why}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # the job's shell: stage lines need neither transformers nor torch
    raise SystemExit(_main(sys.argv[1:]))

from transformers import TrainerCallback  # type: ignore[import-not-found, unused-ignore]  # noqa: E402

try:
    import torch  # type: ignore[import-not-found, unused-ignore]
    import torch.distributed as _dist  # type: ignore[import-not-found, unused-ignore]
except Exception:  # pragma: no cover - transformers' Trainer needs torch anyway
    torch = None  # type: ignore[assignment, unused-ignore]
    _dist = None  # type: ignore[assignment, unused-ignore]

try:
    from axolotl.integrations.base import (  # type: ignore[import-not-found, unused-ignore]
        BasePlugin as _PluginBase,
    )
except Exception:  # axolotl absent (or broken): a plain class, usable with transformers alone
    _PluginBase = object


def _number(value: Any) -> float | None:
    """`value` as a finite Python float; `None` when absent, not a number, or not finite."""
    if value is None or isinstance(value, (bool, str, bytes)):
        return None
    try:
        number = float(value)
    except Exception:
        return None
    return number if math.isfinite(number) else None


def _integer(value: Any) -> int | None:
    """`value` as a Python int (ints, numpy and tensor integers); `None` when not an integer."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except Exception:
        return None


def _count(value: Any) -> int | None:
    """`value` as a u64 (0 to 2**64 - 1); `None` when it is not one."""
    number = _integer(value)
    return number if number is not None and 0 <= number <= _U64_MAX else None


def _scalar(value: Any) -> Any:
    """`value` as a scalar of the contract, or `_LEFT_OUT` when it is not a number.

    A finite float as is; an int as is (one beyond the reference's reach as its double,
    or `"Infinity"`/`"-Infinity"` when even that overflows); `None` as `null`; a float
    that is not finite as `"NaN"`, `"Infinity"` or `"-Infinity"`. numpy scalars and
    one-element arrays or tensors count by their `.item()`; anything else with
    `__index__` or `__float__` by its value. Left out: bools (numpy's and torch's too),
    strings, bytes, containers, arrays of more or fewer than one element, complex numbers.
    """
    kind = type(value)
    if kind is float:  # the Trainer's usual value: checked first
        return value if value - value == 0.0 else _not_finite(value)
    if kind is int:
        return _whole(value)
    if value is None:
        return None
    if isinstance(value, (bool, str, bytes, bytearray)):
        return _LEFT_OUT
    try:
        if isinstance(value, float):  # numpy's float64, or another float subclass
            return _scalar(float(value))
        if isinstance(value, int):  # an IntEnum, or another int subclass
            return _whole(int(value))
        if hasattr(value, "dtype") and callable(getattr(value, "item", None)):
            # numpy and torch: `.item()` gives the one element as a Python number and
            # raises for more or fewer; a bool (numpy's or torch's) is left out
            plain = value.item()
            return _scalar(plain) if type(plain) in (float, int) else _LEFT_OUT
        if hasattr(kind, "__index__"):
            return _whole(operator.index(value))
        if hasattr(kind, "__float__"):  # Decimal, Fraction...
            try:
                number = float(value)
            except OverflowError:
                return "Infinity" if value > 0 else "-Infinity"
            return number if number - number == 0.0 else _not_finite(number)
    except Exception:  # whatever its methods raise, a value that cannot be read is left out
        return _LEFT_OUT
    return _LEFT_OUT


def _not_finite(number: float) -> str:
    """The contract's name of a float that is not finite."""
    if number != number:  # NaN is the one float unequal to itself
        return "NaN"
    return "Infinity" if number > 0 else "-Infinity"


def _whole(number: int) -> int | float | str:
    """An int as the line holds it: as is below 2**1023 in magnitude; beyond, its double
    (what the reference reads of it anyway), or the infinity it overflows to."""
    if -_EXACT_INT_LIMIT < number < _EXACT_INT_LIMIT:
        return number
    try:
        return float(number)
    except OverflowError:
        return "Infinity" if number > 0 else "-Infinity"


def _kind(value: Any) -> str:
    """What a left-out value is, for the message that counts them: its type, and for an
    array or a tensor its number of elements (or, of one element, its dtype)."""
    kind = type(value)
    module = getattr(kind, "__module__", None)
    name = kind.__qualname__ if module in (None, "builtins") else f"{module}.{kind.__qualname__}"
    try:
        if not hasattr(value, "dtype"):
            return name
        numel = getattr(value, "numel", None)  # torch's; numpy's `size` is an int
        count = numel() if callable(numel) else value.size
        if type(count) is int and count != 1:
            return f"{name} of {count} elements"
        dtype = str(value.dtype)
        return name if dtype in name else f"{name} ({dtype})"
    except Exception:
        return name


def _reason(content: bytes) -> str | None:
    """The request's one word, without its white space; `None` when empty or not one word."""
    word = content.strip(_SPACE)
    if not word:
        return None
    if _WORD.fullmatch(word) is None:
        log.warning(
            "overbrainer_metrics: the snapshot request is not one word"
            " (1 to 64 of A-Z a-z 0-9 _ -); taking the snapshot with no reason"
        )
        return None
    return word.decode("ascii")


class OverbrainerMetricsCallback(TrainerCallback):  # type: ignore[misc, unused-ignore]
    """The Trainer callback: writes the metrics lines and takes requested snapshots."""

    def __init__(self) -> None:
        """A callback that does nothing until the training begins."""
        super().__init__()
        self._writer = False  # the world's process zero: the only one that writes
        self._metrics: str | None = None
        self._request: str | None = None
        self._distributed = False
        self._flag: Any = None  # the shared decision, a one-element tensor
        self._warned: set[str] = set()
        self._pending: int | None = None  # step of a snapshot taken, until its proof
        self._taken = False  # a snapshot was taken in this training
        self._reason: str | None = None
        self._cut = False  # the metrics file may end in a cut line: look before writing
        self._armed = False  # our SIGTERM handler is installed
        self._previous: Any = None  # the SIGTERM handler before ours
        self._signalled = False  # a SIGTERM came during the training
        self._eval_step = 0
        self._eval_total: int | None = None
        self._eval_last = -math.inf
        self._summary: dict[str, Any] | None = None  # the final log's values, for `end`
        self._left: dict[tuple[str, str], int] = {}  # values left out, by (key, what)
        self._left_values = 0  # every value left out, those past `_LEFT_OUT_KEPT` pairs too

    # --- faults -------------------------------------------------------------

    def _warn(self, kind: str, message: str, *args: object) -> None:
        """Logs `message` the first time a fault of `kind` happens; later ones are silent."""
        if kind not in self._warned:
            self._warned.add(kind)
            log.warning("overbrainer_metrics: " + message, *args)

    # --- writing --------------------------------------------------------------

    def _emit(self, line: dict[str, Any]) -> None:
        """Appends `line` to the metrics file as one strict, compact JSON line in one write
        (`append_line`: a regular file only, reached without a link, never blocking).

        A write cut short (a full disk) leaves no fragment that a later line could join:
        the fragment is truncated away when nothing else was appended after it, and
        otherwise the next line starts on a line of its own.
        """
        path = self._metrics
        if path is None:
            return
        try:
            data = (json.dumps(line, separators=(",", ":"), allow_nan=False) + "\n").encode()
        except Exception as error:  # never a line outside the contract
            self._warn("encode", "a metrics line could not be encoded (%s); skipped", error)
            return
        try:
            append_line(path, data, look=self._cut)
            self._cut = False
        except CutShortError as error:
            self._warn(
                "full",
                "a metrics line was cut short (%d of %d bytes: a full disk?); training goes on",
                error.written,
                error.wanted,
            )
            self._cut = self._cut or error.stayed  # the next line looks at how the file ends
        except OSError as error:
            self._write_failed(path, error)

    def _write_failed(self, path: str, error: OSError) -> None:
        """One warning per kind of failure; a full disk is one kind however it shows."""
        kind = "full" if error.errno in _FULL else f"write-{error.errno}"
        self._warn(kind, "cannot write to %s (%s); training goes on", path, error.strerror or error)

    def _step(self, value: Any) -> int:
        """The step to write: a u64 always (`step` is required); an odd one is one warning."""
        step = _count(value)
        if step is not None:
            return step
        number = _integer(value)
        self._warn("step", "the Trainer's step %r is not a u64; written as the nearest", value)
        return _U64_MAX if number is not None and number > _U64_MAX else 0

    # --- the Trainer's events ---------------------------------------------------

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
        """Reads the settings, prepares the shared decision and writes `begin`."""
        try:
            self._setup(args, state)
        except Exception as error:
            self._warn("setup", "cannot set up (%s); training goes on", error)
        self._arm()
        if self._writer:
            self._emit({"event": "begin", "time": time.time(), "max_steps": _steps(state)})

    def _setup(self, args: Any, state: Any) -> None:
        """Which process writes, which files, and whether the decision must be shared."""
        self._writer = bool(getattr(state, "is_world_process_zero", True))
        self._pending = None
        self._taken = self._signalled = False
        self._eval_step, self._eval_total, self._eval_last = 0, None, -math.inf
        self._summary, self._left, self._left_values = None, {}, 0
        self._distributed = False
        if _dist is not None and _dist.is_available() and _dist.is_initialized():
            self._distributed = _dist.get_world_size() > 1
        if self._distributed:
            device = "cpu"
            if _dist.get_backend() != "gloo":
                device = getattr(args, "device", None) or "cpu"
            self._flag = torch.zeros(1, dtype=torch.int32, device=device)
        if not self._writer:
            return
        # The folders are resolved here, once; no link met later is followed (see above).
        metrics = os.environ.get(METRICS_ENV) or None
        self._metrics = None if metrics is None else settled(metrics)
        if self._metrics is None:
            self._warn("env-metrics", "%s is not set: no metrics are written", METRICS_ENV)
        self._cut = True  # the first line looks at how the file ends
        request = os.environ.get(SNAPSHOT_ENV) or None
        self._request = None if request is None else settled(request)
        if self._request is None:
            self._warn("env-snapshot", "%s is not set: no snapshot can be requested", SNAPSHOT_ENV)
        else:
            self._remove_stray_proofs()

    def _remove_stray_proofs(self) -> None:
        """Removes the temporary proofs a killed run left (this plugin's own name pattern only)."""
        assert self._request is not None
        folder = os.path.dirname(os.path.abspath(self._request))
        try:
            with os.scandir(folder) as entries:
                stray = [e.path for e in entries if _STRAY_PROOF.fullmatch(e.name)]
            for path in stray:
                os.unlink(path)
                log.info("overbrainer_metrics: removed %s, left by a run that was killed", path)
        except OSError as error:
            self._warn("stray", "cannot remove a stray temporary proof (%s)", error)

    # --- SIGTERM (opt-in) ---------------------------------------------------------

    def _arm(self) -> None:
        """With `OVERBRAINER_SNAPSHOT_ON_SIGTERM=1`, the first SIGTERM of the training
        becomes a snapshot request; every rank installs the handler."""
        value = os.environ.get(SNAPSHOT_ON_SIGTERM_ENV, "").strip()
        if value not in ("", "0", "1"):
            name = SNAPSHOT_ON_SIGTERM_ENV
            self._warn("env-sigterm", "%s=%r is ignored (set it to 1)", name, value)
        if value != "1" or self._armed:
            return
        try:
            self._previous = signal.signal(signal.SIGTERM, self._on_sigterm)
            self._armed = True
        except Exception as error:  # not the main thread, or no signals here
            self._warn("sigterm", "cannot take SIGTERM as a snapshot request (%s)", error)

    def _on_sigterm(self, signum: int, frame: Any) -> None:  # noqa: ARG002
        """The first SIGTERM: a snapshot at the end of this step. A second one: what was before."""
        self._signalled = True
        self._disarm()

    def _disarm(self) -> None:
        """Gives SIGTERM back to the handler that was there before ours."""
        if not self._armed:
            return
        self._armed = False
        previous = signal.SIG_DFL if self._previous is None else self._previous
        with contextlib.suppress(Exception):
            if signal.getsignal(signal.SIGTERM) == self._on_sigterm:
                signal.signal(signal.SIGTERM, previous)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:  # noqa: ARG002
        """Once the request exists: saves a checkpoint at the end of this step and stops.

        The hot path: one existence check on rank 0 (whatever the file is: it is never
        opened here), and the decision shared with every rank when distributed, so that
        all of them save and stop on the same step; a SIGTERM on any rank counts.
        """
        wanted = _NOTHING
        if self._pending is None:
            if self._signalled:
                wanted = _SIGNALLED
            elif self._request is not None and os.path.lexists(self._request):
                wanted = _REQUESTED
        if self._distributed:
            wanted = self._share(wanted)
        if wanted:
            self._take(args, state, control, wanted)
        return control

    def _share(self, wanted: int) -> int:
        """The largest decision of all ranks, the same on every rank."""
        try:
            flag = self._flag
            flag.fill_(wanted)
            _dist.all_reduce(flag, op=_dist.ReduceOp.MAX)
            return int(flag.item())
        except Exception as error:
            self._warn("share", "cannot share the snapshot decision (%s)", error)
            return wanted

    def _take(self, args: Any, state: Any, control: Any, wanted: int) -> None:
        """Asks the Trainer to save now and stop, and reads the reason on rank 0."""
        strategy = getattr(args, "save_strategy", None)
        if getattr(strategy, "value", strategy) == "best" and control.should_evaluate:
            # With save_strategy "best", an evaluation this step may cancel the save:
            # every rank sees the same, so every rank waits for the next step.
            return
        self._pending = self._step(state.global_step)
        self._taken = True
        control.should_save = True
        control.should_training_stop = True
        if self._writer and self._request is not None:
            self._reason = _PREEMPTED if wanted == _SIGNALLED else self._read_reason()
            log.info(
                "overbrainer_metrics: snapshot requested (%s), saving at step %d",
                "SIGTERM" if wanted == _SIGNALLED else "request",
                self._pending,
            )

    def _read_reason(self) -> str | None:
        """The request's word: read whole from a regular file only, without blocking and
        without following a link (a link's presence is the request; what it points to,
        perhaps a secret, is never read)."""
        assert self._request is not None
        try:
            mode = os.lstat(self._request).st_mode
            if not stat.S_ISLNK(mode) and not stat.S_ISREG(mode):
                return _no_reason("is not a regular file")
            fd = os.open(self._request, _READ)  # ELOOP when a link, even one swapped in now
        except OSError as error:
            if error.errno == errno.ELOOP:
                return _no_reason("is a symbolic link: it was not read")
            log.warning("overbrainer_metrics: cannot read the snapshot request (%s)", error)
            return None
        try:
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return _no_reason("is not a regular file")
                content = b""
                while len(content) <= _REQUEST_READ_LIMIT:
                    chunk = os.read(fd, _REQUEST_READ_LIMIT + 1 - len(content))
                    if not chunk:
                        break
                    content += chunk
            finally:
                os.close(fd)
        except Exception as error:
            log.warning("overbrainer_metrics: cannot read the snapshot request (%s)", error)
            return None
        if len(content) > _REQUEST_READ_LIMIT:
            log.warning(
                "overbrainer_metrics: the snapshot request is longer than %d bytes;"
                " taking the snapshot with no reason",
                _REQUEST_READ_LIMIT,
            )
            return None
        return _reason(content)

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
        """Once the requested checkpoint is on disk: writes `snapshot.json` atomically."""
        if self._pending is None:
            return
        self._pending = None
        if not self._writer or self._request is None:
            return
        try:
            self._prove(args, state)
        except Exception as error:
            log.error("overbrainer_metrics: cannot write the snapshot proof (%s)", error)

    def _prove(self, args: Any, state: Any) -> None:
        """Writes the proof beside the request: temporary file, then rename."""
        assert self._request is not None
        step = self._step(state.global_step)
        checkpoint = os.path.abspath(
            os.path.join(str(args.output_dir), f"{_CHECKPOINT_PREFIX}-{step}")
        )
        if not os.path.isdir(checkpoint):
            log.error("overbrainer_metrics: the checkpoint %s is not on disk: no proof", checkpoint)
            return
        folder = os.path.dirname(os.path.abspath(self._request))
        try:
            relative = os.path.relpath(checkpoint, folder)
        except ValueError:  # another drive
            relative = checkpoint
        proof = {
            "checkpoint": relative.replace(os.sep, "/"),
            "step": step,
            "time": time.time(),
            "reason": self._reason,
        }
        data = json.dumps(proof, separators=(",", ":"), allow_nan=False).encode() + b"\n"
        target = os.path.join(folder, SNAPSHOT_FILE)
        # Created exclusively (O_EXCL|O_NOFOLLOW) under a name no one can plant ahead: the pid
        # and a random part, `.snapshot.json.<pid>.<random>.tmp`, which the stray cleanup knows.
        fd, temporary = tempfile.mkstemp(
            prefix=f".{SNAPSHOT_FILE}.{os.getpid()}.", suffix=".tmp", dir=folder
        )
        try:
            try:
                os.fchmod(fd, 0o644)  # the proof is for others to read (mkstemp gives 0600)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        log.info("overbrainer_metrics: snapshot at step %d: %s", step, proof["checkpoint"])

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:  # noqa: ARG002
        """Writes a `log` line: the step and the known values, `null` where absent, and the
        log's other numeric values in `scalars` (left out when there are none). The final
        log after the loop (`train_runtime`, `train_loss`) keeps its line, without
        `scalars`: its values wait for the `end` line's `summary`."""
        if not self._writer or self._metrics is None:
            return
        get = logs.get if isinstance(logs, dict) else {}.get
        epoch = get("epoch")
        line = {
            "event": "log",
            "time": time.time(),
            "step": self._step(state.global_step),
            "epoch": _number(getattr(state, "epoch", None) if epoch is None else epoch),
            "max_steps": _steps(state),
            "loss": _number(get("loss")),
            "eval_loss": _number(get("eval_loss")),
            "learning_rate": _number(get("learning_rate")),
            "grad_norm": _number(get("grad_norm")),
        }
        if isinstance(logs, dict):
            scalars = self._scalars(logs)
            if _FINAL_KEYS[0] in logs and _FINAL_KEYS[1] in logs:
                self._summary = scalars or None
            elif scalars:
                line["scalars"] = scalars
        self._emit(line)

    def _scalars(self, logs: dict[Any, Any]) -> dict[str, Any]:
        """The log's values but the known ones, each as `_scalar` writes it, in the log's
        order; those that are not numbers (and keys that are not strings) are counted. A
        known `loss`, `eval_loss`, `learning_rate` or `grad_norm` is there only when it is
        not finite, by its name (its field holds `null`)."""
        scalars: dict[str, Any] = {}
        try:
            for key, value in logs.items():
                if type(key) is not str:
                    if not isinstance(key, str):
                        self._leave_out(key, f"a key of type {_kind(key)}")
                        continue
                    key = str.__str__(key)  # a str subclass, as a plain str
                if key in _KNOWN:
                    if key in _NAMED_WHEN_NOT_FINITE:
                        try:
                            named = _scalar(value)
                        except Exception:  # a value that cannot even be looked at
                            named = _LEFT_OUT
                        if isinstance(named, str):  # "NaN", "Infinity" or "-Infinity"
                            scalars[key] = named
                    continue
                try:
                    scalar = _scalar(value)
                except Exception:  # a value that cannot even be looked at
                    scalar = _LEFT_OUT
                if scalar is _LEFT_OUT:
                    self._leave_out(key, _kind(value))
                else:
                    scalars[key] = scalar
        except Exception as error:  # the dict changed while read (another thread), a key's hash
            self._warn("scalars", "a log's other values could not be read whole (%s)", error)
        return scalars

    def _leave_out(self, key: Any, what: str) -> None:
        """Counts a value left out, under its key (shown as `repr` gives it, cut to 64)."""
        self._left_values += 1
        try:
            shown = repr(key)
        except Exception:
            shown = "?"
        if len(shown) > 64:
            shown = shown[:61] + "..."
        entry = (shown, what)
        if entry in self._left:
            self._left[entry] += 1
        elif len(self._left) < _LEFT_OUT_KEPT:
            self._left[entry] = 1

    def _say_left_out(self) -> None:
        """The one message of a run that counts the values left out, by key and type."""
        if not self._left_values:
            return
        entries = list(self._left.items())
        parts = [f"{key} ({what}) x{count}" for (key, what), count in entries[:_LEFT_OUT_SHOWN]]
        if len(entries) > _LEFT_OUT_SHOWN:
            parts.append(f"and {len(entries) - _LEFT_OUT_SHOWN} more")
        unnamed = self._left_values - sum(self._left.values())
        if unnamed:
            parts.append(f"and {unnamed} values of other keys")
        log.warning(
            "overbrainer_metrics: left out %d values that are not numbers: %s",
            self._left_values,
            ", ".join(parts),
        )
        self._left, self._left_values = {}, 0

    def on_prediction_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
        """Counts prediction steps; writes an `eval` line at most every 2 seconds."""
        self._eval_step += 1
        if not self._writer or self._metrics is None:
            return
        if self._eval_step == 1:
            self._eval_total = _length(kwargs.get("eval_dataloader"))
        now = time.monotonic()
        if now - self._eval_last >= EVAL_PROGRESS_INTERVAL_SECONDS:
            self._eval_last = now
            self._emit(
                {
                    "event": "eval",
                    "time": time.time(),
                    "step": self._eval_step,
                    "total": self._eval_total,
                }
            )

    def on_evaluate(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
        """An evaluation ended: the next one counts from 1 again."""
        self._eval_step = 0

    def on_predict(
        self,
        args: Any,  # noqa: ARG002
        state: Any,  # noqa: ARG002
        control: Any,  # noqa: ARG002
        metrics: Any = None,  # noqa: ARG002
        **kwargs: Any,  # noqa: ARG002
    ) -> None:
        """A prediction ended: the next one counts from 1 again."""
        self._eval_step = 0

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
        """Writes `end`, with the final log's values as its `summary`; says in one message
        the values left out of the run's lines, and why a request got no snapshot; SIGTERM
        is given back.

        A SIGTERM that came too late for a snapshot (after the last step's end) is
        delivered again once `end` is written: the process dies as it would have.
        """
        self._disarm()
        if self._writer:
            self._unanswered(state)
        self._pending = None
        if self._writer:
            end: dict[str, Any] = {
                "event": "end",
                "time": time.time(),
                "step": self._step(state.global_step),
            }
            if self._summary:
                end["summary"] = self._summary
            self._summary = None
            self._emit(end)
            self._say_left_out()
        if self._signalled and not self._taken:
            log.warning(
                "overbrainer_metrics: SIGTERM came after the last step ended: no snapshot was"
                " taken; the process ends as SIGTERM says"
            )
            self._signalled = False
            os.kill(os.getpid(), signal.SIGTERM)

    def _unanswered(self, state: Any) -> None:
        """Logs a snapshot whose checkpoint never came, or a request that came too late."""
        if self._pending is not None:
            log.error(
                "overbrainer_metrics: a snapshot was requested at step %d"
                " but no checkpoint was saved",
                self._pending,
            )
        elif not self._taken and self._request is not None and os.path.lexists(self._request):
            log.warning(
                "overbrainer_metrics: no snapshot was taken for %s: it came after the last"
                " step ended (during the last evaluation, or later); the training ended at"
                " step %s",
                self._request,
                getattr(state, "global_step", None),
            )


def _no_reason(what: str) -> str | None:
    """No reason (`None`), and one warning saying why: the request `what`."""
    log.warning(
        "overbrainer_metrics: the snapshot request %s; taking the snapshot with no reason", what
    )
    return None


def _length(loader: Any) -> int | None:
    """The number of batches of an evaluation dataloader, when it has a length."""
    try:
        return _count(len(loader))
    except Exception:  # no dataloader, or no length
        return None


def _steps(state: Any) -> int | None:
    """The run's total steps, when known (a positive int)."""
    steps = _count(getattr(state, "max_steps", None))
    return steps or None


class OverbrainerMetricsPlugin(_PluginBase):  # type: ignore[misc, valid-type, unused-ignore]
    """The Axolotl plugin: adds the callback to the Trainer. Settings come from env variables."""

    def get_input_args(self) -> None:
        """No config keys of its own: Axolotl would drop them."""
        return

    def add_callbacks_pre_trainer(self, cfg: Any, model: Any) -> list[Any]:  # noqa: ARG002
        """The callback that writes the metrics and takes snapshots."""
        return [OverbrainerMetricsCallback()]
