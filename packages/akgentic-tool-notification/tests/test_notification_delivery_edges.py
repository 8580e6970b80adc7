"""Delivery at its edges: cancelled entries, owners away, a roster that fails or hangs,
and what the persisted state holds once entries are gone."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from akgentic_notification_testkit import (
    REMINDER,
    ManualClock,
    ReminderMessage,
    StrictReminder,
    bind,
    clocked_team,
    contents,
    message_path,
    notification_actor,
    notifications,
    persisted,
    start_member,
    stop_member,
)

import akgentic.tool.notification.actor as actor_module
from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.testing import ToolTestAgent, eventually, stop_team, team_tool_actor
from akgentic.tool.notification import NotificationActor, NotificationConfig

# -- cancelled and absent ---------------------------------------------------------------


def test_a_cancelled_entry_is_never_delivered_and_the_scan_goes_on(
    tool_agent: ToolTestAgent,
    tools: dict[str, Any],
    notifier: NotificationActor,
    clock: ManualClock,
) -> None:
    tools["register_notification"]("cancelled", 10)
    tools["register_notification"]("kept", 20)
    tools["cancel_notification"](1)
    clock.advance(20)
    assert notifier.tick() == [2]
    received = eventually(lambda: notifications(tool_agent))
    assert [m.content for m in received] == ["kept"]  # type: ignore[attr-defined]


def test_each_entry_of_an_absent_owner_gets_its_own_wait_window(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    notifier: NotificationActor,
    clock: ManualClock,
) -> None:
    alice = start_member(actor_system, orchestrator, "@Alice")
    tools = bind(alice)
    tools["register_notification"]("early", 10)
    tools["register_notification"]("late", 200)
    stop_member(actor_system, orchestrator, alice)
    clock.advance(10)
    notifier.tick()  # "early" starts waiting
    clock.advance(190)
    notifier.tick()  # "late" starts waiting, 190 s after "early"
    clock.advance(110)
    notifier.tick()  # "early" has waited its 300 s, "late" only 110 s
    assert contents(notifier) == ["late"]
    clock.advance(189)
    notifier.tick()
    assert contents(notifier) == ["late"]
    clock.advance(1)
    notifier.tick()  # now "late" has waited its 300 s too
    assert contents(notifier) == []


def test_the_remaining_entries_come_due_after_most_were_cancelled(
    tools: dict[str, Any], notifier: NotificationActor, clock: ManualClock
) -> None:
    # Cancelling leaves stale items in the due-time heap until it is rebuilt; the rebuilt
    # heap must still hold every live entry.
    for i in range(100):
        tools["register_notification"](f"entry {i}", 10 + i)
    for notification_id in range(1, 99):
        tools["cancel_notification"](notification_id)
    assert tools["pending_notification"]().startswith("2 pending")
    clock.advance(120)
    assert notifier.tick() == [99, 100]


def test_own_entries_left_after_a_cancellation_are_still_listed_and_counted(
    tool_agent: ToolTestAgent, tools: dict[str, Any], notifier: NotificationActor
) -> None:
    tools["register_notification"]("a", 10)
    tools["register_notification"]("b", 20)
    tools["cancel_notification"](1)
    listing = tools["pending_notification"]()
    assert listing.startswith("1 pending")
    assert listing.endswith(": b")
    assert notifier.held_ids(tool_agent.agent_id, 20) == ([2], 1)


# -- the actor's own methods ----------------------------------------------------------------


def test_schedule_refuses_a_zero_delay_and_stores_nothing(
    tool_agent: ToolTestAgent, notifier: NotificationActor
) -> None:
    with pytest.raises(ValueError, match="delay_seconds must be positive"):
        notifier.schedule(tool_agent.myAddress, "now", 0)
    assert notifier.pending().entries == []


def test_register_delivers_with_the_class_it_is_given(
    tool_agent: ToolTestAgent, notifier: NotificationActor, clock: ManualClock
) -> None:
    entry = notifier.register(tool_agent.myAddress, "check CI", 5, REMINDER)
    assert (entry.owner_id, entry.content, entry.message_class) == (
        tool_agent.agent_id,
        "check CI",
        REMINDER,
    )
    assert (entry.due_at - entry.created_at).total_seconds() == 5
    clock.advance(5)
    assert notifier.tick() == [entry.notification_id]
    (message,) = eventually(lambda: notifications(tool_agent))
    assert isinstance(message, ReminderMessage)
    assert message.content == "check CI"


def test_schedule_without_a_class_delivers_the_configured_one(
    actor_system: ActorSystem, tool_agent: ToolTestAgent, clock: ManualClock
) -> None:
    team = tool_agent.orchestrator
    assert team is not None
    notifier = team_tool_actor(
        actor_system,
        team,
        NotificationActor,
        NotificationConfig(tick_seconds=3600, message_class=message_path(StrictReminder)),
    )
    notifier.set_clock(clock)
    entry = notifier.schedule(tool_agent.myAddress, "configured", 5)
    assert entry.message_class == message_path(StrictReminder)
    clock.advance(5)
    notifier.tick()
    (message,) = eventually(lambda: notifications(tool_agent))
    assert isinstance(message, StrictReminder)


def test_list_for_an_owner_or_everyone_soonest_first(
    tool_agent: ToolTestAgent,
    notifier: NotificationActor,
    other: ToolTestAgent,
) -> None:
    notifier.schedule(tool_agent.myAddress, "mine later", 30, REMINDER)
    notifier.schedule(other.myAddress, "theirs", 20, REMINDER)
    notifier.schedule(tool_agent.myAddress, "mine sooner", 10, REMINDER)
    assert [e.content for e in notifier.list_for(tool_agent.myAddress)] == [
        "mine sooner",
        "mine later",
    ]
    assert [e.content for e in notifier.list_for(None)] == ["mine sooner", "theirs", "mine later"]


def test_cancel_accepts_the_owner_address_and_refuses_another(
    tool_agent: ToolTestAgent,
    notifier: NotificationActor,
    other: ToolTestAgent,
) -> None:
    entry = notifier.schedule(tool_agent.myAddress, "mine", 30, REMINDER)
    assert notifier.cancel(entry.notification_id, other.myAddress) is None
    removed = notifier.cancel(entry.notification_id, tool_agent.myAddress)
    assert removed is not None
    assert removed.content == "mine"
    assert notifier.pending().entries == []


# -- persistence of removals --------------------------------------------------------------


def test_cancelled_and_delivered_entries_are_gone_from_the_persisted_state(
    actor_system: ActorSystem, clock: ManualClock
) -> None:
    # A removal left out of the persisted state would come back after a resume (or a
    # crash, when no stop publishes): a cancelled reminder delivered anyway, a delivered
    # one delivered twice. The scan that follows the removals publishes them.
    team, recorder, notifier = clocked_team(actor_system, clock)
    tools = bind(start_member(actor_system, team, "@Alice"))
    tools["register_notification"]("cancel me", 100)
    tools["register_notification"]("keep me", 100)
    tools["register_notification"]("deliver me", 5)
    notifier.tick()  # publishes the three registrations
    tools["cancel_notification"](1)
    clock.advance(5)
    assert notifier.tick() == [3]
    eventually(lambda: persisted(recorder.record) == ["keep me"])
    stop_team(actor_system, team)
    assert persisted(recorder.record) == ["keep me"]


# -- a roster that cannot be read -----------------------------------------------------------

_ROSTER_MODE = {"mode": "ok"}  # "ok", "fail" (raises) or "hang" (blocks until released)
_RELEASE = threading.Event()


class TroubledOrchestrator(Orchestrator):
    """A real orchestrator whose roster can be made to fail or to hang (fault injection)."""

    def get_team(self) -> list[ActorAddress]:
        if _ROSTER_MODE["mode"] == "fail":
            raise RuntimeError("roster store unavailable")
        if _ROSTER_MODE["mode"] == "hang":
            _RELEASE.wait(3)  # a wedged orchestrator, freed by the test (or after 3 s)
        return super().get_team()


@pytest.fixture
def troubled_team(actor_system: ActorSystem) -> Iterator[ActorAddress]:
    _ROSTER_MODE["mode"] = "ok"
    _RELEASE.clear()
    try:
        yield actor_system.createActor(
            TroubledOrchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
    finally:
        _ROSTER_MODE["mode"] = "ok"
        _RELEASE.set()


def test_due_entries_wait_out_an_unreadable_roster(
    actor_system: ActorSystem,
    troubled_team: ActorAddress,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    notifier = notification_actor(actor_system, troubled_team)
    notifier.set_clock(clock)
    alice = start_member(actor_system, troubled_team, "@Alice")
    bind(alice)["register_notification"]("still here", 5)
    clock.advance(5)
    _ROSTER_MODE["mode"] = "fail"
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.notification.actor"):
        assert notifier.tick() == []
    assert contents(notifier) == ["still here"]
    # The log says which actor deferred its deliveries, and why.
    (logged,) = [r.getMessage() for r in caplog.records if "roster" in r.getMessage()]
    assert "#NotificationTool" in logged
    assert "roster store unavailable" in logged
    _ROSTER_MODE["mode"] = "ok"
    assert notifier.tick() == [1]
    received = eventually(lambda: notifications(alice))
    assert [m.content for m in received] == ["still here"]  # type: ignore[attr-defined]


class FailingOnceClock(ManualClock):
    """Once armed, raises on its next reading: the scan that reads it fails."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = threading.Event()

    def now(self) -> datetime:
        if self.armed.is_set():
            self.armed.clear()
            raise RuntimeError("clock source unavailable")
        return super().now()


