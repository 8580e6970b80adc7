"""Package-global event models: tool state deltas and command discovery.

`ToolStateEvent` is how a stateful tool actor tells clients what changed. Its payload is
typed structurally (any pydantic model) so this module never depends on a domain: the
concrete class travels as a ``__model__`` tag and is restored on deserialization, and a
consumer discriminates on the payload object itself.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_serializer

from akgentic.core.actor_address import ActorAddress
from akgentic.core.messages.message import Message
from akgentic.core.utils.serializer import SerializableBaseModel, serialize_type

__all__ = ["CommandArg", "CommandDescriptor", "CommandsAnnouncedEvent", "ToolStateEvent"]


class ToolStateEvent(Message):
    """One increment of a tool actor's state, broadcast on the team's event stream.

    ``seq`` is numbered per tool actor, from 1, without gaps: a consumer that sees a jump
    knows it missed an event. Emit one only for a non-empty change, before returning.
    """

    tool_id: str = Field(description="Name of the emitting tool actor, '#'-prefixed.")
    seq: int = Field(ge=1, description="Per-tool monotonic counter starting at 1.")
    payload: BaseModel = Field(description="The delta: any serializable pydantic model.")

    @field_serializer("payload")
    def _tag_payload(self, payload: BaseModel) -> dict[str, Any]:
        # A plain BaseModel dumps without a class tag; add one so the concrete delta class
        # comes back on deserialization whatever base the domain chose for it.
        data = payload.model_dump()
        data["__model__"] = serialize_type(payload)
        return data


class CommandArg(SerializableBaseModel):
    """One argument of a command, described from the callable's signature and docstring."""

    name: str
    type: str = Field(description="The annotation, rendered as text (e.g. 'int', 'str | None').")
    required: bool
    default: Any = None
    description: str | None = None


class CommandDescriptor(SerializableBaseModel):
    """What a command is called, what it does and what it takes."""

    name: str
    description: str = ""
    args: list[CommandArg] = Field(default_factory=list)
    tool_card: str = Field(
        description="Where the command comes from: the card's class name, or for a command "
        "an agent added itself, the agent's class name."
    )


class CommandsAnnouncedEvent(SerializableBaseModel):
    """An agent's announcement of the commands its tools expose (for UIs and `/` menus).

    An agent emits it once, when it starts, through ``notify_event``.
    """

    agent: ActorAddress = Field(description="The agent that answers these commands.")
    commands: list[CommandDescriptor] = Field(default_factory=list)

    @property
    def agent_name(self) -> str:
        """The announcing agent's name (``@Alice``)."""
        return self.agent.name
