"""The HTTP application of `serve` (aiohttp): the viewer page, the runs' listing, a file's
bytes by id. Nothing else is answered.

Who may ask:

- **the token**: every request carries the one this server printed in its address, as
  `?token=` (the page's address) or `Authorization: Bearer` (the page's own requests);
  compared in constant time. Without it: 403.
- **the `Host` header**: a page elsewhere that points its own name at this machine (DNS
  rebinding) sends its name there, and is refused (403). Bound to a loopback address,
  only `localhost` and loopback addresses are taken; bound to another interface, also any
  IP address, this machine's own names and those given with `--allow-host`.

What may be asked: GET and HEAD (405 for any other method, before anything else is
looked at) of `/` (the page), `/api/runs` (the listing; `?since=<ETag>`: the runs changed
since that listing and the names of those removed), `/api/files/<id>` (a file
found, by the id the listing gave, from an offset: `Range: bytes=N-`) and
`/api/parts?at=<id>:<offset>&at=...` (several files from their offsets in one answer, for a
page following thousands of runs: a request each would cost more than the bytes). No path
is taken from a request, no folder is listed: any other path is 404.

Every answer is `no-store`, `nosniff` and `no-referrer` (the token is in the page's
address); the page's Content-Security-Policy is its own (the one in its `<meta>`), which
lets it fetch only from this server (`connect-src 'self'`), and no other page may frame
it; a file's bytes come as `application/octet-stream` under a policy that runs nothing.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import re
import socket
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from aiohttp import web

from .door import Door
from .files import BLOCK, CHUNK, Gone, Opened
from .listing import MANY, Listing

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

SERVED_MARK = b'<meta name="overbrainer-served" content="api/">'
"""What tells the page it is served (and where the API is, relative to it)."""

_POLICY = re.compile(rb'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')
FILE_POLICY = "default-src 'none'; sandbox"
"""The policy of anything but the page: no script, no style, nothing loaded."""

LOOPBACK_NAMES = frozenset({"localhost"})

_RANGE = re.compile(r"bytes=(?:([0-9]+)-([0-9]*)|-([0-9]+))\Z", re.ASCII)
"""The one range of bytes served: `bytes=N-`, `bytes=N-M` or the last N, `bytes=-N`."""
ONE_RANGE = "only one range of bytes, as bytes=N-, bytes=N-M or bytes=-N"

_PART = re.compile(r"(f[0-9]{1,18}):([0-9]{1,16})\Z", re.ASCII)
"""A part asked for: a file's id and the offset its bytes are read from."""
PARTS = f"parts are asked as ?at=ID:OFFSET (a listing's file id, a byte offset), 1 to {MANY}"


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or `localhost`) is this machine's loopback."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name in a `Host` header, without its port: `[::1]:6006` is `::1`."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


@dataclass
class Guard:
    """Who may ask: the token, and the names the `Host` header may give."""

    token: str
    bound: str
    allowed: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.loopback = is_loopback(self.bound)
        self.names = {name.lower() for name in self.allowed}
        self.names.add(self.bound.lower())
        if not self.loopback:
            self.names.update({socket.gethostname().lower(), socket.getfqdn().lower()})

    def host_allowed(self, header: str | None) -> bool:
        if not header:
            return False
        name = host_name(header)
        if name in self.names or name in LOOPBACK_NAMES:
            return True
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return False
        return address.is_loopback or not self.loopback

    def token_given(self, request: web.Request) -> bool:
        given = request.query.get("token")
        if given is None:
            scheme, _, value = request.headers.get("Authorization", "").partition(" ")
            given = value.strip() if scheme.lower() == "bearer" else None
        if given is None:
            return False
        # a header's bytes that were not UTF-8 come as surrogates: compared as the bytes sent
        sent = given.encode("utf-8", "surrogateescape")
        return hmac.compare_digest(sent, self.token.encode())


def refusal(status: int, text: str, **headers: str) -> web.Response:
    """A refusal the asker can read: its status, and one line why."""
    return web.Response(status=status, text=text + "\n", headers=headers)


