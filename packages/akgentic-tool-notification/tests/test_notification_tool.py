"""NotificationTool in a real team: scheduling, listing, cancelling, delivery, commands."""

from __future__ import annotations

import logging
import re
import sys
import threading
import time
from datetime import datetime
from typing import Any

import pytest
from akgentic_notification_testkit import (
    REMINDER,
    FragileReminder,
    ManualClock,
    ReminderMessage,
    bind,
    message_path,
    notification_actor,
    notifications,
    start_member,
    stop_member,
    tools_of,
)

import akgentic.tool.notification.tool as tool_module
from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core import COMMAND, TOOL_CALL, ToolFactory
from akgentic.tool.core.testing import ToolTestAgent, assert_card_conformance, eventually
from akgentic.tool.errors import CommandNotRecognized, RetriableError, ToolObserverGone
from akgentic.tool.notification import (
    CancelNotification,
    NotificationActor,
    NotificationTool,
    PendingNotifications,
    RegisterNotification,
)

# -- binding ------------------------------------------------------------------------------


def test_bad_message_class_fails_at_bind_time(tool_agent: ToolTestAgent) -> None:
    with pytest.raises(ValueError, match="does not accept 'notification'"):
        ToolFactory(
            [NotificationTool(message_class=message_path("ChatOnlyMessage"))], observer=tool_agent
        )


