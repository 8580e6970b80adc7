"""``#NotificationTool``: the team singleton that holds pending entries and delivers them.

A background ticker asks the actor to scan for due entries about once a second. The scan
itself runs on the actor's own thread, so registrations, cancellations and deliveries never
interleave. A due entry goes out as a tell to its owner, sent by this actor; an owner who is
not on the team is waited for (up to ``owner_wait_seconds``), then the entry is dropped.
"""

from __future__ import annotations

import logging
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, override

from akgentic.core import ActorDeadError, ActorRef
from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_address_impl import ActorAddressImpl
from akgentic.core.agent import Akgent
from akgentic.core.messages.message import Message
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.errors import RetriableError
from akgentic.tool.notification.models import (
    DELIVERY_GRACE_S,
    NOTIFICATION_ACTOR_NAME,
    NOTIFICATION_ACTOR_ROLE,
    NOTIFICATION_TYPE,
    PENDING_MAX_PER_AGENT,
    TICK_INTERVAL_S,
    NotificationConfig,
    NotificationListing,
    NotificationState,
    PendingNotification,
    resolve_message_class,
)

__all__ = [
    "DELIVERY_GRACE_S",
    "NOTIFICATION_ACTOR_NAME",
    "NOTIFICATION_ACTOR_ROLE",
    "NOTIFICATION_TYPE",
    "TICK_INTERVAL_S",
    "TICK_JOIN_TIMEOUT_S",
    "Clock",
    "NotificationActor",
    "NotificationTick",
    "SystemClock",
]

logger = logging.getLogger(__name__)

# Bound on the roster ask made during a scan: a wedged orchestrator must not park this actor.
_ROSTER_TIMEOUT_SECONDS = 5

TICK_JOIN_TIMEOUT_S = 2.0
"""How long stopping the actor waits for its ticker thread to end."""


class Clock(Protocol):
    """Source of the current time for due-time arithmetic (UTC, timezone-aware)."""

    def now(self) -> datetime:
        """The current time."""
        ...


