"""Every line the plugin writes is in the contract, whatever the Trainer's state and the logs
hold: a hypothesis property over arbitrary states and log dicts (huge and negative ints,
bools, NaN, strings, numpy scalars, torch tensors...), each line checked by `parse_line`
and by the JSON Schema."""

from __future__ import annotations

import math
import os
import tempfile
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from plugin_helpers import check_metrics, load_plugin  # noqa: E402
from transformers import TrainerControl, TrainerState  # noqa: E402

U64_MAX = 2**64 - 1
OM = load_plugin()


class Loader:
    """An evaluation dataloader whose length is whatever `len()` lets through."""

    def __init__(self, length: Any) -> None:
        self.length = length

    def __len__(self) -> Any:
        return self.length


INTEGERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, U64_MAX, U64_MAX + 1, 2**64 + 5, -1, 2**63, -(2**63)]),
)
NUMPY = st.one_of(
    st.floats(width=16).map(np.float16),
    st.floats(width=32).map(np.float32),
    st.floats().map(np.float64),
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.integers(0, U64_MAX).map(np.uint64),
    st.booleans().map(np.bool_),
)
TENSORS = st.one_of(
    st.floats(width=32).map(torch.tensor),
    st.integers(-(2**63), 2**63 - 1).map(torch.tensor),
    st.booleans().map(torch.tensor),
    st.lists(st.floats(width=32), min_size=0, max_size=3).map(torch.tensor),
    st.floats(width=16).map(lambda f: torch.tensor(f, dtype=torch.bfloat16)),
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    INTEGERS,
    st.integers(min_value=U64_MAX - 2, max_value=2**66),
    st.floats(),
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 5e-324, 1.7976931348623157e308]),
    st.text(max_size=4),
    st.binary(max_size=4),
    st.decimals(),
    st.fractions().map(lambda f: Fraction(f) * 10**400),
    st.complex_numbers(),
    NUMPY,
    TENSORS,
    st.lists(st.integers(), max_size=2),
)
KEYS = st.sampled_from(["loss", "eval_loss", "learning_rate", "grad_norm", "epoch", "ppl"])
LOGS = st.one_of(
    st.dictionaries(st.one_of(KEYS, st.text(max_size=3)), VALUES, max_size=6),
    st.none(),
    st.lists(VALUES, max_size=2),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    global_steps=st.lists(VALUES, min_size=1, max_size=3),
    max_steps=VALUES,
    epoch=VALUES,
    logs=st.lists(LOGS, min_size=1, max_size=3),
    length=VALUES,
)
@example(  # the cases: a step beyond u64, and what a Trainer's logs may hold
    global_steps=[3, 2**64 + 5],
    max_steps=2**64 + 10,
    epoch=np.float32(0.5),
    logs=[{"loss": torch.tensor(2.5), "grad_norm": np.float64("nan"), "learning_rate": True}] * 2,
    length=2**64,
)
@example(
    global_steps=[-3],
    max_steps=-1,
    epoch="0.5",
    logs=[{"loss": 10**400, "eval_loss": Decimal("NaN"), "epoch": torch.tensor([1.0, 2.0])}],
    length=None,
)
def test_every_line_is_in_the_contract(
    global_steps: list[Any], max_steps: Any, epoch: Any, logs: list[Any], length: Any
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        metrics = Path(folder) / "metrics.jsonl"
        env = {
            "OVERBRAINER_METRICS": str(metrics),
            "OVERBRAINER_SNAPSHOT": str(Path(folder) / "snapshot.request"),
        }
        with mock.patch.dict(os.environ, env):
            callback = OM.OverbrainerMetricsCallback()
            args, state, control = mock.Mock(output_dir=folder), TrainerState(), TrainerControl()
            state.max_steps, state.epoch, state.is_world_process_zero = max_steps, epoch, True
            state.global_step = global_steps[0]
            callback.on_train_begin(args, state, control)
            for step, log in zip(global_steps, logs, strict=False):
                state.global_step = step
                callback.on_step_end(args, state, control)
                callback.on_log(args, state, control, logs=log)
                callback.on_prediction_step(args, state, control, eval_dataloader=Loader(length))
            callback.on_train_end(args, state, control)
        lines = check_metrics(metrics)  # parse_line and the schema, line by line
    assert lines[0]["event"] == "begin"
    assert lines[-1]["event"] == "end"
    last = global_steps[-1] if len(logs) >= len(global_steps) else global_steps[len(logs) - 1]
    if isinstance(last, int) and not isinstance(last, bool):
        # an int is written saturated into u64: below 0 as 0, beyond 2**64 - 1 as 2**64 - 1
        assert lines[-1]["step"] == min(max(last, 0), U64_MAX)
