"""The kit's RefusalTests: a refusal must be a retry that says what to fix and changes
nothing; each way of falling short fails the check."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import pytest
from pydantic import PrivateAttr

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import Refusal, RefusalTests, Tools, ToolTestAgent
from akgentic.tool.errors import RetriableError


class ShelfTool(ToolCard):
    """Keeps labelled items on the card itself (no actor: enough for refusals)."""

    _items: dict[str, int] = PrivateAttr(default_factory=dict)

    def refuse(self, label: Any, count: Any) -> None:
        if not isinstance(label, str) or not label:
            raise RetriableError("label: give a non-empty text")
        if not isinstance(count, int) or count < 0:
            raise RetriableError(f"count: a whole number from 0, got {count!r}")

    def get_tools(self) -> list[Callable[..., Any]]:
        def put(label: Any, count: Any = 1) -> str:
            """Put ``count`` items under ``label``."""
            self.refuse(label, count)
            self._items[label] = count
            return "stored"

        def shelf() -> dict[str, int]:
            """What the shelf holds."""
            return dict(self._items)

        return [put, shelf]


class TestShelfRefusals(RefusalTests):
    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {"put": [{"label": ""}]}
    refusals: ClassVar[Mapping[str, Sequence[Refusal]]] = {
        "put": [
            ({"label": 3}, "label: give a non-empty text"),
            ({"label": "a", "count": -1}, "count"),
        ]
    }

    def make_card(self) -> ToolCard:
        return ShelfTool()

    def seed(self, tools: Tools) -> None:
        tools["put"]("kept", 2)

    def read_state(self, tools: Tools) -> Any:
        return tools["shelf"]()


class _Vague(ShelfTool):
    def refuse(self, label: Any, count: Any) -> None:
        if not isinstance(label, str) or not label or not isinstance(count, int) or count < 0:
            raise RetriableError("invalid call")


class _Careless(ShelfTool):
    """Stores the item before it refuses a bad count."""

    def get_tools(self) -> list[Callable[..., Any]]:
        def put(label: Any, count: Any = 1) -> str:
            """Put ``count`` items under ``label``."""
            self._items[str(label)] = 0
            self.refuse(label, count)
            return "stored"

        return [put, *super().get_tools()[1:]]


class _Lenient(ShelfTool):
    def refuse(self, label: Any, count: Any) -> None:
        return


def _check(
    card: ShelfTool, system: ActorSystem, orchestrator: ActorAddress, agent: ToolTestAgent
) -> None:
    checks = TestShelfRefusals()
    checks.make_card = lambda: card  # type: ignore[method-assign]
    checks.test_refusals_say_what_to_fix(system, orchestrator, agent)


def test_a_vague_refusal_fails(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    with pytest.raises(AssertionError, match="which does not say 'label: give a non-empty text'"):
        _check(_Vague(), actor_system, orchestrator, tool_agent)


def test_a_refusal_that_changes_the_state_fails(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    with pytest.raises(AssertionError, match="a refusal changed the state"):
        _check(_Careless(), actor_system, orchestrator, tool_agent)


def test_a_call_that_is_not_refused_fails(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    with pytest.raises(pytest.fail.Exception):
        _check(_Lenient(), actor_system, orchestrator, tool_agent)


def test_a_class_without_refusals_fails(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    class Empty(TestShelfRefusals):
        refusals: ClassVar[Mapping[str, Sequence[Refusal]]] = {}

    with pytest.raises(AssertionError, match="list at least one refusal"):
        Empty().test_refusals_say_what_to_fix(actor_system, orchestrator, tool_agent)