class SystemClock:
    """The wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass
class NotificationTick:
    """Scan request sent by the ticker thread.

    Deliberately not a ``Message``: a plain object produces no received/processed
    telemetry, so the once-a-second scan does not flood the team's history.
    """

    done: threading.Event = field(default_factory=threading.Event)


class _Ticker(threading.Thread):
    """Tells the actor to scan every ``interval`` seconds, with at most one scan queued."""

    def __init__(self, actor_ref: ActorRef[Any], interval: float) -> None:
        super().__init__(name=f"notification-ticker-{actor_ref.actor_urn}", daemon=True)
        self._actor_ref = actor_ref
        self._interval = interval
        self._halt = threading.Event()
        self._last: NotificationTick | None = None

    def run(self) -> None:
        while not self._halt.wait(self._interval):
            # Skip a beat rather than pile ticks up behind a busy actor.
            if self._last is not None and not self._last.done.is_set():
                continue
            tick = NotificationTick()
            try:
                self._actor_ref.tell(tick)
            except ActorDeadError:
                return
            self._last = tick

    def halt(self) -> None:
        self._halt.set()


class NotificationActor(Akgent[NotificationConfig, NotificationState]):
    """Holds every pending notification of the team and delivers each when it comes due."""

    @override
    def on_start(self) -> None:
        self._clock: Clock = SystemClock()
        # When a due entry was first found waiting for an absent owner. Runtime only: after
        # a resume the owner gets a fresh window, however long the team was stopped.
        self._waiting_since: dict[int, datetime] = {}
        self._message_classes: dict[str, type[Message]] = {}
        # Set by every mutation, cleared when the state is published (see _publish).
        self._dirty = False
        self.state = NotificationState().observer(self)
        self._ticker = _Ticker(self.actor_ref, self.config.tick_seconds)
        self._ticker.start()

    @override
    def on_stop(self) -> None:
        self._ticker.halt()
        if self._ticker is not threading.current_thread():
            self._ticker.join(TICK_JOIN_TIMEOUT_S)
        self._publish()
        super().on_stop()

    # -- clock --------------------------------------------------------------------------

    def set_clock(self, clock: Clock) -> None:
        """Replace the time source (tests drive due times with a manual clock)."""
        self._clock = clock

    def now(self) -> datetime:
        """The actor's current time."""
        return self._clock.now()

    # -- the three operations ------------------------------------------------------------

    def schedule(
        self,
        owner: ActorAddress,
        content: str,
        delay_seconds: float,
        message_class: str | None = None,
    ) -> PendingNotification:
        """Schedule ``content`` for ``owner`` in ``delay_seconds``; returns the new entry.

        ``message_class`` is the delivery class (the config's ``message_class`` when not
        given). Raises ``RetriableError`` (nothing stored) when the owner already has
        ``PENDING_MAX_PER_AGENT`` entries pending. Counted here, on the actor's thread, so
        concurrent registrations of one agent cannot overshoot the limit together.
        """
        if delay_seconds <= 0:
            raise ValueError(f"delay_seconds must be positive, got {delay_seconds}")
        held = sum(1 for e in self.state.pending.values() if e.owner_id == owner.agent_id)
        if held >= PENDING_MAX_PER_AGENT:
            raise RetriableError(
                f"you already have {held} pending notifications, the most one agent may hold "
                f"({PENDING_MAX_PER_AGENT}); cancel some (cancel_notification) or wait for "
                "them to come due (nothing was changed)"
            )
        now = self._clock.now()
        entry = PendingNotification(
            notification_id=self.state.next_id,
            owner=owner,
            content=content,
            created_at=now,
            fire_at=now + timedelta(seconds=delay_seconds),
            message_class=message_class or self.config.message_class,
        )
        self.state.next_id += 1
        self.state.pending[entry.notification_id] = entry
        self._dirty = True
        return entry

    def register(
        self,
        owner: ActorAddress,
        content: str,
        delay_seconds: float,
        message_class: str,
    ) -> PendingNotification:
        """Same as :meth:`schedule`, with the delivery class required."""
        return self.schedule(owner, content, delay_seconds, message_class)

    def pending(self, owner_id: uuid.UUID | None = None) -> NotificationListing:
        """Entries of ``owner_id`` (every owner's when ``None``), soonest first."""
        entries = [
            e for e in self.state.pending.values() if owner_id is None or e.owner_id == owner_id
        ]
        entries.sort(key=lambda e: (e.fire_at, e.notification_id))
        return NotificationListing(now=self._clock.now(), entries=entries)

    def list_for(self, owner: ActorAddress | None) -> list[PendingNotification]:
        """Entries of ``owner`` (every owner's when ``None``), soonest first."""
        return self.pending(None if owner is None else owner.agent_id).entries

    def cancel(
        self, notification_id: int, owner: ActorAddress | uuid.UUID
    ) -> PendingNotification | None:
        """Remove ``notification_id`` if ``owner`` (an address or an agent_id) owns it.

        Returns the removed entry, ``None`` when there is no such entry of that owner.
        """
        owner_id = owner if isinstance(owner, uuid.UUID) else owner.agent_id
        entry = self.state.pending.get(notification_id)
        if entry is None or entry.owner_id != owner_id:
            return None
        self._remove({notification_id})
        return entry

    # -- delivery ------------------------------------------------------------------------

    def receiveMsg_NotificationTick(self, tick: NotificationTick) -> None:
        try:
            self.tick()
        except Exception:  # a failed scan must not kill the actor; the next one retries
            logger.exception("[%s] notification scan failed", self.config.name)
        finally:
            tick.done.set()

    def tick(self) -> list[int]:
        """Deliver what is due; returns the ids delivered, in delivery order."""
        try:
            return self._deliver_due()
        finally:
            self._publish()

    def deliver_due(self) -> list[int]:
        """Same as :meth:`tick`: deliver what is due now."""
        return self.tick()

    def _deliver_due(self) -> list[int]:
        now = self._clock.now()
        due = sorted(
            (e for e in self.state.pending.values() if e.fire_at <= now),
            key=lambda e: (e.fire_at, e.notification_id),
        )
        if not due:
            return []
        roster = self._roster()
        if roster is None:  # the team cannot be read right now: try again next tick
            return []
        delivered: list[int] = []
        finished: set[int] = set()
        for entry in due:
            owner = roster.get(entry.owner_id)
            if owner is None:
                since = self._waiting_since.setdefault(entry.notification_id, now)
                if (now - since).total_seconds() >= self.config.owner_wait_seconds:
                    logger.warning(
                        "[%s] dropping notification %s: owner %s (%s) has been off the team "
                        "for %.0f s",
                        self.config.name,
                        entry.notification_id,
                        entry.owner_name,
                        entry.owner_id,
                        (now - since).total_seconds(),
                    )
                    finished.add(entry.notification_id)
                continue
            finished.add(entry.notification_id)
            try:
                self.send(owner, self._build_message(entry))
            except Exception as exc:  # a failed send is logged and dropped, never retried
                logger.warning(
                    "[%s] dropping notification %s for %s: delivery failed: %s",
                    self.config.name,
                    entry.notification_id,
                    entry.owner_name,
                    exc,
                )
                continue
            delivered.append(entry.notification_id)
        if finished:
            self._remove(finished)
        return delivered

    def _roster(self) -> dict[uuid.UUID, ActorAddress] | None:
        if self.orchestrator is None:
            return {}
        try:
            team = self.proxy_ask(
                self.orchestrator, Orchestrator, timeout=_ROSTER_TIMEOUT_SECONDS
            ).get_team()
        except Exception as exc:
            logger.warning("[%s] cannot read the team roster: %s", self.config.name, exc)
            return None
        # Only live, local addresses count as "on the team". A resumed orchestrator's roster
        # also lists members replayed from history before they re-register: those entries
        # are address snapshots that nothing can be delivered to yet, so their owners wait.
        return {
            member.agent_id: member
            for member in team
            if isinstance(member, ActorAddressImpl) and member.is_alive()
        }

    def _build_message(self, entry: PendingNotification) -> Message:
        cls = self._message_classes.get(entry.message_class)
        if cls is None:
            cls = resolve_message_class(entry.message_class)
            self._message_classes[entry.message_class] = cls
        # resolve_message_class guarantees `content` and `type` fields and no other
        # required one; the base class's signature cannot say so.
        factory: Any = cls
        message: Message = factory(content=entry.content, type=NOTIFICATION_TYPE)
        return message

    def _remove(self, ids: set[int]) -> None:
        for notification_id in ids:
            self.state.pending.pop(notification_id, None)
            self._waiting_since.pop(notification_id, None)
        self._dirty = True

    def _publish(self) -> None:
        """Publish the state if it changed since the last publication.

        Publishing serializes every pending entry, so doing it on each registration made
        a burst of N registrations cost O(N^2). Changes are coalesced instead and
        published once per scan (about a second) and when the actor stops, which the
        orchestrator's teardown always goes through.
        """
        if self._dirty:
            self._dirty = False
            self.state.notify_state_change()
