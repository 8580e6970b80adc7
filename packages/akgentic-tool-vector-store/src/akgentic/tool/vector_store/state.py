"""VectorStoreState: what the team persists of its vector store, one record per collection.

Records are immutable snapshots, replaced wholesale, and every change goes through the
state's methods, so it rides on core's :class:`~akgentic.tool.core.delta_state.TrackedState`
(a dirty flag instead of comparing JSON dumps) and its copy for publication shares the
records instead of round-tripping megabytes of vectors through ``model_dump``.

The store's events (:class:`~akgentic.tool.vector_store.event.VectorStoreStateEvent`)
carry refs, never texts or vectors, so replaying them cannot rebuild documents: the state
keeps the replayed events (:meth:`VectorStoreState.take_replayed`) for the actor, which
redoes what they can tell (drops, removals) and reports what they cannot.

A state stored by the predecessor (akgentic-tool 1.6) is migrated when it is validated.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import Field, PrivateAttr, ValidationError, model_validator

from akgentic.tool.core.delta_state import TrackedState
from akgentic.tool.core.vector_store import CollectionConfig
from akgentic.tool.vector_store.backend import CollectionRecord, stored_entries
from akgentic.tool.vector_store.event import VectorStoreStateEvent
from akgentic.tool.vector_store.protocol import CollectionStatus
from akgentic.tool.vector_store.vector import VectorEntry

if TYPE_CHECKING:  # annotations only (postponed by ``from __future__ import annotations``)
    from collections.abc import Mapping, Sequence

__all__ = ["VectorStoreState"]

logger = logging.getLogger(__name__)


class VectorStoreState(TrackedState):
    """The store's persisted state: one record per collection (see the module)."""

    collections: dict[str, CollectionRecord] = Field(default_factory=dict)
    set_aside_records: dict[str, CollectionRecord] = Field(default_factory=dict)
    """Records that could not be read back on restore, under ``<name>.corrupt-<time>``:
    kept for inspection, never overwritten (the collection started empty instead)."""
    event_seq: int = 0
    """Number of the last ToolStateEvent emitted, so numbering continues after a resume."""

    # The predecessor's state layout. A state stored by it is migrated into ``collections``
    # when it is validated (see ``_migrate``), after which the three input fields are empty.
    collection_configs: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Former layout, read on load: each collection's ``CollectionConfig`` as a dict."""
    backend_state: dict[str, Any] = Field(default_factory=dict)
    """Former layout, read on load: the stored entries (``ref_id``, ``ref_type``, ``text``,
    ``vector``) of each collection."""
    pending_entries: dict[str, list[dict[str, str]]] = Field(default_factory=dict)
    """Former layout, read on load: entries still waiting for their embedding."""
    collection_statuses: dict[str, CollectionStatus] = Field(default_factory=dict)
    """Each collection's status, as the published state reports it (recomputed)."""
    indexing_pending: dict[str, int] = Field(default_factory=dict)
    """Documents of each collection without a vector yet, as published (recomputed)."""

    @model_validator(mode="after")
    def _migrate(self) -> VectorStoreState:
        if self.collection_configs:
            for name, raw in self.collection_configs.items():
                if name not in self.collections:
                    self.collections[name] = _former_record(
                        name, raw, self.backend_state, self.pending_entries.get(name, [])
                    )
            self.collection_configs = {}
            self.backend_state = {}
            self.pending_entries = {}
        self._summarise()
        return self

    def _summarise(self) -> None:
        """Fill the reported ``collection_statuses`` and ``indexing_pending``."""
        statuses: dict[str, CollectionStatus] = {}
        waiting: dict[str, int] = {}
        for name, record in self.collections.items():
            missing = len(record.unembedded) + max(0, len(record.refs) - len(record.vector_refs))
            waiting[name] = missing
            statuses[name] = CollectionStatus.INDEXING if missing else CollectionStatus.READY
        self.collection_statuses = statuses
        self.indexing_pending = waiting

    _replayed: list[VectorStoreStateEvent] = PrivateAttr(default_factory=list)

    def put_record(self, name: str, record: CollectionRecord) -> None:
        """Store (or replace) a collection's record."""
        self.collections[name] = record
        self._touch()

    def set_aside(self, key: str, record: CollectionRecord) -> None:
        """Keep an unreadable record under ``key`` (see ``set_aside_records``)."""
        self.set_aside_records[key] = record
        self._touch()

    def drop_record(self, name: str) -> None:
        """Forget a collection."""
        if self.collections.pop(name, None) is not None:
            self._touch()

    # -- what core's TrackedState asks of a state ---------------------------------------

    @property
    def last_seq(self) -> int:
        """``event_seq``: the name this state was persisted with before the base existed."""
        return self.event_seq

    def next_seq(self) -> int:
        """Advance and return the event counter (a persisted field: a change)."""
        self.event_seq += 1
        self._touch()
        return self.event_seq

    def next_event_seq(self) -> int:
        """:meth:`next_seq` under this class's former name."""
        return self.next_seq()

    def size(self) -> int:
        """Bytes of vectors held: what paces the store's snapshots."""
        return sum(len(record.vectors) for record in self.collections.values())

    def apply(self, delta: VectorStoreStateEvent, seq: int | None = None) -> None:
        """Keep a replayed event for the actor (see the module); set ``event_seq``."""
        self._replayed.append(delta)
        if seq is not None:
            self.event_seq = seq
        self._touch()

    def take_replayed(self) -> list[VectorStoreStateEvent]:
        """The events replayed since the last call, in order (and forget them)."""
        replayed, self._replayed = self._replayed, []
        return replayed

    def serializable_copy(self) -> VectorStoreState:
        """A copy without the observer, sharing the immutable records."""
        return VectorStoreState(
            collections=dict(self.collections),
            set_aside_records=dict(self.set_aside_records),
            event_seq=self.event_seq,
        )


