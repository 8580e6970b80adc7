"""The vector-store protocol, at the module path the specification gives it.

The definitions live in ``akgentic.tool.core.vector_store`` so that consumers (planning,
knowledge graph) can use them without depending on this distribution; this module
re-exports them for code that imports them from the store's own package.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from akgentic.tool.core import vector_store as _core
from akgentic.tool.core.vector_store import *  # noqa: F403 - the protocol, whole and unchanged
from akgentic.tool.core.vector_store import CollectionConfig, VectorQuery

if TYPE_CHECKING:
    from akgentic.tool.vector_store.vector import VectorEntry

# Core's names (it owns the protocol), then the predecessor's models and protocols below.
__all__ = [
    *_core.__all__,
    "CollectionStatus",
    "EmbeddingProvider",
    "SearchHit",
    "SearchResult",
    "VectorStoreService",
]


# -- the predecessor's result models and protocols ---------------------------------------
#
# akgentic-tool 1.6 searched a collection with a ready query vector and answered with the
# models below. ``VectorStoreActor.search(collection, query_vector=..., top_k=...)`` still
# answers that way; the store's own protocol (``VectorQuery`` -> ``VectorSearchResult``)
# is the one consumers use.


class CollectionStatus(StrEnum):
    """Where a collection stands: every document embedded, some still waiting, or failing."""

    READY = "ready"
    INDEXING = "indexing"
    ERROR = "error"


class SearchHit(BaseModel):
    """One hit of a vector search, in the predecessor's terms: ``ref_id`` is the document's
    ``ref``, ``ref_type`` its ``ref_type`` metadata (``""`` when it has none)."""

    ref_id: str
    ref_type: str
    text: str
    score: float


class SearchResult(BaseModel):
    """The predecessor's search answer: hits, the collection's status, and how many of its
    documents still wait for their embedding (not searchable by vector yet)."""

    hits: list[SearchHit]
    status: CollectionStatus
    indexing_pending: int = Field(default=0, ge=0)


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Anything that turns texts into vectors, one row per text, in order.

    ``EmbeddingService`` satisfies it (its ``embed`` returns a float32 matrix).
    """

    def embed(self, texts: Sequence[str]) -> Any: ...


@runtime_checkable
class VectorStoreService(Protocol):
    """The predecessor's store interface: entries come with their vectors, searches with a
    query vector. ``VectorStoreActor`` (and a proxy to it) satisfies it."""

    def create_collection(self, name: str, config: CollectionConfig) -> Any: ...

    def add(self, collection: str, entries: list[VectorEntry]) -> Any: ...

    def remove(self, collection: str, ref_ids: list[str]) -> Any: ...

    def search(
        self,
        collection: str,
        query: VectorQuery | Sequence[float] | None = None,
        top_k: int | None = None,
        *,
        query_vector: Sequence[float] | None = None,
    ) -> Any: ...
