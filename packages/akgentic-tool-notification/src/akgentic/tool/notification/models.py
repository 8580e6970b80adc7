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
from typing import Any, Self

from pydantic import (
    AwareDatetime,
    BaseModel,
    Field,
    PrivateAttr,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from akgentic.core.actor_address import ActorAddress
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message
from akgentic.core.utils.serializer import SerializableBaseModel

__all__ = [
    "CONTENT_MAX_CHARS",
    "DEFAULT_MESSAGE_CLASS",
    "DELIVERY_GRACE_S",
    "LISTING_MAX_LINES",
    "MAX_DELAY_CEILING_S",
    "NOTIFICATION_ACTOR_NAME",
    "NOTIFICATION_ACTOR_ROLE",
    "NOTIFICATION_ID_MAX_CHARS",
    "NOTIFICATION_TYPE",
    "PENDING_MAX_PER_AGENT",
    "PENDING_MAX_TOTAL",
    "PROBE_CONTENT",
    "REQUIRED_MESSAGE_FIELDS",
    "TICK_INTERVAL_S",
    "NotificationConfig",
    "NotificationListing",
    "NotificationState",
    "PendingNotification",
    "resolve_message_class",
]

NOTIFICATION_ACTOR_NAME = "#NotificationTool"
"""Name of the team singleton holding and delivering the pending entries."""

NOTIFICATION_ACTOR_ROLE = "ToolActor"
"""Role of that singleton (the role tool actors carry in a team)."""

TICK_INTERVAL_S = 1.0
"""Default interval between two scans for due entries (``NotificationConfig.tick_seconds``)."""

DELIVERY_GRACE_S = 300.0
"""Default wait for a due entry's owner who is off the team
(``NotificationConfig.owner_wait_seconds``)."""

REQUIRED_MESSAGE_FIELDS = ("content", "type")
"""Fields a delivery class must declare: delivery fills exactly these two."""

PROBE_CONTENT = "notification probe"
"""Text of the trial message built at bind time to prove the delivery class can be built."""

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

PENDING_MAX_TOTAL = 5_000
"""Most entries the whole team may have pending at once (``NotificationConfig
.max_pending_total``): 50 agents at the per-agent limit. Every entry is persisted with the
actor's state, so the total bounds what one publication serializes."""

MAX_DELAY_CEILING_S = 365 * 24 * 3600
"""Longest delay ``#NotificationTool`` accepts whatever a card allows
(``NotificationConfig.max_delay_seconds``): one year. Far below the date overflow (about
year 9999) that an unchecked delay of 10**12 s ran into."""

LISTING_MAX_LINES = 50
"""Most entries one ``pending_notification`` answer lists (``PendingNotifications.max_listed``);
the rest is counted, not shown."""

NOTIFICATION_ID_MAX_CHARS = 64
"""Longest ``notification_id`` given as text that is looked at; ids are small integers, so a
longer one is a mistake."""

# Where the default class comes from, for the error raised when it is not installed.
_DEFAULT_CLASS_DISTRIBUTION = "akgentic-agent"


class PendingNotification(SerializableBaseModel):
    """One scheduled message, waiting in ``#NotificationTool`` until its due time.

    ``fire_at`` is absolute (UTC), never a remaining delay: an entry that fell due while
    the team was stopped is simply overdue when the team comes back. The field names are
    those akgentic-tool 1.6.4 persisted, so its stored teams resume with their entries.
    """

    notification_id: int = Field(
        description="Id shown to the agent and used to cancel; also the registration order."
    )
    owner: ActorAddress = Field(description="The agent the message goes back to.")
    content: str
    created_at: AwareDatetime
    fire_at: AwareDatetime = Field(description="When the entry comes due (UTC).")
    message_class: str = Field(
        default=DEFAULT_MESSAGE_CLASS, description="Dotted path of the class delivered when due."
    )

    @property
    def owner_id(self) -> uuid.UUID:
        """``agent_id`` of the owner (delivery matches the team by id, not by name)."""
        return self.owner.agent_id

    @property
    def owner_name(self) -> str:
        """Name of the owner when it registered the entry."""
        return self.owner.name

    @property
    def due_at(self) -> datetime:
        """Same as ``fire_at``."""
        return self.fire_at


class NotificationListing(BaseModel):
    """What ``#NotificationTool`` answers to a listing: its clock reading and the entries."""

    now: datetime
    entries: list[PendingNotification]
    total: int = Field(
        default=0,
        ge=0,
        description="How many entries matched, listed or not (never fewer than listed).",
    )

    @model_validator(mode="after")
    def _count_listed(self) -> Self:
        # A listing built without a total (every entry listed) counts what it holds.
        self.total = max(self.total, len(self.entries))
        return self

    @property
    def omitted(self) -> int:
        """How many matching entries the listing leaves out."""
        return max(self.total - len(self.entries), 0)


class NotificationState(BaseState):
    """Persisted state of ``#NotificationTool``: every pending entry.

    The actor publishes it after each change, so a stopped team resumes with its
    pending entries intact.
    """

    pending: dict[int, PendingNotification] = Field(default_factory=dict)
    next_id: int = Field(default=1, ge=1, description="Id the next registration receives.")

    # Entry id -> (the stored entry, its published copy). Entries never change once
    # stored, so each is copied for publication once, not on every publication: copying
    # 20,000 entries took seconds of the actor's thread per publication.
    _copies: dict[int, tuple[PendingNotification, PendingNotification]] = PrivateAttr(
        default_factory=dict
    )

    def serializable_copy(self) -> NotificationState:
        """A copy without the observer, for publication.

        Owners' addresses are copied as address snapshots, resolved by nobody: the copy is
        made on the actor's thread (while it stops, too), where asking the orchestrator to
        resolve each owner could block, and delivery only needs the owner's ``agent_id``.
        """
        copies: dict[int, tuple[PendingNotification, PendingNotification]] = {}
        for notification_id, entry in self.pending.items():
            known = self._copies.get(notification_id)
            if known is None or known[0] is not entry:
                known = (entry, PendingNotification.model_validate(entry.model_dump()))
            copies[notification_id] = known
        self._copies = copies
        return self.__class__(
            pending={i: copy for i, (_, copy) in copies.items()}, next_id=self.next_id
        )


class NotificationConfig(BaseConfig):
    """Configuration of the ``#NotificationTool`` actor."""

    name: str = NOTIFICATION_ACTOR_NAME
    role: str = NOTIFICATION_ACTOR_ROLE
    message_class: str = Field(
        default=DEFAULT_MESSAGE_CLASS,
        description="Delivery class of an entry scheduled without one (``schedule``).",
    )
    tick_seconds: float = Field(
        default=TICK_INTERVAL_S, gt=0, description="Interval between two scans for due entries."
    )
    owner_wait_seconds: float = Field(
        default=DELIVERY_GRACE_S,
        ge=0,
        description="How long a due entry waits for an owner who is off the team.",
    )
    max_pending_per_agent: int = Field(
        default=PENDING_MAX_PER_AGENT, ge=1, description="Most entries one agent may hold."
    )
    max_pending_total: int = Field(
        default=PENDING_MAX_TOTAL, ge=1, description="Most entries the whole team may hold."
    )
    max_delay_seconds: int = Field(
        default=MAX_DELAY_CEILING_S,
        ge=1,
        description="Longest delay accepted, whatever the cards allow.",
    )


def resolve_message_class(dotted_path: str) -> type[Message]:
    """Import ``path`` and check it can carry a notification; raise ``ValueError`` if not.

    The class must be a ``Message`` subclass with ``content`` and ``type`` fields, whose
    ``type`` accepts ``"notification"``, and whose other fields all have defaults (the
    actor fills in only ``content`` and ``type``). A trial message is then built, so a
    class whose own validators refuse a notification fails here too, not when one is due.

    The class is imported only now, never when this package is imported: the default,
    ``akgentic.agent.messages.AgentMessage``, belongs to akgentic-agent, which this package
    does not depend on. When it is not installed the error says so and how to proceed.
    """
    path = dotted_path
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
    missing = [name for name in REQUIRED_MESSAGE_FIELDS if name not in fields]
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
    # The checks above guarantee both fields and no other required one; the base class's
    # signature cannot say so.
    factory: Any = found
    try:
        factory(content=PROBE_CONTENT, type=NOTIFICATION_TYPE)
    except Exception as exc:
        raise ValueError(
            f"message_class {path!r} cannot be built as a notification "
            f"({type(exc).__name__}: {exc})"
        ) from exc
    return found
