"""A local team vector store for tests, and the deterministic embedding it uses.

Consumers of the team's vector store (planning, the knowledge graph, third-party tools)
may not import the package that implements it, and their tests must not call an
embedding provider. :class:`LocalVectorStore` is a real actor that speaks core's
``VectorStore`` protocol and embeds synchronously with a deterministic function, so a
test can tell a semantic match from a keyword one without a network.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from typing import Final

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.tool.core.testing.actors import team_tool_actor
from akgentic.tool.core.vector_store import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    CollectionStats,
    UnknownCollectionError,
    UpsertReceipt,
    VectorDocument,
    VectorHit,
    VectorQuery,
    VectorSearchResult,
    validate_collection_name,
)

__all__ = [
    "LOCAL_EMBEDDING_CONCEPTS",
    "LocalVectorStore",
    "concept_embedding",
    "spawn_local_vector_store",
]

LOCAL_EMBEDDING_CONCEPTS: Final[Mapping[str, str]] = {
    "dog": "canine",
    "puppy": "canine",
    "hound": "canine",
    "canine": "canine",
    "car": "vehicle",
    "automobile": "vehicle",
    "vehicle": "vehicle",
}
"""Words :func:`concept_embedding` folds onto one concept: ``"puppy"`` is near ``"dog"``,
``"automobile"`` near ``"car"``, though they share no letters."""


def concept_embedding(text: str, dimension: int) -> list[float]:
    """A deterministic bag-of-concepts embedding, L2-normalised.

    Each lower-cased word (or the concept it folds onto, see
    :data:`LOCAL_EMBEDDING_CONCEPTS`) adds one to a bucket chosen by its SHA-256, so the
    cosine of two texts grows with the concepts they share. The same text always gives
    the same vector, in every process.
    """
    vector = [0.0] * dimension
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        token = LOCAL_EMBEDDING_CONCEPTS.get(word, word)
        bucket = int(hashlib.sha256(token.encode()).hexdigest(), 16) % dimension
        vector[bucket] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class LocalVectorStore(Akgent[BaseConfig, BaseState]):
    """A team vector store for tests: a real actor implementing core's ``VectorStore``.

    Every document is embedded with :func:`concept_embedding` during ``upsert``, so
    searches answer ``"ok"`` at once, with vector hits scored by cosine similarity. Two
    test controls go beyond the protocol: :meth:`set_degraded` makes every search answer
    ``"degraded"`` with no hits (an embedding provider that is down), and :meth:`refs`
    lists what a collection holds. Start one with :func:`spawn_local_vector_store`.
    """

    def on_start(self) -> None:
        self._configs: dict[str, CollectionConfig] = {}
        self._docs: dict[str, dict[str, tuple[str, list[float]]]] = {}
        self._degraded: str | None = None

    def create_collection(self, name: str, config: CollectionConfig) -> CollectionStats:
        validate_collection_name(name)
        if name in self._configs and self._configs[name] != config:
            raise ValueError(f"collection {name!r} exists with another config")
        self._configs.setdefault(name, config)
        self._docs.setdefault(name, {})
        return self.collection_stats(name)

    def drop_collection(self, name: str) -> bool:
        self._docs.pop(name, None)
        return self._configs.pop(name, None) is not None

    def list_collections(self) -> list[str]:
        return sorted(self._configs)

    def collection_stats(self, name: str) -> CollectionStats:
        docs = self._collection(name)
        return CollectionStats(
            name=name,
            config=self._configs[name],
            documents=len(docs),
            embedded=len(docs),
            pending=0,
            failed=0,
        )

    def upsert(self, collection: str, documents: list[VectorDocument]) -> UpsertReceipt:
        docs = self._collection(collection)
        dimension = self._configs[collection].dimension
        for doc in documents:
            docs[doc.ref] = (doc.text, concept_embedding(doc.text, dimension))
        return UpsertReceipt(collection=collection, accepted=len(documents), pending=0)

    def delete(self, collection: str, refs: list[str]) -> int:
        docs = self._collection(collection)
        return sum(1 for ref in refs if docs.pop(ref, None) is not None)

    def search(self, collection: str, query: VectorQuery) -> VectorSearchResult:
        docs = self._collection(collection)
        if self._degraded is not None:
            return VectorSearchResult(status="degraded", hits=[], reason=self._degraded)
        if query.text is None:
            raise ValueError("LocalVectorStore searches by text only")
        q = concept_embedding(query.text, self._configs[collection].dimension)
        scored = [
            (sum(a * b for a, b in zip(q, vec, strict=True)), ref, text)
            for ref, (text, vec) in docs.items()
        ]
        scored = [s for s in scored if s[0] >= query.score_threshold]
        scored.sort(key=lambda s: -s[0])
        hits = [VectorHit(ref=ref, score=score, text=text) for score, ref, text in scored]
        return VectorSearchResult(status="ok", hits=hits[: query.top_k])

    def set_degraded(self, reason: str | None) -> None:
        """Answer every search ``"degraded"`` with ``reason`` (``None`` restores service)."""
        self._degraded = reason

    def refs(self, collection: str) -> list[str]:
        """The refs stored in ``collection``, sorted."""
        return sorted(self._collection(collection))

    def _collection(self, name: str) -> dict[str, tuple[str, list[float]]]:
        if name not in self._docs:
            raise UnknownCollectionError(name)
        return self._docs[name]


# Recorded teams name this class by dotted path: keep the single-module kit's path.
LocalVectorStore.__module__ = "akgentic.tool.core.testing"


def spawn_local_vector_store(
    system: ActorSystem, orchestrator_address: ActorAddress, name: str = VECTOR_STORE_NAME
) -> LocalVectorStore:
    """Put a :class:`LocalVectorStore` called ``name`` in the team; return an ask proxy.

    Created through the orchestrator's ``getChildrenOrCreate``, like the real store, so a
    consumer finds it with ``lookup_vector_store`` and the team stops it as a tool actor.
    """
    return team_tool_actor(
        system, orchestrator_address, LocalVectorStore, BaseConfig(name=name, role="VectorStore")
    )
