"""Serving runs to the viewer page (`overbrainer-contract serve`): bytes, not opinions.

The server hands the page a listing of the runs found (as every command finds them) and
each run file's bytes from an offset; the page reads them with the core in WebAssembly, as
it reads a dropped file, so the server's memory does not grow with the runs' sizes and
nothing of what a line means is computed here.

Read top-down:

- `listing`: the runs found, scanned in a worker thread for the listing alone (a run that
  did not change is not described again); each file reached from the folders given, held
  open, through real folders only, and given an id bound to its device and inode there, so
  nothing but a file found can be read, and a file rotated at its path is another file;
- `watched`: the runs' folders watched by the kernel (watchfiles), each by itself, so that a
  scan looks again only at the runs whose folders it told changed;
- `files`: a file's bytes from an offset, reached again the same way and opened without
  following a link, refused when it is no longer the file the id was given for, handed out
  a chunk at a time as the asker reads them;
- `door`: the connections: closed when they show no token in time, at most as many as the
  process may hold, the token holder's always taken; what is refused said once;
- `app`: the HTTP application (aiohttp): who may ask (the token, the `Host` header), what
  may be asked (GET and HEAD of the page, the listing, a file by id), the page's policy.
"""
