"""An inverted index answering case-insensitive substring queries without scanning every task.

(The same index as the knowledge graph's: each tool distribution carries its own copy until
akgentic-tool-core offers one.)

Keyword search matches a query word anywhere in an item's text (``"note"`` finds
``"notes"``). A scan of all texts per query costs time proportional to the plan, so this
index works on tokens instead:

* a query word holds no whitespace, so wherever it occurs in a lower-cased text it lies
  inside one whitespace-delimited *token* of that text;
* each distinct token lists the items holding it (``_postings``), and each token is filed
  under its three-character windows (``_grams``; a token shorter than three characters is
  filed under itself). The tokens containing a word of three characters or more are among
  those filed under *every* window of the word: the intersection of those sets, smallest
  first, then a substring check. A shorter word sits inside some window of every token
  holding it, so the (few) window keys themselves are scanned instead.

A query therefore costs in proportion to the tokens and items that share the word's
rarest window, not to the size of the plan. The index is updated item by item as the
state changes (:meth:`TokenIndex.put` / :meth:`TokenIndex.remove`), and answers in the
order the items were first added, as the state's dictionaries iterate.
"""

from __future__ import annotations

from collections.abc import Callable

_GRAM = 3


def _grams(token: str) -> set[str]:
    if len(token) < _GRAM:
        return {token}
    return {token[i : i + _GRAM] for i in range(len(token) - _GRAM + 1)}


def _tokens(text: str) -> set[str]:
    return set(text.lower().split())


def _holds_all(text: str, words: list[str]) -> bool:
    return all(word in text for word in words)


class TokenIndex[K]:
    """Which items (keys ``K``) contain every word of a query, case-insensitively."""

    def __init__(self) -> None:
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
        old = _tokens(old_text) if old_text is not None else set()
        new = _tokens(text)
        for token in old - new:
            self._unpost(token, key)
        for token in new - old:
            self._post(token, key)
        if key not in self._order:
            self._order[key] = self._next
            self._next += 1

    def remove(self, key: K, text: str) -> None:
        """Forget ``key``, which was indexed with ``text``."""
        for token in _tokens(text):
            self._unpost(token, key)
        self._order.pop(key, None)

    def search(self, query: str, text_of: Callable[[K], str]) -> list[K]:
        """Keys whose text contains every word of ``query``, in the order first added.

        The word matching the fewest items is resolved through the index; the others are
        checked on those items only, against ``text_of(key)`` (the item's current text).
        """
        words = list(dict.fromkeys(query.lower().split()))
        if not words:
            return []
        resolved = [(word, self._tokens_containing(word)) for word in words]
        rarest, tokens = min(resolved, key=lambda pair: self._count(pair[1]))
        found = self._items_of(tokens)
        others = [word for word in words if word != rarest]
        if others:
            found = {key for key in found if _holds_all(text_of(key).lower(), others)}
        return sorted(found, key=self._order.__getitem__)

    # -- internals ----------------------------------------------------------------------

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
        if token not in self._postings:
            return
        keys = self._postings[token]
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
