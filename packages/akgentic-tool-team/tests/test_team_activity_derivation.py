"""busy_members on hand-built telemetry: the ledger rules, independent of any actor."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_address_impl import ActorAddressProxy
from akgentic.core.messages.message import Message, ResultMessage, UserMessage
from akgentic.core.messages.orchestrator import (
    HandledMessage,
    ProcessedMessage,
    ReceivedMessage,
    SentMessage,
)
from akgentic.tool.team.activity import busy_members

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
    history = [
        sent(boss, ann, task_a),
        telemetry(ReceivedMessage, ann, task_a.id, 20),
        sent(boss, bob, task_b),
        telemetry(ReceivedMessage, bob, task_b.id, 10),
        telemetry(ProcessedMessage, bob, task_b.id, 5),
    ]
    (busy,) = busy_members(history, [boss, ann, bob], now=NOW)
    assert busy.name == "@Ann"
    assert busy.text == "write docs"
    assert busy.started_at == at(20)
    assert busy.message_id == task_a.id
    assert busy.suspect is False


def test_handled_message_also_closes_the_ledger() -> None:
    ann = address("@Ann")
    mid = uuid.uuid4()
    history = [telemetry(ReceivedMessage, ann, mid, 5), telemetry(HandledMessage, ann, mid, 1)]
    assert busy_members(history, [ann], now=NOW) == []


def test_text_fallbacks() -> None:
    boss, ann, bob = address("@Boss"), address("@Ann"), address("@Bob")
    no_content = Message()
    history = [
        telemetry(ReceivedMessage, ann, uuid.uuid4(), 3),  # sent from outside the team
        sent(boss, bob, no_content),
        telemetry(ReceivedMessage, bob, no_content.id, 2),
    ]
    rows = {b.name: b.text for b in busy_members(history, [ann, bob], now=NOW)}
    assert rows["@Ann"].startswith("(task text unavailable")
    assert rows["@Bob"] == "(Message)"


def test_members_off_the_roster_humans_tools_and_excluded_ids_are_skipped() -> None:
    ann, gone, human, tool = (
        address("@Ann"),
        address("@Gone"),
        address("@H", human=True),
        address("#T"),
    )
    history = [telemetry(ReceivedMessage, who, uuid.uuid4(), 1) for who in (ann, gone, human, tool)]
    assert [b.name for b in busy_members(history, [ann, human, tool], now=NOW)] == ["@Ann"]
    assert busy_members(history, [ann, human, tool], now=NOW, exclude=[ann.agent_id]) == []


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
    (row,) = busy_members(history, [ann, bob], now=NOW)
    assert (row.name, row.suspect, row.text, row.started_at) == ("@Ann", True, "recent", at(10))
    (row,) = busy_members(history, [ann, bob], now=NOW, stale_after_seconds=50)
    assert (row.suspect, row.text) == (False, "recent")
    assert busy_members(history, [ann, bob], now=NOW, stale_after_seconds=5) == []
