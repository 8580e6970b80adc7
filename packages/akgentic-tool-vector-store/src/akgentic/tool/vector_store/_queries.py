"""The store's query embeddings: what it knows of each ``(collection, text)`` it was asked.

A text is embedded once, however many callers search it meanwhile (one worker in flight
per text); its vector is kept in an LRU, and a text the provider refused is remembered in
another, so that it is answered by keyword at once instead of being sent again. Both are
bounded by the store's ``query_cache_size``.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import numpy.typing as npt

__all__ = ["QueryEmbeddings", "QueryKey"]

QueryKey = tuple[str, str]
"""``(collection, query text)``."""

_REFUSED = "it is too long or unusable for the embedding model"


class QueryEmbeddings:
    """Query vectors cached, texts refused, and requests in flight (by request id)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._vectors: OrderedDict[QueryKey, npt.NDArray[np.float32]] = OrderedDict()
        self._refused: OrderedDict[QueryKey, str] = OrderedDict()
        self._requests: dict[str, QueryKey] = {}
        self._in_flight: set[QueryKey] = set()

    def vector(self, key: QueryKey) -> npt.NDArray[np.float32] | None:
        """The cached vector of ``key`` (now the most recently used), if any."""
        found = self._vectors.get(key)
        if found is not None:
            self._vectors.move_to_end(key)
        return found

    def refusal(self, key: QueryKey) -> str | None:
        """Why the provider refused ``key``'s text, if it did."""
        return self._refused.get(key)

    def in_flight(self, key: QueryKey) -> bool:
        """Whether a worker is embedding ``key``'s text."""
        return key in self._in_flight

    def start(self, request_id: str, key: QueryKey) -> None:
        """A worker was sent to embed ``key``'s text as request ``request_id``."""
        self._in_flight.add(key)
        self._requests[request_id] = key

    def request(self, request_id: str) -> QueryKey | None:
        """What request ``request_id`` embeds, if it is in flight."""
        return self._requests.get(request_id)

    def finish(self, request_id: str) -> QueryKey | None:
        """Request ``request_id`` reported (vector or failure); what it embedded."""
        key = self._requests.pop(request_id, None)
        if key is not None:
            self._in_flight.discard(key)
        return key

    def keep(self, key: QueryKey, vector: npt.NDArray[np.float32]) -> None:
        """Cache ``key``'s vector (least recently used out past the size)."""
        self._vectors[key] = vector
        while len(self._vectors) > self.size:
            self._vectors.popitem(last=False)

    def refuse(self, key: QueryKey) -> None:
        """Remember that the provider refused ``key``'s text."""
        self._refused[key] = _REFUSED
        while len(self._refused) > self.size:
            self._refused.popitem(last=False)

    def forget(self, collection: str) -> list[str]:
        """Drop everything about ``collection``; returns the request ids dropped."""
        for cache in (self._vectors, self._refused):
            for key in [key for key in cache if key[0] == collection]:
                del cache[key]
        dropped = [rid for rid, key in self._requests.items() if key[0] == collection]
        for request_id in dropped:
            self.finish(request_id)
        return dropped

    def clear(self) -> None:
        """Drop everything (the store rebuilds from a restored state)."""
        self._vectors.clear()
        self._refused.clear()
        self._requests.clear()
        self._in_flight.clear()
