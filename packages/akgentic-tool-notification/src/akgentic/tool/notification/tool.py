"""NotificationTool: an agent sets itself a reminder that comes back as a message later.

The card binds to the team's ``#NotificationTool`` actor when it is attached to its agent,
and captures that agent's address once: every capability acts on behalf of that owner.
Listing can be widened to the whole team with ``all=True``; cancelling never can.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Self, cast

from pydantic import Field, PrivateAttr

from akgentic.core.actor_address import ActorAddress
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.channels import COMMAND, TOOL_CALL, Channels
from akgentic.tool.core.observer import ActorToolObserver, ToolObserver
from akgentic.tool.core.params import BaseToolParam
from akgentic.tool.errors import RetriableError
from akgentic.tool.notification._arguments import (
    check_bool,
    check_notification_id,
    check_seconds,
    check_text,
)
from akgentic.tool.notification.actor import NotificationActor
from akgentic.tool.notification.models import (
    CONTENT_MAX_CHARS,
    DEFAULT_MESSAGE_CLASS,
    LISTING_MAX_LINES,
    NOTIFICATION_ACTOR_NAME,
    NOTIFICATION_ACTOR_ROLE,
    NotificationConfig,
    NotificationListing,
    PendingNotification,
    resolve_message_class,
)

__all__ = [
    "DEFAULT_MAX_DELAY_SECONDS",
    "DEFAULT_MESSAGE_CLASS",
    "NOTIFICATION_ACTOR_NAME",
    "NOTIFICATION_ACTOR_ROLE",
    "CancelNotification",
    "NotificationTool",
    "PendingNotifications",
    "RegisterNotification",
]

logger = logging.getLogger(__name__)

# Bound on every ask to #NotificationTool: its methods are O(pending), so this only trips
# when the actor is wedged or gone, and then the model gets a retriable answer.
_ASK_TIMEOUT_SECONDS = 10

# How many of its ids a refused cancellation reminds the agent of.
_IDS_SHOWN = 20

DEFAULT_MAX_DELAY_SECONDS = 300
"""Largest delay an agent may schedule when the card sets none."""


def _both_channels() -> set[Channels]:
    return {TOOL_CALL, COMMAND}


class RegisterNotification(BaseToolParam):
    """Configuration of ``register_notification`` (tool call and command by default)."""

    expose: set[Channels] = Field(default_factory=_both_channels)


class PendingNotifications(BaseToolParam):
    """Configuration of ``pending_notification`` (tool call and command by default)."""

    expose: set[Channels] = Field(default_factory=_both_channels)
    max_listed: int = Field(
        default=LISTING_MAX_LINES,
        ge=1,
        description="Most entries one answer lists, soonest first; the rest is counted.",
    )


class CancelNotification(BaseToolParam):
    """Configuration of ``cancel_notification`` (tool call and command by default)."""

    expose: set[Channels] = Field(default_factory=_both_channels)


class NotificationTool(ToolCard):
    """Self-scheduled messages: register, list and cancel notifications to yourself."""

    message_class: str = Field(
        default=DEFAULT_MESSAGE_CLASS,
        description="Dotted path of the Message subclass delivered when an entry comes due.",
    )
    max_delay_seconds: int = Field(
        default=DEFAULT_MAX_DELAY_SECONDS,
        ge=1,
        description="Largest delay an agent may schedule, in seconds.",
    )
    register_notification: bool | RegisterNotification = True
    pending_notification: bool | PendingNotifications = True
    cancel_notification: bool | CancelNotification = True

    _actor: NotificationActor | None = PrivateAttr(default=None)
    _owner: ActorAddress | None = PrivateAttr(default=None)

    # -- wiring --------------------------------------------------------------------------

    def observer(self, observer: ToolObserver) -> Self:
        """Check ``message_class``, bind ``#NotificationTool`` and capture the owner.

        Raises ``ValueError`` when ``message_class`` cannot carry a notification or when
        the agent belongs to no team.
        """
        super().observer(observer)
        resolve_message_class(self.message_class)
        if not self._enabled():
            return self
        obs = self._actor_observer()
        if obs.orchestrator is None:
            raise ValueError(
                "NotificationTool needs an agent that belongs to a team: its observer has no "
                "orchestrator to host #NotificationTool"
            )
        orchestrator = obs.proxy_ask(obs.orchestrator, Orchestrator)
        address = orchestrator.getChildrenOrCreate(
            NotificationActor,
            NotificationConfig(
                name=NOTIFICATION_ACTOR_NAME,
                role=NOTIFICATION_ACTOR_ROLE,
                message_class=self.message_class,
            ),
        )
        self._actor = obs.proxy_ask(address, NotificationActor, _ASK_TIMEOUT_SECONDS)
        self._owner = obs.myAddress
        return self

    def _actor_observer(self) -> ActorToolObserver:
        return cast(ActorToolObserver, self.get_observer())

    def _enabled(self) -> bool:
        return any(
            value is not False and value is not None
            for value in (
                self.register_notification,
                self.pending_notification,
                self.cancel_notification,
            )
        )

    def _bound(self) -> tuple[NotificationActor, ActorAddress]:
        # Raises ToolObserverGone once the carrying agent has stopped.
        self.get_observer()
        if self._actor is None or self._owner is None:
            raise RuntimeError("NotificationTool used before observer() bound it to an agent")
        return self._actor, self._owner

    # -- the callables: one _build_<field> per `bool | Param` field ---------------------

    def _build_register_notification(self, param: RegisterNotification) -> Callable[..., str]:
        card = self
        max_delay = self.max_delay_seconds

        def register_notification(content: str, delay_seconds: int) -> str:
            """Schedule a message to yourself, delivered after a delay.

            Use it to come back to something later: check a long-running result, or
            remind yourself if nothing has happened by then.

            Args:
                content: The text you will receive when the notification comes due (at
                    most 2,000 characters).
                delay_seconds: Seconds from now until delivery (1 to the configured maximum).
            """
            content = check_text("content", content, CONTENT_MAX_CHARS)
            delay_seconds = check_seconds("delay_seconds", delay_seconds)
            if not 1 <= delay_seconds <= max_delay:
                raise RetriableError(
                    f"delay_seconds must be between 1 and {max_delay}, got {delay_seconds}; "
                    f"choose a delay in that range (register again later for a longer wait)"
                )
            if not content.strip():
                raise RetriableError(
                    "content is empty; write the text you want to receive when it comes due"
                )
            actor, owner = card._bound()
            entry = _ask(lambda: actor.schedule(owner, content, delay_seconds, card.message_class))
            return (
                f"Scheduled notification {entry.notification_id}: you will receive it in "
                f"{delay_seconds} s (due {entry.fire_at.isoformat(timespec='seconds')})."
            )

        return register_notification

    def _build_pending_notification(self, param: PendingNotifications) -> Callable[..., str]:
        card = self
        max_listed = param.max_listed

        def pending_notification(all: bool = False) -> str:
            """List pending notifications with the time left on each.

            Args:
                all: False (default) lists your own; True lists every team member's, each
                    marked with its owner. You can still cancel only your own.
            """
            show_all = check_bool("all", all)
            actor, owner = card._bound()
            listing = _ask(lambda: actor.pending(None if show_all else owner.agent_id, max_listed))
            return _render_listing(listing, show_owner=show_all)

        return pending_notification

    def _build_cancel_notification(self, param: CancelNotification) -> Callable[..., str]:
        card = self

        def cancel_notification(notification_id: int) -> str:
            """Cancel one of your own pending notifications.

            Args:
                notification_id: The id returned when you registered it.
            """
            wanted = check_notification_id("notification_id", notification_id)
            actor, owner = card._bound()
            removed = _ask(lambda: actor.cancel(wanted, owner.agent_id))
            if removed is None:
                ids, held = _ask(lambda: actor.held_ids(owner.agent_id, _IDS_SHOWN))
                known = ", ".join(str(i) for i in ids) if ids else "none"
                if held > len(ids):
                    known += f" and {held - len(ids)} more (pending_notification lists them)"
                raise RetriableError(
                    f"no pending notification {wanted} of yours to cancel; "
                    f"your pending ids: {known}"
                )
            return f"Cancelled notification {removed.notification_id}: {_clip(removed.content)}"

        return cancel_notification


def _ask[T](call: Callable[[], T]) -> T:
    """Run one ask to ``#NotificationTool``; an unreachable actor becomes a RetriableError."""
    try:
        return call()
    except RetriableError:
        raise
    except Exception as exc:
        logger.warning("#NotificationTool is unreachable: %s", exc)
        raise RetriableError(
            "the notification service is not reachable right now (the team may be stopping); "
            "try again later"
        ) from exc


def _render_listing(listing: NotificationListing, *, show_owner: bool) -> str:
    if not listing.entries:
        return (
            "No pending notifications in the team." if show_owner else "No pending notifications."
        )
    lines = [f"{listing.total} pending notification(s):"]
    for entry in listing.entries:
        # akgentic names usually carry their "@" already; do not double it.
        owner = f" @{entry.owner_name.removeprefix('@')}" if show_owner else ""
        left = _format_left(entry, listing.now)
        lines.append(f"- {entry.notification_id}{owner} in {left}: {_clip(entry.content)}")
    if listing.omitted:
        narrow = (
            "narrow with all=false to see only yours"
            if show_owner
            else "the soonest are shown; cancel the ones you no longer need to see the rest"
        )
        lines.append(f"... {listing.omitted} more not shown; {narrow}.")
    return "\n".join(lines)


def _format_left(entry: PendingNotification, now: datetime) -> str:
    seconds = int((entry.fire_at - now).total_seconds())
    if seconds <= 0:
        return "0s (due now)"
    minutes, secs = divmod(seconds, 60)
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def _clip(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
