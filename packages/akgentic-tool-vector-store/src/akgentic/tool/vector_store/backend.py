"""What a storage backend of one collection must do, plus the keyword scoring they share.

The store actor owns the protocol rules (validation, embedding workers, pending refs,
persistence scheduling); a backend only stores documents and answers searches. Both
backends (``inmemory`` and ``weaviate``) implement :class:`CollectionBackend`.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import ConfigDict, Field

from akgentic.core.utils.serializer import SerializableBaseModel
from akgentic.tool.core.vector_store import (
    CollectionConfig,
    MetadataValue,
    VectorDocument,
    VectorHit,
)

__all__ = [
    "CollectionBackend",
    "CollectionRecord",
    "CorruptCollectionError",
    "KeywordMatcher",
    "metadata_matches",
    "stored_entries",
]

_WORD = re.compile(r"\w+")


class CorruptCollectionError(ValueError):
    """Stored collection data that cannot be read back (a truncated file or vector
    matrix, refs and texts that do not line up). The message names the collection."""


class CollectionRecord(SerializableBaseModel):
    """A collection as kept in the store actor's state.

    For the in-memory backend with ``persistence="actor_state"`` it holds the documents
    and their vectors (``vectors`` is the float32 matrix of ``vector_refs``, row by row,
    as raw bytes: compact, and akgentic-core's serializer carries bytes as base64). For
    the other modes the data lives elsewhere and only the configuration, plus the texts
    still waiting for an embedding, are kept.
    """

    model_config = ConfigDict(frozen=True)

    config: CollectionConfig
    refs: list[str] = Field(default_factory=list)
    texts: list[str] = Field(default_factory=list)
    metadata: list[dict[str, MetadataValue]] = Field(default_factory=list)
    vector_refs: list[str] = Field(default_factory=list)
    vectors: bytes = b""
    unembedded: dict[str, str] = Field(default_factory=dict)
    unembedded_metadata: dict[str, dict[str, MetadataValue]] = Field(default_factory=dict)


def stored_entries(name: str, backend_state: Mapping[str, Any]) -> list[Any]:
    """The stored entries of collection ``name`` in a ``backend_state`` of the predecessor's
    layout (what ``InMemoryBackend.get_state`` returns): a list under the collection's
    name, or under its ``"entries"`` key, possibly inside a ``"collections"`` mapping."""
    found = backend_state.get(name)
    if found is None and isinstance(backend_state.get("collections"), Mapping):
        found = backend_state["collections"].get(name)
    if isinstance(found, Mapping):
        found = found.get("entries")
    return list(found) if isinstance(found, list) else []


def metadata_matches(metadata: Mapping[str, MetadataValue], where: Mapping[str, object]) -> bool:
    """Whether ``metadata`` equals every value of ``where`` (an empty filter matches)."""
    return all(key in metadata and metadata[key] == value for key, value in where.items())


class KeywordMatcher:
    """Scores texts against a query the way the protocol documents keyword hits.

    ``1.0`` when the whole query occurs in the text (case-insensitively), otherwise the
    fraction of the query's words that occur in it; ``0.0`` means no match.
    """

    def __init__(self, query: str) -> None:
        self.phrase = " ".join(query.casefold().split())
        self.words = list(dict.fromkeys(_WORD.findall(self.phrase)))

    def score(self, folded_text: str) -> float:
        """Score a text already passed through ``str.casefold``."""
        if not self.phrase:
            return 0.0
        if self.phrase in folded_text:
            return 1.0
        if not self.words:
            return 0.0
        found = sum(1 for word in self.words if word in folded_text)
        return found / len(self.words)

    def ranked(
        self,
        documents: Iterable[tuple[str, str, str, Mapping[str, MetadataValue]]],
        top_k: int,
        where: Mapping[str, MetadataValue],
    ) -> list[VectorHit]:
        """The ``top_k`` best keyword hits among ``(ref, text, folded text, metadata)``.

        Documents ``where`` rejects and texts scoring zero are left out; ties keep the
        order of ``documents``. For backends that hold the texts in this process.
        """
        scored: list[tuple[float, str, str, Mapping[str, MetadataValue]]] = []
        for ref, text, folded, metadata in documents:
            if where and not metadata_matches(metadata, where):
                continue
            score = self.score(folded)
            if score > 0.0:
                scored.append((score, ref, text, metadata))
        scored.sort(key=lambda item: -item[0])  # stable: ties keep the documents' order
        return [
            VectorHit.model_construct(
                ref=ref, score=score, text=text, metadata=dict(metadata), match="keyword"
            )
            for score, ref, text, metadata in scored[:top_k]
        ]


class CollectionBackend(ABC):
    """Storage of one collection: documents (text + metadata) and their vectors."""

    def __init__(self, name: str, config: CollectionConfig) -> None:
        self.name = name
        self.config = config

    @abstractmethod
    def put(self, documents: Sequence[VectorDocument]) -> None:
        """Insert or replace documents. A document without a vector loses any old one
        (its text changed, so the old vector is stale) until :meth:`set_vectors`."""

    @abstractmethod
    def set_vectors(self, refs: Sequence[str], vectors: npt.NDArray[np.float32]) -> None:
        """Attach vectors to documents that are still present (others are skipped)."""

    @abstractmethod
    def delete(self, refs: Iterable[str]) -> list[str]:
        """Remove documents; returns the refs that existed (and are now gone)."""

    @abstractmethod
    def vector_search(
        self,
        vector: npt.NDArray[np.float32],
        top_k: int,
        score_threshold: float,
        where: Mapping[str, MetadataValue],
    ) -> list[VectorHit]:
        """Cosine search, best first, ``match="vector"``."""

    @abstractmethod
    def keyword_search(
        self, text: str, top_k: int, where: Mapping[str, MetadataValue]
    ) -> list[VectorHit]:
        """Keyword search (see :class:`KeywordMatcher`), best first, ``match="keyword"``."""

    def waiting_keyword_search(
        self, text: str, top_k: int, where: Mapping[str, MetadataValue]
    ) -> list[VectorHit]:
        """:meth:`keyword_search` over the documents that have no vector yet (or lost it).

        A vector search cannot see those documents, so a text search adds these hits to
        its vector hits. This default is exact but ranks every matching document; the
        shipped backends answer from what they already index.
        """
        waiting = self.unembedded()
        if not waiting:
            return []
        documents, _ = self.counts()
        hits = self.keyword_search(text, documents, where)
        return [hit for hit in hits if hit.ref in waiting][:top_k]

    @abstractmethod
    def counts(self) -> tuple[int, int]:
        """``(documents, documents with a vector)``."""

    @abstractmethod
    def unembedded(self) -> dict[str, str]:
        """Texts of the documents that have no vector, by ref."""

    @abstractmethod
    def record(self) -> CollectionRecord:
        """What the actor state keeps of this collection."""

    def flush(self) -> None:  # noqa: B027 - optional hook, most backends have nothing to do
        """Write anything buffered to durable storage (no-op unless overridden)."""

    def drop(self) -> None:  # noqa: B027 - optional hook
        """Remove the collection's durable data (no-op unless overridden)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections (no-op unless overridden)."""
