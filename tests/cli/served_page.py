"""`serve` from an installed wheel serves the viewer page the wheel holds.

Run by `nox -s wheels` (the wheel) and `nox -s clone` (a fresh clone installed) with the fresh
venv's Python: `python served_page.py COMMAND RUN PAGE`, COMMAND the venv's console script,
PAGE the page built for the wheel. It starts
`COMMAND serve --port 0 RUN` without `--page`, asks for the page with the printed token,
and holds the answer to PAGE's bytes as served (marked for the API); then Ctrl-C ends the
server with exit status 0.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

MARK = b'<head>\n<meta name="overbrainer-served" content="api/">'


def main(command: str, run: str, page: Path) -> int:
    server = subprocess.Popen(
        [command, "serve", "--port", "0", run], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    found = re.search(r"at (http://\S+) \(Ctrl-C", line)
    try:
        if found is None:
            print(f"serve printed {line!r}", file=sys.stderr)
            return 1
        with urllib.request.urlopen(found.group(1), timeout=60) as answer:
            body = answer.read()
        expected = page.read_bytes().replace(b"<head>", MARK, 1)
        if body != expected:
            print(f"the page served ({len(body)} bytes) is not {page}", file=sys.stderr)
            return 1
        print(f"serve served {page.name} from the wheel: {len(body):,} bytes")
    finally:
        server.send_signal(signal.SIGINT)
        code = server.wait(timeout=60)
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
