"""akgentic.tool: the tool layer of akgentic.

The core contracts are importable from here directly. Domain tools (``WorkspaceTool``,
``PlanningTool``, ...) live in their own distributions; their names resolve here lazily
through the ``akgentic.tool.exports`` entry points, so importing this package never imports
a domain, and asking for a tool that is not installed says which distribution provides it.
"""

from pkgutil import extend_path

# Domain packages (akgentic.tool.workspace, ...) ship in other distributions, or live in
# other src/ folders of the workspace; extending __path__ lets Python find them all.
__path__ = extend_path(__path__, __name__)

from typing import Any

from akgentic.tool.core import (
    COMMAND,
    SYSTEM_PROMPT,
    TOOL_CALL,
    ActorToolObserver,
    BaseToolParam,
    CardDependencyError,
    Channels,
    CommandArg,
    CommandDescriptor,
    CommandNotRecognized,
    CommandRegistry,
    CommandsAnnouncedEvent,
    RetriableError,
    ToolCard,
    ToolFactory,
    ToolObserver,
    ToolObserverGone,
    ToolStateEvent,
    order_cards,
    resolve_param,
)

__all__ = [
    "COMMAND",
    "SYSTEM_PROMPT",
    "TOOL_CALL",
    "ActorToolObserver",
    "BaseToolParam",
    "CardDependencyError",
    "Channels",
    "CommandArg",
    "CommandDescriptor",
    "CommandNotRecognized",
    "CommandRegistry",
    "CommandsAnnouncedEvent",
    "RetriableError",
    "ToolCard",
    "ToolFactory",
    "ToolObserver",
    "ToolObserverGone",
    "ToolStateEvent",
    "order_cards",
    "resolve_param",
]


def __getattr__(name: str) -> Any:
    # Only reached for names not defined above: domain exports, resolved on first use.
    if name.startswith("__"):
        raise AttributeError(name)
    from akgentic.tool.core.registry import load_export

    value = load_export(name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    from akgentic.tool.core.registry import exported_names

    return sorted({*globals(), *exported_names()})
