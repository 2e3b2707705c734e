"""Every scalar a Trainer logs reaches the lines: a log's values beside the known fields in
its `scalars`, the final log's in the `end` line's `summary`; what is not a number is left
out and counted in one message a run. Scripted `on_log` calls for the value rules, and two
real Trainer runs (an evaluation with `compute_metrics`, a callback adding TRL's keys).

Each file is checked line by line by the schema and `parse_line` (`check_metrics`), by
`overbrainer-contract check` as a command, and by the reference runner when
`OVERBRAINER_REFERENCE_RUNNER` names it.
"""

from __future__ import annotations

import enum
import json
import math
import re
import sys
import tempfile
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from plugin_helpers import (  # noqa: E402
    METRICS_LINE,
    begun,
    check_metrics,
    check_with_cli,
    check_with_reference,
    load_plugin,
    plugin_warnings,
    reference_runner,
)
from trained_runs import SUMMARY, Captured, Trained  # noqa: E402
from transformers import TrainerControl, TrainerState  # noqa: E402

KNOWN = ["epoch", "loss", "eval_loss", "learning_rate", "grad_norm"]
LOG_KEYS = ["event", "time", "step", "epoch", "max_steps", *KNOWN[1:]]
F64_MAX = sys.float_info.max
LEFT_OUT = "left out"  # what the one message of a run says first


def test_the_schema_in_use_knows_scalars_and_summary() -> None:
    # The lines below are checked by the contract's own schema, not by one before `scalars`.
    schema: Any = METRICS_LINE.schema
    definitions = schema["$defs"]
    assert definitions["Log"]["properties"]["scalars"] == {
        **definitions["Log"]["properties"]["scalars"],
        "$ref": "#/$defs/Scalars",
    }
    assert definitions["End"]["properties"]["summary"]["$ref"] == "#/$defs/Scalars"


class Color(enum.IntEnum):
    RED = 3


class Broken:
    """A value whose every look raises."""

    dtype = "float32"

    def item(self) -> float:
        raise RuntimeError("a broken value")

    def __float__(self) -> float:
        raise RuntimeError("a broken value")


class BrokenKey:
    """A key that is not a string, whose `repr` raises."""

    def __hash__(self) -> int:
        return 1

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class ChangingLogs(dict):  # type: ignore[type-arg]
    """A log whose items cannot be read (another thread changed it, say)."""

    def items(self) -> Any:
        raise RuntimeError("dictionary changed size during iteration")


# (value, what `scalars` holds for it); each value under the key "x".
KEPT: list[tuple[Any, Any]] = [
    (3, 3),
    (-7, -7),
    (0, 0),
    (2.5, 2.5),
    (-0.0, -0.0),
    (5e-324, 5e-324),
    (F64_MAX, F64_MAX),
    (None, None),
    (math.nan, "NaN"),
    (math.inf, "Infinity"),
    (-math.inf, "-Infinity"),
    (10**30, 10**30),  # beyond u64, still an int
    (-(2**1023) + 1, -(2**1023) + 1),
    (2**1023, 2.0**1023),  # from here the reference reads an int through a product: a double
    (int(F64_MAX), F64_MAX),  # whose integer literal serde_json reads as out of range
    (2**1024, "Infinity"),
    (-(10**400), "-Infinity"),
    (np.float32(0.5), 0.5),
    (np.float16(0.25), 0.25),
    (np.float64(1.5), 1.5),
    (np.float64("nan"), "NaN"),
    (np.float32("-inf"), "-Infinity"),
    (np.int64(7), 7),
    (np.uint64(2**64 - 1), 2**64 - 1),
    (np.array([4]), 4),
    (torch.tensor(2.5), 2.5),
    (torch.tensor([1.5]), 1.5),
    (torch.tensor([[3]]), 3),
    (torch.tensor(0.5, dtype=torch.bfloat16), 0.5),
    (torch.tensor(float("inf")), "Infinity"),
    (torch.tensor(2**62), 2**62),
    (Decimal("0.25"), 0.25),
    (Decimal("NaN"), "NaN"),
    (Decimal("-1e400"), "-Infinity"),
    (Fraction(1, 4), 0.25),
    (Fraction(10**400), "Infinity"),
    (Color.RED, 3),
]
# (value, the type the one message names it by)
LEFT: list[tuple[Any, str]] = [
    (True, "bool"),
    (False, "bool"),
    (np.bool_(True), "numpy.bool"),
    (torch.tensor(True), "torch.Tensor (torch.bool)"),
    ("1.0", "str"),
    (b"1", "bytes"),
    ([1.0], "list"),
    ((1.0,), "tuple"),
    ({"a": 1.0}, "dict"),
    (torch.tensor([1.0, 2.0]), "torch.Tensor of 2 elements"),
    (torch.tensor([]), "torch.Tensor of 0 elements"),
    (np.array([1, 2]), "numpy.ndarray of 2 elements"),
    (complex(1, 2), "complex"),
    (np.complex128(1), "numpy.complex128"),
    (Decimal("sNaN"), "decimal.Decimal"),
    (object(), "object"),
    (Broken(), f"{__name__}.Broken"),
]


