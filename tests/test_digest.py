"""The core's digest of a run's series for a plot, as the Python binding gives it
(`_core.StatusScan(digest=N).digests(keys)`): each key's points bounded whatever the run's
length, a spike and every non-finite marker kept, exact where the run is shorter than the
buckets. Expected values are reasoned from the lines written here."""

from __future__ import annotations

import json
from typing import Any

from overbrainer_contract import _core


def run(steps: int, spike: int = 0, nan: int = 0, gap: int = 0) -> bytes:
    """A run of `steps` logs: loss 1 + n / steps (50 at `spike`), an `acc` scalar ("NaN" at
    `nan`, null at `gap`)."""
    lines = [{"event": "begin", "time": 0, "max_steps": steps}]
    for step in range(1, steps + 1):
        acc: Any = "NaN" if step == nan else None if step == gap else step / steps
        loss = 50 if step == spike else 1 + step / steps
        lines.append(
            {"event": "log", "time": step, "step": step, "loss": loss, "scalars": {"acc": acc}}
        )
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def digests(
    data: bytes,
    most: int | None,
    keys: list[str] | None = None,
    steps: tuple[int, int] | None = None,
) -> dict[str, Any]:
    scan = _core.StatusScan(digest=most, steps=steps)
    for at in range(0, len(data), 4096):
        scan.feed(data[at : at + 4096])
    scan.finish()
    found: dict[str, Any] = json.loads(scan.digests(keys))
    return found


def test_a_long_run_is_bounded_and_keeps_its_spike_nan_gap_and_ends() -> None:
    found = digests(run(10_000, spike=6_789, nan=4_321, gap=9_000), 16)
    loss, acc = found["loss"], found["acc"]
    # steps 1..10,000 fit 16 buckets from spans of 1,024 steps (10), not of 512 (20)
    assert loss["shift"] == 10
    assert loss["count"] == acc["count"] == 10_000
    assert loss["points"][0] == [1, 1 + 1 / 10_000, 1]
    assert loss["points"][-1] == [10_000, 2, 10_000]
    assert [6_789, 50, 6_789] in loss["points"]
    assert len(loss["points"]) <= 4 * 10
    assert [4_321, "NaN", 4_321] in acc["points"]
    assert [9_000, None, 9_000] in acc["points"]


def test_a_short_run_keeps_every_point_as_written() -> None:
    data = run(20, spike=7, nan=3, gap=5)
    logs = [json.loads(line) for line in data.splitlines() if b'"log"' in line]
    found = digests(data, 64, ["acc", "loss", "absent"])
    assert sorted(found) == ["acc", "loss"]
    # each point its step, its value and its line's time
    assert found["loss"]["points"] == [[log["step"], log["loss"], log["time"]] for log in logs]
    assert found["acc"]["points"] == [
        [log["step"], log["scalars"]["acc"], log["time"]] for log in logs
    ]


def test_without_digest_there_is_none() -> None:
    assert digests(run(5), None) == {}


def test_a_range_of_steps_is_digested_alone_every_point_when_it_fits() -> None:
    data = run(100_000, spike=73_219, nan=73_100, gap=90_000)
    # steps 73,000 to 73,400: 401 steps, one bucket each at 512 buckets
    found = digests(data, 512, steps=(73_000, 73_400))
    inside = b"".join(
        line + b"\n"
        for line in data.splitlines()
        if b'"log"' in line and 73_000 <= json.loads(line)["step"] <= 73_400
    )
    assert found == digests(inside, 512)
    assert found["loss"]["shift"] == 0
    assert [point[0] for point in found["loss"]["points"]] == list(range(73_000, 73_401))
    assert [73_219, 50, 73_219] in found["loss"]["points"]
    assert [73_100, "NaN", 73_100] in found["acc"]["points"]


def test_the_keys_globs_pick_are_digested_alone() -> None:
    data = run(2_000, spike=1_234, nan=500, gap=600)
    every = digests(data, 16)
    for keys, picked in [
        ("loss", ["loss"]),
        ("a*, none", ["acc"]),
        ("", []),
        ("l*,acc", ["acc", "loss"]),
    ]:
        scan = _core.StatusScan(digest=16, keys=keys)
        scan.feed(data[:777])
        scan.feed(data[777:])
        scan.finish()
        found = json.loads(scan.digests(None))
        assert sorted(found) == picked, keys
        assert found == {key: every[key] for key in picked}, keys
