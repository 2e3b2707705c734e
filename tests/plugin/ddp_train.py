"""One training process, alone or as a rank under torchrun:
`[torchrun --nproc_per_node 2] ddp_train.py ASSETS OUT RESULTS [--max-steps N] [options]`.

The plugin comes from `PYTHONPATH`, as in a real run; each rank writes what it saw to
`RESULTS/rank-<rank>.json` once `train()` returned. `--jit` turns on transformers'
`enable_jit_checkpoint`; `--slow-end` marks `RESULTS/ending` after the last step end and
waits 5 s before the training ends; `--wait-before` marks `RESULTS/built` once the Trainer is built
and waits before training, `--linger` marks `RESULTS/trained` after the training and
waits (a SIGTERM then meets the handler the process has outside the training).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import overbrainer_metrics
from plugin_helpers import build_trainer, slow_callback


def slow_end(marker: Path) -> Any:
    """Marks `marker`, then waits 5 s, at the Trainer's last log: after the last step end,
    before `on_train_end`."""
    from transformers import TrainerCallback

    class SlowEnd(TrainerCallback):  # type: ignore[misc]
        def on_log(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:  # noqa: ARG002
            if "train_runtime" in (kwargs.get("logs") or {}):
                marker.touch()
                time.sleep(5)

    return SlowEnd()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs=3, type=Path)
    parser.add_argument("--max-steps", type=int, default=60)
    parser.add_argument("--jit", action="store_true")
    parser.add_argument("--linger", action="store_true")
    parser.add_argument("--wait-before", action="store_true")
    parser.add_argument("--slow-end", action="store_true")
    options = parser.parse_args()
    assets, out, results = options.paths
    plugin = overbrainer_metrics.OverbrainerMetricsPlugin()
    import torch.distributed as dist

    settings: dict[str, object] = {"ddp_backend": "gloo"} if "LOCAL_RANK" in os.environ else {}
    if options.jit:
        settings["enable_jit_checkpoint"] = True
    trainer = build_trainer(
        assets / "tiny-llama",
        assets / "data.jsonl",
        assets / "eval.jsonl",
        out,
        [
            *plugin.add_callbacks_pre_trainer(cfg=None, model=None),
            slow_callback(0.1),
            *([slow_end(results / "ending")] if options.slow_end else []),
        ],
        max_steps=options.max_steps,
        eval_steps=10,
        **settings,
    )
    if options.wait_before:
        (results / "built").touch()
        time.sleep(120)
    trainer.train()

    distributed = dist.is_available() and dist.is_initialized()
    rank = dist.get_rank() if distributed else 0
    record = {
        "rank": rank,
        "world_size": dist.get_world_size() if distributed else 1,
        "backend": dist.get_backend() if distributed else None,
        "global_step": trainer.state.global_step,
        "is_world_process_zero": trainer.is_world_process_zero(),
        "env_rank": os.environ.get("RANK"),
        "callbacks": [type(c).__name__ for c in trainer.callback_handler.callbacks],
    }
    (results / f"rank-{rank}.json").write_text(json.dumps(record))
    if options.linger:
        (results / "trained").touch()
        time.sleep(120)
    if distributed:
        # Tear the group down before the interpreter does: gloo's threads left running at
        # exit abort the process ("terminate called without an active exception") on a
        # loaded machine. Then leave without the interpreter's teardown: freeing the DDP
        # model destroys the gloo group while holding the GIL, joining a gloo thread that
        # waits for the GIL to free a tensor (a deadlock seen on a loaded machine).
        dist.barrier()
        dist.destroy_process_group()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


if __name__ == "__main__":
    main()
