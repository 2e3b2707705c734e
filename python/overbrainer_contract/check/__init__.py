"""The check of a run's files, as `overbrainer-contract check` runs it.

- `checker`: the streaming check, every line as `parse_line` reads it, findings only
  for problems, the file read by the core (`check_stream`, `check_request`,
  `check_snapshot`, `run_files`);
- `reporter`: its output, plain text for people and JSON Lines for machines.

Imports the runs (`..runs`), the reader and the contract, nothing above them.
Nothing is imported here: each command loads only the modules it runs.
"""
