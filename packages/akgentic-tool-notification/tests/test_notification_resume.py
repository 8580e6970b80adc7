"""Stop and resume: absolute due times, owners that come back late, replayed rosters."""

from __future__ import annotations

from akgentic_notification_testkit import (
    REMINDER,
    ManualClock,
    clocked_team,
    new_team,
    notifications,
    persisted,
    resume_notifier,
    start_member,
)

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.messages.orchestrator import StartMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.core.utils.deserializer import deserialize_object
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import eventually, stop_team
from akgentic.tool.notification import NotificationState, NotificationTool


def register(agent: object, content: str, delay: int) -> str:
    factory = ToolFactory([NotificationTool(message_class=REMINDER)], observer=agent)  # type: ignore[arg-type]
    result: str = factory.commands.call("register_notification", content, delay)
    return result


def test_entry_overdue_after_resume_goes_out_when_the_owner_is_back(
    actor_system: ActorSystem, clock: ManualClock
) -> None:
    team, recorder, _ = clocked_team(actor_system, clock)
    alice = start_member(actor_system, team, "@Alice")
    alice_id = alice.agent_id
    register(alice, "check the build", 60)
    register(alice, "later still", 250)
    stop_team(actor_system, team)

    state = recorder.record.state_of("#NotificationTool")
    assert isinstance(state, NotificationState)
    assert [e.content for e in state.pending.values()] == ["check the build", "later still"]

    clock.advance(3600)  # the team stayed down for an hour: both entries are overdue

    resumed, _ = new_team(actor_system)
    notifier = resume_notifier(actor_system, resumed, recorder.record, clock)
    # The agents have not re-registered yet: nothing can go out, nothing is dropped.
    assert notifier.tick() == []
    clock.advance(30)
    assert notifier.tick() == []
    assert len(notifier.pending().entries) == 2

    back = start_member(actor_system, resumed, "@Alice", agent_id=alice_id)
    assert len(notifier.tick()) == 2  # the first tick after the owner is back
    received = eventually(lambda: len(notifications(back)) == 2 and notifications(back))
    assert [m.content for m in received] == ["check the build", "later still"]  # type: ignore[attr-defined]


def test_owner_window_restarts_after_resume(actor_system: ActorSystem, clock: ManualClock) -> None:
    # An entry that waited four minutes before the stop gets a fresh five-minute window
    # after the resume: the waiting time is not persisted.
    team, recorder, notifier = clocked_team(actor_system, clock)
    alice = start_member(actor_system, team, "@Alice")
    alice_id = alice.agent_id
    register(alice, "hello", 5)
    stop_team(actor_system, team)

    clock.advance(10)
    resumed, resumed_recorder = new_team(actor_system)
    notifier = resume_notifier(actor_system, resumed, recorder.record, clock)
    notifier.tick()
    clock.advance(240)
    notifier.tick()
    stop_team(actor_system, resumed)

    again, _ = new_team(actor_system)
    notifier = resume_notifier(actor_system, again, resumed_recorder.record, clock)
    clock.advance(120)
    notifier.tick()  # 6 minutes since due in total, but only 0 s in this life
    clock.advance(120)
    notifier.tick()
    assert len(notifier.pending().entries) == 1
    back = start_member(actor_system, again, "@Alice", agent_id=alice_id)
    notifier.tick()
    eventually(lambda: notifications(back))


def test_replayed_roster_entry_is_not_a_deliverable_owner(
    actor_system: ActorSystem, clock: ManualClock
) -> None:
    # A resumed orchestrator replays history: its roster lists the owner (as an address
    # snapshot) before the owner has re-registered. That must count as "not back yet".
    team, recorder, _ = clocked_team(actor_system, clock)
    alice = start_member(actor_system, team, "@Alice")
    alice_id = alice.agent_id
    orch = actor_system.proxy_ask(team, Orchestrator)
    history = [m.model_dump() for m in orch.get_messages(message_type=StartMessage)]
    register(alice, "ping", 5)
    stop_team(actor_system, team)

    resumed, _ = new_team(actor_system)
    resumed_orch = actor_system.proxy_ask(resumed, Orchestrator)
    for dumped in history:
        resumed_orch.restore_message(deserialize_object(dumped))
    assert alice_id in {m.agent_id for m in resumed_orch.get_team()}

    notifier = resume_notifier(actor_system, resumed, recorder.record, clock)
    clock.advance(5)
    assert notifier.tick() == []
    assert len(notifier.pending().entries) == 1

    back = start_member(actor_system, resumed, "@Alice", agent_id=alice_id)
    assert len(notifier.tick()) == 1
    assert [m.content for m in eventually(lambda: notifications(back))] == ["ping"]  # type: ignore[attr-defined]
    # The replayed snapshot never reports a stop, so this team can only end on its backstop.
    assert resumed_orch.stop(0.3).wait(15)


def test_changes_are_published_by_the_next_scan(
    actor_system: ActorSystem, clock: ManualClock
) -> None:
    team, recorder, notifier = clocked_team(actor_system, clock)
    alice = start_member(actor_system, team, "@Alice")
    register(alice, "one", 100)
    register(alice, "two", 100)
    notifier.tick()  # one publication for both registrations
    assert eventually(lambda: persisted(recorder.record) == ["one", "two"])
