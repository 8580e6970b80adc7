"""An incremental word index: which items hold a word, without reading every item's text.

Keyword search in a tool (the plan's tasks, the graph's entities and relations, an
in-memory collection's documents) matches each query word as a substring of an item's
folded text (``"note"`` finds ``"notes"``). Reading every text per query costs time in
proportion to the state, so :class:`WordIndex` works on tokens instead:

* a query word holds no whitespace, so wherever it occurs in a folded text it lies inside
  one whitespace-delimited *token* of that text;
* each distinct token lists the items holding it, and is filed under its three-character
  windows (a token shorter than three characters under itself). The tokens containing a
  word of three characters or more are among those filed under *every* window of the word:
  the intersection of those sets, smallest first, then a substring check. A shorter word
  lies inside some window of every token holding it, so the window keys themselves are
  scanned instead (they are few, whatever the number of items).

A lookup thus costs in proportion to the tokens and items sharing the word's rarest window,
not to the number of items. The owner keeps the index up to date item by item
(:meth:`WordIndex.put`, :meth:`WordIndex.remove`); the index remembers the order items were
first added in, as a dict does, so answers can keep the state's order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["WordIndex"]

_GRAM = 3


def _grams(token: str) -> set[str]:
    if len(token) < _GRAM:
        return {token}
    return {token[i : i + _GRAM] for i in range(len(token) - _GRAM + 1)}


def _as_given(text: str) -> str:
    return text


def _holds_all(text: str, words: list[str]) -> bool:
    return all(word in text for word in words)


class WordIndex[K]:
    """Which items (keys ``K``) hold a word, matched as a substring of their folded text.

    ``fold`` is applied to every text and query the index receives (``str.lower`` by
    default; ``str.casefold`` for Unicode case folding). Pass ``fold=None`` when the
    caller already folds texts and words itself, so they are not folded twice.
    """

    def __init__(self, fold: Callable[[str], str] | None = str.lower) -> None:
        self._fold = fold if fold is not None else _as_given
        # A token held by one item maps to its key, not to a one-element set: most tokens
        # are rare (names, numbers), and a set would cost ~200 bytes each.
        self._postings: dict[str, K | set[K]] = {}
        self._grams: dict[str, set[str]] = {}
        self._order: dict[K, int] = {}
        self._next = 0

    def __len__(self) -> int:
        return len(self._order)

    def put(self, key: K, text: str, old_text: str | None = None) -> None:
        """Index ``key`` with ``text``; ``old_text`` is what it was indexed with before,
        if anything (a replaced item keeps its place in the order, as in a dict)."""
        old = self._tokens(old_text) if old_text is not None else set()
        new = self._tokens(text)
        for token in old - new:
            self._unpost(token, key)
        for token in new - old:
            self._post(token, key)
        if key not in self._order:
            self._order[key] = self._next
            self._next += 1

    def remove(self, key: K, text: str) -> None:
        """Forget ``key``, which was indexed with ``text``."""
        for token in self._tokens(text):
            self._unpost(token, key)
        self._order.pop(key, None)

    def holding(self, word: str) -> set[K]:
        """Keys of the items whose folded text contains ``word`` (one word, no whitespace)."""
        return self._items_of(self._tokens_containing(self._fold(word)))

    def in_order(self, keys: Iterable[K]) -> list[K]:
        """``keys`` (all indexed) in the order their items were first added."""
        return sorted(keys, key=self._order.__getitem__)

    def search(self, query: str, text_of: Callable[[K], str]) -> list[K]:
        """Keys whose text contains every word of ``query``, in the order first added.

        The word held by the fewest items is looked up in the index; the other words are
        checked on those items only, against ``text_of(key)`` (the item's current text,
        unfolded: the index folds it).
        """
        words = list(dict.fromkeys(self._fold(query).split()))
        if not words:
            return []
        resolved = [(word, self._tokens_containing(word)) for word in words]
        rarest, tokens = min(resolved, key=lambda pair: self._count(pair[1]))
        found = self._items_of(tokens)
        others = [word for word in words if word != rarest]
        if others:
            fold = self._fold
            found = {key for key in found if _holds_all(fold(text_of(key)), others)}
        return self.in_order(found)

    # -- internals ----------------------------------------------------------------------

    def _tokens(self, text: str) -> set[str]:
        return set(self._fold(text).split())

    def _count(self, tokens: set[str]) -> int:
        total = 0
        for token in tokens:
            keys = self._postings[token]
            total += len(keys) if isinstance(keys, set) else 1
        return total

    def _items_of(self, tokens: set[str]) -> set[K]:
        found: set[K] = set()
        for token in tokens:
            keys = self._postings[token]
            if isinstance(keys, set):
                found |= keys
            else:
                found.add(keys)
        return found

    def _tokens_containing(self, word: str) -> set[str]:
        grams = self._grams
        if len(word) < _GRAM:
            # A short word lies inside some window of each token holding it (or is the
            # whole of a short token): the window keys are few, whatever the item count.
            matched: set[str] = set()
            for gram, tokens in grams.items():
                if word in gram:
                    matched |= tokens
            return {token for token in matched if word in token}
        sets = [grams.get(gram) for gram in _grams(word)]
        if any(s is None for s in sets):
            return set()
        ordered = sorted((s for s in sets if s is not None), key=len)
        candidates = ordered[0].intersection(*ordered[1:])
        return {token for token in candidates if word in token}

    def _post(self, token: str, key: K) -> None:
        keys = self._postings.get(token)
        if keys is None:
            self._postings[token] = key
            for gram in _grams(token):
                self._grams.setdefault(gram, set()).add(token)
        elif isinstance(keys, set):
            keys.add(key)
        elif keys != key:
            self._postings[token] = {keys, key}

    def _unpost(self, token: str, key: K) -> None:
        keys = self._postings.get(token)
        if keys is None:
            return
        if isinstance(keys, set):
            keys.discard(key)
            if len(keys) > 1:
                return
            if keys:
                self._postings[token] = next(iter(keys))
                return
        elif keys != key:
            return
        del self._postings[token]
        for gram in _grams(token):
            tokens = self._grams.get(gram)
            if tokens is not None:
                tokens.discard(token)
                if not tokens:
                    del self._grams[gram]
