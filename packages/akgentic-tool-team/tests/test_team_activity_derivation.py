"""snapshot_from_messages on hand-built telemetry: the ledger rules, no actor involved."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_address_impl import ActorAddressProxy
from akgentic.core.messages.message import Message, ResultMessage, UserMessage
from akgentic.core.messages.orchestrator import (
    HandledMessage,
    ProcessedMessage,
    ReceivedMessage,
    SentMessage,
)
from akgentic.tool.team.activity import (
    UNRESOLVED_TASK,
    ActivitySnapshot,
    MemberRow,
    snapshot_from_messages,
)

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
TEAM_ID = uuid.uuid4()


def address(name: str, *, human: bool = False) -> ActorAddress:
    return ActorAddressProxy(
        {
            "__actor_address__": True,
            "__actor_type__": "x.Agent",
            "agent_id": str(uuid.uuid4()),
            "name": name,
            "role": "Worker",
            "team_id": str(TEAM_ID),
            "squad_id": "",
            "is_user_proxy": human,
        }
    )


def busy_members(
    history: list[Message], team: list[ActorAddress], **kwargs: Any
) -> list[tuple[MemberRow, str]]:
    """The snapshot's rows with their task text, as the report would resolve it."""
    snapshot = snapshot_from_messages(history, team, now=NOW, **kwargs)
    assert isinstance(snapshot, ActivitySnapshot)
    assert snapshot.generated_at == NOW
    return [(row, snapshot.texts.get(row.message_id, UNRESOLVED_TASK)) for row in snapshot.rows]


def at(seconds_ago: float) -> datetime:
    return NOW - timedelta(seconds=seconds_ago)


def telemetry(kind: type[Message], who: ActorAddress, message_id: uuid.UUID, ago: float) -> Message:
    msg = kind(message_id=message_id)  # type: ignore[call-arg]
    msg.sender = who
    msg.timestamp = at(ago)
    return msg


def sent(by: ActorAddress, to: ActorAddress, message: Message) -> SentMessage:
    msg = SentMessage(message=message, recipient=to)
    msg.sender = by
    return msg


def test_received_without_processed_is_busy_and_processed_closes() -> None:
    boss, ann, bob = address("@Boss"), address("@Ann"), address("@Bob")
    task_a, task_b = UserMessage(content="write docs"), UserMessage(content="fix bug")
    # The closed message comes first: it must not hide the open one recorded after it.
    history = [
        sent(boss, bob, task_b),
        telemetry(ReceivedMessage, bob, task_b.id, 30),
        telemetry(ProcessedMessage, bob, task_b.id, 25),
        sent(boss, ann, task_a),
        telemetry(ReceivedMessage, ann, task_a.id, 20),
    ]
    ((busy, text),) = busy_members(history, [boss, ann, bob])
    assert busy.name == "@Ann"
    assert busy.agent_id == ann.agent_id
    assert text == "write docs"
    assert busy.started_at == at(20)
    assert busy.message_id == task_a.id
    assert busy.suspect is False


def test_handled_message_also_closes_the_ledger() -> None:
    ann = address("@Ann")
    mid = uuid.uuid4()
    history = [telemetry(ReceivedMessage, ann, mid, 5), telemetry(HandledMessage, ann, mid, 1)]
    assert busy_members(history, [ann]) == []


def test_text_fallbacks() -> None:
    boss, ann, bob = address("@Boss"), address("@Ann"), address("@Bob")
    no_content = Message()
    history = [
        telemetry(ReceivedMessage, ann, uuid.uuid4(), 3),  # sent from outside the team
        sent(boss, bob, no_content),
        telemetry(ReceivedMessage, bob, no_content.id, 2),
    ]
    rows = {b.name: text for b, text in busy_members(history, [ann, bob])}
    assert rows["@Ann"] == UNRESOLVED_TASK == "<task text unavailable>"
    assert rows["@Bob"] == "(Message)"


def test_members_off_the_roster_humans_tools_and_excluded_ids_are_skipped() -> None:
    ann, gone, human, tool = (
        address("@Ann"),
        address("@Gone"),
        address("@H", human=True),
        address("#T"),
    )
    history = [telemetry(ReceivedMessage, who, uuid.uuid4(), 1) for who in (ann, gone, human, tool)]
    assert [b.name for b, _ in busy_members(history, [ann, human, tool])] == ["@Ann"]
    assert busy_members(history, [ann, human, tool], exclude=[ann.agent_id]) == []


def test_stale_and_suspect() -> None:
    ann, bob = address("@Ann"), address("@Bob")
    recent, older = ResultMessage(content="recent"), ResultMessage(content="older")
    history = [
        sent(bob, ann, older),
        telemetry(ReceivedMessage, ann, older.id, 100),
        sent(bob, ann, recent),
        telemetry(ReceivedMessage, ann, recent.id, 10),
        telemetry(ReceivedMessage, bob, uuid.uuid4(), 301),
    ]
    ((row, text),) = busy_members(history, [ann, bob])
    assert (row.name, row.suspect, text, row.started_at) == ("@Ann", True, "recent", at(10))
    assert row.message_id == recent.id
    ((row, text),) = busy_members(history, [ann, bob], stale_after_seconds=50)
    assert (row.suspect, text) == (False, "recent")
    assert busy_members(history, [ann, bob], stale_after_seconds=5) == []


def test_texts_are_kept_apart_from_the_rows_and_rows_are_oldest_first() -> None:
    boss, ann, bob = address("@Boss"), address("@Ann"), address("@Bob")
    first, second = UserMessage(content="  spaced\n out  "), UserMessage(content="later")
    history = [
        sent(boss, bob, second),
        telemetry(ReceivedMessage, bob, second.id, 5),
        sent(boss, ann, first),
        telemetry(ReceivedMessage, ann, first.id, 50),
    ]
    snapshot = snapshot_from_messages(history, [boss, ann, bob], now=NOW)
    assert [r.name for r in snapshot.rows] == ["@Ann", "@Bob"]
    assert snapshot.texts == {first.id: "spaced out", second.id: "later"}
    assert snapshot.rows[0] == MemberRow(
        agent_id=ann.agent_id,
        name="@Ann",
        role="Worker",
        message_id=first.id,
        started_at=at(50),
        suspect=False,
    )


def test_an_open_message_exactly_at_the_stale_age_is_still_reported() -> None:
    ann = address("@Ann")
    history = [telemetry(ReceivedMessage, ann, uuid.uuid4(), 300)]
    ((row, _),) = busy_members(history, [ann], stale_after_seconds=300)
    assert row.started_at == at(300)
    assert busy_members(history, [ann], stale_after_seconds=299.5) == []
