"""The process-wide table of running commands, so a stopping sandbox can kill its own.

Workers record the process group of each command under its request key while it runs.
Keys are uuid4, so one table serves every sandbox of the process: a stopping actor passes
the keys it still waits for and their groups are killed at once, instead of the actor
waiting for each command's own timeout.
"""

from __future__ import annotations

import threading
from collections.abc import Collection

from akgentic.tool.sandbox._process import kill_process_group

__all__ = ["kill_running", "track", "untrack"]

_RUNNING: dict[str, int] = {}
_CANCELLED: set[str] = set()
_RUNNING_LOCK = threading.Lock()


def track(key: str, pgid: int) -> None:
    """Record that the command of ``key`` runs in process group ``pgid``."""
    with _RUNNING_LOCK:
        _RUNNING[key] = pgid


def untrack(key: str) -> bool:
    """Forget ``key``; ``True`` when it was killed by :func:`kill_running` meanwhile."""
    with _RUNNING_LOCK:
        _RUNNING.pop(key, None)
        if key in _CANCELLED:
            _CANCELLED.discard(key)
            return True
        return False


def kill_running(keys: Collection[str]) -> int:
    """SIGKILL the commands of ``keys`` still running; returns how many were signalled."""
    with _RUNNING_LOCK:
        groups = [_RUNNING[key] for key in keys if key in _RUNNING]
        _CANCELLED.update(key for key in keys if key in _RUNNING)
    for pgid in groups:
        kill_process_group(pgid)
    return len(groups)
