"""A team tool actor whose state is persisted as snapshots plus gap-free delta events.

The protocol, shared by planning and the knowledge graph and open to any tool with a
growing shared state:

* **Emission.** Each call that changes something emits exactly one ``ToolStateEvent``
  carrying the net delta, numbered ``seq`` per actor from 1 without gaps, before the call
  returns (:meth:`DeltaToolActor._emit`).
* **Snapshots.** The full state is published when its cadence says so (by default the
  :class:`~akgentic.tool.core.snapshots.SnapshotSchedule`: proportionally to the change,
  not after every update), and on stop when it changed since, so the persistence cost of
  a session stays proportional to what it changed. A state of large payloads picks
  another cadence (:meth:`DeltaToolActor._snapshot_cadence`, e.g.
  :class:`~akgentic.tool.core.snapshots.PacedSnapshots`) and may keep part of its data
  outside the state between snapshots, writing it in from :meth:`DeltaToolActor.on_snapshot`.
* **Restore.** An actor given a snapshot (``init_state``), or started fresh in a resumed
  team, replays from the team history every delta newer than its state's ``seq`` before
  it serves its first call (:meth:`DeltaToolActor._ready`), so an abrupt end right after a
  burst of updates loses nothing that reached the event stream. A gap in the history is
  logged, and the replay goes on.
* **Readiness.** The catch-up must happen before any call is served. Rather than trusting
  every public method to start with ``self._ready()``, the base wraps each public method a
  subclass defines (at class creation, :meth:`DeltaToolActor.__init_subclass__`), so a
  method added later cannot forget it. Hooks a subclass overrides that must not wait for
  the history (they run while the actor starts) are marked :func:`unguarded`.

A subclass sets its state in ``on_start`` before calling ``super().on_start()``, names its
delta model in :attr:`DeltaToolActor.delta_type` and calls ``self._emit(delta)`` after
each change; :meth:`on_ready` and :meth:`on_delta` are its hooks (binding and feeding a
vector store, for example).
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import Field

from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.delta_state import DeltaPayload, TrackedState
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.snapshots import SnapshotCadence, SnapshotSchedule

__all__ = ["DeltaToolActor", "DeltaToolConfig", "unguarded"]

logger = logging.getLogger(__name__)


class DeltaToolConfig(BaseConfig):
    """The snapshot schedule of a :class:`DeltaToolActor` (subclasses add their own)."""

    snapshot_min_changes: int = Field(
        default=64, ge=1, description="Changes before the first snapshot is due."
    )
    snapshot_size_ratio: float = Field(
        default=1.0,
        gt=0,
        description="A snapshot is due once unpublished changes reach this share of the size.",
    )


def unguarded[F: Callable[..., Any]](method: F) -> F:
    """Mark a public method of a :class:`DeltaToolActor` subclass as a hook that runs
    without waiting for the catch-up (an override keeps the mark)."""
    method.__delta_unguarded__ = True  # type: ignore[attr-defined]
    return method


def _guarded[F: Callable[..., Any]](method: F) -> F:
    """``method`` preceded by the actor's catch-up when one is pending."""

    @functools.wraps(method)
    def guarded(self: DeltaToolActor[Any, Any], *args: Any, **kwargs: Any) -> Any:
        # Read with a default: a method reached before on_start has nothing to catch up.
        if getattr(self, "_catch_up_pending", False):
            self._ready()
        return method(self, *args, **kwargs)

    guarded.__delta_guarded__ = True  # type: ignore[attr-defined]
    return guarded  # type: ignore[return-value]


