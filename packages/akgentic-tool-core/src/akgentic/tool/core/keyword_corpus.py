"""Keyword search over a tool's items with one C-level scan per query.

A tool actor that offers keyword search (the plan's tasks, the graph's entities and
relations) must not loop over every item in Python for each query: the cost would grow
with the state on every call. :class:`KeywordCorpus` joins the lower-cased texts of all
items into one string, separated by a character no query word contains. A query counts
each of its words in that string (``str.count`` runs in C), walks the occurrences of the
rarest one with ``str.find``, and checks the other words only on the items found there,
jumping to the next item after each candidate.

The corpus is rebuilt lazily: :meth:`KeywordCorpus.sync` takes the state object and its
mutation counter (``DeltaState.version``) and rebuilds only when either changed since the
last build, so a burst of updates costs one rebuild at the next search.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

__all__ = ["KeywordCorpus"]

_SEP = "\x00"


class KeywordCorpus[K]:
    """Which items (keys of type ``K``) contain every word of a query.

    Matching is a case-insensitive substring test per word: ``"note d"`` matches a text
    holding ``"notes"`` and ``"d"``. Results keep the order the items were given in.
    """

    def __init__(self) -> None:
        self._source: object | None = None
        self._version = -1
        self._keys: list[K] = []
        self._texts: list[str] = []
        self._starts: list[int] = []
        self._corpus = ""

    def sync(
        self, source: object, version: int, items: Callable[[], tuple[list[K], list[str]]]
    ) -> None:
        """Rebuild unless already built from this ``source`` at this ``version``.

        ``items()`` returns the keys and, in the same order, their texts (two lists
        rather than pairs: the rebuild after each change stays a few list passes in C).
        """
        if self._source is source and self._version == version:
            return
        keys, raw = items()
        if len(keys) != len(raw):
            raise ValueError(f"{len(keys)} keys but {len(raw)} texts")
        # Join, lower and split in C; a text holding the separator itself (which would
        # split into two) takes the per-item path that blanks it out.
        corpus = _SEP.join(raw).lower()
        texts = corpus.split(_SEP) if raw else []
        if len(texts) != len(raw):
            texts = [text.lower().replace(_SEP, " ") for text in raw]
            corpus = _SEP.join(texts)
        starts: list[int] = []
        offset = 0
        for text in texts:
            starts.append(offset)
            offset += len(text) + 1
        self._keys, self._texts, self._starts = keys, texts, starts
        self._corpus = corpus
        self._source, self._version = source, version

    def search(self, query: str) -> list[K]:
        """Keys of the items whose text contains every word of ``query``."""
        words = list(dict.fromkeys(query.lower().split()))
        if not words:
            return []
        corpus, starts, texts = self._corpus, self._starts, self._texts
        # Walk the occurrences of the rarest word; check the others on candidates only.
        counts = {word: corpus.count(word) for word in words}
        scan = min(words, key=counts.__getitem__)
        if counts[scan] == 0:
            return []
        others = [word for word in words if word != scan]
        found: list[K] = []
        last = len(starts) - 1
        position = corpus.find(scan)
        while position != -1:
            index = bisect.bisect_right(starts, position) - 1
            text = texts[index]
            if all(word in text for word in others):
                found.append(self._keys[index])
            if index >= last:
                break
            position = corpus.find(scan, starts[index + 1])
        return found
