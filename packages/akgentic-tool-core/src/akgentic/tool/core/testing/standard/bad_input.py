"""Bad input from the model: a clear retry, and nothing changed."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.testing.actors import ToolTestAgent, orchestrator_events
from akgentic.tool.core.testing.binding import Tools, bind_card, expect_retry
from akgentic.tool.core.testing.waiting import settle

__all__ = ["BadCalls", "BadInputTests"]


BadCalls = Mapping[str, Sequence[Mapping[str, Any]]]
"""Calls a tool must refuse: each tool's name, and the argument sets to call it with."""


class BadInputTests(ABC):
    """Each bad call raises ``RetriableError`` (reaching the agent as a retry) with a
    message, the tool's state reads the same before and after it, and the team's stream
    receives no ``ToolStateEvent`` for it.

    Supply :meth:`make_card`, :attr:`bad_calls` (tool name -> keyword arguments of each
    bad call) and :meth:`read_state` (what the tool holds, read through its own callables
    or its actor). :meth:`seed` puts something in the state first, so that a bad call that
    wipes or rewrites it shows.
    """

    bad_calls: BadCalls

    @abstractmethod
    def make_card(self) -> ToolCard:
        """The card under test."""

    @abstractmethod
    def read_state(self, tools: Tools) -> Any:
        """A comparable reading of everything the tool holds."""

    def seed(self, tools: Tools) -> None:
        """Calls that give the state some content before the bad calls (none by default)."""
        return

    def test_bad_calls_retry_and_change_nothing(
        self, actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
    ) -> None:
        tools = bind_card(tool_agent, self.make_card())
        self.seed(tools)
        before = self.read_state(tools)
        emitted = _state_events(actor_system, orchestrator)
        assert self.bad_calls, "list at least one bad call"
        for name, calls in self.bad_calls.items():
            assert name in tools, f"no tool named {name!r}: {sorted(tools)}"
            for kwargs in calls:
                call = f"{name}({dict(kwargs)!r})"
                message = expect_retry(tools[name], **kwargs)
                assert message.strip(), f"{call} retried without a message"
                assert self.read_state(tools) == before, f"{call} changed the state"
                events = _state_events(actor_system, orchestrator)
                assert events == emitted, f"{call} emitted {events - emitted} state event(s)"


def _state_events(system: ActorSystem, orchestrator: ActorAddress) -> int:
    """How many ``ToolStateEvent``s reached the team's stream so far."""
    settle(system, orchestrator)
    return len(orchestrator_events(system, orchestrator, ToolStateEvent))
