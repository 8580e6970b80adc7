"""Bad input from the model: a clear retry, and nothing changed."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing.actors import ToolTestAgent
from akgentic.tool.core.testing.binding import bind_card, expect_retry

__all__ = ["BadInputTests"]

Tools = dict[str, Callable[..., Any]]


class BadInputTests(ABC):
    """Each bad call raises ``RetriableError`` (reaching the agent as a retry) with a
    message, and the tool's state reads the same before and after it.

    Supply :meth:`make_card`, :attr:`bad_calls` (tool name -> keyword arguments of each
    bad call) and :meth:`read_state` (what the tool holds, read through its own callables
    or its actor). :meth:`seed` puts something in the state first, so that a bad call that
    wipes or rewrites it shows.
    """

    bad_calls: Mapping[str, Sequence[Mapping[str, Any]]]

    @abstractmethod
    def make_card(self) -> ToolCard:
        """The card under test."""

    @abstractmethod
    def read_state(self, tools: Tools) -> Any:
        """A comparable reading of everything the tool holds."""

    def seed(self, tools: Tools) -> None:
        """Calls that give the state some content before the bad calls (none by default)."""
        return

    def test_bad_calls_retry_and_change_nothing(self, tool_agent: ToolTestAgent) -> None:
        tools = bind_card(tool_agent, self.make_card())
        self.seed(tools)
        before = self.read_state(tools)
        assert self.bad_calls, "list at least one bad call"
        for name, calls in self.bad_calls.items():
            assert name in tools, f"no tool named {name!r}: {sorted(tools)}"
            for kwargs in calls:
                message = expect_retry(tools[name], **kwargs)
                assert message.strip(), f"{name}({dict(kwargs)!r}) retried without a message"
                after = self.read_state(tools)
                assert after == before, f"{name}({dict(kwargs)!r}) changed the state"
