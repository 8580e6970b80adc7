"""Data of the notification tool: the pending entries, the actor's state and config.

Also home to :func:`resolve_message_class`, the bind-time check of the dotted path a
deployment picks for the message delivered when an entry comes due, and to the limits on
what a model may hand the tool: every pending entry is stored, persisted with the actor's
state on each change and delivered back into its owner's conversation, so its size and
number are bounded.
"""

from __future__ import annotations

import importlib
import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message

__all__ = [
    "CONTENT_MAX_CHARS",
    "DEFAULT_MESSAGE_CLASS",
    "NOTIFICATION_ACTOR_NAME",
    "NOTIFICATION_ID_MAX_CHARS",
    "NOTIFICATION_TYPE",
    "PENDING_MAX_PER_AGENT",
    "NotificationConfig",
    "NotificationListing",
    "NotificationState",
    "PendingNotification",
    "resolve_message_class",
]

NOTIFICATION_ACTOR_NAME = "#NotificationTool"
"""Name of the team singleton holding and delivering the pending entries."""

NOTIFICATION_TYPE = "notification"
"""The value written into the delivered message's ``type`` field."""

DEFAULT_MESSAGE_CLASS = "akgentic.agent.messages.AgentMessage"
"""Delivery class used when a card names none; it ships with the ``akgentic-agent`` package."""

CONTENT_MAX_CHARS = 2_000
"""Longest notification text, in characters: a reminder, not a document (a 2,000-character
note already holds a full paragraph of instructions to oneself)."""

PENDING_MAX_PER_AGENT = 100
"""Most entries one agent may have pending at once. With the default 300 s delay cap, more
than this means a loop, not a plan."""

NOTIFICATION_ID_MAX_CHARS = 64
"""Longest ``notification_id`` looked at; ids are 8 characters, so a longer one is a mistake."""

# Where the default class comes from, for the error raised when it is not installed.
_DEFAULT_CLASS_DISTRIBUTION = "akgentic-agent"


class PendingNotification(BaseModel):
    """One scheduled message, waiting in ``#NotificationTool`` until its due time.

    ``due_at`` is absolute (UTC), never a remaining delay: an entry that fell due while
    the team was stopped is simply overdue when the team comes back.
    """

    id: str = Field(description="Short identifier shown to the agent and used to cancel.")
    seq: int = Field(description="Registration order; breaks ties between equal due times.")
    owner_id: uuid.UUID = Field(description="agent_id of the agent the message goes back to.")
    owner_name: str = Field(description="Name of that agent when it registered the entry.")
    content: str
    created_at: datetime
    due_at: datetime
    message_class: str = Field(description="Dotted path of the class delivered when due.")


class NotificationListing(BaseModel):
    """What ``#NotificationTool`` answers to a listing: its clock reading and the entries."""

    now: datetime
    entries: list[PendingNotification]


class NotificationState(BaseState):
    """Persisted state of ``#NotificationTool``: every pending entry.

    The actor publishes it after each change, so a stopped team resumes with its
    pending entries intact.
    """

    pending: list[PendingNotification] = Field(default_factory=list)
    next_seq: int = 1


class NotificationConfig(BaseConfig):
    """Configuration of the ``#NotificationTool`` actor."""

    name: str = NOTIFICATION_ACTOR_NAME
    role: str = "NotificationTool"
    tick_seconds: float = Field(
        default=1.0, gt=0, description="Interval between two scans for due entries."
    )
    owner_wait_seconds: float = Field(
        default=300.0,
        ge=0,
        description="How long a due entry waits for an owner who is off the team.",
    )


def resolve_message_class(path: str) -> type[Message]:
    """Import ``path`` and check it can carry a notification; raise ``ValueError`` if not.

    The class must be a ``Message`` subclass with ``content`` and ``type`` fields, whose
    ``type`` accepts ``"notification"``, and whose other fields all have defaults (the
    actor fills in only ``content`` and ``type``).
    """
    module_name, _, class_name = path.rpartition(".")
    if not module_name or not class_name:
        raise ValueError(
            f"message_class {path!r} is not a dotted path such as 'package.module.ClassName'"
        )
    try:
        module = importlib.import_module(module_name)
        found: Any = getattr(module, class_name)
    except (ImportError, AttributeError) as exc:
        hint = ""
        if path == DEFAULT_MESSAGE_CLASS:
            hint = (
                f"; the default delivery class ships with {_DEFAULT_CLASS_DISTRIBUTION}: "
                f"`pip install {_DEFAULT_CLASS_DISTRIBUTION}`, or set "
                "NotificationTool(message_class=...) to a Message subclass you provide"
            )
        raise ValueError(f"message_class {path!r} cannot be imported ({exc}){hint}") from exc
    if not (isinstance(found, type) and issubclass(found, Message)):
        raise ValueError(
            f"message_class {path!r} must name a subclass of akgentic.core.messages.Message, "
            f"got {found!r}"
        )
    fields = found.model_fields
    missing = [name for name in ("content", "type") if name not in fields]
    if missing:
        raise ValueError(
            f"message_class {path!r} must declare the model field(s) {', '.join(missing)}: "
            "delivery writes the notification text to `content` and 'notification' to `type`"
        )
    type_annotation: Any = fields["type"].annotation
    try:
        TypeAdapter[Any](type_annotation).validate_python(NOTIFICATION_TYPE)
    except ValidationError as exc:
        raise ValueError(
            f"message_class {path!r}: its `type` field ({type_annotation!r}) does not "
            f"accept {NOTIFICATION_TYPE!r}, the value delivery writes"
        ) from exc
    unfillable = [
        name
        for name, info in fields.items()
        if info.is_required() and name not in ("content", "type")
    ]
    if unfillable:
        raise ValueError(
            f"message_class {path!r} has required field(s) {', '.join(unfillable)} that a "
            "notification cannot fill; give them defaults"
        )
    return found
