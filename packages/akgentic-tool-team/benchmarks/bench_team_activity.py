"""How much team_activity costs as the team's history grows.

Two measurements, each against a baseline taken in the same run:

1. Deriving busy members (``snapshot_from_messages``) from a synthetic history of N telemetry
   messages, against the physical floor: one bare pass over the same list doing the same
   isinstance dispatch and nothing else.
2. The whole ``team_activity`` tool call in a real team whose orchestrator holds that
   history (up to 10,000 messages: loading more through the orchestrator's replay path
   would dominate the run), against the derivation alone, i.e. what the orchestrator
   round trips, the roster read and the report model add on top.

Run: .venv/bin/python packages/akgentic-tool-team/benchmarks/bench_team_activity.py
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message, UserMessage
from akgentic.core.messages.orchestrator import (
    HandledMessage,
    ProcessedMessage,
    ReceivedMessage,
    SentMessage,
)
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.core.testing.benchmark import bench_row, median_seconds
from akgentic.tool.team import TeamTool
from akgentic.tool.team.activity import snapshot_from_messages

SIZES = (1_000, 10_000, 100_000)
LOADED_SIZES = (1_000, 10_000)
MEMBERS = 20


class _Member(Akgent[BaseConfig, BaseState]):
    def itself(self) -> _Member:
        return self


def _history(members: list[Any], size: int) -> list[Message]:
    """size/3 tasks, each Sent -> Received -> Processed; the last task per member stays open."""
    history: list[Message] = []
    boss = members[0].myAddress
    tasks = size // 3
    for i in range(tasks):
        worker = members[1 + i % (len(members) - 1)].myAddress
        task = UserMessage(content=f"task {i}: " + "lorem ipsum " * 20)
        sent = SentMessage(message=task, recipient=worker)
        sent.sender = boss
        received = ReceivedMessage(message_id=task.id)
        received.sender = worker
        history += [sent, received]
        if i < tasks - len(members):
            done = ProcessedMessage(message_id=task.id)
            done.sender = worker
            history.append(done)
    return history


def _floor(history: list[Message]) -> int:
    # The same type dispatch snapshot_from_messages does, with no bookkeeping behind it.
    kinds = (SentMessage, ProcessedMessage, HandledMessage, ReceivedMessage)
    count = 0
    for msg in history:
        if isinstance(msg, kinds):
            count += 1
    return count


def main() -> None:
    system = ActorSystem()
    orchestrator = system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    orch = system.proxy_ask(orchestrator, Orchestrator)
    members = [
        system.proxy_ask(
            orch.createActor(_Member, config=BaseConfig(name=f"@M{i}", role="Worker")), _Member
        ).itself()
        for i in range(MEMBERS)
    ]
    caller_address = orch.createActor(ToolTestAgent, config=BaseConfig(name="@Caller"))
    caller = system.proxy_ask(caller_address, ToolTestAgent).itself()
    tool = {t.__name__: t for t in ToolFactory([TeamTool()], observer=caller).get_tools()}[
        "team_activity"
    ]
    team = orch.get_team()
    now = datetime.now(UTC)

    print(
        f"{'history':>9} | {'derive':>10} {'floor':>10} {'ratio':>6} | "
        f"{'tool call':>10} {'vs derive':>9}"
    )
    loaded = 0
    try:
        for size in SIZES:
            history = _history(members, size)
            repeat = 21 if size <= 10_000 else 5
            derive = median_seconds(
                lambda h=history: snapshot_from_messages(h, team, now=now, exclude=[uuid.uuid4()]),
                repeat,
            )
            floor = median_seconds(lambda h=history: _floor(h), repeat)
            line = (
                f"{size:>9,} | {derive * 1e3:>8.2f}ms {floor * 1e3:>8.2f}ms {derive / floor:>5.1f}x"
            )
            bench_row(
                f"team_activity derivation, {size:,} messages",
                derive,
                ratio=derive / floor,
                baseline="one bare pass over the history",
            )
            if size in LOADED_SIZES:
                # Load this history into the real orchestrator (on top of what is there).
                for msg in history[loaded:]:
                    orch.restore_message(msg)
                loaded = len(history)
                report = tool()
                assert len(report.members) == MEMBERS - 1, len(report.members)
                call = median_seconds(tool, repeat)
                line += f" | {call * 1e3:>8.2f}ms {call / derive:>8.1f}x"
            print(line)
    finally:
        system.shutdown(timeout=10)


if __name__ == "__main__":
    main()