def page_answer(page: bytes) -> tuple[bytes, str]:
    """The viewer page as served (marked as such) and its policy for the header: the
    page's own, fetching from this server only, framed by no other page."""
    found = _POLICY.search(page)
    if found is None:
        raise ValueError("the viewer page has no Content-Security-Policy")
    policy = found.group(1).decode()
    parts = [part.strip() for part in policy.split(";") if part.strip()]
    parts = [p for p in parts if not p.startswith(("connect-src", "frame-ancestors"))]
    parts += ["connect-src 'self'", "frame-ancestors 'none'"]
    served = page.replace(b"<head>", b"<head>\n" + SERVED_MARK, 1)
    return served, "; ".join(parts)


def asked_range(header: str | None) -> tuple[int, int | None] | int | None:
    """The range a `Range` header asks: `(start, stop)` (stop past the last byte, None:
    the end), `-N` for the last N bytes (`-0`, none of them: unsatisfiable, RFC 9110
    14.1.3, answered 416 as a start past the end is), None without one; ValueError for
    anything else."""
    if header is None:
        return None
    found = _RANGE.match(header.strip())
    if found is None:
        raise ValueError(header)
    first, last, suffix = found.groups()
    if suffix is not None:
        return -int(suffix)
    start = int(first)
    stop = None if not last else int(last) + 1
    if stop is not None and stop <= start:
        raise ValueError(header)
    return start, stop


def make_app(
    listing: Listing, guard: Guard, page: bytes, door: Door | None = None
) -> web.Application:
    """The application: the guard's checks, then the three routes (`door`: told of each
    connection that showed the token)."""
    served_page, page_policy = page_answer(page)

    @web.middleware
    async def guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method not in ("GET", "HEAD"):
            return refusal(
                405, f"{request.method} is not served: GET and HEAD only", Allow="GET, HEAD"
            )
        if not guard.host_allowed(request.headers.get("Host")):
            return refusal(403, "this server is not reached by that name (the Host header)")
        if not guard.token_given(request):
            return refusal(403, "a token is needed: open the address that serve printed")
        if door is not None:
            door.trust(request.transport)
        return await handler(request)

    async def on_prepare(_: web.Request, response: web.StreamResponse) -> None:
        response.headers.setdefault("Content-Security-Policy", FILE_POLICY)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        response.headers["Cross-Origin-Resource-Policy"] = "same-origin"

    async def page_route(_: web.Request) -> web.StreamResponse:
        return web.Response(
            body=served_page,
            content_type="text/html",
            charset="utf-8",
            headers={"Content-Security-Policy": page_policy},
        )

    # the scans' own thread: listings asked during a scan wait there, holding none of the
    # threads that read the files
    scans = ThreadPoolExecutor(max_workers=1, thread_name_prefix="scan")

    async def runs_route(request: web.Request) -> web.StreamResponse:
        loop = asyncio.get_running_loop()
        since = request.query.get("since")
        body, etag = await loop.run_in_executor(scans, listing.current, since)
        if etag in _tags(request.headers.get("If-None-Match", "")):
            return web.Response(status=304, headers={"ETag": etag})
        return web.Response(body=body, content_type="application/json", headers={"ETag": etag})

    async def file_route(request: web.Request) -> web.StreamResponse:
        served = listing.served(request.match_info["id"])
        if served is None:
            return refusal(404, "no such file: list the runs again")
        try:
            asked = asked_range(request.headers.get("Range"))
        except ValueError:
            return refusal(416, ONE_RANGE)
        loop = asyncio.get_running_loop()
        try:
            opened = await loop.run_in_executor(None, Opened, served)
        except Gone:
            return refusal(404, "that file is no longer at its path: list the runs again")
        try:
            return await _answer(request, opened, asked)
        finally:
            opened.close()

    async def parts_route(request: web.Request) -> web.StreamResponse:
        asked = []
        for value in request.query.getall("at", []):
            found = _PART.match(value)
            if found is None:
                return refusal(400, PARTS)
            asked.append((found.group(1), int(found.group(2))))
        others = [key for key in request.query if key not in ("at", "token")]
        if not asked or len(asked) > MANY or others:
            return refusal(400, PARTS)
        return await _parts(request, listing, asked)

    async def on_cleanup(_: web.Application) -> None:
        scans.shutdown(wait=False, cancel_futures=True)

    app = web.Application(middlewares=[guarded])
    app.on_response_prepare.append(on_prepare)
    app.on_cleanup.append(on_cleanup)
    app.router.add_get("/", page_route)
    app.router.add_get("/api/runs", runs_route)
    app.router.add_get(r"/api/files/{id:f[0-9]+}", file_route)
    app.router.add_get("/api/parts", parts_route)
    return app


