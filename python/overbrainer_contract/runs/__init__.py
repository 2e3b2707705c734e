"""Runs and their files: a run folder, its metrics file, its snapshot files.

- `discover`: the runs that RUN arguments name (many paths, folders of runs at any depth),
  each with a name of its own (its path below the runs' common folder: `exp1/seed1`);
- `chunks`: a file's bytes in large reads, for the core's scans (which find the lines); a
  `.gz` decompressed, gzip under another name and a byte order mark told;
- `clock`: how long ago the last line came, the ETA counted down or stale, tqdm's text;
- `sizes`: sizes as the command line writes them, the words for a line over `--max-line`;
- `follower`: following a growing metrics file (`watch`, `snapshot --wait`);
- `sidefile`: opening a run's files safely (FIFOs, links to devices, huge files);
- `shown`: a string from a file or a name as a terminal shows it (controls, newlines,
  bidirectional overrides as visible escapes): the one function every text output uses;
- `nonfinite`: NaN and Infinity in a rejected line (what Python's `json.dumps` writes by
  default), the rule that finds them at the reference's error and the hint every command
  may say beside its words;
- `signatures`: what a file's name or first bytes say it is (gzip, a byte order mark):
  below both `chunks` and `sidefile`;
- `state`: resolving a RUN (a folder, a metrics file, `-`) and what its files say
  (`Run`, `read_side`, `read_status`: the run's state folded by the
  core; `iter_lines`, the package's API for one run's lines).

Imports the contract (`..contract`) and the reader (`..reader`), nothing above them.
Nothing is imported here: each command loads only the modules it runs.
"""
