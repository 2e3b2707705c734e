"""`serve` against the running server: who may ask, what may be asked, what is served.

Each test starts `overbrainer-contract serve --port 0` in its own process on a folder it
writes, reads the address it prints, and sends requests exactly as written (http.client
sends a request target as given: no client-side normalisation of `..` or `%2e`). Each
refusal is read from the answer itself (its status and its words), never inferred from a
timeout. The page served is a stand-in with the viewer's Content-Security-Policy meta: the
real page's behaviour is tested in Chromium (js/viewer/test/serve.test.mjs).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp")

PAGE = (
    '<!doctype html><html><head><meta charset="utf-8">'
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
    "script-src 'sha256-x'; connect-src 'none'\"></head><body>page</body></html>"
)
SECRET = "root:x:0:0:a secret outside the runs\n"
LINE = '{"event":"log","step":%d,"time":1700000000.0,"loss":2.5}\n'


@dataclass
class Server:
    process: subprocess.Popen[str]
    host: str
    port: int
    token: str
    address: str

    def ask(
        self,
        target: str,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        token: bool = True,
        host: str | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        """One request as written: its status, headers and body."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        sent = {"Host": host if host is not None else f"127.0.0.1:{self.port}"}
        if token:
            sent["Authorization"] = f"Bearer {self.token}"
        sent.update(headers or {})
        connection.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
        for name, value in sent.items():
            connection.putheader(name, value)
        connection.endheaders()
        answer = connection.getresponse()
        body = answer.read()
        connection.close()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, body

    def listing(self) -> dict[str, object]:
        status, _, body = self.ask("/api/runs")
        assert status == 200, body
        listed: dict[str, object] = json.loads(body)
        return listed

    def runs(self) -> list[dict[str, object]]:
        runs = self.listing()["runs"]
        assert isinstance(runs, list)
        return runs


def _start(folder: Path | bytes, page: Path, *extra: str, **popen: Any) -> Server:
    """The server on `folder` (`popen`: more of `subprocess.Popen`'s arguments)."""
    command: list[str | bytes] = [sys.executable, "-m", "overbrainer_contract", "serve"]
    command += ["--port", "0", "--page", str(page), *extra, os.fsencode(folder)]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"at (http://(\[[^\]]+\]|[^:/]+):(\d+)/\?token=([\w-]+)) \(Ctrl-C", line)
    if found is None:
        process.kill()
        raise AssertionError(f"serve printed {line!r}; stderr: {process.communicate()[1]!r}")
    host = found.group(2).strip("[]")
    host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    return Server(process, host, int(found.group(3)), found.group(4), found.group(1))


def _stop(server: Server) -> tuple[int, str]:
    server.process.send_signal(signal.SIGINT)
    _, err = server.process.communicate(timeout=30)
    return server.process.returncode, err


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    """A folder of two runs (`a`, `b`), a stand-in page, and a secret outside the runs."""
    runs = tmp_path / "runs"
    for name in ("a", "b"):
        (runs / name).mkdir(parents=True)
        (runs / name / "metrics.jsonl").write_text("".join(LINE % step for step in (1, 2, 3)))
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "secret.txt").write_text(SECRET)
    return runs


@pytest.fixture
def server(sweep: Path) -> Iterator[Server]:
    started = _start(sweep, sweep.parent / "page.html")
    yield started
    if started.process.poll() is None:
        _stop(started)


def _file_id(server: Server, run: str) -> str:
    for entry in server.runs():
        if entry["name"] == run:
            metrics = entry["metrics"]
            assert isinstance(metrics, dict)
            return str(metrics["id"])
    raise AssertionError(f"no run {run}")


def test_the_listing_names_runs_files_and_sizes(server: Server, sweep: Path) -> None:
    runs = server.runs()
    assert [entry["name"] for entry in runs] == ["a", "b"]
    size = (sweep / "a" / "metrics.jsonl").stat().st_size
    metrics = runs[0]["metrics"]
    assert isinstance(metrics, dict)
    assert metrics["name"] == "metrics.jsonl"
    assert metrics["size"] == size
    assert runs[0]["path"] == str(sweep / "a" / "metrics.jsonl")
    assert runs[0]["snapshot"] is None
    assert runs[0]["problem"] is None


