"""The folders of the runs served, watched: what changed in them since the last scan, told by
the kernel (inotify on Linux, FSEvents, kqueue, ReadDirectoryChangesW: watchfiles, over the
Rust `notify` crate), so that a scan describes again only the runs whose folders saw a change.

Each folder is watched by itself (not recursively: nothing below a folder is watched unless
it is named, so a symlink in a run's folder leads the watch nowhere). A change is a hint, never
a path to follow: `taken` gives the folders named in the events since the last call, and the
listing maps them to the runs it already knows, looking at their files as it always does.

`taken` says None — look at everything — where the watch cannot be trusted to have seen every
change: before the first watch, and once it failed (a folder gone before it was watched, the
kernel's limit on watches reached, a name that is not UTF-8, which the watcher cannot name).
Without watchfiles, every call says None. Whoever calls `follow` looks at everything after it:
a change made before the new watch began is seen by that look.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from typing import Any

STEP_MS = 20
"""How long the watch waits for more events once one came, before handing them over."""
DEBOUNCE_MS = 100
"""The longest the events of a busy folder are gathered before they are handed over."""
WAIT_MS = 1000
"""How long one wait for events lasts before the thread looks whether it is to stop."""


def _notify() -> Any:
    try:
        from watchfiles._rust_notify import RustNotify
    except ImportError:
        return None
    return RustNotify


class Watched:
    """The folders watched now, and the folders changed since the last `taken`; thread-safe."""

    def __init__(self) -> None:
        self._notify = _notify()
        self._lock = threading.Lock()
        self._folders: frozenset[str] = frozenset()
        self._changed: set[str] = set()
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self.failure: str | None = None
        """Why the folders are not watched, if they are not (the last failure)."""

    @classmethod
    def never(cls) -> Watched:
        """A watch that watches nothing: every `taken` says None."""
        made = cls()
        made._notify = None
        return made

    @property
    def available(self) -> bool:
        return self._notify is not None

    def follow(self, folders: Iterable[str]) -> None:
        """Watch exactly `folders` (each by itself) from now on: the caller looks at every
        run after this call, and `taken` tells the changes from this call on."""
        wanted = frozenset(folders)
        if self._notify is None or (wanted == self._folders and self._thread is not None):
            return
        self.close()
        self._folders = wanted
        try:
            for folder in wanted:
                folder.encode("utf-8")  # a name the watcher can hold, or none is watched
            # the watches are in place when this returns: a change after it is seen
            notify = self._notify(sorted(wanted), False, False, 0, False, False)
        except Exception as error:  # any failure to watch: every scan looks at all
            self.failure = str(error) or type(error).__name__
            return
        self.failure = None
        stop = threading.Event()
        thread = threading.Thread(
            target=self._run, args=(notify, stop), name="overbrainer-watch", daemon=True
        )
        self._stop, self._thread = stop, thread
        thread.start()

    def taken(self) -> set[str] | None:
        """The folders that changed since the last call (a folder watched, or the folder of a
        file that changed in it), or None when everything is to be looked at."""
        with self._lock:
            changed, self._changed = self._changed, set()
            return changed if self._thread is not None else None

    def close(self) -> None:
        stop, thread = self._stop, self._thread
        with self._lock:
            self._stop = self._thread = None
            self._changed = set()
        if stop is not None and thread is not None:
            stop.set()
            thread.join()

    def _run(self, notify: Any, stop: threading.Event) -> None:
        folders = self._folders
        with notify:
            while not stop.is_set():
                try:
                    changes = notify.watch(DEBOUNCE_MS, STEP_MS, WAIT_MS, stop)
                except Exception as error:  # the watcher broke: every scan looks at all
                    with self._lock:
                        self.failure = str(error) or type(error).__name__
                        if self._thread is threading.current_thread():
                            self._thread = None
                    return
                if isinstance(changes, str):
                    continue  # 'timeout', or 'stop' (the loop ends), or 'signal'
                with self._lock:
                    for _, path in changes:
                        if path in folders:
                            self._changed.add(path)
                        else:
                            self._changed.add(os.path.dirname(path))
