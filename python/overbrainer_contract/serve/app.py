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
looked at) of `/` (the page), `/api/runs` (the listing) and `/api/files/<id>` (a file
found, by the id the listing gave, from an offset: `Range: bytes=N-`). No path is taken
from a request, no folder is listed: any other path is 404.

Every answer is `no-store`, `nosniff` and `no-referrer` (the token is in the page's
address); the page's Content-Security-Policy is its own (the one in its `<meta>`), which
lets it fetch only from this server (`connect-src 'self'`), and no other page may frame
it; a file's bytes come as `application/octet-stream` under a policy that runs nothing.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

from aiohttp import web

from .files import Gone, read_range
from .listing import Listing

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

SERVED_MARK = b'<meta name="overbrainer-served" content="api/">'
"""What tells the page it is served (and where the API is, relative to it)."""

_POLICY = re.compile(rb'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')
FILE_POLICY = "default-src 'none'; sandbox"
"""The policy of anything but the page: no script, no style, nothing loaded."""

LOOPBACK_NAMES = frozenset({"localhost"})


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
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())


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


def make_app(listing: Listing, guard: Guard, page: bytes) -> web.Application:
    """The application: the guard's checks, then the three routes."""
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

    async def runs_route(request: web.Request) -> web.StreamResponse:
        loop = asyncio.get_running_loop()
        body, etag = await loop.run_in_executor(None, listing.current)
        if etag in _tags(request.headers.get("If-None-Match", "")):
            return web.Response(status=304, headers={"ETag": etag})
        return web.Response(body=body, content_type="application/json", headers={"ETag": etag})

    async def file_route(request: web.Request) -> web.StreamResponse:
        served = listing.served(request.match_info["id"])
        if served is None:
            return refusal(404, "no such file: list the runs again")
        ranged = "Range" in request.headers
        try:
            asked = request.http_range
        except ValueError:
            return refusal(416, "only one range of bytes, as bytes=N- or bytes=N-M")
        if asked.step not in (None, 1):
            return refusal(416, "only one range of bytes, as bytes=N- or bytes=N-M")
        loop = asyncio.get_running_loop()
        start = asked.start or 0
        try:
            if start < 0:  # bytes=-N: the last N bytes
                _, size = await loop.run_in_executor(None, read_range, served, 0, 0)
                start = max(0, size + start)
            data, size = await loop.run_in_executor(None, read_range, served, start, asked.stop)
        except Gone:
            return refusal(404, "that file is no longer at its path: list the runs again")
        headers = {"Accept-Ranges": "bytes"}
        if not ranged:
            return web.Response(body=data, content_type="application/octet-stream", headers=headers)
        if not data and (start >= size or size == 0):
            headers["Content-Range"] = f"bytes */{size}"
            return web.Response(status=416, text="past the end of the file\n", headers=headers)
        headers["Content-Range"] = f"bytes {start}-{start + len(data) - 1}/{size}"
        return web.Response(
            status=206, body=data, content_type="application/octet-stream", headers=headers
        )

    app = web.Application(middlewares=[guarded])
    app.on_response_prepare.append(on_prepare)
    app.router.add_get("/", page_route)
    app.router.add_get("/api/runs", runs_route)
    app.router.add_get(r"/api/files/{id:f[0-9]+}", file_route)
    return app


def _tags(header: str) -> Iterable[str]:
    return [tag.strip() for tag in header.split(",") if tag.strip()]
