"""The contracts every akgentic tool is written against.

``deferred`` and ``testing`` are deliberately not re-exported here: import
``akgentic.tool.core.deferred`` and ``akgentic.tool.core.testing`` directly.
"""

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
