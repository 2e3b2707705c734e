"""Who may hold a connection to the server, and for how long; what the server says of those
it refuses.

A connection that has not yet shown the token (`Door.trust`, called by the application
once a request carried it and a `Host` it takes) is **waiting**: it is closed when it has
not shown it within `HEADER_SECONDS` of its opening, whatever it sent meanwhile (half a
request, requests without the token). The connections open are at most `cap`: one more is
made room for by closing the oldest waiting one, so however many connections others open
and leave idle, the token holder's next connection is taken and answered. `cap` comes from
the number of files the process may open (`connection_cap`: two for each connection, its
socket and the file it is served), so the server's accept never fails for want of one.
A connection that showed the token is kept while it is used, and closed after
`KEEP_SECONDS` idle (aiohttp's keep-alive).

Whatever the server refuses (a malformed request, an accept that failed) is said on
standard error once for each kind, in one line, never a traceback per request (`SaidOnce`):
a client sending thousands of them fills no log.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..text.shown import shown

if TYPE_CHECKING:
    from aiohttp import web

HEADER_SECONDS = 10.0
"""The most time a connection may take to show the token."""

KEEP_SECONDS = 60.0
"""How long a connection that showed the token is kept idle (aiohttp's keep-alive)."""

MOST_CONNECTIONS = 512
"""The most connections open at once, whatever the number of files the process may open."""

RESERVED_FILES = 64
"""The files the process keeps for itself: its folders held, a scan's, the standard ones."""


def connection_cap(held: int = 0) -> int:
    """The most connections open at once: two files each (a socket, the file it is served),
    within what the process may open, less `RESERVED_FILES` and the `held` folders."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MOST_CONNECTIONS
    return max(1, min(MOST_CONNECTIONS, (soft - RESERVED_FILES - held) // 2))


class Door:
    """The connections open: those waiting for their token (oldest first), those trusted."""

    def __init__(self, cap: int, header_seconds: float = HEADER_SECONDS) -> None:
        self.cap = cap
        self.header_seconds = header_seconds
        self.waiting: dict[asyncio.BaseTransport, asyncio.TimerHandle] = {}
        self.trusted: set[asyncio.BaseTransport] = set()

    def protocol(self, make: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        """A protocol factory for the server: `make`'s protocols, each counted at the door."""
        return lambda: _Counted(self, make())

    def opened(self, transport: asyncio.BaseTransport) -> None:
        loop = asyncio.get_running_loop()
        self.waiting[transport] = loop.call_later(self.header_seconds, _abort, transport)
        while len(self.waiting) + len(self.trusted) > self.cap and self.waiting:
            oldest = next(iter(self.waiting))
            self.waiting.pop(oldest).cancel()
            _abort(oldest)

    def trust(self, transport: asyncio.BaseTransport | None) -> None:
        """The connection showed the token: kept while it is used."""
        if transport is None:
            return
        handle = self.waiting.pop(transport, None)
        if handle is not None:
            handle.cancel()
            self.trusted.add(transport)

    def closed(self, transport: asyncio.BaseTransport) -> None:
        handle = self.waiting.pop(transport, None)
        if handle is not None:
            handle.cancel()
        self.trusted.discard(transport)


async def listen(runner: web.AppRunner, door: Door, host: str, port: int) -> asyncio.Server:
    """The server listening on `host`:`port`: each connection aiohttp's protocol for the
    runner's application, counted at `door`."""
    assert runner.server is not None, "the runner is set up"
    loop = asyncio.get_running_loop()
    return await loop.create_server(door.protocol(runner.server), host, port, reuse_address=True)


def _abort(transport: asyncio.BaseTransport) -> None:
    if isinstance(transport, asyncio.Transport):
        transport.abort()
    else:  # pragma: no cover - a stream server's transports are Transports
        transport.close()


class _Counted(asyncio.Protocol):
    """A connection's protocol (aiohttp's), told to the door as it opens and closes."""

    def __init__(self, door: Door, inner: asyncio.Protocol) -> None:
        self.door = door
        self.inner = inner
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.inner.connection_made(transport)
        self.door.opened(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None:
            self.door.closed(self.transport)
        self.inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


class SaidOnce(logging.Handler):
    """Each kind of message (its logger and its words before any value) said once on
    standard error, in one line: `serve: WHAT: the exception (said once)`."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.said: set[tuple[str, str]] = set()

    def emit(self, record: logging.LogRecord) -> None:
        kind = (record.name, str(record.msg))
        if kind in self.said:
            return
        self.said.add(kind)
        what = str(record.msg).split("%", 1)[0].strip().rstrip(":")
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            what += f": {type(error).__name__}" + (f": {first}" if first else "")
        sys.stderr.write(shown(f"serve: {what} (said once)") + "\n")
        sys.stderr.flush()

    def exception(self, _: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's exception handler (an accept that failed...), said once."""
        error = context.get("exception")
        record = logging.LogRecord("asyncio", logging.ERROR, "", 0, context["message"], None, None)
        if isinstance(error, BaseException):
            record.exc_info = (type(error), error, error.__traceback__)
        self.emit(record)


def say_once(loop: asyncio.AbstractEventLoop) -> SaidOnce:
    """What the server's libraries log (aiohttp's, asyncio's) and its loop's exceptions,
    said once for each kind (`SaidOnce`) rather than a traceback each."""
    said = SaidOnce()
    for name in ("aiohttp", "asyncio"):
        logger = logging.getLogger(name)
        logger.handlers = [said]
        logger.propagate = False
    loop.set_exception_handler(said.exception)
    return said
