"""Benchmark of parse_line, side by side with orjson, json and python-jsonschema.

Writes a realistic `metrics.jsonl` (default 1M lines: a `log` every step with
loss, learning rate, grad norm and epoch; every 50 steps an evaluation — three
`eval` progress lines and a `log` with eval_loss —; `stage`, `begin`, `end`),
then measures lines per second over the same lines in one run, interleaving the
contenders and keeping each one's best of several rounds, so a noisy machine
hurts them alike. python-jsonschema runs on a sample (it is ~1000x slower).

    nox -s bench                 # 1M lines
    nox -s bench -- --lines 200000
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import jsonschema
import msgspec
import orjson
import referencing
from overbrainer_contract import MetricLine, parse_line
from overbrainer_contract.contract.schemas import load_schema, schema_paths
from workloads import write_realistic_file


def schema_validator() -> Callable[[object], None]:
    resources = []
    for path in schema_paths().values():
        contents = json.loads(path.read_text())
        resources.append((contents["$id"], referencing.Resource.from_contents(contents)))
    registry = referencing.Registry().with_resources(resources)
    validator = jsonschema.Draft202012Validator(load_schema("metrics-line"), registry=registry)
    return validator.validate


def rate(run: Callable[[list[bytes]], None], lines: list[bytes], rounds: int) -> float:
    """Best lines per second of `rounds` runs over `lines`."""
    best = math.inf
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        run(lines)
        best = min(best, time.perf_counter() - start)
    return len(lines) / best


def run_parse_line(lines: list[bytes]) -> None:
    for line in lines:
        parse_line(line)


def run_orjson(lines: list[bytes]) -> None:
    loads = orjson.loads
    for line in lines:
        loads(line)


def run_msgspec(lines: list[bytes]) -> None:
    """The floor: msgspec's typed decode alone, without the checks parity needs."""
    decode = msgspec.json.Decoder(MetricLine).decode
    for line in lines:
        decode(line)


def run_pydantic(lines: list[bytes]) -> None:
    """The other model type datamodel-code-generator offers: pydantic v2, strict."""
    validate = pydantic_validator()
    for line in lines:
        validate(line)


def pydantic_validator() -> Callable[[bytes], object]:
    from typing import Annotated, Literal

    import pydantic

    u64 = Annotated[int, pydantic.Field(ge=0, le=18446744073709551615)]

    class Model(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(strict=True)

    class Begin(Model):
        event: Literal["begin"]
        time: float
        max_steps: u64 | None = None

    class Log(Model):
        event: Literal["log"]
        time: float
        step: u64
        epoch: float | None = None
        max_steps: u64 | None = None
        loss: float | None = None
        eval_loss: float | None = None
        learning_rate: float | None = None
        grad_norm: float | None = None

    class Stage(Model):
        event: Literal["stage"]
        time: float
        name: Literal["train", "merge", "export", "compare"]

    class Eval(Model):
        event: Literal["eval"]
        time: float
        step: u64
        total: u64 | None = None

    class End(Model):
        event: Literal["end"]
        time: float
        step: u64

    union = Annotated[Begin | Log | Stage | Eval | End, pydantic.Field(discriminator="event")]
    return pydantic.TypeAdapter(union).validate_json


def run_json(lines: list[bytes]) -> None:
    loads = json.loads
    for line in lines:
        loads(line)


def streaming_peak(path: Path) -> int:
    """Peak bytes allocated while streaming the file through parse_line."""
    tracemalloc.start()
    with path.open("rb") as handle:
        for line in handle:
            parse_line(line)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--schema-sample", type=int, default=3000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = write_realistic_file(Path(tmp) / "metrics.jsonl", args.lines)
        size = path.stat().st_size
        with path.open("rb") as handle:
            lines = handle.readlines()
        print(f"{len(lines):,} lines, {size / 2**20:.1f} MiB: {path.name}")

        rates: dict[str, float] = {}
        for _ in range(args.rounds):  # interleaved: A B C, A B C, ...
            for name, run in (
                ("parse_line", run_parse_line),
                ("orjson.loads", run_orjson),
                ("json.loads", run_json),
                ("msgspec alone (no parity)", run_msgspec),
                ("pydantic v2 (no parity)", run_pydantic),
            ):
                rates[name] = max(rates.get(name, 0.0), rate(run, lines, 1))
        validate = schema_validator()
        sample = [json.loads(line) for line in lines[: args.schema_sample]]
        start = time.perf_counter()
        for value in sample:
            validate(value)
        rates["jsonschema (sample)"] = len(sample) / (time.perf_counter() - start)
        peak = streaming_peak(path)

    base = rates["parse_line"]
    print(f"\n{'contender':<28}{'lines/s':>14}{'parse_line is':>16}")
    for name, value in rates.items():
        ratio = "" if name == "parse_line" else f"{base / value:.2f}x"
        print(f"{name:<28}{value:>14,.0f}{ratio:>16}")
    print(f"\nparse_line / orjson.loads = {base / rates['orjson.loads']:.2f} (goal >= 1.0)")
    print(f"parse_line / jsonschema  = {base / rates['jsonschema (sample)']:.0f} (goal >= 300)")
    print(
        f"streaming the file through parse_line: peak {peak / 1024:.0f} KiB "
        f"allocated for a {size / 2**20:.0f} MiB file (flat: it does not grow with the file)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
