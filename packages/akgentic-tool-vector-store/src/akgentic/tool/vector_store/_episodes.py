"""Failure episodes: while a collection's embeddings fail, it answers by keyword only.

A failed embedding opens an episode for its collection until a deadline (the store's
``negative_ttl_seconds``): no worker is started for it meanwhile, and searches say why
they are keyword-only. A collection counts as *failing* from its first failure until an
embedding for it succeeds again, so the store warns once when it starts failing and says
once when it recovers, however many failures come in between.
"""

from __future__ import annotations

__all__ = ["FailureEpisodes"]


class FailureEpisodes:
    """Open episodes (deadline, error) by collection, and the collections failing."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[float, str]] = {}
        self._failing: set[str] = set()

    def open(self, collection: str, until: float, error: str) -> bool:
        """Open (or extend) ``collection``'s episode; True when it starts failing now."""
        self._open[collection] = (until, error)
        starting = collection not in self._failing
        self._failing.add(collection)
        return starting

    def error(self, collection: str, now: float) -> str | None:
        """The error of ``collection``'s episode while it lasts (an expired one closes)."""
        episode = self._open.get(collection)
        if episode is None:
            return None
        if episode[0] <= now:
            del self._open[collection]
            return None
        return episode[1]

    def close(self, collection: str) -> bool:
        """An embedding for ``collection`` succeeded; True when it was failing until now."""
        self._open.pop(collection, None)
        recovered = collection in self._failing
        self._failing.discard(collection)
        return recovered

    def forget(self, collection: str) -> None:
        """The collection is gone."""
        self._open.pop(collection, None)
        self._failing.discard(collection)

    def clear(self) -> None:
        """Forget every collection (the store rebuilds from a restored state)."""
        self._open.clear()
        self._failing.clear()
