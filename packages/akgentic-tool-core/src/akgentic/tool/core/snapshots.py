"""When a tool actor publishes a full snapshot of its state (shared by every stateful tool).

Publishing the whole state after every change makes persistence cost grow with the state:
a long session pays for its full history again on each update. Instead the actor publishes
a snapshot once the changes made since the last one reach a share of the size the state
had at that last snapshot (and at least ``min_changes``). While the state grows, snapshots
come at sizes growing geometrically, so their total cost stays proportional to the number
of changes; the delta events emitted in between carry what a restore replays on top of the
last snapshot, and that replay is bounded by the same share of the state.

Planning and the knowledge graph both schedule their snapshots with it; any tool actor that
persists a growing state as snapshots plus delta events can do the same.

A state of large payloads (the vector store's matrices: megabytes per collection) needs
another cadence, :class:`PacedSnapshots`: the snapshot is taken off the mutating call, a
short delay after the first unpublished change (a burst of writes costs one), and after
writing ``n`` bytes the next one waits at least ``n / bytes_per_second`` seconds, so
serialising snapshots stays a small share of the time however large the state grows.
Both satisfy :class:`SnapshotCadence`, what ``DeltaToolActor`` asks of a cadence.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

__all__ = ["PacedSnapshots", "SnapshotCadence", "SnapshotSchedule"]


class SnapshotCadence(Protocol):
    """When a delta tool actor publishes a full snapshot of its state."""

    def record(self, changes: int) -> bool:
        """Count the ``changes`` of one emitted delta; True when a snapshot is due now."""
        ...

    def published(self, size: int) -> None:
        """The state, now of ``size`` (as ``state.size()`` measures it), was published."""
        ...

    def cancel(self) -> None:
        """The actor stops: nothing more may be scheduled."""
        ...


class SnapshotSchedule:
    """Counts unpublished changes and says when a snapshot is due."""

    def __init__(self, min_changes: int, size_ratio: float) -> None:
        self.min_changes = min_changes
        self.size_ratio = size_ratio
        self.pending = 0
        self._base_size = 0

    def record(self, changes: int) -> bool:
        """Count ``changes``; True when a snapshot is due."""
        self.pending += changes
        return self.pending >= max(self.min_changes, int(self._base_size * self.size_ratio))

    def published(self, size: int) -> None:
        """The state, now of ``size`` items, was just published: start counting again."""
        self.pending = 0
        self._base_size = size

    def cancel(self) -> None:
        """Nothing is scheduled ahead: nothing to cancel."""


class PacedSnapshots:
    """Snapshots taken later, off the mutating call, paced by the bytes they write.

    :meth:`record` (and :meth:`arm`, for a change that emits no delta) start a timer of
    the current delay unless one runs; when it fires, ``request`` runs on the timer's
    thread and must ask the actor for the snapshot through its mailbox (never touch the
    state from there). :meth:`published` stops the timer and sets the next delay from
    the bytes just written.
    """

    def __init__(
        self, min_delay: float, bytes_per_second: float, request: Callable[[], None]
    ) -> None:
        self.min_delay = min_delay
        self.bytes_per_second = bytes_per_second
        self.delay = min_delay
        self._request = request
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def record(self, changes: int) -> bool:
        """Arm the timer; never due on the spot (the caller's call stays short)."""
        self.arm()
        return False

    def arm(self) -> None:
        """Make sure a snapshot is requested within the current delay."""
        with self._lock:
            if self._timer is None:
                timer = threading.Timer(self.delay, self._fire)
                timer.daemon = True
                self._timer = timer
                timer.start()

    def _fire(self) -> None:
        # Disarmed first: a request that finds nothing to publish must not leave the
        # cadence believing a snapshot is still on its way.
        with self._lock:
            self._timer = None
        self._request()

    def published(self, size: int) -> None:
        """``size`` bytes were just written: the next snapshot waits for the pace."""
        self.cancel()
        self.delay = max(self.min_delay, size / self.bytes_per_second)

    def cancel(self) -> None:
        """Stop the timer, if one runs."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
