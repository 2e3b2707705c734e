"""Runs: the runs that RUN arguments name, what their files say, told at a time.

- `state`: resolving a RUN (a folder, a metrics file, `-`) and what its files say (`Run`,
  `read_side`, `read_status`: the run's state folded by the core; `iter_lines`, the
  package's API for one run's lines);
- `discover`: the runs that RUN arguments name (many paths, folders of runs at any depth),
  each with a name of its own (its path below the runs' common folder: `exp1/seed1`);
- `status`: one run's status record, its snapshot files included (`read_run`, the package's
  API; `report` for a run already resolved);
- `clock`: how long ago the last line came, the ETA counted down or stale, tqdm's text.

Imports the files (`..files`), the text (`..text`), the reader and the contract, nothing
above them. Nothing is imported here: each command loads only the modules it runs.
"""