def test_a_failed_scan_is_logged_and_the_next_one_delivers(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Driven by the real ticker, as in production: a scan that raises must not end the actor.
    notifier = team_tool_actor(
        actor_system, orchestrator, NotificationActor, NotificationConfig(tick_seconds=0.05)
    )
    clock = FailingOnceClock()
    notifier.set_clock(clock)
    notifier.schedule(tool_agent.myAddress, "after the failure", 1, REMINDER)
    with caplog.at_level(logging.ERROR, logger="akgentic.tool.notification.actor"):
        clock.armed.set()
        eventually(lambda: not clock.armed.is_set())  # a scan has failed
        clock.advance(1)
        received = eventually(lambda: notifications(tool_agent))
    assert [m.content for m in received] == ["after the failure"]  # type: ignore[attr-defined]
    (failure,) = [r for r in caplog.records if r.exc_info is not None]
    assert "#NotificationTool" in failure.getMessage()
    assert failure.exc_info is not None
    assert str(failure.exc_info[1]) == "clock source unavailable"


def test_a_hanging_roster_holds_the_scan_only_for_the_bound(
    actor_system: ActorSystem,
    troubled_team: ActorAddress,
    clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The bound is five seconds in production; a shorter one keeps this test quick.
    monkeypatch.setattr(actor_module, "_ROSTER_TIMEOUT_SECONDS", 0.3)
    notifier = notification_actor(actor_system, troubled_team)
    notifier.set_clock(clock)
    alice = start_member(actor_system, troubled_team, "@Alice")
    bind(alice)["register_notification"]("after the hang", 5)
    clock.advance(5)
    _ROSTER_MODE["mode"] = "hang"
    started = time.monotonic()
    assert notifier.tick() == []
    assert time.monotonic() - started < 2.0
    _ROSTER_MODE["mode"] = "ok"
    _RELEASE.set()
    assert notifier.tick() == [1]