def test_a_file_from_an_offset_and_past_its_end(server: Server, sweep: Path) -> None:
    data = (sweep / "a" / "metrics.jsonl").read_bytes()
    file_id = _file_id(server, "a")
    status, headers, body = server.ask(f"/api/files/{file_id}", headers={"Range": "bytes=10-"})
    assert status == 206
    assert body == data[10:]
    assert headers["content-range"] == f"bytes 10-{len(data) - 1}/{len(data)}"
    assert headers["content-type"] == "application/octet-stream"
    status, headers, _ = server.ask(
        f"/api/files/{file_id}", headers={"Range": f"bytes={len(data)}-"}
    )
    assert status == 416
    assert headers["content-range"] == f"bytes */{len(data)}"
    status, _, body = server.ask(
        f"/api/files/{file_id}", method="HEAD", headers={"Range": "bytes=0-"}
    )
    assert status == 206
    assert body == b""


def test_one_answer_holds_at_most_a_block(server: Server, sweep: Path) -> None:
    from overbrainer_contract.serve.files import BLOCK

    big = sweep / "a" / "metrics.jsonl"
    line = (LINE % 7).encode()
    big.write_bytes(line * (BLOCK // len(line) + 100))
    time.sleep(0.6)  # the next listing is a new scan
    file_id = _file_id(server, "a")
    size = big.stat().st_size
    status, headers, body = server.ask(f"/api/files/{file_id}", headers={"Range": "bytes=0-"})
    assert status == 206
    assert len(body) == BLOCK
    assert headers["content-range"] == f"bytes 0-{BLOCK - 1}/{size}"


def _parts(body: bytes) -> list[tuple[dict[str, object], bytes]]:
    """An `/api/parts` answer read as the page reads it: each header line and its bytes."""
    parts = []
    at = 0
    while at < len(body):
        end = body.index(b"\n", at)
        head = json.loads(body[at:end])
        length = int(head.get("length", 0))
        parts.append((head, body[end + 1 : end + 1 + length]))
        at = end + 1 + length
    return parts


def test_several_files_parts_in_one_answer(server: Server, sweep: Path) -> None:
    a, b = _file_id(server, "a"), _file_id(server, "b")
    data = (sweep / "a" / "metrics.jsonl").read_bytes()
    asked = f"/api/parts?at={a}:10&at={b}:0&at={a}:{len(data)}&at=f999999:0"
    status, headers, body = server.ask(asked)
    assert status == 200, body
    assert headers["content-type"] == "application/octet-stream"
    assert _parts(body) == [
        ({"id": a, "kind": "bytes", "size": len(data), "length": len(data) - 10}, data[10:]),
        ({"id": b, "kind": "bytes", "size": len(data), "length": len(data)}, data),
        ({"id": a, "kind": "end", "size": len(data)}, b""),
        ({"id": "f999999", "kind": "gone"}, b""),
    ]
    # removed since the listing: gone, as a file's own answer says it (404)
    (sweep / "b" / "metrics.jsonl").unlink()
    assert _parts(server.ask(f"/api/parts?at={b}:0")[2]) == [({"id": b, "kind": "gone"}, b"")]


def test_the_parts_of_one_answer_hold_at_most_a_block(server: Server, sweep: Path) -> None:
    big = sweep / "a" / "metrics.jsonl"
    body = "".join(LINE % step for step in range(1, 80_000))
    big.write_text(body)  # about 4.8 MiB: more than one block
    a = _file_id(server, "a")
    status, _, answer = server.ask(f"/api/parts?at={a}:0&at={a}:0")
    assert status == 200
    (first, data), (second, rest) = _parts(answer)
    assert first == {"id": a, "kind": "bytes", "size": len(body), "length": 4 << 20}
    assert data == body.encode()[: 4 << 20]
    assert (second, rest) == ({"id": a, "kind": "later"}, b"")


def test_the_listing_says_how_many_files_one_answer_holds(server: Server) -> None:
    status, _, body = server.ask("/api/runs")
    most = json.loads(body)["parts"]
    assert status == 200
    assert isinstance(most, int)
    assert most > 1
    a = _file_id(server, "a")
    status, _, answer = server.ask("/api/parts?" + "&".join([f"at={a}:0"] * most))
    assert status == 200
    assert [head["id"] for head, _ in _parts(answer)] == [a] * most
    status, _, _ = server.ask("/api/parts?" + "&".join([f"at={a}:0"] * (most + 1)))
    assert status == 400


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?at=",
        "?at=f1",
        "?at=f1:-1",
        "?at=f1:1e3",
        "?at=../../secret.txt:0",
        "?at=f1:0&path=/etc/passwd",
        "?at=F1:0",
        "?at=f1:0%00",
        "?" + "&".join(["at=f1:0"] * 65),
    ],
)
def test_parts_asked_otherwise_are_refused(server: Server, query: str) -> None:
    status, _, body = server.ask(f"/api/parts{query}")
    assert status == 400
    assert b"?at=ID:OFFSET" in body
    assert SECRET.encode() not in body


