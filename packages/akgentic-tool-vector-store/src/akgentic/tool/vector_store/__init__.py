"""The team vector store: ``VectorStoreTool``, its actor, embeddings and the numpy index.

``VectorStoreTool`` and the protocol names import without any extra. The names backed by
numpy (``VectorStoreActor``, ``EmbeddingActor``, ``EmbeddingService``, ``VectorIndex``,
``VectorEntry``, ...) are loaded on first access and need the ``vector-search`` extra;
without it, accessing one raises ``ImportError`` with the install command.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from akgentic.tool.vector_store.event import VectorStoreStateEvent
from akgentic.tool.vector_store.protocol import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    CollectionStats,
    CollectionStatus,
    EmbeddingProvider,
    SearchHit,
    SearchResult,
    UnknownCollectionError,
    UpsertReceipt,
    VectorDocument,
    VectorHit,
    VectorQuery,
    VectorSearchResult,
    VectorStore,
    VectorStoreConfig,
    VectorStoreService,
)
from akgentic.tool.vector_store.tool import VS_ACTOR_NAME, VS_ACTOR_ROLE, VectorStoreTool

if TYPE_CHECKING:
    from akgentic.tool.vector_store.actor import VectorStoreActor, VectorStoreState
    from akgentic.tool.vector_store.embedding_actor import (
        EmbeddingActor,
        EmbeddingError,
        EmbeddingRequest,
        EmbeddingResult,
    )
    from akgentic.tool.vector_store.inmemory import InMemoryBackend
    from akgentic.tool.vector_store.vector import (
        EmbeddingService,
        EmbeddingServiceError,
        VectorEntry,
        VectorIndex,
    )
    from akgentic.tool.vector_store.weaviate import WeaviateBackend

__all__ = [
    "VECTOR_STORE_NAME",
    "VS_ACTOR_NAME",
    "VS_ACTOR_ROLE",
    "CollectionConfig",
    "CollectionStats",
    "CollectionStatus",
    "EmbeddingActor",
    "EmbeddingError",
    "EmbeddingProvider",
    "EmbeddingRequest",
    "EmbeddingResult",
    "EmbeddingService",
    "EmbeddingServiceError",
    "InMemoryBackend",
    "QdrantBackend",
    "SearchHit",
    "SearchResult",
    "UnknownCollectionError",
    "UpsertReceipt",
    "VectorDocument",
    "VectorEntry",
    "VectorHit",
    "VectorIndex",
    "VectorQuery",
    "VectorSearchResult",
    "VectorStore",
    "VectorStoreActor",
    "VectorStoreConfig",
    "VectorStoreService",
    "VectorStoreState",
    "VectorStoreStateEvent",
    "VectorStoreTool",
    "WeaviateBackend",
]

# Names whose modules need numpy: imported on first use only.
_LAZY = {
    "VectorStoreActor": "akgentic.tool.vector_store.actor",
    "VectorStoreState": "akgentic.tool.vector_store.actor",
    "EmbeddingActor": "akgentic.tool.vector_store.embedding_actor",
    "InMemoryBackend": "akgentic.tool.vector_store.inmemory",
    # The predecessor's message model (a worker's failure report); the embedding
    # client's exception is EmbeddingServiceError.
    "EmbeddingError": "akgentic.tool.vector_store.embedding_actor",
    "EmbeddingRequest": "akgentic.tool.vector_store.embedding_actor",
    "EmbeddingResult": "akgentic.tool.vector_store.embedding_actor",
    "EmbeddingServiceError": "akgentic.tool.vector_store.vector",
    "EmbeddingService": "akgentic.tool.vector_store.vector",
    "VectorEntry": "akgentic.tool.vector_store.vector",
    "VectorIndex": "akgentic.tool.vector_store.vector",
    "WeaviateBackend": "akgentic.tool.vector_store.weaviate",
    # qdrant-client itself is imported when a collection first opens (extra `qdrant`).
    "QdrantBackend": "akgentic.tool.vector_store.qdrant",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ImportError(
            f"{name} needs the vector-search extra (numpy, openai): "
            'pip install "akgentic-tool-vector-store[vector-search]" '
            f"({exc})"
        ) from exc
    value = getattr(module, name)
    globals()[name] = value
    return value
