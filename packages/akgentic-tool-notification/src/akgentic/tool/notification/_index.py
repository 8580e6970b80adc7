"""Lookups over the pending entries, kept in step with every change instead of rescanned.

The persisted state is one dict ``{id: entry}``. Counting an owner's entries, or finding
the due ones, by scanning that dict made each registration and each once-a-second scan
cost O(pending): with 20,000 entries a registration took about 20 ms and one flooding
agent delayed everybody's deliveries. This index keeps, next to the dict:

- the ids each owner holds (count and listing in O(1) / O(own entries));
- a heap of ``(fire_at, id)``, so a scan pops only what is due (O(due * log n)).

Removal from the heap is lazy: a cancelled entry's heap item is skipped when it surfaces,
and the heap is rebuilt once stale items outnumber live ones.
"""

from __future__ import annotations

import heapq
import uuid
from datetime import datetime

from akgentic.tool.notification.models import PendingNotification

__all__ = ["PendingIndex"]

# Rebuild the heap when it holds this many more items than there are live entries.
_STALE_SLACK = 64


def _order(entry: PendingNotification) -> tuple[datetime, int]:
    return (entry.fire_at, entry.notification_id)


class PendingIndex:
    """The owner and due-time indexes of one ``pending`` dict (held by reference)."""

    def __init__(self, pending: dict[int, PendingNotification]) -> None:
        self._pending = pending
        self._by_owner: dict[uuid.UUID, set[int]] = {}
        self._heap: list[tuple[datetime, int]] = []
        for entry in pending.values():
            self._by_owner.setdefault(entry.owner_id, set()).add(entry.notification_id)
            self._heap.append(_order(entry))
        heapq.heapify(self._heap)
        self._tracked = len(pending)

    def covers(self, pending: dict[int, PendingNotification]) -> bool:
        """Whether this index describes ``pending`` (the state was not replaced meanwhile).

        A restored state is a new dict; a dict changed behind the index's back has another
        size. Either way the caller rebuilds.
        """
        return pending is self._pending and len(pending) == self._tracked

    def __len__(self) -> int:
        return len(self._pending)

    def held_by(self, owner_id: uuid.UUID) -> int:
        """How many entries ``owner_id`` has pending."""
        return len(self._by_owner.get(owner_id, ()))

    def add(self, entry: PendingNotification) -> None:
        """Store ``entry`` in the dict and the indexes."""
        self._pending[entry.notification_id] = entry
        self._by_owner.setdefault(entry.owner_id, set()).add(entry.notification_id)
        heapq.heappush(self._heap, _order(entry))
        self._tracked += 1

    def remove(self, notification_id: int) -> PendingNotification | None:
        """Drop an entry from the dict and the owner index; its heap item goes stale."""
        entry = self._pending.pop(notification_id, None)
        if entry is None:
            return None
        self._tracked -= 1
        ids = self._by_owner.get(entry.owner_id)
        if ids is not None:
            ids.discard(notification_id)
            if not ids:
                del self._by_owner[entry.owner_id]
        if len(self._heap) > 2 * len(self._pending) + _STALE_SLACK:
            self._heap = [_order(e) for e in self._pending.values()]
            heapq.heapify(self._heap)
        return entry

    def pop_due(self, now: datetime) -> list[PendingNotification]:
        """Entries due at ``now``, soonest first (ties in id order), taken off the heap.

        They stay pending: the caller removes the ones it finished with and hands the
        others (owner away, roster unreadable) back with :meth:`push_back`.
        """
        due: list[PendingNotification] = []
        while self._heap and self._heap[0][0] <= now:
            fire_at, notification_id = heapq.heappop(self._heap)
            entry = self._pending.get(notification_id)
            if entry is not None and entry.fire_at == fire_at:
                due.append(entry)
        return due

    def push_back(self, entries: list[PendingNotification]) -> None:
        """Put due entries that are still pending back on the heap (for the next scan)."""
        for entry in entries:
            if self._pending.get(entry.notification_id) is entry:
                heapq.heappush(self._heap, _order(entry))

    def soonest(
        self, owner_id: uuid.UUID | None, limit: int | None
    ) -> tuple[list[PendingNotification], int]:
        """The ``limit`` soonest entries of ``owner_id`` (everyone's when ``None``), and how
        many there are in all."""
        if owner_id is None:
            pool = list(self._pending.values())
        else:
            pool = [self._pending[i] for i in self._by_owner.get(owner_id, ())]
        if limit is None or limit >= len(pool):
            return sorted(pool, key=_order), len(pool)
        return heapq.nsmallest(limit, pool, key=_order), len(pool)
