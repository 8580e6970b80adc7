"""akgentic.tool: the tool layer of akgentic.

The core contracts (``ToolCard``, ``ToolFactory``, ``RetriableError``, ...) and the domain
tools (``WorkspaceTool``, ``PlanningTool``, ...) are all importable from here. Every name is
resolved on first use: core names from ``akgentic.tool.core``, domain names through the
``akgentic.tool.exports`` entry points of the installed domain distributions. Importing this
package therefore imports no domain and no heavy dependency, and asking for a tool that is
not installed says which distribution provides it.
"""

from pkgutil import extend_path

# Domain packages (akgentic.tool.workspace, ...) ship in other distributions, or live in
# other src/ folders of the workspace; extending __path__ lets Python find them all.
__path__ = extend_path(__path__, __name__)

from typing import TYPE_CHECKING, Any

from akgentic.tool.core import __all__ as _core_names

if TYPE_CHECKING:
    from akgentic.tool.core import (
        COMMAND,
        SYSTEM_PROMPT,
        TOOL_CALL,
        ActorToolObserver,
        ApprovalDecidedEvent,
        ApprovalDecision,
        ApprovalGate,
        ApprovalRequestedEvent,
        BaseToolParam,
        Capability,
        CardDependencyError,
        Channels,
        CommandArg,
        CommandDescriptor,
        CommandNotRecognized,
        CommandRegistry,
        CommandsAnnouncedEvent,
        PendingApproval,
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
    "ApprovalDecidedEvent",
    "ApprovalDecision",
    "ApprovalGate",
    "ApprovalRequestedEvent",
    "BaseToolParam",
    "Capability",
    "CardDependencyError",
    "Channels",
    "CommandArg",
    "CommandDescriptor",
    "CommandNotRecognized",
    "CommandRegistry",
    "CommandsAnnouncedEvent",
    "PendingApproval",
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
    # Only reached for names not yet in this module's namespace.
    if name.startswith("__"):
        raise AttributeError(name)
    if name in _core_names:
        import akgentic.tool.core as core

        value = getattr(core, name)
    else:
        from akgentic.tool.core.registry import load_export

        value = load_export(name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    from akgentic.tool.core.registry import exported_names

    return sorted({*globals(), *__all__, *exported_names()})
