"""Fixtures for the team tests: agents that really sit in a handler, profiles, helpers.

Everything defined here is also published as the module ``akgentic_team_testkit``: test
files import their helpers from it (pytest's importlib mode puts no test directory on
sys.path), and agent profiles name the agent classes below by dotted path through it.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_card import AgentCard
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message
from akgentic.core.orchestrator import Orchestrator
from akgentic.core.user_proxy import UserProxy
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.core.testing.published_module import publish_module

KIT_MODULE = "akgentic_team_testkit"

# Handlers block on these until the test releases them: message id -> (started, release).
_GATES: dict[uuid.UUID, tuple[threading.Event, threading.Event]] = {}


class WorkMessage(Message):
    """A task for a worker; its handler holds until the test opens the gate."""

    content: str


def _work(message: WorkMessage) -> None:
    gate = _GATES.get(message.id)
    if gate is None:
        return
    started, release = gate
    started.set()
    release.wait(20)


class WorkerAgent(Akgent[BaseConfig, BaseState]):
    """A team member that is busy for as long as its current WorkMessage's gate is shut."""

    def receiveMsg_WorkMessage(self, message: WorkMessage) -> None:
        _work(message)

    def itself(self) -> WorkerAgent:
        return self


class BrokenAgent(Akgent[BaseConfig, BaseState]):
    """An agent class whose construction fails, as a misconfigured profile would."""

    def __init__(self, **kwargs: Any) -> None:
        raise RuntimeError("cannot start: missing credentials")


class AskActivity(Message):
    """Asks a CallerAgent to call ``team_activity`` from inside its own handler."""

    summarize_over: int | None = None


class CallerAgent(ToolTestAgent):
    """The kit's agent, extended to call team_activity from inside one of its handlers."""

    def on_start(self) -> None:
        super().on_start()
        self.activity: Callable[..., Any] | None = None
        self.reports: list[Any] = []

    def receiveMsg_AskActivity(self, message: AskActivity) -> None:
        assert self.activity is not None
        if message.summarize_over is None:
            self.reports.append(self.activity())
        else:
            self.reports.append(self.activity(summarize_over=message.summarize_over))


def caller_class() -> type[CallerAgent]:
    return CallerAgent


class GatedUserProxy(UserProxy):
    """A human proxy that can also be held in a handler (it must still never be listed)."""

    def receiveMsg_WorkMessage(self, message: WorkMessage) -> None:
        _work(message)

    def itself(self) -> GatedUserProxy:
        return self


class Gates:
    """Opens every gate a test shut, so no handler outlives its test."""

    def __init__(self) -> None:
        self.opened: list[threading.Event] = []

    def hold(self, sender: Any, recipient: ActorAddress, content: str) -> threading.Event:
        """Make ``recipient`` busy on ``content`` (sent by ``sender``); returns the release."""
        message = WorkMessage(content=content)
        started, release = threading.Event(), threading.Event()
        _GATES[message.id] = (started, release)
        self.opened.append(release)
        sender.send(recipient, message)
        assert started.wait(5), f"{recipient.name} never started {content[:30]!r}"
        return release

    def release_all(self) -> None:
        for release in self.opened:
            release.set()


@pytest.fixture
def gates() -> Iterator[Gates]:
    kit = Gates()
    try:
        yield kit
    finally:
        kit.release_all()


def spawn(
    system: ActorSystem,
    orchestrator: ActorAddress,
    name: str,
    role: str = "Worker",
    agent_class: type[Any] | None = None,
) -> Any:
    """Start a member (a WorkerAgent unless told otherwise) and return the instance."""
    cls = agent_class or WorkerAgent
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.createActor(cls, config=BaseConfig(name=name, role=role))
    return system.proxy_ask(address, cls).itself()


def profile(role: str, *, hireable: bool = True, name: str = "", **extra: Any) -> AgentCard:
    return AgentCard(
        agent_class=f"{KIT_MODULE}.WorkerAgent",
        description=f"Does {role.lower()} work.",
        config=BaseConfig(name=name, role=role),
        can_be_hired=hireable,
        **extra,
    )


def register_profiles(
    system: ActorSystem, orchestrator: ActorAddress, cards: list[AgentCard]
) -> None:
    system.proxy_ask(orchestrator, Orchestrator).register_agent_profiles(cards)


def team_names(system: ActorSystem, orchestrator: ActorAddress) -> list[str]:
    return sorted(m.name for m in system.proxy_ask(orchestrator, Orchestrator).get_team())


def tools_by_name(tools: list[Any]) -> dict[str, Any]:
    return {tool.__name__: tool for tool in tools}


# The classes profiles and messages name by dotted path live in the published module.
publish_module(
    KIT_MODULE,
    globals(),
    rehome=(WorkerAgent, CallerAgent, BrokenAgent, AskActivity, GatedUserProxy, WorkMessage),
)
