"""`serve RUN...`: the run viewer for these runs, live, at an address on this machine.

The page is the run viewer (`docs/viewer.md`), served with the runs found as every command
finds them; it reads their bytes with the core in WebAssembly and follows them as they
grow (`docs/cli.md`, "serve"). The server (`overbrainer_contract.serve`) hands out bytes
only: a listing of the runs and each file's bytes from an offset.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..text.shown import shown
from ._common import EXIT_CODES, OK, PROG, CliError, formatter

DESCRIPTION = """\
Serve the run viewer for these runs at an address on this machine, and follow them: a line
appended shows within two seconds, a new run appears, a file rotated or removed is said.
The server hands out bytes only (a listing of the runs, each file's bytes from an offset);
the page reads them with the same reader as every command. Bound to 127.0.0.1 unless --host
says otherwise; every request needs the token of the printed address; GET and HEAD only,
files by the ids of the listing, never by a path. Ctrl-C stops it."""

EPILOG = f"""\
examples:
  {PROG} serve runs/
  {PROG} serve runs/ --port 8080
  {PROG} serve sweep/ --host 0.0.0.0 --allow-host gpu-box.lan

on a remote machine, through an SSH tunnel (the server stays on its loopback):
  ssh -L 6006:127.0.0.1:6006 gpu-box '{PROG} serve runs/'
  then open the printed address on this machine

{EXIT_CODES}"""

PAGE_HELP = "serve this built viewer page (default: the one installed with the package)"

BUILD = "cd js && npm ci && node build.mjs && cd viewer && npm ci && node build.mjs"
"""How the page is built in a checkout (docs/viewer.md); `pip install .` runs it (setup.py)."""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "serve",
        parents=parents,
        help="the run viewer for these runs, live, in a browser",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument(
        "runs", nargs="+", metavar="RUN", help="a run folder, a folder of runs, a metrics file"
    )
    parser.add_argument(
        "--port", type=_port, default=6006, help="the port (0: any free one; default 6006)"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name the page may be reached by besides addresses and this machine's names",
    )
    parser.add_argument("--page", type=Path, help=PAGE_HELP)
    parser.set_defaults(run=run)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"not a port (0 to 65535): {port}")
    return port


def page_bytes(given: Path | None) -> bytes:
    """The viewer page: the one given, else the package's (built into its wheel), else a
    checkout's build of it."""
    if given is not None:
        try:
            return given.read_bytes()
        except OSError as error:
            raise CliError(shown(f"{given}: {error.strerror or error}")) from error
    here = Path(__file__).resolve().parent.parent
    for candidate in (
        here / "serve" / "viewer.html",
        here.parents[1] / "js" / "viewer" / "dist" / "viewer.html",
    ):
        try:
            return candidate.read_bytes()
        except OSError:
            continue
    raise CliError(
        "the viewer page is not installed with this package (it was built without it,"
        " OVERBRAINER_NO_VIEWER): install it again from a checkout with node and npm on the"
        f" PATH, which builds the page, or build it ({BUILD}) and give it with"
        " --page js/viewer/dist/viewer.html"
    )


def address(host: str, port: int, token: str) -> str:
    shown_host = f"[{host}]" if ":" in host else host
    return f"http://{shown_host}:{port}/?token={token}"


def run(args: argparse.Namespace) -> int:
    # asyncio, secrets and aiohttp load with this command only: every other command starts
    # without them (tests/cli/test_startup.py)
    import asyncio
    import secrets

    try:
        from aiohttp import web  # noqa: F401
    except ImportError as error:
        raise CliError("serve needs aiohttp: pip install 'overbrainer-contract[serve]'") from error
    from ..serve.app import Guard, make_app
    from ..serve.door import Door, connection_cap
    from ..serve.listing import Listing

    if "-" in args.runs:
        raise CliError("serve reads runs from files: standard input (-) cannot be served")
    for name in args.runs:  # a folder without runs yet is served: its runs may start later
        if not os.path.lexists(name):
            raise CliError(shown(f"{name}: no such file or folder"))
    page = page_bytes(args.page)
    listing = Listing(args.runs)
    try:
        listing.scan()
        token = secrets.token_urlsafe(24)
        guard = Guard(token, args.host, set(args.allow_host))
        door = Door(connection_cap(len(listing.roots.held)))
        try:
            app = make_app(listing, guard, page, door)
        except ValueError as error:
            raise CliError(f"the viewer page: {error}") from error
        return asyncio.run(_serve(app, listing, door, args.host, args.port, token))
    finally:
        listing.close()


async def _serve(app: Any, listing: Any, door: Any, host: str, port: int, token: str) -> int:
    import asyncio
    import errno
    import signal
    import sys

    from aiohttp import web

    from ..serve.door import KEEP_SECONDS, listen, say_once

    loop = asyncio.get_running_loop()
    say_once(loop)
    runner = web.AppRunner(
        app, handle_signals=False, access_log=None, keepalive_timeout=KEEP_SECONDS
    )
    await runner.setup()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    server = None
    try:
        try:
            server = await listen(runner, door, host, port)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise CliError(
                    f"port {port} of {host} is in use: --port N, or --port 0 for any free one"
                ) from error
            raise CliError(shown(f"{host}:{port}: {error.strerror or error}")) from error
        bound = server.sockets[0].getsockname()[1] if server.sockets else port
        runs = listing.runs
        counted = f"{runs} {'run' if runs == 1 else 'runs'}"
        where = shown(address(host, bound, token))
        print(f"serving {counted} at {where} (Ctrl-C to stop)", flush=True)
        await stop.wait()
        sys.stderr.write("stopped\n")
        return OK
    finally:
        if server is not None:
            server.close()
        await runner.cleanup()
