"""A real team for tests: actor system, orchestrator and a member that carries tools.

Everything runs on akgentic-core's (Pykka) actor system: a tool actor created with
``getChildrenOrCreate`` is a real child of a real orchestrator, and the events a tool emits
really reach the orchestrator's stream.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV

__all__ = [
    "ToolTestAgent",
    "actor_system",
    "agent_at",
    "orchestrator",
    "orchestrator_events",
    "spawn_tool_agent",
    "team_tool_actor",
    "tool_agent",
    "workspaces_root",
]


class ToolTestAgent(Akgent[BaseConfig, BaseState]):
    """A team member that carries tools in tests, the way a real agent does.

    It is a plain akgentic-core agent, so it satisfies ``ActorToolObserver`` as is
    (``notify_event``, ``myAddress``, ``orchestrator``, ``team_id``, ``proxy_ask``), plus the
    team-management hooks ``createActor`` (inherited), ``on_hire`` and ``on_fire``. It keeps
    what it did in ``events``, ``hired`` and ``fired`` so tests can assert on them.
    """

    def on_start(self) -> None:
        self.events: list[object] = []
        self.hired: list[ActorAddress] = []
        self.fired: list[ActorAddress] = []
        self.received: list[object] = []

    def itself(self) -> Self:
        """The actor instance (asked from outside to get a direct reference)."""
        return self

    def notify_event(self, event: object) -> None:
        self.events.append(event)
        super().notify_event(event)

    def on_hire(self, member: ActorAddress) -> None:
        """Record a member hired through this agent."""
        self.hired.append(member)

    def on_fire(self, member: ActorAddress) -> None:
        """Record and stop a member fired through this agent."""
        self.fired.append(member)
        if member.is_alive():
            self.proxy_ask(member, Akgent).stop()

    def receiveMsg_Message(self, message: object) -> None:
        """Keep every message delivered to this agent (e.g. notifications)."""
        self.received.append(message)


# Recorded teams and agent profiles name this class by dotted path: keep the path it had
# when the kit was a single module.
ToolTestAgent.__module__ = "akgentic.tool.core.testing"


def spawn_tool_agent(
    system: ActorSystem,
    orchestrator_address: ActorAddress,
    name: str = "@Tester",
    agent_class: type[ToolTestAgent] = ToolTestAgent,
    role: str = "Tester",
) -> ToolTestAgent:
    """Start ``agent_class`` as a member of the orchestrator's team and return the instance."""
    orch = system.proxy_ask(orchestrator_address, Orchestrator)
    address = orch.createActor(agent_class, config=BaseConfig(name=name, role=role))
    agent: ToolTestAgent = system.proxy_ask(address, agent_class).itself()
    return agent


def agent_at(system: ActorSystem, address: ActorAddress) -> ToolTestAgent:
    """The :class:`ToolTestAgent` instance at ``address`` (e.g. a member ``resume_team``
    recreated), to bind cards to it."""
    agent: ToolTestAgent = system.proxy_ask(address, ToolTestAgent).itself()
    return agent


def team_tool_actor[A: Akgent[Any, Any]](
    system: ActorSystem,
    orchestrator_address: ActorAddress,
    actor_class: type[A],
    config: BaseConfig,
) -> A:
    """An ask proxy to the team's tool actor named by ``config``, created if missing.

    Goes through the orchestrator's ``getChildrenOrCreate`` as cards do, so when the actor
    runs already (a card bound it, or ``resume_team`` recreated it) the test reaches that
    same live instance.
    """
    orch = system.proxy_ask(orchestrator_address, Orchestrator)
    address = orch.getChildrenOrCreate(actor_class, config)
    actor: A = system.proxy_ask(address, actor_class)
    return actor


def orchestrator_events(
    system: ActorSystem, orchestrator_address: ActorAddress, event_class: type | None = None
) -> list[Any]:
    """The domain events that reached the orchestrator's stream, oldest first."""
    orch = system.proxy_ask(orchestrator_address, Orchestrator)
    return [message.event for message in orch.get_events(event_class=event_class)]


@pytest.fixture
def actor_system() -> Iterator[ActorSystem]:
    """A real akgentic-core actor system, shut down after the test."""
    system = ActorSystem()
    try:
        yield system
    finally:
        system.shutdown(timeout=10)


@pytest.fixture
def orchestrator(actor_system: ActorSystem) -> ActorAddress:
    """A real orchestrator: the team every tool actor is created in."""
    return actor_system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )


@pytest.fixture
def tool_agent(actor_system: ActorSystem, orchestrator: ActorAddress) -> ToolTestAgent:
    """A running team member to attach cards to (``ToolFactory(cards, observer=tool_agent)``)."""
    return spawn_tool_agent(actor_system, orchestrator)


@pytest.fixture
def workspaces_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty workspaces root for this test (``AKGENTIC_WORKSPACES_ROOT`` points at it).

    Cards that keep files (workspace, sandbox, a card's ``resources``) then write below the
    test's own temporary folder, never in the user's real root.
    """
    root = tmp_path / "workspaces"
    root.mkdir()
    monkeypatch.setenv(WORKSPACES_ROOT_ENV, str(root))
    return root