def test_the_token_is_needed_everywhere(server: Server) -> None:
    parts = f"/api/parts?at={_file_id(server, 'a')}:0"
    for target in ("/", "/api/runs", f"/api/files/{_file_id(server, 'a')}", parts):
        status, _, body = server.ask(target, token=False)
        assert (status, body) == (403, b"a token is needed: open the address that serve printed\n")
        wrong = {"Authorization": "Bearer " + "x" * len(server.token)}
        status, _, _ = server.ask(target, token=False, headers=wrong)
        assert status == 403
    status, headers, body = server.ask(f"/?token={server.token}", token=False)
    assert status == 200
    assert b'<meta name="overbrainer-served" content="api/">' in body
    policy = headers["content-security-policy"]
    assert "connect-src 'self'" in policy
    assert "connect-src 'none'" not in policy
    assert "frame-ancestors 'none'" in policy
    assert "script-src 'sha256-x'" in policy
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["cache-control"] == "no-store"


def test_a_foreign_host_is_refused(server: Server) -> None:
    for host in ("attacker.example", f"attacker.example:{server.port}", "127.0.0.1.nip.io", ""):
        status, _, body = server.ask("/api/runs", host=host)
        assert status == 403, host
        assert body == b"this server is not reached by that name (the Host header)\n"
    for host in (f"localhost:{server.port}", f"[::1]:{server.port}", "127.0.0.1"):
        assert server.ask("/api/runs", host=host)[0] == 200, host


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"])
def test_only_get_and_head(server: Server, method: str) -> None:
    for target in ("/", "/api/runs", f"/api/files/{_file_id(server, 'a')}", "/elsewhere"):
        status, headers, body = server.ask(target, method=method)
        assert (status, headers["allow"]) == (405, "GET, HEAD"), (method, target)
        assert body == f"{method} is not served: GET and HEAD only\n".encode()


TRAVERSALS = [
    "/../secret.txt",
    "/../../secret.txt",
    "/%2e%2e/secret.txt",
    "/%2E%2E/%2E%2E/secret.txt",
    "/..%2fsecret.txt",
    "/..%252fsecret.txt",
    "/api/files/../../secret.txt",
    "/api/files/..%2f..%2fsecret.txt",
    "/api/files/%2e%2e%2f%2e%2e%2fsecret.txt",
    "/api/files/f1/../../../secret.txt",
    "/api/files/f1%2f..%2f..%2fsecret.txt",
    "/api/files/%2fetc%2fpasswd",
    "/api/files//etc/passwd",
    "//etc/passwd",
    "/etc/passwd",
    "/api/files/..\\..\\secret.txt",
    "/api/files/f1%00",
    "/api/files/F1",
    "/api/files/f999999",
    "/api/files/",
    "/api/",
    "/api",
    "/runs/a/metrics.jsonl",
    "/a/metrics.jsonl",
    "http://127.0.0.1/../secret.txt",
]


@pytest.mark.parametrize("target", TRAVERSALS)
def test_no_path_is_taken_from_a_request(server: Server, target: str) -> None:
    status, _, body = server.ask(target.replace("f1", _file_id(server, "a")))
    assert status in (400, 404), (target, status)
    assert SECRET.encode() not in body
    assert b'"event"' not in body