def case_id(value: Any) -> str:
    """A case's id: its repr, without an address (the same in every pytest-xdist worker)."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))[:40]


def raw_lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


@pytest.mark.parametrize(("value", "expected"), KEPT, ids=[case_id(v) for v, _ in KEPT])
def test_a_number_is_kept_in_scalars(
    om: ModuleType, run: SimpleNamespace, value: Any, expected: Any
) -> None:
    callback, args, state, control = begun(om)
    callback.on_log(args, state, control, logs={"loss": 1.0, "x": value})
    line = check_metrics(run.metrics)[-1]
    assert line["loss"] == 1.0
    assert line["scalars"] == {"x": expected}
    got = line["scalars"]["x"]
    assert type(got) is type(expected), "an int stays an int, a float a float"
    if isinstance(expected, float):
        assert math.copysign(1.0, got) == math.copysign(1.0, expected)


@pytest.mark.parametrize(("value", "kind"), LEFT, ids=[case_id(v) for v, _ in LEFT])
def test_what_is_not_a_number_is_left_out_and_named(
    om: ModuleType,
    run: SimpleNamespace,
    caplog: pytest.LogCaptureFixture,
    value: Any,
    kind: str,
) -> None:
    callback, args, state, control = begun(om)
    callback.on_log(args, state, control, logs={"loss": 1.0, "x": value, "y": 2})
    callback.on_train_end(args, state, control)
    line = check_metrics(run.metrics)[-2]
    assert (line["loss"], line["scalars"]) == (1.0, {"y": 2})
    assert plugin_warnings(caplog.records) == [
        f"overbrainer_metrics: left out 1 values that are not numbers: 'x' ({kind}) x1"
    ]


def test_every_kind_of_value_is_read_by_the_cli_and_the_reference(
    om: ModuleType, run: SimpleNamespace
) -> None:
    # One run holding every case above, each on a line of its own, then all of them on one.
    callback, args, state, control = begun(om)
    for step, (value, _) in enumerate(KEPT + LEFT, start=1):
        state.global_step = step
        callback.on_log(args, state, control, logs={"loss": 1.0, "x": value})
    values = {f"x{k}": value for k, (value, _) in enumerate(KEPT + LEFT)}
    callback.on_log(args, state, control, logs={"eval_loss": 2.0, **values})
    callback.on_train_end(args, state, control)
    lines = check_metrics(run.metrics)
    assert lines[-2]["scalars"] == {f"x{k}": expected for k, (_, expected) in enumerate(KEPT)}
    check_with_cli(run.metrics)
    runner = reference_runner()
    if runner is None:
        pytest.skip("OVERBRAINER_REFERENCE_RUNNER is not set: the reference part is skipped")
    check_with_reference(runner, run.metrics)


def test_keys_are_kept_as_the_trainer_gave_them_in_its_order(
    om: ModuleType, run: SimpleNamespace, caplog: pytest.LogCaptureFixture
) -> None:
    class Key(str):
        __slots__ = ()

    callback, args, state, control = begun(om)
    logs: dict[Any, Any] = {
        "rewards/chosen": 0.5,
        "loss": 2.0,
        "eval accuracy (top-1)": 0.75,
        1: 3.0,
        "épsilon": 1,
        ("a", "b"): 1.0,
        Key("train/tokens"): 7,
        "": 0.0,
        "grad_norm": 1.25,
        "epoch": 0.5,
        "learning_rate": 1e-4,
        "eval_loss": 3.0,
        BrokenKey(): 1.0,
    }
    callback.on_log(args, state, control, logs=logs)
    callback.on_train_end(args, state, control)
    raw = raw_lines(run.metrics)[1]
    line = check_metrics(run.metrics)[1]
    assert list(line["scalars"]) == [
        "rewards/chosen",
        "eval accuracy (top-1)",
        "épsilon",
        "train/tokens",
        "",
    ]
    assert set(line["scalars"]).isdisjoint(KNOWN), "a known key's finite value is not repeated"
    assert (line["loss"], line["grad_norm"], line["epoch"]) == (2.0, 1.25, 0.5)
    assert (line["learning_rate"], line["eval_loss"]) == (1e-4, 3.0)
    assert list(line) == [*LOG_KEYS, "scalars"]
    assert '"\\u00e9psilon":1' in raw, "ASCII JSON, its escapes exact"
    (message,) = plugin_warnings(caplog.records)
    assert message == (
        "overbrainer_metrics: left out 3 values that are not numbers:"
        " 1 (a key of type int) x1, ('a', 'b') (a key of type tuple) x1,"
        f" ? (a key of type {__name__}.BrokenKey) x1"
    )


def test_the_usual_train_log_is_the_line_it_always_was(
    om: ModuleType, run: SimpleNamespace
) -> None:
    callback, args, state, control = begun(om)
    state.global_step = 3
    logs = {"loss": 2.5, "grad_norm": 1.5, "learning_rate": 0.001, "epoch": 0.75}
    callback.on_log(args, state, control, logs=logs)
    raw = raw_lines(run.metrics)[1]
    line = json.loads(raw)
    expected = {
        "event": "log",
        "time": line["time"],
        "step": 3,
        "epoch": 0.75,
        "max_steps": 4,
        "loss": 2.5,
        "eval_loss": None,
        "learning_rate": 0.001,
        "grad_norm": 1.5,
    }
    assert raw == json.dumps(expected, separators=(",", ":"))


@pytest.mark.parametrize(
    "extra",
    [
        {"ppl": 12.0},
        {"flag": True, "name": "run"},  # left out: no `scalars` at all
        {"rewards/chosen": None, "rewards/margins": math.nan, "num_tokens": 10**30},
    ],
)
def test_the_known_fields_are_what_they_are_without_the_other_values(
    om: ModuleType, run: SimpleNamespace, extra: dict[str, Any]
) -> None:
    known: dict[str, Any] = {
        "loss": np.float32(2.5),
        "grad_norm": math.inf,
        "learning_rate": True,
        "eval_loss": torch.tensor(1.25),
        "epoch": 0.5,
    }
    callback, args, state, control = begun(om)
    callback.on_log(args, state, control, logs=known)
    callback.on_log(args, state, control, logs={**extra, **known})
    alone, beside = check_metrics(run.metrics)[1:]
    # the infinite grad norm, null in its field, is named in scalars (contract 2.2.0): the
    # one known key there; the bool is no number, null alone
    assert alone.pop("scalars") == {"grad_norm": "Infinity"}
    scalars = beside.pop("scalars")
    assert {**beside, "time": alone["time"]} == alone
    assert list(beside) == LOG_KEYS
    assert (alone["loss"], alone["grad_norm"], alone["learning_rate"]) == (2.5, None, None)
    assert set(scalars) == (set(extra) - {"flag", "name"}) | {"grad_norm"}
    assert scalars["grad_norm"] == "Infinity"


def test_the_final_log_is_the_summary_of_the_end_line(om: ModuleType, run: SimpleNamespace) -> None:
    callback, args, state, control = begun(om)
    state.global_step = 4
    # with include_num_input_tokens_seen every training log holds train_runtime: not the final
    tokens = {"loss": 2.0, "num_input_tokens_seen": 512, "train_runtime": 0.5}
    callback.on_log(args, state, control, logs={**tokens, "train_tokens_per_second": 1024.0})
    final = {
        "train_runtime": 1.25,
        "train_samples_per_second": 6.4,
        "train_steps_per_second": 3.2,
        "total_flos": 1234.0,
        "train_loss": 2.25,
        "epoch": 1.0,
        "num_input_tokens_seen": 1024,
    }
    callback.on_log(args, state, control, logs=final)
    callback.on_train_end(args, state, control)
    lines = check_metrics(run.metrics)
    tokens_line, final_line, end = lines[1:]
    assert tokens_line["scalars"] == {
        "num_input_tokens_seen": 512,
        "train_runtime": 0.5,
        "train_tokens_per_second": 1024.0,
    }
    assert "scalars" not in final_line, "the final log's values are the end line's"
    assert list(final_line) == LOG_KEYS
    assert final_line["epoch"] == 1.0
    assert list(end) == ["event", "time", "step", "summary"]
    assert end["summary"] == {k: v for k, v in final.items() if k != "epoch"}
    # A second training with the same callback ends without a final log: no summary.
    callback.on_train_begin(args, state, control)
    callback.on_log(args, state, control, logs={"loss": 1.0})
    callback.on_train_end(args, state, control)
    assert list(check_metrics(run.metrics)[-1]) == ["event", "time", "step"]


def test_the_left_out_values_are_one_message_a_run_bounded(
    om: ModuleType, run: SimpleNamespace, caplog: pytest.LogCaptureFixture
) -> None:
    callback, args, state, control = begun(om)
    for step in range(1, 4):
        state.global_step = step
        logs = {"loss": 1.0, "flag": True, "text": "a", f"list{step}": [step], "ok": step}
        callback.on_log(args, state, control, logs=logs)
    assert not plugin_warnings(caplog.records), "said once, when the training ends"
    callback.on_train_end(args, state, control)
    assert plugin_warnings(caplog.records) == [
        "overbrainer_metrics: left out 9 values that are not numbers: 'flag' (bool) x3,"
        " 'text' (str) x3, 'list1' (list) x1, 'list2' (list) x1, 'list3' (list) x1"
    ]
    lines = check_metrics(run.metrics)
    assert [line["scalars"] for line in lines[1:-1]] == [{"ok": 1}, {"ok": 2}, {"ok": 3}]
    # The next training counts afresh; past 10 keys the message counts the rest, and past
    # 256 pairs of key and type their values only.
    caplog.clear()
    callback.on_train_begin(args, state, control)
    callback.on_log(args, state, control, logs={f"k{n}": "text" for n in range(300)})
    callback.on_log(args, state, control, logs={"long" * 30: b"", "k0": "again"})
    callback.on_train_end(args, state, control)
    (message,) = plugin_warnings(caplog.records)
    shown = ", ".join(["'k0' (str) x2"] + [f"'k{n}' (str) x1" for n in range(1, 10)])
    assert message == (
        f"overbrainer_metrics: left out 302 values that are not numbers: {shown},"
        " and 246 more, and 45 values of other keys"
    )
    callback.on_train_end(args, state, control)  # an end without a training: nothing again
    assert len(plugin_warnings(caplog.records)) == 1
    check_metrics(run.metrics)


def test_a_long_key_is_cut_in_the_message(
    om: ModuleType, run: SimpleNamespace, caplog: pytest.LogCaptureFixture
) -> None:
    callback, args, state, control = begun(om)
    callback.on_log(args, state, control, logs={"k" * 100: "text"})
    callback.on_train_end(args, state, control)
    (message,) = plugin_warnings(caplog.records)
    assert message.endswith(f": '{'k' * 60}... (str) x1")
    assert list(check_metrics(run.metrics)[1]) == LOG_KEYS


def test_a_fault_in_the_values_loses_no_line(
    om: ModuleType, run: SimpleNamespace, caplog: pytest.LogCaptureFixture
) -> None:
    callback, args, state, control = begun(om)
    callback.on_log(args, state, control, logs={"loss": 1.0, "bad": Broken(), "good": 2})
    callback.on_log(args, state, control, logs=ChangingLogs(loss=3.0, other=4.0))
    callback.on_train_end(args, state, control)
    _, first, second, _ = check_metrics(run.metrics)
    assert (first["loss"], first["scalars"]) == (1.0, {"good": 2})
    assert second["loss"] == 3.0
    assert "scalars" not in second
    assert plugin_warnings(caplog.records) == [
        "overbrainer_metrics: a log's other values could not be read whole"
        " (dictionary changed size during iteration)",
        f"overbrainer_metrics: left out 1 values that are not numbers: 'bad' ({__name__}.Broken)"
        " x1",
    ]


def test_only_process_zero_counts_and_says(
    om: ModuleType, run: SimpleNamespace, caplog: pytest.LogCaptureFixture
) -> None:
    callback = om.OverbrainerMetricsCallback()
    args = SimpleNamespace(output_dir="out", save_strategy="no", device="cpu")
    state, control = TrainerState(), TrainerControl()
    state.is_world_process_zero = False
    callback.on_train_begin(args, state, control)
    callback.on_log(args, state, control, logs={"flag": True, "train_runtime": 1.0})
    callback.on_train_end(args, state, control)
    assert not plugin_warnings(caplog.records)
    assert not run.metrics.exists()


# --- any log: a property ------------------------------------------------------------------

SCALAR_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**1100), max_value=2**1100),
    st.sampled_from([2**1023, -(2**1023), int(F64_MAX), 2**1024 - 2**970, 2**1024 - 2**970 - 1]),
    st.floats(),
    st.text(max_size=3),
    st.lists(st.floats(), max_size=2),
    st.floats(width=32).map(np.float32),
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.lists(st.floats(width=32), max_size=2).map(torch.tensor),
    st.decimals(),
    st.fractions(),
)
SCALAR_KEYS = st.one_of(
    st.sampled_from([*KNOWN, "rewards/chosen", "eval_accuracy", "train_runtime"]),
    st.text(max_size=4),
    st.integers(),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs=st.lists(st.dictionaries(SCALAR_KEYS, SCALAR_VALUES, max_size=6), max_size=3))
def test_any_log_gives_lines_of_the_contract_and_counts_what_it_leaves_out(
    logs: list[dict[Any, Any]],
) -> None:
    om = load_plugin()
    with (
        pytest.MonkeyPatch.context() as patch,
        tempfile.TemporaryDirectory() as folder,
        Captured() as records,
    ):
        metrics = Path(folder) / "metrics.jsonl"
        patch.setenv("OVERBRAINER_METRICS", str(metrics))
        patch.setenv("OVERBRAINER_SNAPSHOT", str(Path(folder) / "snapshot.request"))
        callback, args, state, control = begun(om)
        for log in logs:
            callback.on_log(args, state, control, logs=dict(log))
        callback.on_train_end(args, state, control)
        lines = check_metrics(metrics)
        runner = reference_runner()
        if runner is not None:
            check_with_reference(runner, metrics)
    others = 0
    for log, line in zip(logs, lines[1:-1], strict=True):
        candidates = [k for k in log if isinstance(k, str) and k != "epoch"]
        others += len([k for k in log if k not in KNOWN])
        final = "train_runtime" in log and "train_loss" in log
        scalars = line.get("scalars", {})
        assert not final or not scalars
        assert list(scalars) == [k for k in candidates if k in scalars], "the log's order"
        # a known key is there only for a value that was not finite, null in its field
        for key in set(KNOWN) & set(scalars):
            assert (line[key], scalars[key] in ("NaN", "Infinity", "-Infinity")) == (None, True)
        for key in set(KNOWN[1:]) & set(log):
            value = log[key]
            if type(value) is float and not math.isfinite(value) and not final:
                assert key in scalars, f"{key}: {value} not named"
        others -= len(set(scalars) - set(KNOWN))
    messages = plugin_warnings(records)
    if others:
        assert messages[-1].startswith(f"overbrainer_metrics: {LEFT_OUT} {others} values")
    else:
        assert not messages


# --- real Trainer runs --------------------------------------------------------------------


def test_an_evaluation_with_compute_metrics_writes_its_accuracy(evaluated: Trained) -> None:
    _, metrics, warnings = evaluated
    lines = check_metrics(metrics)
    logs = [line for line in lines if line["event"] == "log"]
    evaluations = [line for line in logs if line["eval_loss"] is not None]
    assert [line["step"] for line in evaluations] == [2, 4]
    for line in evaluations:
        scalars = line["scalars"]
        assert "eval_accuracy" in scalars
        assert {"eval_runtime", "eval_samples_per_second", "eval_steps_per_second"} <= set(scalars)
        assert 0.0 <= scalars["eval_accuracy"] <= 1.0
        assert not set(scalars) & set(KNOWN)
    training = [line for line in logs if line["loss"] is not None]
    assert [line["step"] for line in training] == [1, 2, 3, 4]
    assert all(list(line) == LOG_KEYS for line in training), "the usual line, no scalars"
    *_, final, end = lines
    assert list(final) == LOG_KEYS, "the final log's line, without its values"
    assert (end["event"], end["step"]) == ("end", 4)
    assert set(end["summary"]) == SUMMARY
    assert end["summary"]["train_runtime"] > 0
    assert warnings == []


def test_trl_keys_added_by_a_callback_reach_the_lines(rewarded: Trained) -> None:
    trainer, metrics, warnings = rewarded
    names = [type(callback).__name__ for callback in trainer.callback_handler.callbacks]
    assert names.index("TrlRewards") < names.index("OverbrainerMetricsCallback")
    lines = check_metrics(metrics)
    training = [line for line in lines if line["event"] == "log" and line["loss"] is not None]
    assert [line["step"] for line in training] == [1, 2, 3, 4]
    for line in training:
        scalars = line["scalars"]
        rewards = {key: value for key, value in scalars.items() if "/" in key}
        assert rewards == {
            "rewards/chosen": 0.5 + line["step"] / 8,
            "rewards/rejected": None,
            "rewards/margins": "NaN",
            "rewards/accuracies": 0.75,
            "logps/chosen": -12.5,
        }
        assert type(scalars["num_input_tokens_seen"]) is int
        assert scalars["num_input_tokens_seen"] > 0
        assert "train_tokens_per_second" in scalars
        assert "train_runtime" in scalars, "a training log that is not the final one"
    seen = [line["scalars"]["num_input_tokens_seen"] for line in training]
    assert seen == sorted(seen)
    *_, final, end = lines
    assert list(final) == LOG_KEYS
    assert set(end["summary"]) == SUMMARY | {"num_input_tokens_seen"}
    assert end["summary"]["num_input_tokens_seen"] == seen[-1]
    assert warnings == []


@pytest.mark.parametrize("name", ["evaluated", "rewarded"])
def test_the_real_runs_pass_the_cli(name: str, request: pytest.FixtureRequest) -> None:
    _, metrics, _ = request.getfixturevalue(name)
    out = check_with_cli(metrics)
    assert "end 1" in out


@pytest.mark.parametrize("name", ["evaluated", "rewarded"])
def test_the_real_runs_pass_the_reference(name: str, request: pytest.FixtureRequest) -> None:
    runner = reference_runner()
    if runner is None:
        pytest.skip("OVERBRAINER_REFERENCE_RUNNER is not set")
    _, metrics, _ = request.getfixturevalue(name)
    answers = check_with_reference(runner, metrics)
    assert answers[-1]["mark"] == {"kind": "end", "step": 4}
