"""One agent flooding #NotificationTool must not hurt the others (issue 20, finding 7).

Reproduced on a real team: the flood is really registered with the actor, the listing is
really rendered, and the victim's reminder is really delivered by the ticker.
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

from akgentic_notification_testkit import REMINDER, bind, notifications, refusal, start_member

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import ToolTestAgent, team_tool_actor
from akgentic.tool.errors import RetriableError
from akgentic.tool.notification import (
    LISTING_MAX_LINES,
    MAX_DELAY_CEILING_S,
    PENDING_MAX_TOTAL,
    NotificationActor,
    NotificationConfig,
    PendingNotifications,
)


def notifier_with(
    system: ActorSystem, orchestrator: ActorAddress, **config: Any
) -> NotificationActor:
    """#NotificationTool created first with ``config`` (cards attached later bind to it)."""
    settings: dict[str, Any] = {"tick_seconds": 3600, **config}
    return team_tool_actor(system, orchestrator, NotificationActor, NotificationConfig(**settings))


def test_defaults_are_the_documented_values() -> None:
    config = NotificationConfig()
    assert (config.max_pending_per_agent, config.max_pending_total) == (100, 5_000)
    assert config.max_delay_seconds == MAX_DELAY_CEILING_S == 365 * 24 * 3600
    assert PENDING_MAX_TOTAL == 5_000
    assert PendingNotifications().max_listed == LISTING_MAX_LINES == 50


def test_a_delay_of_10_to_the_12_is_a_retriable_error_naming_the_field(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    notifier = notifier_with(actor_system, orchestrator)
    tools = bind(tool_agent, max_delay_seconds=10**12)  # a card that allows anything
    message = refusal(tools["register_notification"], "see you in 30,000 years", 10**12)
    assert "delay_seconds is at most 31536000 here, got 1e+12" in message
    assert "not reachable" not in message
    assert notifier.pending().entries == []
    # A year is accepted; the actor's own ceiling is configurable.
    assert "Scheduled" in tools["register_notification"]("next year", MAX_DELAY_CEILING_S)


def test_the_actor_ceiling_is_configurable_and_never_overflows(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    notifier = notifier_with(actor_system, orchestrator, max_delay_seconds=10**15)
    tools = bind(tool_agent, max_delay_seconds=10**15)
    message = refusal(tools["register_notification"], "far", 10**14)
    assert "delay_seconds 1e+14 puts the due date past the end of the calendar" in message
    assert notifier.pending().entries == []
    tools["register_notification"]("soon", 60)
    assert len(notifier.pending().entries) == 1


def test_pending_entries_are_bounded_per_agent_and_in_total(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    notifier = notifier_with(
        actor_system, orchestrator, max_pending_per_agent=2, max_pending_total=5
    )
    mine = bind(tool_agent)
    for i in range(2):
        mine["register_notification"](f"mine {i}", 60)
    assert "the most one agent may hold (2)" in refusal(mine["register_notification"], "x", 60)
    others = [bind(start_member(actor_system, orchestrator, f"@Other{i}")) for i in range(2)]
    others[0]["register_notification"]("a", 60)
    others[0]["register_notification"]("b", 60)
    others[1]["register_notification"]("c", 60)
    message = refusal(others[1]["register_notification"], "d", 60)
    assert "the team already has 5 pending notifications" in message
    assert "(5)" in message
    assert "nothing was changed" in message
    assert notifier.pending().total == 5


def test_the_team_listing_is_cut_and_says_how_to_narrow_it(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    notifier = notifier_with(actor_system, orchestrator, max_pending_per_agent=5_000)
    flooder = start_member(actor_system, orchestrator, "@Flooder")
    for i in range(2_000):
        notifier.schedule(flooder.myAddress, f"{i} " + "z" * 1_998, 600, REMINDER)
    tools = bind(tool_agent)
    tools["register_notification"]("mine", 30)
    text = tools["pending_notification"](all=True)
    assert text.startswith("2001 pending notification(s):")
    assert len(text.splitlines()) == 1 + LISTING_MAX_LINES + 1
    first = text.splitlines()[1]  # soonest first
    assert first.startswith("- 2001 @Tester in ")
    assert first.endswith("s: mine")
    assert text.endswith("... 1951 more not shown; narrow with all=false to see only yours.")
    assert len(text) < 10_000
    assert bind(tool_agent)["pending_notification"]().startswith("1 pending")

    small = bind(tool_agent, pending_notification=PendingNotifications(max_listed=3))
    lines = small["pending_notification"](all=True).splitlines()
    assert len(lines) == 5
    assert lines[-1].startswith("... 1998 more not shown")


def test_registration_does_not_slow_down_with_thousands_pending(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    notifier = notifier_with(
        actor_system, orchestrator, max_pending_per_agent=10_000, max_pending_total=10_000
    )
    tools = bind(tool_agent)

    def median_registration() -> float:
        samples = []
        for _ in range(40):
            started = time.perf_counter()
            tools["register_notification"]("timed", 300)
            samples.append(time.perf_counter() - started)
        return statistics.median(samples)

    empty = median_registration()
    flooder = start_member(actor_system, orchestrator, "@Flooder").myAddress
    for i in range(5_000):
        notifier.schedule(flooder, f"flood {i}", 3600, REMINDER)
    crowded = median_registration()
    # Scanning 5,000 entries per registration cost about 5 ms here; counting in O(1) keeps
    # it at the empty actor's cost. The absolute slack absorbs a loaded runner's noise.
    assert crowded < 3 * empty + 0.0015, (empty, crowded)


def test_a_flood_does_not_delay_another_agents_due_notification(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    notifier = notifier_with(
        actor_system, orchestrator, tick_seconds=0.1, max_pending_per_agent=10_000
    )
    flooder = start_member(actor_system, orchestrator, "@Flooder")
    flood = bind(flooder, max_delay_seconds=3600)
    for i in range(3_000):
        notifier.schedule(flooder.myAddress, f"early flood {i}", 3600, REMINDER)
    halt = threading.Event()

    def keep_flooding() -> None:
        while not halt.is_set():
            try:
                flood["register_notification"]("flood", 3600)
            except RetriableError:
                return

    worker = threading.Thread(target=keep_flooding, daemon=True)
    worker.start()
    try:
        victim = bind(tool_agent)
        started = time.monotonic()
        victim["register_notification"]("my one-second reminder", 1)
        while not notifications(tool_agent) and time.monotonic() - started < 10:
            time.sleep(0.02)
        took = time.monotonic() - started
    finally:
        halt.set()
        worker.join(5)
    assert [m.content for m in notifications(tool_agent)] == ["my one-second reminder"]
    assert notifications(flooder) == []
    # Due after 1 s, never before. A starved scanner would miss the 10 s window above;
    # the upper bound leaves a loaded 2-core runner plenty of slack.
    assert 0.9 <= took < 6.0, took
