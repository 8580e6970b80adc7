"""ToolFactory: many cards in, flat lists of agent-ready callables out.

The factory wires each card to the carrying agent (in ``depends_on`` order), then collects
tools, system prompts, commands and toolsets. When given the agent framework's retry
exception it wraps every tool so that a ``RetriableError`` reaches the model as a retry
request, which keeps tool code free of any LLM framework import. Every result of a tool or
toolset is bounded in size (see :mod:`akgentic.tool.core.output_cap`). A tool whose
capability is gated (see :mod:`akgentic.tool.core.approval`) is flagged
``requires_approval = True``, and the registry then answers ``/approve``, ``/deny`` and
``/pending_approvals``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from akgentic.tool.core.approval import (
    DEFAULT_APPROVAL_TTL,
    ApprovalGate,
    flag_requires_approval,
    gate_toolset,
)
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.commands import CommandRegistry
from akgentic.tool.core.dependencies import order_cards
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.core.output_cap import (
    DEFAULT_MAX_OUTPUT_CHARS,
    cap_toolset,
    capped,
)
from akgentic.tool.core.params import BaseToolParam
from akgentic.tool.core.pydantic_ai_tools import pydantic_ai_tools

__all__ = ["ToolFactory"]


class ToolFactory:
    """Aggregate ``tool_cards`` into the lists an agent registers.

    Args:
        tool_cards: The cards to combine. They are attached to ``observer`` in dependency
            order when the factory is built.
        observer: The agent carrying the cards (``None`` for cards that need no runtime).
        retry_exception: Exception class raised with the message of a ``RetriableError``
            escaping a tool (pydantic-ai's ``ModelRetry``, typically). ``None`` leaves
            ``RetriableError`` as is.
        max_output_chars: Most characters one tool result may hand the model; a longer
            result is cut with a notice saying how much was cut and how to ask for less.
            A card's own ``max_output_chars`` wins. ``None`` turns the bound off.
        approval_ttl: How long a gated call waits for ``/approve`` before it is denied.

    ``approvals`` is the :class:`ApprovalGate` of this factory's gated tools: the agent that
    owns the runtime hands it the calls left open and binds its resume callback.
    """

    def __init__(
        self,
        tool_cards: Sequence[ToolCard],
        observer: ToolObserver | None = None,
        retry_exception: type[Exception] | None = None,
        max_output_chars: int | None = DEFAULT_MAX_OUTPUT_CHARS,
        approval_ttl: timedelta = DEFAULT_APPROVAL_TTL,
    ) -> None:
        if max_output_chars is not None and max_output_chars <= 0:
            raise ValueError(
                f"max_output_chars must be positive or None (no bound), got {max_output_chars}"
            )
        self.tool_cards: list[ToolCard] = order_cards(tool_cards)
        self.observer = observer
        self.retry_exception = retry_exception
        self.max_output_chars = max_output_chars
        if observer is not None:
            for card in self.tool_cards:
                card.observer(observer)
        self._commands: CommandRegistry | None = None
        # The tool names get_tools() found per card (by id; the cards live as long as the
        # factory), so get_toolsets() need not build a card's tools again to learn them.
        self._tool_names: dict[int, set[str]] = {}
        self.approvals = ApprovalGate(observer, ttl=approval_ttl)

    def get_tools(self) -> list[Callable[..., Any]]:
        """Every card's model-callable tools, wrapped for ``retry_exception``."""
        tools: list[Callable[..., Any]] = []
        owners: dict[str, str] = {}
        for card in self.tool_cards:
            card_tools = card.get_tools()
            gated_names = _card_gated_names(card, card_tools)
            self._tool_names[id(card)] = {getattr(t, "__name__", "") for t in card_tools}
            for tool in card_tools:
                name = getattr(tool, "__name__", repr(tool))
                if name in owners:
                    raise ValueError(
                        f"tool name {name!r} is provided by both {owners[name]} and "
                        f"{type(card).__name__}; disable one of the two capabilities"
                    )
                owners[name] = type(card).__name__
                wrapped = capped(tool, self._limit(card), self.retry_exception)
                if name in gated_names or getattr(tool, "requires_approval", False) is True:
                    wrapped = self._gate(name, wrapped)
                tools.append(wrapped)
        return tools

    def get_pydantic_ai_tools(self) -> list[Any]:
        """:meth:`get_tools` as pydantic-ai ``Tool`` objects whose schemas are shared.

        The callables are the same as :meth:`get_tools`'; what changes is that the schema
        of each tool is built once per process and reused by every agent carrying an
        equal tool (see :mod:`akgentic.tool.core.pydantic_ai_tools`), where registering
        the callables makes pydantic-ai build it for every agent. Gated tools come back
        requiring approval. Needs pydantic-ai installed.
        """
        return pydantic_ai_tools(self.get_tools())

    def get_system_prompts(self) -> list[Callable[..., Any]]:
        """Every card's system-prompt callables, in card order."""
        return [prompt for card in self.tool_cards for prompt in card.get_system_prompts()]

    def get_commands(self) -> dict[type[BaseToolParam], Callable[..., Any]]:
        """Every card's commands keyed by their param type."""
        commands: dict[type[BaseToolParam], Callable[..., Any]] = {}
        for card in self.tool_cards:
            commands.update(card.get_commands())
        return commands

    def get_toolsets(self) -> list[Any]:
        """Every card's pydantic-ai toolsets, their gated tools held for approval."""
        toolsets: list[Any] = []
        for card in self.tool_cards:
            card_toolsets = card.get_toolsets()
            gated = self._toolset_gated_names(card)
            for toolset in card_toolsets:
                held = gate_toolset(
                    toolset,
                    gated,
                    owner=type(card).__name__,
                    # With several toolsets a name belongs to one of them only.
                    check_names=len(card_toolsets) == 1,
                )
                toolsets.append(cap_toolset(held, self._limit(card)))
        return toolsets

    def get_command_registry(
        self, extra_commands: Sequence[Callable[..., Any]] | None = None
    ) -> CommandRegistry:
        """A new registry of every card's commands, plus ``extra_commands``.

        Each card's commands are announced under the card's class name; an extra command
        (the agent's own ``compact``, say) under the class it is bound to. The registry
        knows this factory's ``retry_exception``, so ``registry.callable(name)`` converts a
        ``RetriableError`` as the tools do. Two commands with one name are refused.
        """
        registry = CommandRegistry(retry_exception=self.retry_exception)
        for card in self.tool_cards:
            for command in card.get_commands().values():
                registry.register(command, tool_card=type(card).__name__)
        if any(_declares_approval(card) for card in self.tool_cards):
            for command in self.approvals.commands():
                registry.register(command, tool_card="ApprovalGate")
        for command in extra_commands or ():
            registry.register(command)
        return registry

    @property
    def commands(self) -> CommandRegistry:
        """The cards' commands by name, able to run `/`-command lines. Built on first use."""
        if self._commands is None:
            self._commands = self.get_command_registry()
        return self._commands

    def _toolset_gated_names(self, card: ToolCard) -> set[str]:
        """The names in ``card.approval_required`` that are not the card's own tools or
        fields: those its toolsets' tools must answer to."""
        wanted = set(card.approval_required or ())
        if not wanted:
            return wanted
        own = self._tool_names.get(id(card))
        if own is None:  # get_toolsets() before get_tools(): learn the names once
            own = {getattr(tool, "__name__", "") for tool in card.get_tools()}
            self._tool_names[id(card)] = own
        return wanted - own - set(type(card).model_fields)

    def _limit(self, card: ToolCard) -> int | None:
        own = card.max_output_chars
        if own is None:
            return self.max_output_chars
        return own or None  # 0: this card's results are not bounded

    def _gate(self, name: str, tool: Callable[..., Any]) -> Callable[..., Any]:
        flagged = flag_requires_approval(tool)
        self.approvals.gate_tool(name, flagged)
        return flagged


def _card_gated_names(card: ToolCard, tools: Sequence[Callable[..., Any]]) -> set[str]:
    """The names in ``card.approval_required``, refused when they name no capability.

    A name must be one of the card's tools or one of its fields (a capability switched off
    is accepted): a misspelt name would otherwise leave a dangerous tool ungated.
    """
    wanted = set(card.approval_required or ())
    known = {getattr(tool, "__name__", "") for tool in tools} | set(type(card).model_fields)
    unknown = sorted(wanted - known)
    if unknown and not _has_toolsets(card):
        tool_names = ", ".join(sorted(getattr(t, "__name__", "?") for t in tools)) or "none"
        raise ValueError(
            f"{type(card).__name__}.approval_required names {', '.join(unknown)}, which is not "
            f"a capability of the card; its tools: {tool_names}"
        )
    return wanted


def _has_toolsets(card: ToolCard) -> bool:
    """Whether ``card`` offers toolsets, whose tool names are known only when a run lists
    them; their gated names are checked then (see :func:`gate_toolset`)."""
    return type(card).get_toolsets is not ToolCard.get_toolsets


def _declares_approval(card: ToolCard) -> bool:
    """Whether ``card``'s configuration gates any capability (read without building tools)."""
    if card.approval_required:
        return True
    return any(
        isinstance(value, BaseToolParam) and value.requires_approval
        for value in (getattr(card, name, None) for name in type(card).model_fields)
    )
