"""The contracts every akgentic tool is written against.

Names are loaded on first use (PEP 562), so ``import akgentic.tool.core`` costs next to
nothing and a program pays for akgentic-core and pydantic only when it touches a contract.

The names below come from ``card``, ``capability``, ``params``, ``channels``, ``factory``,
``commands``, ``dependencies``, ``event``, ``observer`` and ``approval``. The other modules
are imported directly, by what they are for:

- writing a tool: ``tagged`` (the serialization base of cards and params), ``output_cap``
  (the bound on what a tool answers), ``deferred`` (slow work off a tool actor's thread),
  ``batch_update`` (a call creating, changing and deleting many items) and
  ``input_limits`` (bounds a card lowers on what the model writes);
- handing tools to pydantic-ai: ``pydantic_ai_tools`` (``Tool``s whose schemas a process
  builds once per distinct tool, behind ``ToolFactory.get_pydantic_ai_tools()``);
- a team's shared state: ``team_actor`` (a card's handle on its team's singleton tool
  actor), ``delta_state``, ``delta_actor`` and ``snapshots`` (state persisted as snapshots
  plus deltas), ``word_index`` (an incremental index of which items hold a word, behind
  the tools' keyword search);
- files: ``workspace_dir`` (where a team's files live, and the path check) and
  ``confined`` (opening paths beneath a root so a rename cannot steer them out);
- the vector store: ``vector_store`` (the contract consumers may assume) and
  ``vector_binding`` (how a consumer binds to it);
- ``registry`` (the entry points behind ``from akgentic.tool import ...``), ``testing``
  (the kit for tool authors' tests) and ``growth`` (how a scale benchmark's costs grow with
  size: timer, samples, exponent fit, report).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from akgentic.tool.core.approval import (
        ApprovalDecidedEvent,
        ApprovalDecision,
        ApprovalGate,
        ApprovalRequestedEvent,
        PendingApproval,
    )
    from akgentic.tool.core.capability import Capability
    from akgentic.tool.core.card import ToolCard
    from akgentic.tool.core.channels import COMMAND, SYSTEM_PROMPT, TOOL_CALL, Channels
    from akgentic.tool.core.commands import CommandRegistry
    from akgentic.tool.core.dependencies import CardDependencyError, order_cards
    from akgentic.tool.core.event import (
        CommandArg,
        CommandDescriptor,
        CommandsAnnouncedEvent,
        ToolStateEvent,
    )
    from akgentic.tool.core.factory import ToolFactory
    from akgentic.tool.core.observer import ActorToolObserver, ToolObserver
    from akgentic.tool.core.params import BaseToolParam, resolve_param
    from akgentic.tool.errors import CommandNotRecognized, RetriableError, ToolObserverGone

# Public name -> module that defines it.
_EXPORTS: dict[str, str] = {
    "COMMAND": "akgentic.tool.core.channels",
    "SYSTEM_PROMPT": "akgentic.tool.core.channels",
    "TOOL_CALL": "akgentic.tool.core.channels",
    "Channels": "akgentic.tool.core.channels",
    "ActorToolObserver": "akgentic.tool.core.observer",
    "ToolObserver": "akgentic.tool.core.observer",
    "BaseToolParam": "akgentic.tool.core.params",
    "resolve_param": "akgentic.tool.core.params",
    "CardDependencyError": "akgentic.tool.core.dependencies",
    "order_cards": "akgentic.tool.core.dependencies",
    "CommandArg": "akgentic.tool.core.event",
    "CommandDescriptor": "akgentic.tool.core.event",
    "CommandsAnnouncedEvent": "akgentic.tool.core.event",
    "ToolStateEvent": "akgentic.tool.core.event",
    "CommandRegistry": "akgentic.tool.core.commands",
    "ToolCard": "akgentic.tool.core.card",
    "Capability": "akgentic.tool.core.capability",
    "ToolFactory": "akgentic.tool.core.factory",
    "ApprovalDecidedEvent": "akgentic.tool.core.approval",
    "ApprovalDecision": "akgentic.tool.core.approval",
    "ApprovalGate": "akgentic.tool.core.approval",
    "ApprovalRequestedEvent": "akgentic.tool.core.approval",
    "PendingApproval": "akgentic.tool.core.approval",
    "CommandNotRecognized": "akgentic.tool.errors",
    "RetriableError": "akgentic.tool.errors",
    "ToolObserverGone": "akgentic.tool.errors",
}

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
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'akgentic.tool.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
