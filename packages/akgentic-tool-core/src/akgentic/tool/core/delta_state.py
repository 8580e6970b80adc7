"""The state of a tool actor that persists as rare snapshots plus a stream of deltas.

A team tool actor (the plan, the knowledge graph) holds a state that grows with the
session. akgentic-core's default change detection serializes the whole state after every
message and compares it with the previous dump: a cost proportional to the state, paid on
every change. :class:`DeltaState` replaces that with a dirty flag set by the subclass's
mutators, and counts mutations in :attr:`DeltaState.version` so that derived caches (a
keyword corpus, a rendered prompt) know when they are stale. ``seq`` is the number of the
last delta the state reflects; a restored actor replays only the newer ones (see
:mod:`akgentic.tool.core.delta_actor`).

Its deltas are :class:`DeltaPayload` models: the payload of each ``ToolStateEvent`` the
actor emits (``StateDelta`` is their former name, kept as an alias; next to ``DeltaState``
it did not say which of the two was the state). A subclass declares its data fields, mutates
them only through its own methods (each calling :meth:`DeltaState._touch`), and implements
:meth:`~DeltaState.size`, :meth:`~DeltaState.apply` and :meth:`~DeltaState.serializable_copy`.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Self

from pydantic import BaseModel, Field, PrivateAttr

from akgentic.core.agent_state import BaseState

__all__ = ["DeltaPayload", "DeltaState", "StateDelta"]


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


class DeltaState(BaseState):
    """A ``BaseState`` with ``seq``, a dirty flag and a mutation counter.

    Publishing (:meth:`notify_state_change`) skips the base class's full JSON dump; the
    dirty flag says whether anything changed since the last publication.
    """

    seq: int = Field(default=0, description="seq of the last delta reflected here.")

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

    @abstractmethod
    def size(self) -> int:
        """How many items the state holds (the snapshot schedule's measure of its size)."""

    @abstractmethod
    def apply(self, delta: Any, seq: int | None = None) -> None:
        """Apply one delta of this state's delta model; set ``seq`` when given.

        Applying an actor's deltas in ``seq`` order to an empty state rebuilds its state.
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
