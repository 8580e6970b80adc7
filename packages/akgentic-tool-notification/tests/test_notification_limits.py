"""Argument types and size limits of the notification callables (security review findings).

A wrong type or an oversize value must come back as a ``RetriableError`` that names the
parameter and what it expects, and must leave the pending entries exactly as they were.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from akgentic_notification_testkit import bind, refusal, start_member

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.notification import (
    CONTENT_MAX_CHARS,
    NOTIFICATION_ID_MAX_CHARS,
    PENDING_MAX_PER_AGENT,
    NotificationActor,
)


def snapshot(notifier: NotificationActor) -> list[tuple[int, str]]:
    return [(e.notification_id, e.content) for e in notifier.pending().entries]


def test_limits_are_the_documented_values() -> None:
    assert (CONTENT_MAX_CHARS, PENDING_MAX_PER_AGENT, NOTIFICATION_ID_MAX_CHARS) == (
        2_000,
        100,
        64,
    )


def test_a_50_mb_content_is_refused_and_nothing_is_stored(
    tools: dict[str, Any], notifier: NotificationActor
) -> None:
    tools["register_notification"]("keep me", 60)
    before = snapshot(notifier)
    message = refusal(tools["register_notification"], "x" * 50_000_000, 60)
    assert f"content holds at most {CONTENT_MAX_CHARS} characters" in message
    assert "got 50000000" in message
    assert "nothing was changed" in message
    assert len(message) < 300
    assert snapshot(notifier) == before


def test_content_at_the_limit_is_accepted_whole(
    tools: dict[str, Any], notifier: NotificationActor
) -> None:
    text = "y" * CONTENT_MAX_CHARS
    tools["register_notification"](text, 60)
    assert [e.content for e in notifier.pending().entries] == [text]
    assert "content holds at most" in refusal(tools["register_notification"], text + "y", 60)
    assert len(notifier.pending().entries) == 1


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((123, 60), "content must be a string, got int"),
        ((["check", "CI"], 60), "content must be a string, got list"),
        ((None, 60), "content must be a string, got NoneType"),
        (("check CI", "60"), "delay_seconds must be an integer number of seconds, got str"),
        (("check CI", True), "delay_seconds must be an integer number of seconds, got bool"),
        (("check CI", 1.5), "delay_seconds must be an integer number of seconds, got float 1.5"),
        (("check CI", float("nan")), "delay_seconds must be an integer number of seconds"),
        (
            ("check CI", datetime(2026, 1, 1, tzinfo=UTC)),
            "delay_seconds must be an integer number of seconds, got datetime",
        ),
        (("check CI", [60]), "delay_seconds must be an integer number of seconds, got list"),
    ],
)
def test_register_with_wrong_types_is_retriable_and_changes_nothing(
    tools: dict[str, Any], notifier: NotificationActor, args: tuple[Any, ...], expected: str
) -> None:
    message = refusal(tools["register_notification"], *args)
    assert expected in message
    assert "nothing was changed" in message
    assert notifier.pending().entries == []


def test_a_huge_delay_text_is_not_echoed_back(
    tool_agent: ToolTestAgent, notifier: NotificationActor
) -> None:
    message = refusal(bind(tool_agent)["register_notification"], "check CI", "9" * 1_000_000)
    assert "delay_seconds must be an integer number of seconds, got str" in message
    assert len(message) < 200
    assert notifier.pending().entries == []


def test_a_whole_float_delay_is_taken_as_seconds(
    tools: dict[str, Any], notifier: NotificationActor
) -> None:
    assert "in 60 s" in tools["register_notification"]("json numbers", 60.0)
    (entry,) = notifier.pending().entries
    assert (entry.due_at - entry.created_at).total_seconds() == 60


@pytest.mark.parametrize("value", ["false", "true", 1, 0, None, ["all"]])
def test_pending_all_must_be_a_boolean(
    tools: dict[str, Any], notifier: NotificationActor, value: Any
) -> None:
    message = refusal(tools["pending_notification"], all=value)
    assert "all must be a boolean (true or false)" in message
    assert f"got {type(value).__name__}" in message


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (["abc"], "notification_id must be an integer, got list"),
        (True, "notification_id must be an integer, got bool"),
        ("abc", "notification_id must be an integer"),
        (12345678, "no pending notification 12345678 of yours"),
        ("7" * (NOTIFICATION_ID_MAX_CHARS + 1), "notification_id holds at most 64 characters"),
    ],
)
def test_cancel_with_a_wrong_id_is_retriable_and_changes_nothing(
    tools: dict[str, Any], notifier: NotificationActor, value: Any, expected: str
) -> None:
    tools["register_notification"]("keep me", 60)
    before = snapshot(notifier)
    assert expected in refusal(tools["cancel_notification"], value)
    assert snapshot(notifier) == before


def test_a_huge_id_is_not_echoed_back(
    tool_agent: ToolTestAgent, notifier: NotificationActor
) -> None:
    message = refusal(bind(tool_agent)["cancel_notification"], "7" * 5_000_000)
    assert len(message) < 200
    assert "nothing was changed" in message
    # At the limit the id is looked up (and, being nobody's, reported as unknown).
    at_limit = refusal(bind(tool_agent)["cancel_notification"], "7" * NOTIFICATION_ID_MAX_CHARS)
    assert "no pending notification" in at_limit


def test_pending_entries_per_agent_are_bounded(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tools: dict[str, Any],
    notifier: NotificationActor,
) -> None:
    for i in range(PENDING_MAX_PER_AGENT):
        tools["register_notification"](f"entry {i}", 60)
    before = snapshot(notifier)
    message = refusal(tools["register_notification"], "one too many", 60)
    assert f"the most one agent may hold ({PENDING_MAX_PER_AGENT})" in message
    assert "nothing was changed" in message
    assert snapshot(notifier) == before

    # The limit is per agent: a teammate is not blocked by it.
    other = bind(start_member(actor_system, orchestrator, "@Other"))
    other["register_notification"]("mine", 60)
    # Cancelling one of yours makes room again.
    tools["cancel_notification"](before[0][0])
    tools["register_notification"]("room again", 60)
    assert len(notifier.pending().entries) == PENDING_MAX_PER_AGENT + 1
