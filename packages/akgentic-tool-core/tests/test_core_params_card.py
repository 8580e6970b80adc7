"""BaseToolParam, resolve_param and ToolCard: configuration rules and the weak observer."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ConfigDict, PrivateAttr

from akgentic.tool.core import (
    COMMAND,
    SYSTEM_PROMPT,
    TOOL_CALL,
    BaseToolParam,
    Channels,
    ToolCard,
    ToolObserverGone,
    resolve_param,
)


class Greet(BaseToolParam):
    expose: set[Channels] = {TOOL_CALL, COMMAND}
    greeting: str = "Hello"


class GreeterTool(ToolCard):
    greet: bool | Greet = True
    _calls: int = PrivateAttr(default=0)

    def get_tools(self) -> list[Callable[..., Any]]:
        param = resolve_param(self.greet, Greet)
        if param is None or not param.exposes(TOOL_CALL):
            return []

        def greet(name: str) -> str:
            """Greet someone by name."""
            return f"{param.greeting}, {name}"

        return [param.describe(greet)]


class _Observer:
    def __init__(self) -> None:
        self.events: list[object] = []

    def notify_event(self, event: object) -> None:
        self.events.append(event)


def test_resolve_param_maps_bool_and_instances() -> None:
    assert resolve_param(False, Greet) is None
    assert resolve_param(None, Greet) is None
    assert resolve_param(True, Greet) == Greet()
    custom = Greet(greeting="Hi")
    assert resolve_param(custom, Greet) is custom
    with pytest.raises(TypeError, match="expected bool or Greet"):
        resolve_param(BaseToolParam(), Greet)


def test_param_defaults_and_exposure() -> None:
    assert BaseToolParam().expose == {TOOL_CALL}
    assert Greet().exposes(COMMAND)
    assert not Greet().exposes(SYSTEM_PROMPT)
    with pytest.raises(ValueError, match="extra"):
        Greet(unknown_field=1)  # type: ignore[call-arg]


def test_instructions_are_appended_to_the_tool_description() -> None:
    card = GreeterTool(greet=Greet(instructions="Only greet team members."))
    (tool,) = card.get_tools()
    assert tool.__doc__ == "Greet someone by name.\n\nOnly greet team members."
    assert tool("Ada") == "Hello, Ada"
    (plain,) = GreeterTool().get_tools()
    assert plain.__doc__ == "Greet someone by name."


def test_disabled_or_narrowed_capability_produces_no_tool() -> None:
    assert GreeterTool(greet=False).get_tools() == []
    assert GreeterTool(greet=Greet(expose={COMMAND})).get_tools() == []


def test_card_round_trips_through_json() -> None:
    card = GreeterTool(greet=Greet(greeting="Hey", instructions="x"), depends_on=["Other"])
    text = card.model_dump_json()
    again = GreeterTool.model_validate_json(text)
    assert again == card
    assert json.loads(text)["greet"]["greeting"] == "Hey"
    assert "_calls" not in json.loads(text)


def test_arbitrary_types_are_refused_on_cards() -> None:
    with pytest.raises(TypeError, match="arbitrary_types_allowed is forbidden"):

        class BadTool(ToolCard):
            model_config = ConfigDict(arbitrary_types_allowed=True)


def test_observer_is_held_weakly_and_reported_gone() -> None:
    card = GreeterTool()
    with pytest.raises(ToolObserverGone, match="no live observer"):
        card.get_observer()
    assert card.get_observer_or_none() is None

    observer = _Observer()
    assert card.observer(observer) is card
    assert card.get_observer() is observer
    assert card._observer is observer

    del observer
    gc.collect()
    assert card.get_observer_or_none() is None
    assert card._observer is None
    with pytest.raises(ToolObserverGone):
        card.get_observer()


def test_assigning_the_observer_attribute_stores_a_weak_reference() -> None:
    card = GreeterTool()
    observer = _Observer()
    card._observer = observer
    assert card.get_observer() is observer
    del observer
    gc.collect()
    assert card._observer is None
    card._observer = None
    assert card.get_observer_or_none() is None


def test_default_channels_of_a_bare_card_are_empty() -> None:
    card = ToolCard()
    assert card.get_tools() == []
    assert card.get_system_prompts() == []
    assert card.get_commands() == {}
    assert card.get_toolsets() == []
