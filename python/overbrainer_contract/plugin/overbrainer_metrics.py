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
  beside the request once the checkpoint is on disk. The request is never deleted.

A fault (an unset variable, an unwritable or vanished folder, a full disk) is
logged once and never stops the training.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import re
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
    "OverbrainerMetricsCallback",
    "OverbrainerMetricsPlugin",
]

# The contract's constants. This file travels alone, so it holds its own copies;
# a test of overbrainer-contract proves they equal `schema/contract.json`.
METRICS_ENV = "OVERBRAINER_METRICS"
"""Env variable naming the file the plugin appends to."""
SNAPSHOT_ENV = "OVERBRAINER_SNAPSHOT"
"""Env variable naming the snapshot request the plugin watches for."""
SNAPSHOT_FILE = "snapshot.json"
"""The proof of a snapshot, written beside the request."""
EVAL_PROGRESS_INTERVAL_SECONDS = 2.0
"""At most one `eval` line per this many seconds."""

_CHECKPOINT_PREFIX = "checkpoint"  # transformers' PREFIX_CHECKPOINT_DIR
_WORD = re.compile(rb"[A-Za-z0-9_-]{1,64}")
_SPACE = b" \t\r\n"
_REQUEST_READ_LIMIT = 4096
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)

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


def _count(value: Any) -> int | None:
    """`value` as a non-negative int; `None` when it is not one."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return int(value)


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
        self._reason: str | None = None
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
        """Appends `line` to the metrics file as one strict, compact JSON line in one write."""
        path = self._metrics
        if path is None:
            return
        try:
            data = (json.dumps(line, separators=(",", ":"), allow_nan=False) + "\n").encode()
            fd = os.open(path, _APPEND, 0o644)
            try:
                written = os.write(fd, data)
            finally:
                os.close(fd)
            if written != len(data):
                self._warn(
                    "short", "a metrics line was cut short (%d of %d bytes)", written, len(data)
                )
        except Exception as error:
            self._warn("write", "cannot write to %s (%s); training goes on", path, error)

    # --- the Trainer's events ---------------------------------------------------

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
        """Reads the settings, prepares the shared decision and writes `begin`."""
        try:
            self._setup(args, state)
        except Exception as error:
            self._warn("setup", "cannot set up (%s); training goes on", error)
        if self._writer:
            self._emit({"event": "begin", "time": time.time(), "max_steps": _steps(state)})

    def _setup(self, args: Any, state: Any) -> None:
        """Which process writes, which files, and whether the decision must be shared."""
        self._writer = bool(getattr(state, "is_world_process_zero", True))
        self._pending = None
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
        self._request = os.environ.get(SNAPSHOT_ENV) or None
        if self._request is None:
            self._warn("env-snapshot", "%s is not set: no snapshot can be requested", SNAPSHOT_ENV)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:  # noqa: ARG002
        """Once the request exists: saves a checkpoint at the end of this step and stops.

        The hot path: one existence check on rank 0, and the decision shared with
        every rank when distributed, so that all of them save and stop on the same step.
        """
        path = self._request
        wanted = path is not None and self._pending is None and os.path.exists(path)
        if self._distributed:
            wanted = self._share(wanted)
        if wanted:
            self._take(args, state, control)
        return control

    def _share(self, wanted: bool) -> bool:
        """Rank 0's decision, the same on every rank."""
        try:
            flag = self._flag
            flag.fill_(1 if wanted else 0)
            _dist.broadcast(flag, src=0)
            return bool(flag.item())
        except Exception as error:
            self._warn("broadcast", "cannot share the snapshot decision (%s)", error)
            return wanted

    def _take(self, args: Any, state: Any, control: Any) -> None:
        """Asks the Trainer to save now and stop, and reads the reason on rank 0."""
        strategy = getattr(args, "save_strategy", None)
        if getattr(strategy, "value", strategy) == "best" and control.should_evaluate:
            # With save_strategy "best", an evaluation this step may cancel the save:
            # every rank sees the same, so every rank waits for the next step.
            return
        self._pending = int(state.global_step)
        control.should_save = True
        control.should_training_stop = True
        if self._writer and self._request is not None:
            self._reason = None
            try:
                with open(self._request, "rb") as request:
                    self._reason = _reason(request.read(_REQUEST_READ_LIMIT + 1))
            except Exception as error:
                log.warning("overbrainer_metrics: cannot read the snapshot request (%s)", error)
            log.info("overbrainer_metrics: snapshot requested, saving at step %d", self._pending)

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
        step = int(state.global_step)
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
                "step": _count(state.global_step) or 0,
                "epoch": _number(state.epoch if epoch is None else epoch),
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
        """Writes `end`; reports a requested snapshot whose checkpoint never came."""
        if self._pending is not None and self._writer:
            log.error(
                "overbrainer_metrics: a snapshot was requested at step %d"
                " but no checkpoint was saved",
                self._pending,
            )
        self._pending = None
        if self._writer:
            self._emit(
                {"event": "end", "time": time.time(), "step": _count(state.global_step) or 0}
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
