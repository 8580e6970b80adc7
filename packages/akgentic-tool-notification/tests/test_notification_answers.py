"""What the model reads back: listings, time left, clipped texts, refused cancellations.

Each answer is the model's only view of its reminders, so its edges are pinned here: the
second an entry turns due, the length a long text is clipped to, which ids a refused
cancellation reminds the agent of, and what a cut listing tells it to do next.
"""

from __future__ import annotations

from typing import Any

import pytest
from akgentic_notification_testkit import ManualClock, bind, refusal, start_member

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.notification import NotificationActor, PendingNotifications

# Texts longer than this are clipped in listings and cancellation answers.
CLIP = 120


def test_an_empty_team_listing_says_it_covers_the_team(
    tools: dict[str, Any], notifier: NotificationActor
) -> None:
    assert "in the team" in tools["pending_notification"](all=True)
    assert "in the team" not in tools["pending_notification"]()


def test_time_left_turns_to_due_now_at_the_due_second_not_before(
    tools: dict[str, Any], notifier: NotificationActor, clock: ManualClock
) -> None:
    tools["register_notification"]("soon", 5)
    clock.advance(4)
    assert tools["pending_notification"]().splitlines()[1].endswith(" in 1s: soon")
    clock.advance(1)  # due, not yet scanned
    assert "due now" in tools["pending_notification"]().splitlines()[1]


def test_a_text_of_the_clip_length_is_shown_whole_a_longer_one_is_clipped(
    tools: dict[str, Any], notifier: NotificationActor
) -> None:
    whole = "w" * CLIP
    longer = "l" * (CLIP + 1)
    tools["register_notification"](whole, 10)
    tools["register_notification"](longer, 20)
    lines = tools["pending_notification"]().splitlines()
    assert lines[1].endswith(f": {whole}")
    shown = lines[2].split(": ", 1)[1]
    assert shown == "l" * (CLIP - 1) + "…"  # same width as a whole one, marked as cut
    answer = tools["cancel_notification"](2)
    assert answer.endswith(": " + "l" * (CLIP - 1) + "…")


def test_a_cut_own_listing_tells_the_agent_to_cancel_not_to_narrow(
    tool_agent: ToolTestAgent, notifier: NotificationActor
) -> None:
    tools = bind(tool_agent, pending_notification=PendingNotifications(max_listed=2))
    for i in range(3):
        tools["register_notification"](f"entry {i}", 10 + i)
    last = tools["pending_notification"]().splitlines()[-1]
    assert last.startswith("... 1 more not shown")
    assert "cancel" in last
    assert "all=false" not in last  # already narrowed to its own entries
    assert "all=false" in tools["pending_notification"](all=True).splitlines()[-1]


def test_a_refused_cancellation_lists_only_own_ids_soonest_twenty(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    notifier: NotificationActor,
) -> None:
    other = bind(start_member(actor_system, orchestrator, "@Other"))
    other["register_notification"]("not yours", 5)  # id 1, the team's soonest
    mine = bind(tool_agent)
    for i in range(25):  # ids 2..26, all due together: listed in id order
        mine["register_notification"](f"mine {i}", 60)
    message = refusal(mine["cancel_notification"], 999)
    known = message.split("your pending ids: ", 1)[1]
    shown, rest = known.split(" and ", 1)
    assert shown.split(", ") == [str(i) for i in range(2, 22)]
    assert rest.startswith("5 more")
    assert "pending_notification" in rest  # where to see the others


def test_an_agent_without_entries_is_told_it_has_none(
    tool_agent: ToolTestAgent, notifier: NotificationActor
) -> None:
    assert refusal(bind(tool_agent)["cancel_notification"], 3).endswith("your pending ids: none")


@pytest.mark.parametrize("given", ["#2", " #2 ", "2", 2])
def test_an_id_written_with_a_hash_is_understood(
    tools: dict[str, Any], notifier: NotificationActor, given: object
) -> None:
    tools["register_notification"]("first", 10)
    tools["register_notification"]("second", 20)
    assert tools["cancel_notification"](given) == "Cancelled notification 2: second"
    assert [e.content for e in notifier.pending().entries] == ["first"]
