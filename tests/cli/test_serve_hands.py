"""`serve` against the real server, tried as an attacker and as a careless colleague would:
a run folder swapped for a symlink after it was listed, connections that never finish their
request, readers that never read, a scan of many runs, runs removed, side files refused,
malformed requests and names that are not UTF-8.

Each test starts the server as `test_serve` does (its own process, `--port 0`) or, where
the test holds a scan in progress, the same application in this process. Bounds are counts
and sizes reasoned from the code (a chunk size, a number of connections), never a time; a
timeout is a hang guard far beyond what the request takes.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import resource
import select
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from test_serve import LINE, PAGE, SECRET, Server, _start, _stop

pytest.importorskip("aiohttp")

if TYPE_CHECKING:
    from overbrainer_contract.serve.listing import Listing


def _sweep(tmp_path: Path, names: tuple[str, ...] = ("a", "b")) -> Path:
    runs = tmp_path / "runs"
    for name in names:
        (runs / name).mkdir(parents=True)
        (runs / name / "metrics.jsonl").write_text("".join(LINE % step for step in (1, 2, 3)))
    (tmp_path / "page.html").write_text(PAGE)
    return runs


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Server]:
    server = _start(_sweep(tmp_path), tmp_path / "page.html")
    yield server
    if server.process.poll() is None:
        _stop(server)


def _ids(server: Server) -> set[str]:
    """Every file id of the listing."""
    found = set()
    for entry in server.runs():
        for kind in ("metrics", "snapshot", "request"):
            listed = entry[kind]
            if isinstance(listed, dict):
                found.add(str(listed["id"]))
    return found


def _relisted() -> None:
    """Wait out the least time between two scans, so that the next listing is a new scan."""
    from overbrainer_contract.serve.listing import RESCAN_SECONDS

    threading.Event().wait(RESCAN_SECONDS + 0.1)


# -- 1. a file is reached from the served root through real folders only ------------------


def test_a_listed_run_folder_swapped_for_a_symlink_is_not_followed(tmp_path: Path) -> None:
    sweep = _sweep(tmp_path, ("a", "group/b", "c"))
    private = tmp_path / "private"
    (private / "inner").mkdir(parents=True)
    for folder in (private, private / "inner"):
        (folder / "metrics.jsonl").write_text(
            json.dumps({"event": "log", "step": 1, "time": 1.0, "t": SECRET}) + "\n"
        )
        (folder / "metrics.jsonl").chmod(0o600)
    (private / "b").symlink_to(private / "inner", target_is_directory=True)
    server = _start(sweep, tmp_path / "page.html")
    try:
        before = _ids(server)
        old_a = {str(e["metrics"]["id"]) for e in server.runs() if e["name"] == "a"}  # type: ignore[index]
        # the example: the run folder itself, and a folder above a run, swapped
        (sweep / "a").rename(sweep / "a.old")
        (sweep / "a").symlink_to(private, target_is_directory=True)
        (sweep / "group").rename(sweep / "group.old")
        (sweep / "group").symlink_to(private, target_is_directory=True)
        _relisted()
        after = _ids(server)
        runs = server.runs()
        assert [entry["name"] for entry in runs] == ["a.old", "c", "group.old/b"]
        moved = {str(e["metrics"]["id"]) for e in runs if e["name"] != "c"}  # type: ignore[index]
        assert after - before == moved  # the folders renamed; none behind the symlinks
        for file_id in sorted(before | after | old_a) + [f"f{n}" for n in range(1, 40)]:
            status, _, body = server.ask(f"/api/files/{file_id}", headers={"Range": "bytes=0-"})
            assert SECRET.encode() not in body, file_id
            if file_id in old_a:
                assert status == 404  # its path now leads through a symlink
    finally:
        _stop(server)


# -- 2. connections that never finish a request ------------------------------------------


def _few_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


def test_half_requests_do_not_lock_out_the_token_holder(tmp_path: Path) -> None:
    """300 connections sending half a request, to a server that may open 256 files: the
    token holder is answered, and the refusals are not a traceback each."""
    server = _start(_sweep(tmp_path), tmp_path / "page.html", preexec_fn=_few_files)
    held: list[socket.socket] = []
    try:
        for _ in range(300):
            connection = socket.create_connection((server.host, server.port), timeout=10)
            connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no end of headers
            held.append(connection)
        assert [entry["name"] for entry in server.runs()] == ["a", "b"]
    finally:
        for connection in held:
            connection.close()
        code, err = _stop(server)
    assert code == 0
    assert "Traceback" not in err
    assert len(err.splitlines()) <= 5, err[:2000]


def _closed(connection: socket.socket) -> bool:
    """Whether the server closed `connection` (an end, or a reset) without answering."""
    try:
        return connection.recv(100) == b""
    except ConnectionResetError:
        return True


def test_the_door_keeps_the_token_holder_and_closes_the_others(tmp_path: Path) -> None:
    """A door for 3 connections, 0.5 s to show the token: a connection that showed it is
    kept past that time and past 6 more connections opened; those without it are closed."""
    from aiohttp import web
    from overbrainer_contract.serve.app import Guard, make_app
    from overbrainer_contract.serve.door import Door, listen
    from overbrainer_contract.serve.listing import Listing

    listing = Listing([str(_sweep(tmp_path))])
    listing.scan()
    token = "t" * 32
    door = Door(3, header_seconds=0.5)
    app = make_app(listing, Guard(token, "127.0.0.1"), PAGE.encode(), door)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    server = loop.run_until_complete(listen(runner, door, "127.0.0.1", 0))
    port = server.sockets[0].getsockname()[1]
    threading.Thread(target=loop.run_forever, daemon=True).start()
    bearer = {"Host": "127.0.0.1", "Authorization": f"Bearer {token}"}
    holder = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    others: list[socket.socket] = []
    try:
        holder.request("GET", "/api/runs", headers=bearer)
        assert holder.getresponse().read().startswith(b'{"contract"')
        for _ in range(6):
            other = socket.create_connection(("127.0.0.1", port), timeout=20)
            other.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            others.append(other)
        threading.Event().wait(1.5)  # three times the time to show the token
        for other in others:
            assert _closed(other)
        holder.request("GET", "/api/runs", headers=bearer)  # the same connection, still open
        assert holder.getresponse().status == 200
        assert len(door.trusted) == 1
        assert not door.waiting
    finally:
        holder.close()
        for other in others:
            other.close()
        server.close()
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        listing.close()


def test_a_failed_accept_is_said_once(capsys: pytest.CaptureFixture[str]) -> None:
    """What asyncio says when accept fails for want of a file (each time it tries again):
    one line, once, without a traceback."""
    import logging

    from overbrainer_contract.serve.door import say_once

    loop = asyncio.new_event_loop()
    try:
        say_once(loop)
        for _ in range(100):
            loop.call_exception_handler(
                {
                    "message": "socket.accept() out of system resource",
                    "exception": OSError(24, "Too many open files"),
                }
            )
            logging.getLogger("aiohttp.server").error("Error handling request", exc_info=True)
    finally:
        loop.close()
        for name in ("aiohttp", "asyncio"):
            logging.getLogger(name).handlers = []
            logging.getLogger(name).propagate = True
    said = capsys.readouterr().err.splitlines()
    assert said == [
        "serve: socket.accept() out of system resource: OSError: [Errno 24] Too many open files"
        " (said once)",
        "serve: Error handling request (said once)",
    ]


# -- 3. readers that do not read ----------------------------------------------------------


def _rss(pid: int) -> int:
    """The resident memory of process `pid`, in bytes (/proc/PID/status, VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _files_open(pid: int, folder: Path) -> int:
    """How many files under `folder` process `pid` holds open (/proc/PID/fd)."""
    held = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile
            continue
        held += target.startswith(f"{folder.resolve()}/") and Path(target).is_file()
    return held


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
@pytest.mark.parametrize("route", ["files", "parts"])
def test_slow_readers_hold_a_bounded_memory(tmp_path: Path, route: str) -> None:
    from overbrainer_contract.serve.files import BLOCK

    sweep = _sweep(tmp_path)
    line = (LINE % 7).encode()
    (sweep / "a" / "metrics.jsonl").write_bytes(line * (2 * BLOCK // len(line)))
    server = _start(sweep, tmp_path / "page.html")
    readers = 50
    held: list[socket.socket] = []
    try:
        ids = {e["name"]: e["metrics"]["id"] for e in server.runs()}  # type: ignore[index]
        file_id = ids["a"]
        server.ask(f"/api/files/{file_id}", headers={"Range": "bytes=0-"})  # warm up
        before = _rss(server.process.pid)
        # a file's own answer, or that file's part then b's and a's again (the answer is
        # full after a's: they are to be asked again, and never opened)
        target = f"/api/files/{file_id}" if route == "files" else f"/api/parts?at={file_id}:0"
        if route == "parts":
            target += f"&at={ids['b']}:0&at={file_id}:0"
        request = (
            f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {server.token}\r\nRange: bytes=0-\r\n\r\n"
        ).encode()
        for _ in range(readers):
            connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            connection.settimeout(30)
            connection.connect((server.host, server.port))
            connection.sendall(request)
            held.append(connection)
        # until each answer has begun writing a file's bytes: a file's answer opens it before
        # its headers, an answer of parts before the header line of the part
        begun = b"\r\n\r\n" if route == "files" else b'"kind": "bytes"'
        received = dict.fromkeys(held, b"")
        waiting = list(held)
        while waiting:
            readable, _, _ = select.select(waiting, [], [], 60)
            assert readable, "no answer began within 60 s"
            for each in readable:
                received[each] += each.recv(1024)
            waiting = [each for each in waiting if begun not in received[each]]
        during = _rss(server.process.pid)
        # each answer is written as its reader reads: one chunk read from the file and
        # what the transport holds before it waits (64 KiB each), far under 512 KiB
        assert during - before <= readers * (512 << 10) + (16 << 20), (before, during)
        # and holds one file open at most: the one it is writing (an answer may have handed
        # its last bytes to the kernel and closed it meanwhile)
        assert 0 < _files_open(server.process.pid, sweep) <= readers
        for connection in held:
            connection.close()
        held = []
        assert server.ask("/api/runs")[0] == 200
        assert _rss(server.process.pid) <= during + (16 << 20)
    finally:
        for connection in held:
            connection.close()
        _stop(server)


# -- 4. a scan never holds another request ------------------------------------------------


class _Held:
    """A listing whose next scan waits, once `hold` is set, until `release` is."""

    def __init__(self, paths: list[str]) -> None:
        from overbrainer_contract.serve.listing import Listing

        entered = self.entered = threading.Event()
        release = self.release = threading.Event()
        hold = self.hold = threading.Event()

        class Held(Listing):
            def _scan(self) -> None:
                if hold.is_set():
                    entered.set()
                    release.wait(60)
                super()._scan()

        self.listing = Held(paths, rescan=0, idle=0)


def _in_process(listing: object, token: str) -> tuple[int, asyncio.AbstractEventLoop, object]:
    """The application served in this process, on a loop of its own thread."""
    from aiohttp import web
    from overbrainer_contract.serve.app import Guard, make_app

    app = make_app(listing, Guard(token, "127.0.0.1"), PAGE.encode())  # type: ignore[arg-type]
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    threading.Thread(target=loop.run_forever, daemon=True).start()
    return port, loop, runner


def _get(port: int, target: str, headers: dict[str, str]) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    connection.request("GET", target, headers={"Host": "127.0.0.1", **headers})
    answer = connection.getresponse()
    body = answer.read()
    connection.close()
    return answer.status, body


def test_a_scan_in_progress_holds_no_other_request(tmp_path: Path) -> None:
    from aiohttp import web

    sweep = _sweep(tmp_path)
    held = _Held([str(sweep)])
    held.listing.scan()
    token = "t" * 32
    port, loop, runner = _in_process(held.listing, token)
    bearer = {"Authorization": f"Bearer {token}"}
    try:
        status, body = _get(port, "/api/runs", bearer)
        assert status == 200
        file_id = json.loads(body)["runs"][0]["metrics"]["id"]
        held.hold.set()
        listed: list[int] = []
        # more listings asked than the loop's default executor has threads (at most 32)
        listers = [
            threading.Thread(target=lambda: listed.append(_get(port, "/api/runs", bearer)[0]))
            for _ in range(40)
        ]
        for lister in listers:
            lister.start()
        assert held.entered.wait(30)  # a scan is in progress, and stays so
        assert _get(port, "/api/runs", {})[0] == 403
        status, body = _get(port, f"/api/files/{file_id}", {**bearer, "Range": "bytes=0-"})
        assert (status, body) == (206, (sweep / "a" / "metrics.jsonl").read_bytes())
        assert all(lister.is_alive() for lister in listers)  # the scan was held all along
        held.release.set()
        for lister in listers:
            lister.join(30)
        assert listed == [200] * 40
    finally:
        held.release.set()
        assert isinstance(runner, web.AppRunner)
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)


def test_a_rescan_describes_only_the_runs_that_changed(tmp_path: Path) -> None:
    from overbrainer_contract.serve.listing import Listing

    sweep = _sweep(tmp_path, tuple(f"run{n}" for n in range(30)))
    (sweep / "later" / "group").mkdir(parents=True)  # no run below it, yet
    # the folders looked at, not watched (the watched sweep: the test below)
    listing = Listing([str(sweep)], rescan=0, idle=0, watch=False)
    listing.scan()
    assert (listing.described, listing.discovered) == (30, 1)
    body, etag = listing.current()
    # nothing moved: no run described again, no folder walked again
    assert (listing.described, listing.discovered) == (30, 1)
    assert listing.current() == (body, etag)
    with (sweep / "run7" / "metrics.jsonl").open("a") as grown:
        grown.write(LINE % 4)
    assert listing.current()[1] != etag
    assert (listing.described, listing.discovered) == (31, 1)  # a file grown: its run alone
    (sweep / "run9" / "snapshot.request").write_text("eval\n")
    listing.current()
    assert (listing.described, listing.discovered) == (32, 2)  # a file made in a run folder
    (sweep / "later" / "group" / "new").mkdir()
    (sweep / "later" / "group" / "new" / "metrics.jsonl").write_text(LINE % 1)
    names = [entry["name"] for entry in json.loads(listing.current()[0])["runs"]]
    assert "later/group/new" in names  # a run started in a folder that held none
    assert (listing.described, listing.discovered) == (33, 3)


def _until_listed(listing: Listing, etag: str) -> tuple[bytes, str]:
    """The listing once it is no longer `etag` (the watch tells a change within a few tens of
    milliseconds; the guard is for a hang)."""
    for _ in range(3000):
        body, now = listing.current()
        if now != etag:
            return body, now
        threading.Event().wait(0.01)
    raise AssertionError("the change was never listed")


def test_a_watched_sweep_describes_the_runs_the_kernel_told_changed(tmp_path: Path) -> None:
    from overbrainer_contract.serve.listing import Listing

    sweep = _sweep(tmp_path, tuple(f"run{n}" for n in range(30)))
    (sweep / "later" / "group").mkdir(parents=True)  # no run below it, yet
    (tmp_path / "elsewhere").mkdir()
    (sweep / "run3" / "linked").symlink_to(tmp_path / "elsewhere")
    listing = Listing([str(sweep)], rescan=0, idle=0)
    try:
        if not listing.watched.available:
            pytest.skip("watchfiles is not installed: the folders are looked at, not watched")
        listing.scan()
        assert listing.watched.failure is None
        assert (listing.described, listing.discovered) == (30, 1)
        body, etag = listing.current()
        looked = listing.looked
        with (sweep / "run7" / "metrics.jsonl").open("a") as grown:
            grown.write(LINE % 4)
        body, etag = _until_listed(listing, etag)
        # run7 alone looked at again: no other run, no folder walked, no discovery
        assert (listing.looked - looked, listing.described, listing.discovered) == (1, 31, 1)
        assert [e["metrics"]["size"] for e in json.loads(body)["runs"] if e["name"] == "run7"] == [
            (sweep / "run7" / "metrics.jsonl").stat().st_size
        ]
        (sweep / "run9" / "snapshot.request").write_text("eval\n")
        body, etag = _until_listed(listing, etag)
        assert (listing.described, listing.discovered) == (32, 1)  # a file made in a run's folder
        # a write below a link in a run's folder is not watched: no folder there is named
        (tmp_path / "elsewhere" / "metrics.jsonl").write_text(LINE % 1)
        (sweep / "later" / "group" / "new").mkdir()
        (sweep / "later" / "group" / "new" / "metrics.jsonl").write_text(LINE % 1)
        body, etag = _until_listed(listing, etag)
        # a folder that is not a run's changed: every run looked at, the runs discovered again
        assert "later/group/new" in [entry["name"] for entry in json.loads(body)["runs"]]
        assert listing.discovered == 2
        described = listing.described
        with (sweep / "later" / "group" / "new" / "metrics.jsonl").open("a") as grown:
            grown.write(LINE % 2)  # the new run's folder is watched too
        _until_listed(listing, etag)
        assert (listing.described, listing.discovered) == (described + 1, 2)
    finally:
        listing.close()


def test_a_folder_named_in_bytes_that_are_not_utf8_is_looked_at_every_scan(
    tmp_path: Path,
) -> None:
    from overbrainer_contract.serve.listing import Listing

    sweep = _sweep(tmp_path, ("a",))
    odd = os.fsdecode(bytes(sweep) + b"/r\xff")
    os.mkdir(odd)
    with open(os.path.join(odd, "metrics.jsonl"), "w") as made:
        made.write(LINE % 1)
    listing = Listing([str(sweep)], rescan=0, idle=0)
    try:
        listing.scan()
        if listing.watched.available:  # the watcher cannot name it: nothing is watched
            assert listing.watched.failure is not None
        body, _ = listing.current()
        assert sorted(entry["name"] for entry in json.loads(body)["runs"]) == ["a", "r\\xff"]
        with open(os.path.join(odd, "metrics.jsonl"), "a") as grown:
            grown.write(LINE % 2)
        body, _ = listing.current()  # looked at again at once: every run, every scan
        sizes = {entry["name"]: entry["metrics"]["size"] for entry in json.loads(body)["runs"]}
        assert sizes["r\\xff"] == os.stat(os.path.join(odd, "metrics.jsonl")).st_size
    finally:
        listing.close()


# -- 5. runs removed, side files refused --------------------------------------------------


def test_runs_removed_are_dropped(started: Server, tmp_path: Path) -> None:
    sweep = tmp_path / "runs"
    for n in range(20):
        (sweep / f"gone{n}").mkdir()
        (sweep / f"gone{n}" / "metrics.jsonl").write_text(LINE % 1)
    _relisted()
    assert len(started.runs()) == 22
    for n in range(20):
        shutil.rmtree(sweep / f"gone{n}")
    (sweep / "b" / "metrics.jsonl").unlink()  # its folder is there: the run, its file gone
    _relisted()
    runs = started.runs()
    assert [entry["name"] for entry in runs] == ["a", "b"]
    assert runs[1]["metrics"] is None


def test_a_side_file_refused_is_listed_with_why(tmp_path: Path) -> None:
    sweep = _sweep(tmp_path)
    (sweep / "a" / "snapshot.json").symlink_to(tmp_path / "page.html")
    os.mkfifo(sweep / "b" / "snapshot.request")
    server = _start(sweep, tmp_path / "page.html")
    try:
        runs = {str(entry["name"]): entry for entry in server.runs()}
        # in the words of `status` (files/sidefile.py), each file by its name
        assert runs["a"]["side_problem"] == "snapshot.json: a symlink, not read"
        assert runs["b"]["side_problem"] == "snapshot.request: a FIFO, not a file"
        assert runs["a"]["snapshot"] is None
    finally:
        _stop(server)


# -- 6. malformed requests ----------------------------------------------------------------


def _raw(server: Server, request: bytes) -> bytes:
    """The status line answered to `request`, sent as bytes."""
    with socket.create_connection((server.host, server.port), timeout=30) as connection:
        connection.sendall(request)
        answer = b""
        while b"\r\n" not in answer:
            data = connection.recv(4096)
            if not data:
                break
            answer += data
    return answer.split(b"\r\n", 1)[0]


def test_malformed_requests_are_refused_without_a_traceback(started: Server) -> None:
    file_id = next(iter(_ids(started)))
    token = started.token.encode()
    host = b"Host: 127.0.0.1\r\n"
    bearer = b"Authorization: Bearer " + token + b"\r\n"
    asked = [
        b"GET /api/runs HTTP/1.1\r\n" + host + b"Authorization: Bearer \xff\xfe\r\n\r\n",
        b"GET /api/runs HTTP/1.1\r\n" + host + b"Authorization: \xff " + token + b"\r\n\r\n",
        b"GET /api/runs?token=%ff HTTP/1.1\r\n" + host + b"\r\n",
        b"GET /api/runs?token=\xff HTTP/1.1\r\n" + host + b"\r\n",
        b"GET /\xff HTTP/1.1\r\n" + host + b"\r\n",
        b"GET / HTTP/9.9\r\n" + host + b"\r\n",
        b"GARBAGE\r\n\r\n",
        b"GET / HTTP/1.1\r\n" + host + b"X: " + b"a" * 100_000 + b"\r\n\r\n",
        b"GET /api/runs HTTP/1.1\r\nHost: \xff\r\n" + bearer + b"\r\n",
    ]
    ranges = [b"bytes=\xff-", b"bytes=5-2", b"bytes=0-1,3-4", b"lines=0-", b"bytes=-0"]
    for value in ranges:
        asked.append(
            f"GET /api/files/{file_id} HTTP/1.1\r\n".encode()
            + host
            + bearer
            + b"Range: "
            + value
            + b"\r\n\r\n"
        )
    for request in asked:
        line = _raw(started, request)
        assert re.match(rb"HTTP/1\.[01] 4[0-9][0-9] ", line), (request[:60], line)
    status, headers, _ = started.ask(f"/api/files/{file_id}", headers={"Range": "bytes=-0"})
    assert status == 416  # a zero suffix is unsatisfiable (RFC 9110, 14.1.3)
    size = len("".join(LINE % step for step in (1, 2, 3)))
    assert headers["content-range"] == f"bytes */{size}"
    assert started.ask(f"/api/files/{file_id}", headers={"Range": "bytes=-5"})[0] == 206
    code, err = _stop(started)
    assert code == 0
    assert "Traceback" not in err
    assert len(err.splitlines()) <= 10, err[:2000]


# -- 7. names that are not UTF-8 ----------------------------------------------------------


def test_a_name_that_is_not_utf8_is_listed_escaped_and_served(tmp_path: Path) -> None:
    sweep = _sweep(tmp_path)
    odd = os.fsencode(sweep) + b"/r\xff"
    os.mkdir(odd)
    data = (LINE % 5).encode()
    with open(odd + b"/metrics.jsonl", "wb") as written:
        written.write(data)
    for given in (os.fsencode(sweep), odd):
        server = _start(given, tmp_path / "page.html")
        try:
            runs = {str(entry["name"]): entry for entry in server.runs()}
            assert "r\\xff" in runs
            entry = runs["r\\xff"]
            assert str(entry["path"]).endswith("r\\xff/metrics.jsonl")
            metrics = entry["metrics"]
            assert isinstance(metrics, dict)
            status, _, body = server.ask(
                f"/api/files/{metrics['id']}", headers={"Range": "bytes=0-"}
            )
            assert (status, body) == (206, data)
        finally:
            _stop(server)
