"""The workspace quota: how much one command may grow the workspace while it runs.

``RLIMIT_FSIZE`` bounds each file, not how many a command writes, so ``run_process``
watches the workspace itself. Before the command starts, :class:`WorkspaceWatcher` measures
the disk the workspace uses (allocated blocks, so a sparse file costs what it really
holds; a file with several hard links counts once). While the command runs it measures
again and reports a breach once the growth passes the quota; the caller then kills the
process group.

Measuring means walking the whole tree (about 5 µs a file: 0.1 s for a workspace holding
a virtual environment), so walks are rationed:

- between walks, the used space of the filesystem holding the workspace (``statvfs``,
  a few microseconds) is the trigger: the workspace cannot have grown by more than its
  filesystem did, so while the filesystem grew by less than the quota there is nothing to
  measure. Once it grew more, the next walk settles whether the workspace is the cause;
- a walk also runs at least every second or so regardless (other files on the same
  filesystem may have shrunk meanwhile, hiding growth from the trigger, or the workspace
  may span several filesystems);
- walks are spaced at least four times their own duration apart, so the watcher uses at
  most about a fifth of a core even on a huge workspace.

So a command writing fast can overshoot the quota by what it writes between two checks
(one poll of the caller's loop plus a walk). When part of the tree cannot be read (a
directory the command made unreadable to the agent's user), the walk is incomplete and the
growth of the whole filesystem is charged to the command instead.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from pydantic import BaseModel

__all__ = ["QuotaBreach", "WorkspaceWatcher", "disk_usage"]

_MIN_WALK_GAP_SECONDS = 0.05
_WALK_GAP_FACTOR = 4.0
_SWEEP_SECONDS = 1.0
_SWEEP_FACTOR = 20.0
_BLOCK_BYTES = 512  # st_blocks is in 512-byte units on Linux and macOS alike


class QuotaBreach(BaseModel):
    """A command grew the workspace past its quota: by how much, and what the quota was."""

    growth_bytes: int
    quota_bytes: int


def disk_usage(root: str) -> tuple[int, bool]:
    """Bytes allocated under ``root`` (itself included) and whether every part was readable.

    Symlinks are not followed (a link to ``/`` costs the link, not the disk); hard links
    count once.
    """
    total = 0
    complete = True
    seen: set[tuple[int, int]] = set()
    try:
        total += os.lstat(root).st_blocks * _BLOCK_BYTES
    except OSError:
        return 0, False
    pending = [root]
    while pending:
        try:
            entries = os.scandir(pending.pop())
        except OSError:
            complete = False
            continue
        with entries:
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    complete = False
                    continue
                if stat.S_ISDIR(info.st_mode):
                    pending.append(entry.path)
                elif info.st_nlink > 1:
                    inode = (info.st_dev, info.st_ino)
                    if inode in seen:
                        continue
                    seen.add(inode)
                total += info.st_blocks * _BLOCK_BYTES
    return total, complete


def _filesystem_used(path: str) -> int:
    """Bytes in use on the filesystem holding ``path`` (0 if it cannot be asked)."""
    try:
        info = os.statvfs(path)
    except OSError:
        return 0
    return (info.f_blocks - info.f_bfree) * info.f_frsize


class WorkspaceWatcher:
    """Measures a workspace now, then tells whether it grew past ``quota_bytes`` since.

    Call :meth:`check` as often as convenient (every poll of the caller's loop): it
    decides for itself when a full walk is worth its cost.
    """

    def __init__(self, root: str, quota_bytes: int, *, clock: Callable[[], float]) -> None:
        self._root = root
        self._quota = quota_bytes
        self._clock = clock
        self._last_walk_seconds = 0.0
        self._next_walk = 0.0
        self._next_sweep = 0.0
        self._fs_baseline = _filesystem_used(root)
        self._baseline, self._complete = self._walk()

    def check(self) -> QuotaBreach | None:
        """The breach, if the workspace grew past the quota; ``None`` otherwise."""
        now = self._clock()
        if now < self._next_walk:
            return None
        fs_growth = _filesystem_used(self._root) - self._fs_baseline
        if fs_growth <= self._quota and now < self._next_sweep:
            return None
        usage, complete = self._walk()
        growth = usage - self._baseline
        if not (complete and self._complete):
            growth = max(growth, fs_growth)
        if growth > self._quota:
            return QuotaBreach(growth_bytes=growth, quota_bytes=self._quota)
        return None

    def _walk(self) -> tuple[int, bool]:
        started = self._clock()
        found = disk_usage(self._root)
        self._last_walk_seconds = self._clock() - started
        after = started + self._last_walk_seconds
        self._next_walk = after + max(
            _MIN_WALK_GAP_SECONDS, _WALK_GAP_FACTOR * self._last_walk_seconds
        )
        self._next_sweep = after + self._sweep_gap()
        return found

    def _sweep_gap(self) -> float:
        return max(_SWEEP_SECONDS, _SWEEP_FACTOR * self._last_walk_seconds)
