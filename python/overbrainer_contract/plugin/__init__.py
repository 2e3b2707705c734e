"""The Axolotl plugin and what the package says of it.

- `overbrainer_metrics.py`: the plugin itself, the file an orchestrator uploads alone into a
  run's `plugin/` folder. It imports nothing of this package (the standard library,
  transformers and torch only) and is read as a file, never imported from here;
- `source`: where that file lies and its text (`PLUGIN_PATH`, `METRICS_PLUGIN`), its
  constants, and the shell command of a job's stage line (`stage_command`).

`source` imports the contract (`..contract`) only. Nothing is imported here.
"""
