"""A testing kit for tool authors: real actors, a real orchestrator, a conformance check.

Use it as a pytest plugin from a ``conftest.py``::

    pytest_plugins = ["akgentic.tool.core.testing"]

and ask for the fixtures ``actor_system``, ``orchestrator`` and ``tool_agent``. Everything
runs on akgentic-core's real (Pykka) actor system: a tool actor created with
``getChildrenOrCreate`` is a real child of a real orchestrator, and events a tool emits
really reach the orchestrator's stream. Requires the ``testing`` extra (pytest).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Self

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.observer import ToolObserver

__all__ = [
    "ConformanceRetry",
    "ToolTestAgent",
    "actor_system",
    "assert_card_conformance",
    "eventually",
    "orchestrator",
    "orchestrator_events",
    "spawn_tool_agent",
    "tool_agent",
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


def orchestrator_events(
    system: ActorSystem, orchestrator_address: ActorAddress, event_class: type | None = None
) -> list[Any]:
    """The domain events that reached the orchestrator's stream, oldest first."""
    orch = system.proxy_ask(orchestrator_address, Orchestrator)
    return [message.event for message in orch.get_events(event_class=event_class)]


def eventually(predicate: Callable[[], Any], timeout: float = 5.0, interval: float = 0.01) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail the test after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s: {predicate!r}")
        time.sleep(interval)


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


class ConformanceRetry(Exception):  # noqa: N818 - stands for the framework's retry signal
    """The retry exception the conformance check injects into ``ToolFactory``."""


def assert_card_conformance(
    card: ToolCard,
    *,
    observer: ToolObserver | None = None,
    bad_calls: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> None:
    """Check the rules every card must keep; raise ``AssertionError`` naming the broken one.

    - the card's class does not allow arbitrary types, and the card survives a JSON
      round-trip unchanged;
    - with an ``observer``, each call in ``bad_calls`` (tool name -> list of keyword
      arguments) either returns or raises the retry exception: no raw exception escapes.
    """
    cls = type(card)
    if cls.model_config.get("arbitrary_types_allowed"):
        raise AssertionError(f"{cls.__name__} allows arbitrary types")
    try:
        text = card.model_dump_json()
        json.loads(text)
        again = cls.model_validate_json(text)
    except Exception as exc:
        raise AssertionError(f"{cls.__name__} does not round-trip through JSON: {exc}") from exc
    if again.model_dump() != card.model_dump():
        raise AssertionError(f"{cls.__name__} changed across a JSON round-trip")

    if not bad_calls:
        return
    if observer is None:
        raise AssertionError("bad_calls needs an observer to attach the card to")
    factory = ToolFactory([card], observer=observer, retry_exception=ConformanceRetry)
    tools = {getattr(tool, "__name__", ""): tool for tool in factory.get_tools()}
    for name, calls in bad_calls.items():
        if name not in tools:
            raise AssertionError(f"{cls.__name__} exposes no tool named {name!r}: {sorted(tools)}")
        for kwargs in calls:
            try:
                result = tools[name](**kwargs)
                if inspect.isawaitable(result):
                    asyncio.run(_await(result))
            except ConformanceRetry:
                continue
            except Exception as exc:
                raise AssertionError(
                    f"{cls.__name__}.{name}({dict(kwargs)!r}) let a raw "
                    f"{type(exc).__name__} escape: {exc}"
                ) from exc


async def _await(awaitable: Any) -> Any:
    return await awaitable