def test_symlinks_leading_out_are_not_served(sweep: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    linked = sweep / "linked"
    linked.mkdir()
    (linked / "metrics.jsonl").symlink_to(secret)
    (sweep / "a" / "snapshot.json").symlink_to(secret)
    os.mkfifo(sweep / "b" / "snapshot.request")
    (sweep / "outside").symlink_to(tmp_path, target_is_directory=True)  # not walked
    server = _start(sweep, tmp_path / "page.html")
    try:
        runs = {str(entry["name"]): entry for entry in server.runs()}
        assert sorted(runs) == ["a", "b", "linked"]
        assert runs["linked"]["metrics"] is None
        assert runs["linked"]["problem"] == f"{linked / 'metrics.jsonl'}: a symlink, not read"
        assert runs["a"]["snapshot"] is None
        assert runs["b"]["request"] is None
        # a file listed, then swapped for a symlink to the secret: its id is refused
        file_id = _file_id(server, "b")
        (sweep / "b" / "metrics.jsonl").unlink()
        (sweep / "b" / "metrics.jsonl").symlink_to(secret)
        status, _, body = server.ask(f"/api/files/{file_id}", headers={"Range": "bytes=0-"})
        assert status == 404
        assert SECRET.encode() not in body
        assert body == b"that file is no longer at its path: list the runs again\n"
    finally:
        _stop(server)


def test_a_file_rotated_is_another_file(server: Server, sweep: Path) -> None:
    old = _file_id(server, "a")
    path = sweep / "a" / "metrics.jsonl"
    path.rename(sweep / "a" / "metrics.jsonl.1")
    path.write_text(LINE % 1)
    time.sleep(0.6)
    new = _file_id(server, "a")
    assert new != old
    assert server.ask(f"/api/files/{old}", headers={"Range": "bytes=0-"})[0] == 404
    status, _, body = server.ask(f"/api/files/{new}", headers={"Range": "bytes=0-"})
    assert status == 206
    assert body == (LINE % 1).encode()
    path.unlink()
    time.sleep(0.6)
    (entry,) = [each for each in server.runs() if each["name"] == "a"]
    assert entry["metrics"] is None
    assert entry["problem"] is None


def test_new_runs_appear_and_the_listing_is_cached(server: Server, sweep: Path) -> None:
    status, headers, _ = server.ask("/api/runs")
    etag = headers["etag"]
    assert server.ask("/api/runs", headers={"If-None-Match": etag})[0] == 304
    (sweep / "c").mkdir()
    (sweep / "c" / "metrics.jsonl").write_text(LINE % 1)
    time.sleep(0.6)
    status, headers, body = server.ask("/api/runs", headers={"If-None-Match": etag})
    assert status == 200
    assert headers["etag"] != etag
    assert [entry["name"] for entry in json.loads(body)["runs"]] == ["a", "b", "c"]


def _until_changed(server: Server, target: str, etag: str) -> tuple[dict[str, Any], str]:
    """The answer to `target` once the listing is no longer `etag` (a hang guard only)."""
    for _ in range(300):
        status, headers, body = server.ask(target, headers={"If-None-Match": etag})
        if status == 200:
            return json.loads(body), headers["etag"]
        assert status == 304
        time.sleep(0.1)
    raise AssertionError(f"{target}: the listing never changed")


def test_a_listing_since_an_earlier_one_holds_what_changed(server: Server, sweep: Path) -> None:
    status, headers, body = server.ask("/api/runs")
    first = headers["etag"]
    assert (json.loads(body)["since"], json.loads(body)["removed"]) == (None, [])
    since = f"/api/runs?since={first.strip(chr(34))}"
    with (sweep / "b" / "metrics.jsonl").open("a") as grown:
        grown.write(LINE % 4)
    changed, second = _until_changed(server, since, first)
    # b alone, grown to its size now; nothing removed
    assert changed["since"] == first.strip('"')
    assert [(e["name"], e["metrics"]["size"]) for e in changed["runs"]] == [
        ("b", (sweep / "b" / "metrics.jsonl").stat().st_size)
    ]
    assert changed["removed"] == []
    shutil.rmtree(sweep / "a")
    (sweep / "c").mkdir()
    (sweep / "c" / "metrics.jsonl").write_text(LINE % 1)
    changed, _ = _until_changed(server, f"/api/runs?since={second.strip(chr(34))}", second)
    for _ in range(300):  # the removal and the new run may be told by two scans
        if changed["removed"] and changed["runs"]:
            break
        time.sleep(0.1)
        changed = json.loads(server.ask(f"/api/runs?since={second.strip(chr(34))}")[2])
    assert [entry["name"] for entry in changed["runs"]] == ["c"]
    assert [Path(name).name for name in changed["removed"]] == ["a"]
    # since the first: b and c changed, a removed
    changed = json.loads(server.ask(since)[2])
    assert sorted(entry["name"] for entry in changed["runs"]) == ["b", "c"]
    assert [Path(name).name for name in changed["removed"]] == ["a"]
    # a listing this server never gave, or garbage: every run
    for other in ("000000000000-1", "x", "-" * 5000, "%00", "1-%C2%B2"):
        status, _, body = server.ask(f"/api/runs?since={other}")
        assert status == 200, other
        whole = json.loads(body)
        assert (whole["since"], sorted(e["name"] for e in whole["runs"])) == (None, ["b", "c"])


def test_another_interface_needs_the_token(sweep: Path) -> None:
    server = _start(sweep, sweep.parent / "page.html", "--host", "0.0.0.0")
    try:
        assert server.address.startswith("http://0.0.0.0:")
        assert "token=" in server.address
        status, _, body = server.ask("/api/runs", token=False, host=f"192.0.2.7:{server.port}")
        assert (status, body) == (403, b"a token is needed: open the address that serve printed\n")
        assert server.ask("/api/runs", host=f"192.0.2.7:{server.port}")[0] == 200
        assert server.ask("/api/runs", host=f"{socket.gethostname()}:{server.port}")[0] == 200
        assert server.ask("/api/runs", host="attacker.example")[0] == 403
    finally:
        _stop(server)


def test_ctrl_c_ends_it_cleanly(server: Server) -> None:
    assert server.ask("/api/runs")[0] == 200
    code, err = _stop(server)
    assert code == 0
    assert err.strip().endswith("stopped")


def test_a_port_in_use_is_said(sweep: Path, server: Server) -> None:
    command = [sys.executable, "-m", "overbrainer_contract", "serve", "--port", str(server.port)]
    command += ["--page", str(sweep.parent / "page.html"), str(sweep)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert f"port {server.port} of 127.0.0.1 is in use: --port N, or --port 0" in done.stderr


def test_without_a_page_it_says_how_to_build_one(sweep: Path) -> None:
    missing = sweep.parent / "no-page.html"
    command = [
        sys.executable,
        "-m",
        "overbrainer_contract",
        "serve",
        "--page",
        str(missing),
        str(sweep),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert f"{missing}: no such file or directory" in done.stderr.lower()


def test_a_missing_path_is_refused_and_a_folder_without_runs_yet_is_served(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    missing = tmp_path / "nothing"
    command = [sys.executable, "-m", "overbrainer_contract", "serve", "--page", str(page)]
    done = subprocess.run(
        [*command, str(missing)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert f"{missing}: no such file or folder" in done.stderr
    empty = tmp_path / "sweep"
    empty.mkdir()
    server = _start(empty, page)
    try:
        assert server.runs() == []
        (empty / "run1").mkdir()
        (empty / "run1" / "metrics.jsonl").write_text(LINE % 1)
        time.sleep(0.6)
        assert [entry["name"] for entry in server.runs()] == ["run1"]
    finally:
        _stop(server)


def test_a_side_file_is_served_to_one_byte_past_its_bound(server: Server, sweep: Path) -> None:
    from overbrainer_contract.contract.constants import PROOF_LIMIT

    proof = sweep / "a" / "snapshot.json"
    proof.write_bytes(b" " * (PROOF_LIMIT + 100))
    time.sleep(0.6)
    (entry,) = [each for each in server.runs() if each["name"] == "a"]
    listed = entry["snapshot"]
    assert isinstance(listed, dict)
    assert listed["size"] == PROOF_LIMIT + 100  # its whole size, listed
    status, headers, body = server.ask(f"/api/files/{listed['id']}", headers={"Range": "bytes=0-"})
    assert status == 206
    assert len(body) == PROOF_LIMIT + 1
    assert headers["content-range"] == f"bytes 0-{PROOF_LIMIT}/{PROOF_LIMIT + 1}"
