"""Hostile inputs made for real (sparse gigabytes, a small disk that fills), and a child
process that cannot hide an unbounded read: shared by the plugin's, the command line's and
export's tests. A case runs the CLI in a child under a
time limit and a cap on its address space (`RLIMIT_AS`): a hang fails it by the timeout,
a line or a backlog held whole by running out of memory.

A cap counts address space, not memory used, so what the child reserves without using
counts too; `CAPPED_ENV` keeps that small and the same on any machine (see there), and
each test file derives its caps, measured, in their docstrings."""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO

import pytest

GIGABYTE = 2**30

THREADS = 4
"""The core's threads in a capped child (rayon's pool, `RAYON_NUM_THREADS`): several, so
that the lines are answered in parts on threads as on any machine, but the same count
everywhere, so that a cap does not depend on the machine's cores (each thread reserves
its 2 MiB stack: 8 MiB here, 128 MiB on a 64-core machine)."""

CAPPED_ENV = {
    # glibc gives each thread that allocates an arena of its own, reserving 64 MiB of
    # address space each (on a 64-bit machine, up to eight per core): with the core's
    # threads that is hundreds of MiB that nothing uses, which RLIMIT_AS counts all the
    # same (`memory allocation of 2883584 bytes failed` with 2 MiB used). One arena, the
    # main one, for every thread: what a child reserves is then what it holds.
    "MALLOC_ARENA_MAX": "1",
    "RAYON_NUM_THREADS": str(THREADS),
    # An allocation refused by the cap aborts at once with its one line
    # (`memory allocation of N bytes failed`): a backtrace's symbols are read into memory
    # that the cap refuses too, and the child can hang there, failing by the timeout.
    "RUST_BACKTRACE": "0",
}
"""What a capped child's environment gets on top of the one it is given."""


def sparse(path: Path, size: int = GIGABYTE, tail: bytes = b"") -> Path:
    """A file of `size` zero bytes that takes no disk (a hole), then `tail`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.truncate(size)
        handle.seek(size)
        handle.write(tail)
    return path


def capped_cli(
    *args: str,
    cwd: Path,
    memory: int,
    timeout: float,
    env: Mapping[str, str] | None = None,
    stdin: bytes | IO[bytes] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`overbrainer-contract ARGS` in a child, under `timeout` seconds and `memory` bytes of
    address space, its environment `env` (this one's by default) with `CAPPED_ENV`; its
    output as latin-1 text (any bytes survive). `stdin`: bytes written to it, or a file
    (a pipe's end) it reads; none by default."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    if isinstance(stdin, bytes):
        written, handle = stdin.decode("latin-1"), None
    else:
        written, handle = None, subprocess.DEVNULL if stdin is None else stdin
    return subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", *args],
        cwd=cwd,
        env={**(os.environ if env is None else env), **CAPPED_ENV},
        input=written,
        stdin=handle,
        capture_output=True,
        text=True,
        encoding="latin-1",
        timeout=timeout,
        preexec_fn=cap,
        check=False,
    )


def the_cap_kills(size: int, memory: int, cwd: Path, timeout: float) -> bool:
    """Whether a child holding `size` bytes under a cap of `memory` dies of it: what the
    capped cases rely on."""
    result = subprocess.run(
        [sys.executable, "-c", f"b = bytearray({size})"],
        cwd=cwd,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (memory, memory)),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return result.returncode == 1 and "MemoryError" in result.stderr


@contextlib.contextmanager
def tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` mounted on `folder` (CI runs as root); skips the test, saying why,
    where mounting is impossible."""
    folder.mkdir(parents=True, exist_ok=True)
    mount = shutil.which("mount")
    if mount is None:
        pytest.skip("no mount command: a real full disk needs `mount -t tmpfs` (util-linux)")
    done = subprocess.run(
        [mount, "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs (root and CAP_SYS_ADMIN needed): {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], timeout=30, check=False)


def sized_lines(size: int) -> bytes:
    """Valid stage lines (`time` of 1 to 12 digits) of exactly `size` bytes in all: what
    fills a small file system to the byte before a line that cannot fit."""
    lines, left = [], size
    while left:
        for digits in range(12, 0, -1):  # 42 to 53 bytes a line
            line = f'{{"event":"stage","name":"train","time":{"1" * digits}}}\n'.encode()
            rest = left - len(line)
            if rest == 0 or rest >= 42:
                lines.append(line)
                left = rest
                break
        else:
            raise AssertionError(f"no lines of {size} bytes")
    return b"".join(lines)
