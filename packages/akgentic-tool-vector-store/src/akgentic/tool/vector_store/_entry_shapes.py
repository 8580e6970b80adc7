"""The predecessor's entry and hit shapes, translated to and from our documents.

Both backends offer the predecessor's ``add(collection, entries)`` and
``search(collection, query_vector)``; the translation is the same for each, so it lives here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from akgentic.tool.core.vector_store import VectorDocument, VectorHit
from akgentic.tool.vector_store.protocol import SearchHit
from akgentic.tool.vector_store.vector import VectorEntry


def documents_from_entries(
    collection: str, dimension: int, entries: Sequence[VectorEntry | Mapping[str, Any]]
) -> list[VectorDocument]:
    """``entries`` as documents, after checking every vector's length (all or none)."""
    parsed = [VectorEntry.model_validate(entry) for entry in entries]
    for entry in parsed:
        if entry.vector is not None and len(entry.vector) != dimension:
            raise ValueError(
                f"entry {entry.ref!r}: vector has {len(entry.vector)} values, "
                f"collection {collection!r} expects {dimension}"
            )
    return [
        VectorDocument(ref=entry.ref, text=entry.text, metadata=entry.metadata, vector=entry.vector)
        for entry in parsed
    ]


def search_hits(hits: Iterable[VectorHit]) -> list[SearchHit]:
    """Our hits in the predecessor's shape (``ref_type`` comes from the metadata)."""
    return [
        SearchHit(
            ref_id=hit.ref,
            ref_type=str(hit.metadata.get("ref_type", "")),
            text=hit.text,
            score=hit.score,
        )
        for hit in hits
    ]
