"""When #NotificationTool publishes its state: once per scan after a change, never when idle,
spaced out after an expensive publication, and always when the actor stops."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from akgentic_notification_testkit import (
    REMINDER,
    ManualClock,
    clocked_team,
    new_team,
    persisted,
    resume_notifier,
    start_member,
)

import akgentic.tool.notification.actor as actor_module
from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import (
    RecordedTeam,
    ToolTestAgent,
    eventually,
    settle,
    stop_team,
)
from akgentic.tool.notification import (
    NotificationState,
    NotificationTool,
    PendingNotification,
)

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def register_with(agent: Any) -> Any:
    factory = ToolFactory([NotificationTool(message_class=REMINDER)], observer=agent)
    return {tool.__name__: tool for tool in factory.get_tools()}["register_notification"]


def publications(system: ActorSystem, team: ActorAddress, record: RecordedTeam) -> int:
    """How many states #NotificationTool has published so far (all recorded)."""
    settle(system, team)
    (actor,) = [
        m for m in system.proxy_ask(team, Orchestrator).get_team() if m.name == "#NotificationTool"
    ]
    return record.state_count.get(str(actor.agent_id), 0)


def a_team(system: ActorSystem, clock: ManualClock) -> tuple[ActorAddress, Any, Any, Any]:
    team, recorder, notifier = clocked_team(system, clock)
    register = register_with(start_member(system, team, "@Alice"))
    return team, recorder.record, notifier, register


def test_every_scan_after_a_change_publishes_it(
    actor_system: ActorSystem, clock: ManualClock
) -> None:
    _, record, notifier, register = a_team(actor_system, clock)
    register("one", 100)
    notifier.tick()
    eventually(lambda: persisted(record) == ["one"])
    register("two", 100)  # a second change is published by a later scan too
    eventually(lambda: notifier.tick() == [] and persisted(record) == ["one", "two"])


def test_an_idle_scan_publishes_nothing(actor_system: ActorSystem, clock: ManualClock) -> None:
    # The scan runs about once a second: publishing an unchanged state each time would
    # flood the team's history.
    team, record, notifier, register = a_team(actor_system, clock)
    register("one", 100)
    notifier.tick()
    published = publications(actor_system, team, record)
    for _ in range(3):
        notifier.tick()
    assert publications(actor_system, team, record) == published


def test_spaced_publications_wait_but_stopping_always_publishes(
    actor_system: ActorSystem, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every publication counts as expensive and spaces the next one far away: only the
    # stop may publish what changed after the first one.
    monkeypatch.setattr(actor_module, "_PUBLISH_CHEAP_S", 0.0)
    monkeypatch.setattr(actor_module, "_PUBLISH_SPACING", 1e6)
    team, record, notifier, register = a_team(actor_system, clock)
    register("one", 100)
    notifier.tick()
    eventually(lambda: persisted(record) == ["one"])
    register("two", 100)
    notifier.tick()
    settle(actor_system, team)
    assert persisted(record) == ["one"]
    stop_team(actor_system, team)
    assert persisted(record) == ["one", "two"]


def test_numbering_continues_after_a_resume(actor_system: ActorSystem, clock: ManualClock) -> None:
    # The published state carries the next id: a resumed actor must not hand out an id
    # that a pending entry already has.
    team, record, _, register = a_team(actor_system, clock)
    register("one", 100)
    register("two", 100)
    stop_team(actor_system, team)
    resumed, _ = new_team(actor_system)
    notifier = resume_notifier(actor_system, resumed, record, clock)
    again = register_with(start_member(actor_system, resumed, "@Bob"))
    assert again("three", 100).startswith("Scheduled notification 3:")
    assert [e.notification_id for e in notifier.pending().entries] == [1, 2, 3]


def test_an_unchanged_entry_is_copied_for_publication_once(tool_agent: ToolTestAgent) -> None:
    # Copying every entry on every publication cost seconds with 20,000 pending: an entry
    # that did not change keeps its published copy.
    entry = PendingNotification(
        notification_id=1,
        owner=tool_agent.myAddress,
        content="same",
        created_at=START,
        fire_at=START + timedelta(seconds=10),
    )
    state = NotificationState(pending={1: entry}, next_id=2)
    first, second = state.serializable_copy(), state.serializable_copy()
    assert first.pending[1] is not entry
    published = first.pending[1]
    assert (published.content, published.fire_at, published.owner_id) == (
        entry.content,
        entry.fire_at,
        entry.owner_id,
    )
    assert second.pending[1] is first.pending[1]
    assert second.next_id == 2
    replaced = entry.model_copy(update={"content": "changed"})
    state.pending[1] = replaced
    third = state.serializable_copy()
    assert third.pending[1].content == "changed"
