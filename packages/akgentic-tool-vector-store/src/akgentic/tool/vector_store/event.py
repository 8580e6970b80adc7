"""VectorStoreStateEvent: what changed in a store, as the payload of a ToolStateEvent.

The store tells clients which documents it wrote, embedded and removed, by ``ref``; it
never broadcasts texts or vectors (they can be large, and the consumer that wrote them
already has the texts). A client that replays these events in order knows, for every
collection, which refs exist and which of them can be found by vector.
"""

from __future__ import annotations

from pydantic import Field

from akgentic.tool.core.delta_state import DeltaPayload

__all__ = ["VectorStoreStateEvent"]


class VectorStoreStateEvent(DeltaPayload):
    """One change of one collection.

    ``created`` / ``dropped`` mark the collection's own life; ``upserted`` lists refs whose
    text and metadata were (re)written, ``embedded`` refs whose vector arrived, and
    ``removed`` refs that were deleted.
    """

    collection: str
    created: bool = False
    dropped: bool = False
    upserted: list[str] = Field(default_factory=list)
    embedded: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)

    def is_empty(self) -> bool:
        """Whether the event reports no change at all (such events are not emitted)."""
        return not (self.created or self.dropped or self.upserted or self.embedded or self.removed)

    def change_count(self) -> int:
        """Refs (and collection life events) this event reports."""
        life = int(self.created) + int(self.dropped)
        return life + len(self.upserted) + len(self.embedded) + len(self.removed)
