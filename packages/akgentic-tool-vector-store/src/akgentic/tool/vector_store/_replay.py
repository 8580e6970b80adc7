"""What a restored store can redo from the events replayed out of the team history.

Events newer than the restored snapshot name refs only (texts and vectors are never
broadcast), so the replay cannot bring documents back. It can still redo what an event
fully describes (a collection dropped, documents removed), so that nothing deleted after
the snapshot comes back, and it names what is missing: documents written, and collections
created, after the snapshot. Their writers send them again (planning and the knowledge
graph do whenever the store's count differs from theirs).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from akgentic.tool.vector_store.event import VectorStoreStateEvent

__all__ = ["ReplayPlan", "plan_replay"]


@dataclass
class ReplayPlan:
    """Collections to drop, refs to remove by collection, and what is missing."""

    dropped: list[str] = field(default_factory=list)
    removed: dict[str, list[str]] = field(default_factory=dict)
    missing: dict[str, list[str]] = field(default_factory=dict)
    """Refs written after the snapshot, by collection."""
    missing_collections: list[str] = field(default_factory=list)
    """Collections created after the snapshot (their configuration is not in any event)."""


def plan_replay(events: Iterable[VectorStoreStateEvent]) -> ReplayPlan:
    """Walk ``events`` in order into a :class:`ReplayPlan`.

    After a drop, the later events of that name concern a new collection (created after
    the snapshot): nothing is removed from the restored one on their account.
    """
    plan = ReplayPlan()
    recreated: set[str] = set()
    missing: dict[str, dict[str, None]] = {}
    for event in events:
        name = event.collection
        if event.dropped:
            if name not in recreated:
                plan.dropped.append(name)
            recreated.discard(name)
            plan.removed.pop(name, None)
            missing.pop(name, None)
            if name in plan.missing_collections:
                plan.missing_collections.remove(name)
            continue
        if event.created and name in plan.dropped:
            recreated.add(name)
        if event.created and name not in plan.missing_collections:
            plan.missing_collections.append(name)
        refs = missing.setdefault(name, {})
        for ref in event.removed:
            refs.pop(ref, None)
        if event.removed and name not in recreated:
            plan.removed.setdefault(name, []).extend(event.removed)
        for ref in event.upserted:
            refs[ref] = None
    plan.missing = {name: list(refs) for name, refs in missing.items() if refs}
    return plan
