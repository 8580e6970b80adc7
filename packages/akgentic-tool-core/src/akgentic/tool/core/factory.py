"""ToolFactory: many cards in, flat lists of agent-ready callables out.

The factory wires each card to the carrying agent (in ``depends_on`` order), then collects
tools, system prompts, commands and toolsets. When given the agent framework's retry
exception it wraps every tool so that a ``RetriableError`` reaches the model as a retry
request, which keeps tool code free of any LLM framework import. Every result of a tool or
toolset is bounded in size (see :mod:`akgentic.tool.core.output_cap`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.commands import CommandRegistry, retry_wrapped
from akgentic.tool.core.dependencies import order_cards
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.core.output_cap import DEFAULT_MAX_OUTPUT_CHARS, cap_toolset, capped
from akgentic.tool.core.params import BaseToolParam

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
    """

    def __init__(
        self,
        tool_cards: Sequence[ToolCard],
        observer: ToolObserver | None = None,
        retry_exception: type[Exception] | None = None,
        max_output_chars: int | None = DEFAULT_MAX_OUTPUT_CHARS,
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

    def get_tools(self) -> list[Callable[..., Any]]:
        """Every card's model-callable tools, wrapped for ``retry_exception``."""
        tools: list[Callable[..., Any]] = []
        owners: dict[str, str] = {}
        for card in self.tool_cards:
            for tool in card.get_tools():
                name = getattr(tool, "__name__", repr(tool))
                if name in owners:
                    raise ValueError(
                        f"tool name {name!r} is provided by both {owners[name]} and "
                        f"{type(card).__name__}; disable one of the two capabilities"
                    )
                owners[name] = type(card).__name__
                tools.append(self._wrap(capped(tool, self._limit(card))))
        return tools

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
        """Every card's pydantic-ai toolsets."""
        return [
            cap_toolset(toolset, self._limit(card))
            for card in self.tool_cards
            for toolset in card.get_toolsets()
        ]

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
        for command in extra_commands or ():
            registry.register(command)
        return registry

    @property
    def commands(self) -> CommandRegistry:
        """The cards' commands by name, able to run `/`-command lines. Built on first use."""
        if self._commands is None:
            self._commands = self.get_command_registry()
        return self._commands

    def _limit(self, card: ToolCard) -> int | None:
        own = card.max_output_chars
        if own is None:
            return self.max_output_chars
        return own or None  # 0: this card's results are not bounded

    def _wrap(self, tool: Callable[..., Any]) -> Callable[..., Any]:
        return retry_wrapped(tool, self.retry_exception)
