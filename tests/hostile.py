"""Hostile inputs made for real (sparse gigabytes, a small disk that fills), and a child
process that cannot hide an unbounded read: shared by the plugin's, the command line's and
export's tests. A case runs the CLI in a child under a
time limit and a cap on its address space (`RLIMIT_AS`): a hang fails it by the timeout,
a line or a backlog held whole by running out of memory."""

from __future__ import annotations

import contextlib
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

GIGABYTE = 2**30


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
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[str]:
    """`overbrainer-contract ARGS` in a child, under `timeout` seconds and `memory` bytes of
    address space; its output as latin-1 text (any bytes survive)."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", *args],
        cwd=cwd,
        env=None if env is None else dict(env),
        input=None if stdin is None else stdin.decode("latin-1"),
        stdin=subprocess.DEVNULL if stdin is None else None,
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