def _former_record(
    name: str,
    raw_config: Mapping[str, Any],
    backend_state: Mapping[str, Any],
    pending: Sequence[Mapping[str, str]],
) -> CollectionRecord:
    """A collection of a state stored by akgentic-tool 1.6, as one of our records.

    Entries with a vector of the collection's dimension keep it; the others (and the
    pending entries) are stored unembedded, so the store embeds them again after resume.
    Entries that are not entries at all are dropped with a warning.
    """
    config = CollectionConfig.model_validate(raw_config)
    docs: dict[str, tuple[str, dict[str, Any], list[float] | None]] = {}
    for item in [*stored_entries(name, backend_state), *pending]:
        try:
            entry = VectorEntry.model_validate(item)
        except ValidationError:
            logger.warning("collection %r: a stored entry could not be read and is dropped", name)
            continue
        vector = entry.vector
        if vector is not None and (
            len(vector) != config.dimension or not np.all(np.isfinite(vector))
        ):
            vector = None
        docs[entry.ref] = (entry.text, dict(entry.metadata), vector)
    if config.persistence == "workspace" or config.backend != "inmemory":
        # The data lives elsewhere; what waited for an embedding is kept to embed again.
        return CollectionRecord(
            config=config,
            unembedded={ref: text for ref, (text, _, vector) in docs.items() if vector is None},
            unembedded_metadata={
                ref: meta for ref, (_, meta, vector) in docs.items() if vector is None
            },
        )
    refs = list(docs)
    with_vectors = [ref for ref in refs if docs[ref][2] is not None]
    matrix = np.asarray([docs[ref][2] for ref in with_vectors], dtype=np.float32)
    return CollectionRecord(
        config=config,
        refs=refs,
        texts=[docs[ref][0] for ref in refs],
        metadata=[docs[ref][1] for ref in refs],
        vector_refs=with_vectors,
        vectors=matrix.reshape(-1, config.dimension).tobytes() if with_vectors else b"",
    )


# States are recorded in the team by their class path: keep the one of ``actor.py``.
VectorStoreState.__module__ = "akgentic.tool.vector_store.actor"