class DeltaToolActor[C: BaseConfig, S: TrackedState](Akgent[C, S]):
    """Base of a tool actor holding a :class:`~akgentic.tool.core.delta_state.TrackedState`
    (usually a ``DeltaState``; see the module documentation)."""

    _unguarded_names: ClassVar[frozenset[str]] = frozenset()
    """Public names a subclass marked :func:`unguarded` (inherited by overrides)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Put the readiness guard in front of every public method ``cls`` defines."""
        super().__init_subclass__(**kwargs)
        exempt = set(cls._unguarded_names)
        # Every class of the MRO above the base counts, so a method brought by a mixin
        # is guarded too; what the MRO resolves the name to is what gets wrapped.
        names = {
            name
            for klass in cls.__mro__
            if klass not in DeltaToolActor.__mro__
            for name in vars(klass)
        }
        for name in sorted(names):
            member = inspect.getattr_static(cls, name)
            if getattr(member, "__delta_unguarded__", False):
                exempt.add(name)
            elif _is_entry_point(name, member) and name not in exempt:
                setattr(cls, name, _guarded(member))
        cls._unguarded_names = frozenset(exempt)

    delta_type: ClassVar[type[DeltaPayload]]
    """The delta model this actor emits; replay picks the events carrying it."""

    subject: ClassVar[str] = "state"
    """What the state is, for log lines ("the plan may miss changes")."""

    def on_start(self) -> None:
        """Start the snapshot cadence; the subclass has set ``self.state`` already."""
        self._schedule = self._snapshot_cadence()
        # Deltas in the team history newer than the state are replayed before first use.
        self._catch_up_pending = True

    def init_state(self, state: S) -> None:
        """Adopt a restored snapshot; newer deltas are replayed before the next call."""
        super().init_state(state)
        self._schedule.published(self.state.size())
        self._catch_up_pending = True

    def stop(self) -> None:
        """Publish what changed (:meth:`on_snapshot` first), then stop as akgentic-core does."""
        self._checkpoint()
        super().stop()

    def on_stop(self) -> None:
        """Publish what changed, cancel any scheduled snapshot, report the stop."""
        if hasattr(self, "_schedule"):  # on_start may have failed before setting it
            self._checkpoint()
            self._schedule.cancel()
        super().on_stop()

    # -- hooks --------------------------------------------------------------------------

    def on_ready(self) -> None:
        """Called once the state caught up with the history, before serving a call."""

    def on_delta(self, delta: Any) -> None:
        """Called after each emitted delta (the state already holds the change)."""

    def on_snapshot(self) -> None:
        """Called before each publication: bring into the state what is kept outside it.

        Nothing by default; a store of large payloads writes them in here, so that its
        calls pay for the change only and the snapshot pays for the serialisation.
        """

    def _snapshot_cadence(self) -> SnapshotCadence:
        """When snapshots are due: the config's ``snapshot_*`` fields by default."""
        config = self.config
        if isinstance(config, DeltaToolConfig):
            return SnapshotSchedule(config.snapshot_min_changes, config.snapshot_size_ratio)
        defaults = DeltaToolConfig.model_fields
        return SnapshotSchedule(
            defaults["snapshot_min_changes"].default, defaults["snapshot_size_ratio"].default
        )

    # -- for the subclass's public methods ----------------------------------------------

    def _ready(self) -> None:
        """Catch up with the history if due (every public method does it first)."""
        if self._catch_up_pending:
            self._catch_up_pending = False
            self._catch_up()
            self.on_ready()

    def _emit(self, delta: DeltaPayload) -> int | None:
        """Emit ``delta`` as the next ``ToolStateEvent`` unless it is empty; return its seq.

        Publishes a snapshot too when the schedule says one is due.
        """
        if delta.is_empty():
            return None
        seq = self.state.next_seq()
        event = ToolStateEvent(tool_id=self.config.name, seq=seq, payload=delta)
        self.notify_event(event)
        self.on_delta(delta)
        if self._schedule.record(delta.change_count()):
            self._publish_snapshot()
        return seq

    def _publish_snapshot(self) -> None:
        """Publish the full state now and tell the cadence its size."""
        self.on_snapshot()
        self.state.notify_state_change()
        self._schedule.published(self.state.size())

    def _checkpoint(self) -> None:
        """Publish the state if anything changed since its last publication."""
        self.on_snapshot()
        if self.state.dirty:
            self.state.notify_state_change()
            self._schedule.published(self.state.size())

    def _catch_up(self) -> None:
        """Replay deltas from the team history that are newer than the state."""
        if self._orchestrator is None:
            return
        orchestrator = self.proxy_ask(self._orchestrator, Orchestrator)
        deltas: dict[int, DeltaPayload] = {}
        for message in orchestrator.get_events(event_class=ToolStateEvent):
            event = message.event
            if (
                event.tool_id == self.config.name
                and event.seq > self.state.last_seq
                and isinstance(event.payload, self.delta_type)
            ):
                deltas[event.seq] = event.payload
        if not deltas:
            return
        expected = self.state.last_seq + 1
        for seq in sorted(deltas):
            if seq != expected:
                logger.warning(
                    "%s: history lacks delta(s) %d..%d; the %s may miss changes",
                    self.config.name,
                    expected,
                    seq - 1,
                    self.subject,
                )
            self.state.apply(deltas[seq], seq=seq)
            expected = seq + 1
        logger.info("%s: replayed %d delta(s) from history", self.config.name, len(deltas))
        # The replayed state is now the baseline: publish it once.
        self._publish_snapshot()


def _is_entry_point(name: str, member: object) -> bool:
    """Whether ``name`` is a public method a subclass adds (what callers reach).

    Names the base classes define (life cycle, messaging, the hooks above) are left
    alone: akgentic-core and pykka call them, and some run before the catch-up can.
    """
    # mutmut (see CONTRIBUTING.md) keeps each method's original as `xǁClassǁname__mutmut_orig`
    # and calls it from the method: guarding that copy of a hook such as `init_state` would
    # run the catch-up inside the hook, so under mutation the state would be replayed wrong.
    return (
        not name.startswith("_")
        and "ǁ" not in name
        and inspect.isfunction(member)
        and not getattr(member, "__delta_guarded__", False)
        and not hasattr(DeltaToolActor, name)
    )
