"""Runs and their files: a run folder, its metrics file, its snapshot files.

- `chunks`: a file's bytes in large reads, for the core's scans (which find the lines);
- `sizes`: sizes as the command line writes them, the words for a line over `--max-line`;
- `follower`: following a growing metrics file (`watch`, `snapshot --wait`);
- `sidefile`: opening a run's files safely (FIFOs, links to devices, huge files);
- `state`: resolving a RUN (a folder, a metrics file, `-`) and what its files say
  (`Run`, `RunState`, `read_request`, `read_snapshot`).

Imports the contract (`..contract`) and the reader (`..reader`), nothing above them.
Nothing is imported here: each command loads only the modules it runs.
"""
