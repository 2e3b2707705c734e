"""overbrainer's Axolotl plugin: training metrics to `metrics.jsonl`, snapshots on request.

This one file is uploaded into every run and found through `PYTHONPATH`; a config
names it `plugins: [overbrainer_metrics.OverbrainerMetricsPlugin]`. It imports only
the standard library, transformers, torch (for the decision shared by all ranks)
and, when it can be imported, axolotl.

What it does, on the world's process zero only:

- appends one strict JSON line per event to the file named by `OVERBRAINER_METRICS`:
  `begin` (training starts), `log` (every Trainer log), `eval` (evaluation progress,
  at most one line every 2 seconds) and `end` (the training loop ended);
- watches the file named by `OVERBRAINER_SNAPSHOT`: once it exists, every rank saves
  a checkpoint at the end of the current step and stops, and `snapshot.json` appears
  beside the request once the checkpoint is on disk. The request is never deleted;
- with `OVERBRAINER_SNAPSHOT_ON_SIGTERM=1`, takes SIGTERM (a preemption) as a request
  with reason `preempted` on every rank (the first SIGTERM only, during training).

It never blocks (the request may be a FIFO), never leaves a cut line that a later
line could join, and writes only lines of the contract, whatever the Trainer or
another callback puts in the state and the logs. A fault (an unset variable, an
unwritable or vanished folder, a full disk) is logged once and never stops the training.
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
import time
from typing import Any

from transformers import TrainerCallback  # type: ignore[import-not-found, unused-ignore]

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

__all__ = [
    "EVAL_PROGRESS_INTERVAL_SECONDS",
    "METRICS_ENV",
    "SNAPSHOT_ENV",
    "SNAPSHOT_FILE",
    "SNAPSHOT_ON_SIGTERM_ENV",
    "OverbrainerMetricsCallback",
    "OverbrainerMetricsPlugin",
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

_CHECKPOINT_PREFIX = "checkpoint"  # transformers' PREFIX_CHECKPOINT_DIR
_WORD = re.compile(rb"[A-Za-z0-9_-]{1,64}")
_SPACE = b" \t\r\n"
_PREEMPTED = "preempted"  # the reason of a snapshot taken on SIGTERM
_REQUEST_READ_LIMIT = 64 * 1024  # any word padded with white space fits
_U64_MAX = 2**64 - 1
_NONBLOCK = os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
# O_NONBLOCK: a FIFO in place of the metrics file fails at once instead of waiting for a reader.
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NONBLOCK
_FULL = frozenset({errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)})
_STRAY_PROOF = re.compile(re.escape(f".{SNAPSHOT_FILE}.") + r"[0-9]+\.tmp")
# The decision shared by the ranks (the largest wins): nothing, the request file, a SIGTERM.
_NOTHING, _REQUESTED, _SIGNALLED = 0, 1, 2

log = logging.getLogger("overbrainer_metrics")


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

    # --- faults -------------------------------------------------------------

    def _warn(self, kind: str, message: str, *args: object) -> None:
        """Logs `message` the first time a fault of `kind` happens; later ones are silent."""
        if kind not in self._warned:
            self._warned.add(kind)
            log.warning("overbrainer_metrics: " + message, *args)

    # --- writing --------------------------------------------------------------

    def _emit(self, line: dict[str, Any]) -> None:
        """Appends `line` to the metrics file as one strict, compact JSON line in one write.

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
        if self._cut:
            data = self._fresh_line(path) + data
        try:
            fd = os.open(path, _APPEND, 0o644)
        except OSError as error:
            self._write_failed(path, error)
            return
        try:
            written = os.write(fd, data)
            if written == len(data):
                self._cut = False
            else:
                self._cut_short(fd, data, written)
        except OSError as error:
            self._write_failed(path, error)
        finally:
            os.close(fd)

    def _write_failed(self, path: str, error: OSError) -> None:
        """One warning per kind of failure; a full disk is one kind however it shows."""
        kind = "full" if error.errno in _FULL else f"write-{error.errno}"
        self._warn(kind, "cannot write to %s (%s); training goes on", path, error)

    def _cut_short(self, fd: int, data: bytes, written: int) -> None:
        """A short write: removes the fragment, or marks that the next line needs a fresh one."""
        self._warn(
            "full",
            "a metrics line was cut short (%d of %d bytes: a full disk?); training goes on",
            written,
            len(data),
        )
        if written == 0:
            return
        try:
            end = os.lseek(fd, 0, os.SEEK_CUR)  # O_APPEND: just after what this write added
            if os.fstat(fd).st_size == end:  # nothing appended after it: remove it
                os.ftruncate(fd, end - written)
                return
        except OSError:
            pass
        self._cut = True  # the next line looks at how the file ends

    @staticmethod
    def _fresh_line(path: str) -> bytes:
        """`\\n` when the file ends in a cut line (a killed writer, a fragment that stayed)."""
        try:
            fd = os.open(path, os.O_RDONLY | _NONBLOCK)
        except FileNotFoundError:
            return b""
        except OSError:
            return b"\n"
        try:
            size = os.fstat(fd).st_size
            return b"\n" if size and os.pread(fd, 1, size - 1) != b"\n" else b""
        except OSError:
            return b"\n"
        finally:
            os.close(fd)

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
        self._metrics = os.environ.get(METRICS_ENV) or None
        if self._metrics is None:
            self._warn("env-metrics", "%s is not set: no metrics are written", METRICS_ENV)
        self._cut = True  # the first line looks at how the file ends
        self._request = os.environ.get(SNAPSHOT_ENV) or None
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
        """The request's word: read whole from a regular file only, without blocking."""
        assert self._request is not None
        try:
            if not stat.S_ISREG(os.stat(self._request).st_mode):
                log.warning(
                    "overbrainer_metrics: the snapshot request is not a regular file;"
                    " taking the snapshot with no reason"
                )
                return None
            fd = os.open(self._request, os.O_RDONLY | _NONBLOCK)
            try:
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
        temporary = os.path.join(folder, f".{SNAPSHOT_FILE}.{os.getpid()}.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
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
        """Writes a `log` line: the step and the values logged, `null` where absent."""
        if not self._writer or self._metrics is None:
            return
        get = logs.get if isinstance(logs, dict) else {}.get
        epoch = get("epoch")
        self._emit(
            {
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
        )

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
        """Writes `end`; says why a request got no snapshot; SIGTERM is given back.

        A SIGTERM that came too late for a snapshot (after the last step's end) is
        delivered again once `end` is written: the process dies as it would have.
        """
        self._disarm()
        if self._writer:
            self._unanswered(state)
        self._pending = None
        if self._writer:
            self._emit({"event": "end", "time": time.time(), "step": self._step(state.global_step)})
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
