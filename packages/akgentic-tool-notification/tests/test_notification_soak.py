"""Soak: 1,000 notifications across 20 agents, with a stop and a resume in the middle.

Every notification must arrive exactly once, at its owner, in due order (ties in
registration order), and none may be lost across the stop/resume.
"""

from __future__ import annotations

import random
import uuid
from collections import defaultdict

from akgentic_notification_testkit import (
    REMINDER,
    ManualClock,
    clocked_team,
    new_team,
    notifications,
    resume_notifier,
    start_member,
)

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent, eventually, stop_team
from akgentic.tool.notification import NotificationActor, NotificationTool

AGENTS = 20
PER_AGENT = 50
STEP_SECONDS = 5


def _run_until(notifier: NotificationActor, clock: ManualClock, elapsed: int, until: int) -> int:
    while elapsed < until:
        clock.advance(STEP_SECONDS)
        elapsed += STEP_SECONDS
        notifier.tick()
    return elapsed


def _contents(agents: list[ToolTestAgent]) -> list[str]:
    return [m.content for a in agents for m in notifications(a)]  # type: ignore[attr-defined]


def test_thousand_notifications_twenty_agents_stop_resume(
    actor_system: ActorSystem, clock: ManualClock
) -> None:
    team, recorder, notifier = clocked_team(actor_system, clock)

    first_life = [start_member(actor_system, team, f"@Agent{i:02d}") for i in range(AGENTS)]
    ids: list[uuid.UUID] = [a.agent_id for a in first_life]
    registers = [
        ToolFactory([NotificationTool(message_class=REMINDER)], observer=a).commands.get(
            "register_notification"
        )
        for a in first_life
    ]

    rng = random.Random(20260101)
    expected: dict[uuid.UUID, list[tuple[int, int, str]]] = defaultdict(list)
    for k in range(PER_AGENT):
        for i, register in enumerate(registers):
            delay = rng.randint(1, 300)
            content = f"{i:02d}/{k:02d}"
            register(content, delay)
            expected[ids[i]].append((delay, k, content))
    assert len(notifier.pending().entries) == AGENTS * PER_AGENT

    # First life: the clock runs to t=150 s, then the team stops.
    due_first = sum(1 for items in expected.values() for d, _, _ in items if d <= 150)
    elapsed = _run_until(notifier, clock, 0, 150)
    eventually(lambda: len(_contents(first_life)) == due_first, timeout=20)
    stop_team(actor_system, team)

    # Second life: 40 s pass while stopped, the actor comes back before its agents do.
    clock.advance(40)
    elapsed += 40
    resumed, _ = new_team(actor_system)
    notifier = resume_notifier(actor_system, resumed, recorder.record, clock)
    assert len(notifier.pending().entries) == AGENTS * PER_AGENT - due_first
    assert notifier.tick() == []
    second_life = [
        start_member(actor_system, resumed, f"@Agent{i:02d}", agent_id=ids[i])
        for i in range(AGENTS)
    ]
    _run_until(notifier, clock, elapsed, 305)
    eventually(lambda: len(_contents(second_life)) == AGENTS * PER_AGENT - due_first, timeout=20)
    assert notifier.pending().entries == []

    everything = _contents(first_life) + _contents(second_life)
    assert len(everything) == AGENTS * PER_AGENT
    assert len(set(everything)) == AGENTS * PER_AGENT  # exactly once each
    for i in range(AGENTS):
        got = list(_contents([first_life[i], second_life[i]]))
        want = [content for _, _, content in sorted(expected[ids[i]])]
        assert got == want, f"agent {i} received its notifications out of due order"
