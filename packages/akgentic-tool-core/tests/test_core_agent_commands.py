"""The command contract an agent builds on (as akgentic-agent 1.6.8 uses it).

An agent asks its factory for one registry of every card's commands plus its own
(``compact``, ``clear``), announces the descriptors once with ``CommandsAnnouncedEvent``,
offers every ``/``-line a human sends to ``dispatch`` (falling back to the model on
``CommandNotRecognized``) and calls typed commands through ``callable``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic_ai import ModelRetry

from akgentic.core.utils.deserializer import deserialize_object
from akgentic.tool.core import (
    BaseToolParam,
    Channels,
    CommandDescriptor,
    CommandRegistry,
    ToolCard,
    ToolFactory,
)
from akgentic.tool.core.event import CommandsAnnouncedEvent
from akgentic.tool.core.testing import ToolTestAgent, eventually, orchestrator_events
from akgentic.tool.errors import CommandNotRecognized, RetriableError


class AddTerm(BaseToolParam):
    expose: set[Channels] = {Channels.TOOL_CALL, Channels.COMMAND}


class ListTerms(BaseToolParam):
    expose: set[Channels] = {Channels.COMMAND}


class GlossaryTool(ToolCard):
    """A small real card: terms kept in the card, two commands."""

    add_term: bool | AddTerm = True
    list_terms: bool | ListTerms = True

    def get_commands(self) -> dict[type[BaseToolParam], Callable[..., Any]]:
        terms: dict[str, str] = {}

        def add_term(term: str, meaning: str, replace: bool = False) -> str:
            """Add a term to the glossary.

            Args:
                term: The word to define.
                meaning: What it means.
                replace: Overwrite an existing definition.
            """
            if term in terms and not replace:
                raise RetriableError(f"{term!r} is already defined; pass replace=true")
            terms[term] = meaning
            return f"Defined {term}."

        def list_terms(prefix: str | None = None) -> list[str]:
            """List the glossary, optionally only terms starting with prefix."""
            return [f"{t}: {m}" for t, m in sorted(terms.items()) if t.startswith(prefix or "")]

        return {AddTerm: add_term, ListTerms: list_terms}


class Conversation:
    """Stands for the agent: its own command-only methods join the registry."""

    def __init__(self) -> None:
        self.turns = ["hello", "world"]

    def compact(self) -> str:
        """Compact the conversation into one summary turn."""
        self.turns = [" / ".join(self.turns)]
        return f"Compacted to {len(self.turns)} turn."

    def clear(self) -> str:
        """Forget the conversation."""
        self.turns.clear()
        return "Cleared."


@pytest.fixture
def conversation() -> Conversation:
    return Conversation()


@pytest.fixture
def registry(tool_agent: ToolTestAgent, conversation: Conversation) -> CommandRegistry:
    factory = ToolFactory(
        tool_cards=[GlossaryTool()], observer=tool_agent, retry_exception=ModelRetry
    )
    return factory.get_command_registry(extra_commands=[conversation.compact, conversation.clear])


def test_registry_holds_card_commands_and_extra_callables(registry: CommandRegistry) -> None:
    assert registry.names() == ["add_term", "list_terms", "compact", "clear"]
    assert registry.has("add_term")
    assert registry.has("compact")
    assert not registry.has("hire_member")


def test_dispatch_runs_slash_lines_with_typed_arguments(
    registry: CommandRegistry, conversation: Conversation
) -> None:
    assert registry.dispatch('/add_term SLA "service level agreement"') == "Defined SLA."
    assert registry.dispatch("/add_term SLO objective") == "Defined SLO."
    listed = registry.dispatch("/list_terms prefix=SLA")
    assert json.loads(listed) == ["SLA: service level agreement"]
    assert registry.dispatch("/compact") == "Compacted to 1 turn."
    assert conversation.turns == ["hello / world"]
    assert registry.dispatch("/clear") == "Cleared."
    assert conversation.turns == []


def test_unknown_leading_word_raises_command_not_recognized(registry: CommandRegistry) -> None:
    for line in ("/nope 1 2", "/tmp/build failed, can you look?", "/", "   "):
        with pytest.raises(CommandNotRecognized):
            registry.dispatch(line)
    # Nothing ran: an unknown word is the model's to answer, not a failed command.
    assert json.loads(registry.dispatch("/list_terms")) == []


def test_failures_after_identification_come_back_as_text(registry: CommandRegistry) -> None:
    registry.dispatch("/add_term SLA agreement")
    answer = registry.dispatch("/add_term SLA other")
    assert answer == "/add_term failed: 'SLA' is already defined; pass replace=true"
    assert "missing required argument(s): meaning" in registry.dispatch("/add_term SLA")
    assert "replace='maybe' is invalid" in registry.dispatch("/add_term SLA x replace=maybe")
    assert "cannot parse" in registry.dispatch('/add_term "unterminated')
    assert registry.dispatch("/add_term SLA other replace=yes") == "Defined SLA."


def test_callable_is_typed_and_retry_wrapped(registry: CommandRegistry) -> None:
    add = registry.callable("add_term")
    assert add("SLA", "agreement") == "Defined SLA."
    with pytest.raises(ModelRetry, match="already defined"):
        add("SLA", "again")
    assert registry.callable("list_terms")() == ["SLA: agreement"]
    assert add.__name__ == "add_term"
    with pytest.raises(CommandNotRecognized):
        registry.callable("nope")


def test_descriptors_name_their_tool_card(registry: CommandRegistry) -> None:
    by_name = {d.name: d for d in registry.descriptors()}
    assert by_name["add_term"].tool_card == "GlossaryTool"
    assert by_name["list_terms"].tool_card == "GlossaryTool"
    assert by_name["compact"].tool_card == "Conversation"
    add = by_name["add_term"]
    assert add.description == "Add a term to the glossary."
    assert [(a.name, a.type, a.required, a.description) for a in add.args] == [
        ("term", "str", True, "The word to define."),
        ("meaning", "str", True, "What it means."),
        ("replace", "bool", False, "Overwrite an existing definition."),
    ]
    assert by_name["list_terms"].args[0].description is None


def test_announcement_reaches_the_team_stream(
    actor_system: Any, orchestrator: Any, tool_agent: ToolTestAgent, registry: CommandRegistry
) -> None:
    tool_agent.notify_event(
        CommandsAnnouncedEvent(agent=tool_agent.myAddress, commands=registry.descriptors())
    )
    (event,) = eventually(
        lambda: orchestrator_events(actor_system, orchestrator, CommandsAnnouncedEvent)
    )
    assert event.agent.name == "@Tester"
    assert [c.name for c in event.commands] == ["add_term", "list_terms", "compact", "clear"]
    wire = json.loads(json.dumps(event.model_dump()))
    back = deserialize_object(wire)
    assert isinstance(back, CommandsAnnouncedEvent)
    assert back.commands == event.commands


def test_factory_toolsets_and_tools_sit_beside_the_registry(tool_agent: ToolTestAgent) -> None:
    class ServerTool(ToolCard):
        def get_toolsets(self) -> list[Any]:
            return [{"server": "docs"}]

    factory = ToolFactory([GlossaryTool(), ServerTool()], observer=tool_agent)
    assert factory.get_toolsets() == [{"server": "docs"}]
    assert [t.__name__ for t in factory.get_tools()] == []
    assert factory.get_command_registry().names() == ["add_term", "list_terms"]


def test_an_extra_command_may_not_shadow_a_card_command(tool_agent: ToolTestAgent) -> None:
    def add_term() -> str:
        return "shadow"

    factory = ToolFactory([GlossaryTool()], observer=tool_agent)
    with pytest.raises(ValueError, match="'add_term' is registered twice"):
        factory.get_command_registry(extra_commands=[add_term])


def test_registry_accepts_the_entry_forms() -> None:
    def ping() -> str:
        """Answer pong."""
        return "pong"

    descriptor = CommandDescriptor(name="probe", args=[], description="", tool_card="Health")
    registry = CommandRegistry(entries=[ping, ("echo", lambda text: text), (descriptor, ping)])
    assert registry.names() == ["ping", "echo", "probe"]
    assert registry.dispatch("/echo hi") == "hi"
    cards = {d.name: d.tool_card for d in registry.descriptors()}
    assert cards == {"ping": __name__, "echo": __name__, "probe": "Health"}
    assert CommandRegistry({"beep": ping}).dispatch("beep") == "pong"
    # Without a retry exception, callable() hands the command out unchanged.
    assert registry.callable("ping") is ping
