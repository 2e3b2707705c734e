"""A real training with the plugin whose run folder is tampered with while it trains, as any
hand that may write the folder could: `planted_train.py ASSETS RUN OUTSIDE RESULTS`.

- at step 1's log (after the plugin's line): `metrics.jsonl` is moved to `metrics.before`
  and a symlink to `OUTSIDE/metrics-target` is put in its place;
- at step 2's log: `.snapshot.json.<pid>.tmp` (this process's pid: a name that needs no
  guessing) is planted as a symlink to `OUTSIDE/proof-target`, and `snapshot.request`
  as a symlink to `OUTSIDE/token` (a 0600 one-word file);

so the snapshot is taken at step 3's end. `RESULTS/result.json`: the pid, the step the
training ended at, and the names the plugin renamed over `snapshot.json` (`os.replace`
watched). The plugin's log goes to stderr.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import overbrainer_metrics
from plugin_helpers import at_step, build_trainer, slow_callback


def main() -> None:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    assets, run, outside, results = (Path(p) for p in sys.argv[1:5])
    replaced: list[str] = []
    real_replace = os.replace

    def replace(source: Any, target: Any) -> None:
        replaced.append(os.path.basename(os.fspath(source)))
        real_replace(source, target)

    overbrainer_metrics.os.replace = replace

    def swap_metrics(_: Any) -> None:
        os.rename(run / "metrics.jsonl", run / "metrics.before")
        (run / "metrics.jsonl").symlink_to(outside / "metrics-target")

    def plant_proof_and_request(_: Any) -> None:
        (run / f".snapshot.json.{os.getpid()}.tmp").symlink_to(outside / "proof-target")
        (run / "snapshot.request").symlink_to(outside / "token")

    plugin = overbrainer_metrics.OverbrainerMetricsPlugin()
    trainer = build_trainer(
        assets / "tiny-llama",
        assets / "data.jsonl",
        assets / "eval.jsonl",
        run / "out",
        [
            *plugin.add_callbacks_pre_trainer(cfg=None, model=None),
            at_step(1, swap_metrics),
            at_step(2, plant_proof_and_request),
            slow_callback(0.05),
        ],
        max_steps=8,
        eval_strategy="no",
    )
    trainer.train()
    record = {"pid": os.getpid(), "step": trainer.state.global_step, "replaced": replaced}
    (results / "result.json").write_text(json.dumps(record))


if __name__ == "__main__":
    main()
