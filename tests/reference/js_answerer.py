"""The npm package (`js/`, the reader core as WebAssembly) as an answerer over a pipe, as the
reference runner's `frames` mode is: `js/test/answerer.mjs` under Node.

The package is built first (`node js/build.mjs`: the module by Debian's Rust 1.63, the glue by
tsc; `npm ci` before when js/node_modules lacks TypeScript), unless `OVERBRAINER_JS_BUILT` says
a session built it already.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from reference_runner import ROOT

JS = ROOT / "js"
ANSWERER = JS / "test" / "answerer.mjs"


def build() -> None:
    """Build the package (see the module), unless `OVERBRAINER_JS_BUILT` is set."""
    if os.environ.get("OVERBRAINER_JS_BUILT"):
        return
    if not (JS / "node_modules" / "typescript" / "bin" / "tsc").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=JS, check=True, timeout=600)
    subprocess.run(["node", "build.mjs"], cwd=JS, check=True, timeout=600)


class JsAnswerer:
    """A long-lived `answerer.mjs`: a line (str or bytes) or a file in, the package's answer out."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ["node", str(ANSWERER)], cwd=JS, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def _ask(self, header: str, body: bytes) -> Any:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None
        assert stdout is not None
        stdin.write(header.encode("ascii") + b"\n" + body)
        stdin.flush()
        reply = stdout.readline()
        if not reply:
            raise RuntimeError(f"the package's answerer died (exit {self.process.wait()})")
        return json.loads(reply)

    def line(self, line: str | bytes) -> dict[str, Any]:
        """The answer to one line: bytes as a Uint8Array, a str as the JavaScript string it
        is (sent as JSON, so a lone surrogate crosses as itself)."""
        if isinstance(line, bytes):
            answer: dict[str, Any] = self._ask(f"{len(line)} b", line)
        else:
            body = json.dumps(line).encode("ascii")
            answer = self._ask(f"{len(body)} s", body)
        return answer

    def file(self, chunks: list[bytes]) -> list[dict[str, Any]]:
        """The answers of a `Reader` fed `chunks`, then finished."""
        data = b"".join(chunks)
        cuts, at = [], 0
        for chunk in chunks[:-1]:
            at += len(chunk)
            cuts.append(str(at))
        answers: list[dict[str, Any]] = self._ask(f"{len(data)} f {','.join(cuts) or '-'}", data)
        return answers

    def run(self, data: bytes, now: float) -> dict[str, Any]:
        """The npm package's `check` records and `status` (at `now`) of a metrics file's
        bytes, named `-`: `{"check": [...], "status": {...} or {"refused": message}}`."""
        reply: dict[str, Any] = self._ask(f"{len(data)} r {now!r}", data)
        return reply

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=10)
