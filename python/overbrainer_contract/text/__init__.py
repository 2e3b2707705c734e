"""Text for a terminal, from data: what every command prints of a file's or a folder's
strings, and the words made of sizes and numbers.

- `shown`: a string from a file or a name as a terminal shows it (controls, newlines,
  bidirectional overrides as visible escapes): the one function every text output uses;
- `sizes`: sizes as the command line writes them and reads them (`--max-line 1MiB`), the
  words for a line over `--max-line`;
- `nonfinite`: the hint said beside the reference's words when a rejected line holds NaN or
  Infinity (what Python's `json.dumps` writes by default).

Imports the reader core alone.
"""