def test_default_message_class_without_akgentic_agent_fails_at_bind_time(
    tool_agent: ToolTestAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A None entry in sys.modules makes the import fail exactly as an absent package does.
    monkeypatch.setitem(sys.modules, "akgentic.agent", None)
    monkeypatch.delitem(sys.modules, "akgentic.agent.messages", raising=False)
    card = NotificationTool()  # creating the card never imports the class
    with pytest.raises(ValueError, match="pip install akgentic-agent"):
        ToolFactory([card], observer=tool_agent)


def test_the_actor_a_card_creates_delivers_with_the_card_class(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    clock: ManualClock,
) -> None:
    # No #NotificationTool yet: binding the card creates it, configured with the card's
    # class, which then applies to entries scheduled without one.
    bind(tool_agent)
    notifier = notification_actor(actor_system, orchestrator)  # the card's actor
    notifier.set_clock(clock)
    notifier.schedule(tool_agent.myAddress, "unlabelled", 5)
    clock.advance(5)
    notifier.tick()
    (message,) = eventually(lambda: notifications(tool_agent))
    assert isinstance(message, ReminderMessage)


def test_binding_creates_one_singleton_for_the_team(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    from akgentic.core.orchestrator import Orchestrator

    other = start_member(actor_system, orchestrator, "@Other")
    bind(tool_agent)
    bind(other)
    team = actor_system.proxy_ask(orchestrator, Orchestrator).get_team()
    assert [m.name for m in team].count("#NotificationTool") == 1


# -- register / pending / cancel ----------------------------------------------------------


def test_register_then_list_own_entries(tools: dict[str, Any], notifier: NotificationActor) -> None:
    answer = tools["register_notification"]("check CI", 120)
    assert answer.startswith("Scheduled notification ")
    entry_id = answer.split()[2].rstrip(":")
    listing = tools["pending_notification"]()
    assert entry_id in listing
    assert "in 2m 00s: check CI" in listing
    assert "@" not in listing  # own listing carries no owner marks


@pytest.mark.parametrize("delay", [0, -5, 301, 10_000])
def test_delay_out_of_range_is_retriable_and_changes_nothing(
    tools: dict[str, Any], notifier: NotificationActor, delay: int
) -> None:
    with pytest.raises(RetriableError, match=r"between 1 and 300"):
        tools["register_notification"]("too far", delay)
    assert notifier.pending().entries == []


def test_max_delay_is_configurable(tool_agent: ToolTestAgent, notifier: NotificationActor) -> None:
    tools = bind(tool_agent, max_delay_seconds=60)
    with pytest.raises(RetriableError, match=r"between 1 and 60"):
        tools["register_notification"]("later", 61)
    tools["register_notification"]("soon", 60)
    assert [e.content for e in notifier.pending().entries] == ["soon"]


def test_empty_content_is_retriable(tools: dict[str, Any], notifier: NotificationActor) -> None:
    with pytest.raises(RetriableError, match="content is empty"):
        tools["register_notification"]("   ", 10)
    assert notifier.pending().entries == []


def test_all_widens_visibility_but_never_cancel_authority(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    notifier: NotificationActor,
) -> None:
    bob = start_member(actor_system, orchestrator, "@Bob")
    mine = bind(tool_agent)
    bobs = bind(bob)
    entry_id = mine["register_notification"]("deploy check", 90).split()[2].rstrip(":")

    assert bobs["pending_notification"]() == "No pending notifications."
    team_view = bobs["pending_notification"](all=True)
    assert f"- {entry_id} @Tester in 1m 30s: deploy check" in team_view

    with pytest.raises(RetriableError, match=f"no pending notification {entry_id} of yours"):
        bobs["cancel_notification"](entry_id)
    # still pending for its owner
    assert [str(e.notification_id) for e in notifier.pending().entries] == [entry_id]

    assert (
        mine["cancel_notification"](entry_id) == f"Cancelled notification {entry_id}: deploy check"
    )
    assert notifier.pending().entries == []


def test_cancel_unknown_id_lists_own_ids(
    tools: dict[str, Any], notifier: NotificationActor
) -> None:
    entry_id = tools["register_notification"]("a", 10).split()[2].rstrip(":")
    with pytest.raises(RetriableError, match=f"your pending ids: {entry_id}"):
        tools["cancel_notification"](999)


def test_listing_is_sorted_by_due_time_with_time_left(
    tools: dict[str, Any], notifier: NotificationActor, clock: ManualClock
) -> None:
    tools["register_notification"]("late", 200)
    tools["register_notification"]("early", 5)
    clock.advance(3)
    lines = tools["pending_notification"]().splitlines()
    assert lines[0] == "2 pending notification(s):"
    assert lines[1].endswith("in 2s: early")
    assert lines[2].endswith("in 3m 17s: late")


# -- delivery -------------------------------------------------------------------------------


def test_due_entry_is_delivered_once_as_a_notification_from_the_actor(
    tool_agent: ToolTestAgent,
    tools: dict[str, Any],
    notifier: NotificationActor,
    clock: ManualClock,
) -> None:
    tools["register_notification"]("check CI", 120)
    clock.advance(119)
    assert notifier.tick() == []
    clock.advance(1)
    delivered = notifier.tick()
    assert len(delivered) == 1
    received = eventually(lambda: notifications(tool_agent))
    assert len(received) == 1
    message = received[0]
    assert isinstance(message, ReminderMessage)
    assert message.content == "check CI"
    assert message.type == "notification"
    assert message.sender is not None
    assert message.sender.name == "#NotificationTool"
    assert notifier.tick() == []  # never twice
    time.sleep(0.05)
    assert len(notifications(tool_agent)) == 1
    assert notifier.pending().entries == []


def test_real_ticker_delivers_within_about_a_second(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    # The wall clock and the real ticker: nothing driven by the test.
    tools = bind(tool_agent)
    started = time.monotonic()
    tools["register_notification"]("wake up", 1)
    eventually(lambda: notifications(tool_agent), timeout=6)
    elapsed = time.monotonic() - started
    assert 1.0 <= elapsed < 5.0  # due after 1 s, scanned about once a second (loaded CI)


def test_owner_gone_for_five_minutes_is_dropped_with_a_log(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    notifier: NotificationActor,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    alice = start_member(actor_system, orchestrator, "@Alice")
    alice_id = alice.agent_id
    bind(alice)["register_notification"]("nobody home", 10)
    stop_member(actor_system, orchestrator, alice)
    clock.advance(10)
    notifier.tick()
    clock.advance(299)
    notifier.tick()
    assert len(notifier.pending().entries) == 1
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.notification.actor"):
        clock.advance(1)
        assert notifier.tick() == []
    assert notifier.pending().entries == []
    (drop,) = [r.getMessage() for r in caplog.records if "off the team" in r.getMessage()]
    # An operator can tell which actor dropped which entry, and whose it was.
    assert "#NotificationTool" in drop
    assert re.search(r"\b1\b", drop)
    assert "@Alice" in drop
    assert str(alice_id) in drop


def test_failed_send_is_logged_and_dropped_not_retried(
    tool_agent: ToolTestAgent,
    notifier: NotificationActor,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    tools = tools_of(NotificationTool(message_class=message_path(FragileReminder)), tool_agent)
    tools["register_notification"]("fine", 5)
    tools["register_notification"]("boom: cannot be built", 5)  # id 2
    clock.advance(5)
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.notification.actor"):
        delivered = notifier.tick()
    assert len(delivered) == 1
    assert notifier.pending().entries == []
    (drop,) = [r.getMessage() for r in caplog.records if "delivery failed" in r.getMessage()]
    # Which actor, which entry and whose, then why: the class's own validation error.
    entry_part, reason = drop.split("delivery failed", 1)
    assert "#NotificationTool" in entry_part
    assert re.search(r"\b2\b", entry_part)
    assert "@Tester" in entry_part
    assert "this content cannot be delivered" in reason
    received = eventually(lambda: notifications(tool_agent))
    assert [m.content for m in received] == ["fine"]  # type: ignore[attr-defined]


def test_ties_are_delivered_in_registration_order(
    tool_agent: ToolTestAgent,
    tools: dict[str, Any],
    notifier: NotificationActor,
    clock: ManualClock,
) -> None:
    for text in ("one", "two", "three"):
        tools["register_notification"](text, 30)
    tools["register_notification"]("zero", 20)
    clock.advance(30)
    notifier.tick()
    received = eventually(lambda: len(notifications(tool_agent)) == 4 and notifications(tool_agent))
    assert [m.content for m in received] == ["zero", "one", "two", "three"]


# -- capability configuration --------------------------------------------------------------


def test_param_narrows_channels_adds_instructions_and_false_removes(
    tool_agent: ToolTestAgent, notifier: NotificationActor
) -> None:
    card = NotificationTool(
        message_class=REMINDER,
        register_notification=RegisterNotification(
            expose={COMMAND}, instructions="Only for CI checks."
        ),
        cancel_notification=CancelNotification(expose={TOOL_CALL}),
        pending_notification=False,
    )
    factory = ToolFactory([card], observer=tool_agent)
    assert [t.__name__ for t in factory.get_tools()] == ["cancel_notification"]
    assert factory.commands.names() == ["register_notification"]
    doc = factory.commands.get("register_notification").__doc__ or ""
    assert doc.rstrip().endswith("Only for CI checks.")
    assert set(card.get_commands()) == {RegisterNotification}


def test_all_capabilities_disabled_binds_no_actor(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    from akgentic.core.orchestrator import Orchestrator

    card = NotificationTool(
        message_class=REMINDER,
        register_notification=False,
        pending_notification=False,
        cancel_notification=False,
    )
    factory = ToolFactory([card], observer=tool_agent)
    assert factory.get_tools() == []
    assert factory.commands.names() == []
    team = actor_system.proxy_ask(orchestrator, Orchestrator).get_team()
    assert "#NotificationTool" not in [m.name for m in team]


def test_pending_param_type_is_the_command_key(tool_agent: ToolTestAgent) -> None:
    card = NotificationTool(message_class=REMINDER)
    ToolFactory([card], observer=tool_agent)
    assert set(card.get_commands()) == {
        RegisterNotification,
        PendingNotifications,
        CancelNotification,
    }


# -- the /-command surface ----------------------------------------------------------------


def test_slash_commands_schedule_and_list(
    tool_agent: ToolTestAgent,
    notifier: NotificationActor,
    other: ToolTestAgent,
) -> None:
    bind(other)["register_notification"]("theirs", 50)
    commands = ToolFactory([NotificationTool(message_class=REMINDER)], observer=tool_agent).commands

    answer = commands.execute('/register_notification "check CI" 120')
    assert "in 120 s" in answer
    own = commands.execute("/pending_notification")
    assert "check CI" in own
    assert "theirs" not in own
    team = commands.execute("/pending_notification all=true")
    assert "@Tester" in team
    assert "@Other" in team
    assert "theirs" in team

    entry_id = own.splitlines()[1].split()[1]
    assert commands.execute(f"/cancel_notification {entry_id}").startswith("Cancelled")

    with pytest.raises(RetriableError, match=r"between 1 and 300"):
        commands.execute('/register_notification "x" 999')
    with pytest.raises(RetriableError, match="delay_seconds"):
        commands.execute('/register_notification "x" soon')
    with pytest.raises(CommandNotRecognized):
        commands.execute("/snooze 5")


# -- lifecycle and conformance ------------------------------------------------------------


def test_tool_after_agent_stopped_raises_observer_gone(
    actor_system: ActorSystem, orchestrator: ActorAddress, notifier: NotificationActor
) -> None:
    import gc

    agent = start_member(actor_system, orchestrator, "@Short")
    tools = bind(agent)
    stop_member(actor_system, orchestrator, agent)
    del agent
    gc.collect()
    with pytest.raises(ToolObserverGone):
        tools["pending_notification"]()


def test_card_conformance(tool_agent: ToolTestAgent, notifier: NotificationActor) -> None:
    card = NotificationTool(
        message_class=REMINDER,
        max_delay_seconds=42,
        register_notification=RegisterNotification(instructions="x"),
        pending_notification=False,
    )
    assert_card_conformance(
        card,
        observer=tool_agent,
        bad_calls={
            "register_notification": [
                {"content": "x", "delay_seconds": 0},
                {"content": "x", "delay_seconds": 43},
                {"content": "", "delay_seconds": 5},
            ],
            "cancel_notification": [{"notification_id": "missing"}],
        },
    )


def test_unreachable_actor_is_retriable(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    caplog: pytest.LogCaptureFixture,
) -> None:
    tools = bind(tool_agent)
    proxy = notification_actor(actor_system, orchestrator)
    proxy.stop()
    eventually(lambda: not _alive(actor_system, orchestrator))
    with (
        caplog.at_level(logging.WARNING, logger="akgentic.tool.notification.tool"),
        pytest.raises(RetriableError, match="not reachable") as info,
    ):
        tools["pending_notification"]()
    # The model gets a short retriable answer; the log keeps the actual cause for operators.
    cause = info.value.__cause__
    assert cause is not None
    (logged,) = [r.getMessage() for r in caplog.records if r.name.endswith(".tool")]
    assert "#NotificationTool" in logged
    assert str(cause) in logged


class StuckClock(ManualClock):
    """A clock that hangs the actor reading it until released (a wedged #NotificationTool)."""

    def __init__(self) -> None:
        super().__init__()
        self.stuck = threading.Event()
        self.release = threading.Event()

    def now(self) -> datetime:
        if self.stuck.is_set():
            self.release.wait(3)  # freed by the test, or after 3 s
        return super().now()


def test_a_wedged_actor_is_retriable_within_the_ask_bound(
    tool_agent: ToolTestAgent, notifier: NotificationActor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bound is ten seconds in production; a shorter one keeps this test quick.
    monkeypatch.setattr(tool_module, "_ASK_TIMEOUT_SECONDS", 0.3)
    clock = StuckClock()
    notifier.set_clock(clock)
    tools = bind(tool_agent)
    clock.stuck.set()
    started = time.monotonic()
    try:
        with pytest.raises(RetriableError, match="not reachable") as info:
            tools["pending_notification"]()
        assert time.monotonic() - started < 2.0
        assert "try again later" in str(info.value)
    finally:
        clock.stuck.clear()
        clock.release.set()
    assert tools["pending_notification"]() == "No pending notifications."


def _alive(system: ActorSystem, orchestrator: ActorAddress) -> bool:
    from akgentic.core.orchestrator import Orchestrator

    return any(
        m.name == "#NotificationTool"
        for m in system.proxy_ask(orchestrator, Orchestrator).get_team()
    )


def test_a_card_whose_binding_failed_refuses_to_be_used(tool_agent: ToolTestAgent) -> None:
    card = NotificationTool(message_class=message_path("ChatOnlyMessage"))
    with pytest.raises(ValueError, match="does not accept"):
        card.observer(tool_agent)
    register = {fn.__name__: fn for fn in card.get_tools()}["register_notification"]
    with pytest.raises(RuntimeError, match=r"before observer\(\) bound it"):
        register("never stored", 10)


def test_agent_outside_a_team_is_refused_at_bind_time(actor_system: ActorSystem) -> None:
    from akgentic.core.agent_config import BaseConfig

    lone = actor_system.proxy_ask(
        actor_system.createActor(ToolTestAgent, config=BaseConfig(name="@Lone")), ToolTestAgent
    ).itself()
    with pytest.raises(ValueError, match="belongs to a team"):
        ToolFactory([NotificationTool(message_class=REMINDER)], observer=lone)


def test_owner_marks_are_single_at_signs(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    notifier: NotificationActor,
) -> None:
    plain = start_member(actor_system, orchestrator, "plain")
    bind(plain)["register_notification"]("from plain", 10)
    bind(tool_agent)["register_notification"]("from tester", 20)
    lines = bind(tool_agent)["pending_notification"](all=True).splitlines()[1:]
    assert [line.split()[2] for line in lines] == ["@plain", "@Tester"]
