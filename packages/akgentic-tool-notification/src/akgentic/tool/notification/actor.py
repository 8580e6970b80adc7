"""``#NotificationTool``: the team singleton that holds pending entries and delivers them.

A background ticker asks the actor to scan for due entries about once a second. The scan
itself runs on the actor's own thread, so registrations, cancellations and deliveries never
interleave. A due entry goes out as a tell to its owner, sent by this actor; an owner who is
not on the team is waited for (up to ``owner_wait_seconds``), then the entry is dropped.
"""

from __future__ import annotations

import logging
import threading
import time
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
from akgentic.tool.notification._index import PendingIndex
from akgentic.tool.notification.models import (
    DELIVERY_GRACE_S,
    NOTIFICATION_ACTOR_NAME,
    NOTIFICATION_ACTOR_ROLE,
    NOTIFICATION_TYPE,
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

# A publication costing more than this (a crowded state) delays the next one by
# _PUBLISH_SPACING times its cost; cheaper ones happen on every scan that follows a change.
_PUBLISH_CHEAP_S = 0.01
_PUBLISH_SPACING = 9.0

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
        self._publish_after = 0.0  # monotonic time before which no publication is due
        self.state = NotificationState().observer(self)
        self._index_cache = PendingIndex(self.state.pending)
        self._ticker = _Ticker(self.actor_ref, self.config.tick_seconds)
        self._ticker.start()

    @override
    def on_stop(self) -> None:
        self._ticker.halt()
        if self._ticker is not threading.current_thread():
            self._ticker.join(TICK_JOIN_TIMEOUT_S)
        self._publish(force=True)
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
        given). Raises ``RetriableError`` (nothing stored) when the delay is longer than
        ``max_delay_seconds``, when the owner already holds ``max_pending_per_agent``
        entries, or when the team holds ``max_pending_total``. Counted here, on the actor's
        thread and in constant time, so concurrent registrations cannot overshoot together
        and a crowded actor registers as fast as an empty one.
        """
        if not delay_seconds > 0:  # NaN too
            raise ValueError(f"delay_seconds must be positive, got {delay_seconds}")
        self._check_room(owner, delay_seconds)
        now = self._clock.now()
        entry = PendingNotification(
            notification_id=self.state.next_id,
            owner=owner,
            content=content,
            created_at=now,
            fire_at=_due_time(now, delay_seconds),
            message_class=message_class or self.config.message_class,
        )
        self.state.next_id += 1
        self._index().add(entry)
        self._dirty = True
        return entry

    def _check_room(self, owner: ActorAddress, delay_seconds: float) -> None:
        """Refuse a registration past a limit of the config (``RetriableError``)."""
        config = self.config
        if delay_seconds > config.max_delay_seconds:
            raise RetriableError(
                f"delay_seconds is at most {config.max_delay_seconds} here, got "
                f"{delay_seconds:g}; choose a shorter delay (nothing was changed)"
            )
        index = self._index()
        held = index.held_by(owner.agent_id)
        if held >= config.max_pending_per_agent:
            raise RetriableError(
                f"you already have {held} pending notifications, the most one agent may hold "
                f"({config.max_pending_per_agent}); cancel some (cancel_notification) or wait "
                "for them to come due (nothing was changed)"
            )
        if len(index) >= config.max_pending_total:
            raise RetriableError(
                f"the team already has {len(index)} pending notifications, the most "
                f"#NotificationTool holds ({config.max_pending_total}); cancel some of yours "
                "(cancel_notification) or wait for entries to come due (nothing was changed)"
            )

    def _index(self) -> PendingIndex:
        """The index of the current state, rebuilt if the state was replaced (a resume's
        ``init_state``) or changed behind it."""
        if not self._index_cache.covers(self.state.pending):
            self._index_cache = PendingIndex(self.state.pending)
        return self._index_cache

    def register(
        self,
        owner: ActorAddress,
        content: str,
        delay_seconds: float,
        message_class: str,
    ) -> PendingNotification:
        """Same as :meth:`schedule`, with the delivery class required."""
        return self.schedule(owner, content, delay_seconds, message_class)

    def pending(
        self, owner_id: uuid.UUID | None = None, limit: int | None = None
    ) -> NotificationListing:
        """Entries of ``owner_id`` (every owner's when ``None``), soonest first.

        With ``limit``, only the ``limit`` soonest are returned; ``total`` still counts all.
        """
        entries, total = self._index().soonest(owner_id, limit)
        return NotificationListing(now=self._clock.now(), entries=entries, total=total)

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

    def held_ids(self, owner_id: uuid.UUID, limit: int) -> tuple[list[int], int]:
        """The ids of the ``limit`` soonest entries of ``owner_id``, and how many it holds."""
        entries, total = self._index().soonest(owner_id, limit)
        return [e.notification_id for e in entries], total

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
        index = self._index()
        due = index.pop_due(now)
        if not due:
            return []
        roster = self._roster()
        if roster is None:  # the team cannot be read right now: try again next tick
            index.push_back(due)
            return []
        delivered: list[int] = []
        finished: set[int] = set()
        waiting: list[PendingNotification] = []
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
                else:
                    waiting.append(entry)
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
        index.push_back(waiting)
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
        index = self._index()
        for notification_id in ids:
            index.remove(notification_id)
            self._waiting_since.pop(notification_id, None)
        self._dirty = True

    def _publish(self, *, force: bool = False) -> None:
        """Publish the state if it changed since the last publication.

        Publishing serializes every pending entry, so doing it on each registration made
        a burst of N registrations cost O(N^2). Changes are coalesced instead and
        published once per scan (about a second) and when the actor stops (``force``),
        which the orchestrator's teardown always goes through. A publication that took
        longer than ``_PUBLISH_CHEAP_S`` spaces the next one by ``_PUBLISH_SPACING``
        times its cost, so publishing a crowded state never takes more than a tenth of
        the actor's time away from registrations and deliveries.
        """
        if not self._dirty:
            return
        started = time.monotonic()
        if not force and started < self._publish_after:
            return
        self._dirty = False
        self.state.notify_state_change()
        cost = time.monotonic() - started
        spacing = _PUBLISH_SPACING * cost if cost > _PUBLISH_CHEAP_S else 0.0
        self._publish_after = started + cost + spacing


def _due_time(now: datetime, delay_seconds: float) -> datetime:
    """``now + delay_seconds``; a date past the calendar's end is a ``RetriableError``."""
    try:
        return now + timedelta(seconds=delay_seconds)
    except OverflowError as exc:
        raise RetriableError(
            f"delay_seconds {delay_seconds:g} puts the due date past the end of the "
            "calendar; choose a shorter delay (nothing was changed)"
        ) from exc
