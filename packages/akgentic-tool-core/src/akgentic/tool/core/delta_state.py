"""The state of a tool actor that persists as rare snapshots plus a stream of deltas.

A team tool actor (the plan, the knowledge graph) holds a state that grows with the
session. akgentic-core's default change detection serializes the whole state after every
message and compares it with the previous dump: a cost proportional to the state, paid on
every change. :class:`TrackedState` replaces that with a dirty flag set by the subclass's
mutators, and counts mutations in :attr:`TrackedState.version` so that derived caches (a
keyword corpus, a rendered prompt) know when they are stale. Its ``last_seq`` is the
number of the last delta the state reflects; a restored actor replays only the newer ones
(see :mod:`akgentic.tool.core.delta_actor`). :class:`DeltaState` keeps that number in a
``seq`` field; the vector store's state, persisted before this base existed, in its own.

Its deltas are :class:`DeltaPayload` models: the payload of each ``ToolStateEvent`` the
actor emits (``StateDelta`` is their former name, kept as an alias; next to ``DeltaState``
it did not say which of the two was the state). A subclass declares its data fields, mutates
them only through its own methods (each calling :meth:`TrackedState._touch`), and implements
:meth:`~TrackedState.size`, :meth:`~TrackedState.apply` and
:meth:`~TrackedState.serializable_copy`.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Self

from pydantic import BaseModel, Field, PrivateAttr

from akgentic.core.agent_state import BaseState

__all__ = ["DeltaPayload", "DeltaState", "StateDelta", "TrackedState"]


class DeltaPayload(BaseModel):
    """Base of a delta model: the net change of one update, carried as the payload of the
    actor's ``ToolStateEvent``. A subclass declares what changed as fields."""

    @abstractmethod
    def is_empty(self) -> bool:
        """True when the change touched nothing (such a delta is never emitted)."""

    @abstractmethod
    def change_count(self) -> int:
        """Number of items the change touched (what the snapshot schedule counts)."""


StateDelta = DeltaPayload
"""The former name of :class:`DeltaPayload`."""


class TrackedState(BaseState):
    """A ``BaseState`` with a dirty flag, a mutation counter and the number of the last
    delta it reflects: what :class:`~akgentic.tool.core.delta_actor.DeltaToolActor` needs.

    Publishing (:meth:`notify_state_change`) skips the base class's full JSON dump; the
    dirty flag says whether anything changed since the last publication. Where the seq is
    stored is the subclass's choice (:class:`DeltaState` has a ``seq`` field; a state that
    predates this base keeps the field name it was persisted with).
    """

    _version: int = PrivateAttr(default=0)
    _dirty: bool = PrivateAttr(default=False)

    # -- persistence hooks (akgentic-core's BaseState protocol) -------------------------

    def notify_state_change(self) -> None:
        """Publish this state to the owning actor, which sends the snapshot on.

        Overrides the base class only to skip its full JSON dump used for change
        detection: the dirty flag does that job at no cost.
        """
        self._dirty = False
        if self._observer is not None:
            self._observer.notify_state_change(self)

    def notify_if_changed(self) -> None:
        """Publish only when a mutation happened since the last publication."""
        if self._observer is not None and self._dirty:
            self.notify_state_change()

    @property
    def dirty(self) -> bool:
        """Whether the state changed since it was last published."""
        return self._dirty

    @property
    def version(self) -> int:
        """A counter bumped by every mutation (for caches derived from the state)."""
        return self._version

    # -- what a subclass provides -------------------------------------------------------

    @property
    @abstractmethod
    def last_seq(self) -> int:
        """seq of the last delta reflected here (0 before any)."""

    @abstractmethod
    def next_seq(self) -> int:
        """Advance the seq by one for a delta about to be emitted; return it."""

    @abstractmethod
    def size(self) -> int:
        """The state's size as its snapshot schedule measures it (items, or bytes)."""

    @abstractmethod
    def apply(self, delta: Any, seq: int | None = None) -> None:
        """Apply one delta of this state's delta model; set the seq when given.

        Applying an actor's deltas in ``seq`` order to an empty state rebuilds its state
        (as far as the deltas carry the data: see the vector store's).
        """

    @abstractmethod
    def serializable_copy(self) -> Self:
        """An independent snapshot without the observer (items may be shared if frozen)."""

    # -- for the subclass's mutators ----------------------------------------------------

    def _touch(self) -> None:
        """Record a mutation: bump :attr:`version`, set the dirty flag.

        Runs once per mutated item, so it writes pydantic's private-attribute dict
        directly: going through ``BaseModel.__setattr__`` would cost several times more
        than the mutation itself.
        """
        private = self.__pydantic_private__
        assert private is not None
        private["_version"] += 1
        private["_dirty"] = True


class DeltaState(TrackedState):
    """A :class:`TrackedState` whose seq is its ``seq`` field (planning, knowledge graph)."""

    seq: int = Field(default=0, description="seq of the last delta reflected here.")

    @property
    def last_seq(self) -> int:
        """The ``seq`` field."""
        return self.seq

    def next_seq(self) -> int:
        """Advance ``seq`` by one and return it."""
        self.seq += 1
        return self.seq
