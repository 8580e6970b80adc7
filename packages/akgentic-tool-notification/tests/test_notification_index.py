"""The pending index keeps itself in step with the entries it describes.

When the index and the entries disagree, the actor silently rebuilds the index on the next
call, which hides every bookkeeping mistake from the behaviour tests but makes each call
cost O(pending) again (the flood the index exists to absorb). These tests therefore check
the index directly: after each change it still ``covers`` its entries, with no rebuild.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from akgentic.core.actor_address import ActorAddress
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.notification import PendingNotification
from akgentic.tool.notification._index import PendingIndex

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def entry(notification_id: int, owner: ActorAddress, due_in: int) -> PendingNotification:
    return PendingNotification(
        notification_id=notification_id,
        owner=owner,
        content=f"entry {notification_id}",
        created_at=START,
        fire_at=START + timedelta(seconds=due_in),
    )


def test_removing_an_unknown_id_changes_nothing(tool_agent: ToolTestAgent) -> None:
    pending: dict[int, PendingNotification] = {}
    index = PendingIndex(pending)
    index.add(entry(1, tool_agent.myAddress, 10))
    assert index.remove(7) is None
    assert list(pending) == [1]
    assert index.covers(pending)
    assert index.held_by(tool_agent.agent_id) == 1


def test_removing_an_entry_returns_it_and_keeps_the_index_in_step(
    tool_agent: ToolTestAgent,
) -> None:
    pending: dict[int, PendingNotification] = {}
    index = PendingIndex(pending)
    first, second = entry(1, tool_agent.myAddress, 10), entry(2, tool_agent.myAddress, 20)
    index.add(first)
    index.add(second)
    assert index.remove(1) is first
    assert index.covers(pending)  # no rebuild needed
    assert index.held_by(tool_agent.agent_id) == 1
    assert index.soonest(tool_agent.agent_id, None) == ([second], 1)
    assert index.remove(2) is second
    assert index.covers(pending)
    assert index.held_by(tool_agent.agent_id) == 0


def test_an_index_built_over_existing_entries_covers_them(tool_agent: ToolTestAgent) -> None:
    pending = {i: entry(i, tool_agent.myAddress, 100 - i) for i in range(1, 4)}
    index = PendingIndex(pending)
    assert index.covers(pending)
    assert not index.covers(dict(pending))  # a replaced state is another dict
    assert index.held_by(tool_agent.agent_id) == 3
    assert [e.notification_id for e in index.pop_due(START + timedelta(seconds=98))] == [3, 2]


def test_after_heavy_cancellation_the_heap_is_rebuilt_and_stays_complete(
    tool_agent: ToolTestAgent,
) -> None:
    pending: dict[int, PendingNotification] = {}
    index = PendingIndex(pending)
    for i in range(1, 201):
        index.add(entry(i, tool_agent.myAddress, i))
    for i in range(1, 198):
        index.remove(i)
    assert index.covers(pending)
    assert [e.notification_id for e in index.pop_due(START + timedelta(seconds=500))] == [
        198,
        199,
        200,
    ]
