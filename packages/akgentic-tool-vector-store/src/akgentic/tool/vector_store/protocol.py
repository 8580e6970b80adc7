"""The vector-store protocol, at the module path the specification gives it.

The definitions live in ``akgentic.tool.core.vector_store`` so that consumers (planning,
knowledge graph) can use them without depending on this distribution; this module
re-exports them for code that imports them from the store's own package.
"""

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

__all__ = [
    "DEFAULT_POLL_ATTEMPTS",
    "DEFAULT_POLL_DELAY",
    "EMBED_WORKER_PREFIX",
    "VECTOR_STORE_NAME",
    "CollectionConfig",
    "CollectionStats",
    "MetadataValue",
    "SearchStatus",
    "UnknownCollectionError",
    "UpsertReceipt",
    "VectorDocument",
    "VectorHit",
    "VectorQuery",
    "VectorSearchResult",
    "VectorStore",
    "VectorStoreConfig",
    "embed_worker_name",
    "lookup_vector_store",
    "resolve_vector_store_name",
    "search_text",
    "validate_collection_name",
]
