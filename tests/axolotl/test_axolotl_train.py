"""A real `axolotl train` on CPU with the plugin on PYTHONPATH, as overbrainer runs it, and a
snapshot requested mid-run: the metrics validate, the checkpoint and its proof are there."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# The real package, not this folder (which `tests/` on sys.path makes a namespace package).
pytest.importorskip("axolotl.integrations.base")

from overbrainer_contract.plugin.source import PLUGIN_CLASS, PLUGIN_PATH
from plugin_helpers import check_metrics, check_snapshot, run_with_request, tiny_assets

TIMEOUT = 540  # seconds; a run takes ~30 s
MAX_STEPS = 30

CONFIG = f"""\
base_model: ./tiny-llama
model_type: LlamaForCausalLM
tokenizer_type: PreTrainedTokenizerFast
datasets: [{{path: ./data.jsonl, ds_type: json, type: completion}}]
dataset_prepared_path: ./prepared
val_set_size: 0.2
output_dir: ./out
sequence_len: 64
sample_packing: false
micro_batch_size: 2
gradient_accumulation_steps: 1
max_steps: {MAX_STEPS}
num_epochs: 1
optimizer: adamw_torch
lr_scheduler: cosine
learning_rate: 0.001
bf16: false
fp16: false
tf32: false
flash_attention: false
sdp_attention: false
logging_steps: 1
eval_steps: 4
save_strategy: "no"
special_tokens: {{pad_token: "<pad>"}}
plugins: [{PLUGIN_CLASS}, slow_steps.SlowStepsPlugin]
"""

# A second plugin, for the test only: steps of 0.2 s, so that the request lands mid-run.
SLOW_STEPS = """\
import time

from axolotl.integrations.base import BasePlugin
from transformers import TrainerCallback


class SlowSteps(TrainerCallback):
    def on_step_begin(self, args, state, control, **kwargs):
        time.sleep(0.2)


class SlowStepsPlugin(BasePlugin):
    def add_callbacks_pre_trainer(self, cfg, model):
        return [SlowSteps()]
"""


def axolotl_command() -> list[str]:
    script = Path(sys.executable).parent / "axolotl"
    if not script.exists():
        pytest.skip(f"no axolotl command beside {sys.executable}")
    return [str(script)]


def test_axolotl_train_writes_valid_metrics_and_takes_a_snapshot(tmp_path: Path) -> None:
    command = axolotl_command()
    tiny_assets(tmp_path)
    (tmp_path / "cfg.yml").write_text(CONFIG)
    (tmp_path / "extra").mkdir()
    (tmp_path / "extra" / "slow_steps.py").write_text(SLOW_STEPS)
    metrics, request = tmp_path / "metrics.jsonl", tmp_path / "snapshot.request"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(PLUGIN_PATH.parent), str(tmp_path / "extra")]),
        "OVERBRAINER_METRICS": str(metrics),
        "OVERBRAINER_SNAPSHOT": str(request),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "AXOLOTL_DO_NOT_TRACK": "1",
        "WANDB_MODE": "disabled",
        "TOKENIZERS_PARALLELISM": "false",
    }
    env.pop("PYTHONSAFEPATH", None)
    status = run_with_request(
        [*command, "train", "cfg.yml", "--launcher", "python"],
        cwd=tmp_path,
        env=env,
        log=tmp_path / "axolotl.log",
        request=request,
        word="manual\n",
        when=lambda: metrics.exists() and '"step":5,' in metrics.read_text(),
        timeout=TIMEOUT,
    )
    assert status == 0, tail(tmp_path)
    # axolotl 0.19 trains without a plugin it cannot import: the file must be there.
    assert metrics.exists(), f"no metrics: the plugin was not loaded\n{tail(tmp_path)}"
    assert request.exists(), "the run ended before the request was written"

    lines = check_metrics(metrics)
    events = [line["event"] for line in lines]
    assert events[0] == "begin"
    assert lines[0]["max_steps"] == MAX_STEPS
    assert events.count("end") == 1
    end = next(line for line in lines if line["event"] == "end")
    step = end["step"]
    assert 5 <= step < MAX_STEPS, "the training did not stop on the request"
    train_logs = [line for line in lines if line["event"] == "log" and line["loss"] is not None]
    assert [line["step"] for line in train_logs] == list(range(1, step + 1))
    assert any(line["event"] == "log" and line["eval_loss"] is not None for line in lines)
    assert "eval" in events

    proof = check_snapshot(tmp_path / "snapshot.json")
    assert (proof["checkpoint"], proof["step"], proof["reason"]) == (
        f"out/checkpoint-{step}",
        step,
        "manual",
    )
    checkpoint = tmp_path / "out" / f"checkpoint-{step}"
    assert (checkpoint / "trainer_state.json").is_file()
    assert any(checkpoint.glob("*.safetensors")), sorted(p.name for p in checkpoint.iterdir())


def tail(folder: Path) -> str:
    return (folder / "axolotl.log").read_text(errors="replace")[-8000:]