async def _answer(
    request: web.Request, opened: Opened, asked: tuple[int, int | None] | int | None
) -> web.StreamResponse:
    """The bytes `asked` of an open file, written `CHUNK` at a time as the asker reads them
    (each write waits while the connection holds more than it sends)."""
    headers = {"Accept-Ranges": "bytes"}
    if isinstance(asked, int):  # bytes=-N: the last N bytes (-0: none, past the end)
        asked = (max(0, opened.size + asked) if asked else opened.size, None)
    start, end = opened.span(*(asked or (0, None)))
    if asked is not None and start == end:
        headers["Content-Range"] = f"bytes */{opened.size}"
        return web.Response(status=416, text="past the end of the file\n", headers=headers)
    if asked is not None:
        headers["Content-Range"] = f"bytes {start}-{end - 1}/{opened.size}"
    response = web.StreamResponse(status=200 if asked is None else 206, headers=headers)
    response.content_type = "application/octet-stream"
    response.content_length = end - start
    await response.prepare(request)
    if request.method != "HEAD":
        try:
            if not await _copy(request, response, opened, start, end):
                return response
        except ConnectionError:  # the asker went away: nothing more to write
            return response
    await response.write_eof()
    return response


async def _copy(
    request: web.Request, response: web.StreamResponse, opened: Opened, at: int, end: int
) -> bool:
    """Bytes `at` to `end` of an open file written to the answer, `CHUNK` at a time as the
    asker reads them (each write waits while the connection holds more than it sends). False
    when the file was cut shorter meanwhile: the answer ends short, its connection closed."""
    loop = asyncio.get_running_loop()
    while at < end:
        try:
            data = await loop.run_in_executor(None, opened.read, at, min(CHUNK, end - at))
        except Gone:
            data = b""
        if not data:
            if request.transport is not None:
                request.transport.close()
            return False
        await response.write(data)
        at += len(data)
    return True


async def _parts(
    request: web.Request, listing: Listing, asked: list[tuple[str, int]]
) -> web.StreamResponse:
    """Each file asked for, in order, from its offset: a header line of JSON, then the bytes
    it announces. The header is `{"id", "kind": "bytes", "size", "length"}` (`length` bytes
    follow), `{"id", "kind": "end", "size"}` (the offset at or past the end),
    `{"id", "kind": "gone"}` (no such file at its path now: list the runs again) or
    `{"id", "kind": "later"}` (the answer full: ask again). The bytes of all the parts are at
    most `BLOCK`; one file is open at a time, its bytes written `CHUNK` at a time as the asker
    reads them. A file cut shorter while it is written ends the answer short, its connection
    closed, as a file's own answer does."""
    response = web.StreamResponse(status=200)
    response.content_type = "application/octet-stream"
    await response.prepare(request)
    if request.method == "HEAD":
        return response
    loop = asyncio.get_running_loop()
    room = BLOCK
    for file_id, offset in asked:
        head: dict[str, object] = {"id": file_id, "kind": "later"}
        served = listing.served(file_id)
        opened = None
        if room > 0:
            head["kind"] = "gone"
            if served is not None:
                try:
                    opened = await loop.run_in_executor(None, Opened, served)
                except Gone:
                    opened = None
        length = 0
        try:
            if opened is not None:
                start, end = opened.span(offset, offset + room)
                length = end - start
                head.update(kind="bytes" if length else "end", size=opened.size)
                if length:
                    head["length"] = length
            await response.write(json.dumps(head).encode() + b"\n")
            if opened is not None and not await _copy(
                request, response, opened, offset, offset + length
            ):
                return response
            room -= length
        except ConnectionError:  # the asker went away: nothing more to write
            return response
        finally:
            if opened is not None:
                opened.close()
    await response.write_eof()
    return response


def _tags(header: str) -> Iterable[str]:
    return [tag.strip() for tag in header.split(",") if tag.strip()]
