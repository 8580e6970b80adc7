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

from akgentic.tool.core.vector_store import (
    DEFAULT_POLL_ATTEMPTS,
    DEFAULT_POLL_DELAY,
    EMBED_WORKER_PREFIX,
    VECTOR_STORE_NAME,
    CollectionConfig,
    CollectionStats,
    MetadataValue,
    SearchStatus,
    UnknownCollectionError,
    UpsertReceipt,
    VectorDocument,
    VectorHit,
    VectorQuery,
    VectorSearchResult,
    VectorStore,
    VectorStoreConfig,
    embed_worker_name,
    lookup_vector_store,
    resolve_vector_store_name,
    search_text,
    validate_collection_name,
)

if TYPE_CHECKING:
    from akgentic.tool.vector_store.vector import VectorEntry

__all__ = [
    "DEFAULT_POLL_ATTEMPTS",
    "DEFAULT_POLL_DELAY",
    "EMBED_WORKER_PREFIX",
    "VECTOR_STORE_NAME",
    "CollectionConfig",
    "CollectionStats",
    "CollectionStatus",
    "EmbeddingProvider",
    "MetadataValue",
    "SearchHit",
    "SearchResult",
    "SearchStatus",
    "UnknownCollectionError",
    "UpsertReceipt",
    "VectorDocument",
    "VectorHit",
    "VectorQuery",
    "VectorSearchResult",
    "VectorStore",
    "VectorStoreConfig",
    "VectorStoreService",
    "embed_worker_name",
    "lookup_vector_store",
    "resolve_vector_store_name",
    "search_text",
    "validate_collection_name",
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
