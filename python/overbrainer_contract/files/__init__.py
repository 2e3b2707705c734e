"""A run's files as bytes: opened safely, read in large chunks, followed as they grow, written
atomically. No words for a user here (`text`), no run's meaning (`runs`).

- `signatures`: what a file's name or first bytes say it is (gzip, a byte order mark);
- `sidefile`: opening a run's files safely (FIFOs, links to devices, huge files), the
  metrics file and the small side files (`snapshot.json`, `snapshot.request`) alike;
- `chunks`: a file's bytes in large reads, for the core's scans (which find the lines); a
  `.gz` decompressed, gzip under another name and a byte order mark told;
- `follower`: following a growing metrics file (`watch`, `snapshot --wait`), a file
  rewritten in place told;
- `atomic`: a file created exclusively and put in place whole (`export`, `snapshot`, the
  plugin's copy).

Imports the reader core and the contract, nothing above them.
"""
