"""One rank of the two-process test: `torchrun --nproc_per_node 2 ddp_train.py ASSETS OUT RESULTS`.

The plugin comes from `PYTHONPATH`, as in a real run; each rank writes what it saw to
`RESULTS/rank-<rank>.json`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import overbrainer_metrics
from plugin_helpers import build_trainer, slow_callback


def main() -> None:
    assets, out, results = (Path(arg) for arg in sys.argv[1:4])
    plugin = overbrainer_metrics.OverbrainerMetricsPlugin()
    trainer = build_trainer(
        assets / "tiny-llama",
        assets / "data.jsonl",
        assets / "eval.jsonl",
        out,
        [*plugin.add_callbacks_pre_trainer(cfg=None, model=None), slow_callback(0.1)],
        max_steps=60,
        eval_steps=10,
        ddp_backend="gloo",
    )
    trainer.train()
    import torch.distributed as dist

    rank = dist.get_rank()
    record = {
        "rank": rank,
        "world_size": dist.get_world_size(),
        "backend": dist.get_backend(),
        "global_step": trainer.state.global_step,
        "is_world_process_zero": trainer.is_world_process_zero(),
        "env_rank": os.environ.get("RANK"),
    }
    (results / f"rank-{rank}.json").write_text(json.dumps(record))
    # Tear the group down before the interpreter does: gloo's threads left running at exit
    # abort the process ("terminate called without an active exception") on a loaded machine.
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
