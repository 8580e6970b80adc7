"""Which documents hold a word, without testing every document's text.

Keyword search scores a document by the query's words found in its case-folded text (as
substrings: ``"note"`` is found in ``"notes"``). Testing every document per query costs
time proportional to the collection, so the in-memory backend keeps this index instead:

* a query word (a run of ``\\w`` characters) holds no whitespace, so wherever it occurs in
  a text it lies inside one whitespace-delimited *token* of that text;
* each distinct token lists the documents holding it, and is filed under its
  three-character windows (a shorter token under itself). The tokens containing a word of
  three characters or more are among those filed under every window of the word: the
  intersection of those sets, smallest first, then a substring check. A shorter word lies
  inside some window of every token holding it, so the window keys are scanned instead
  (they are few, whatever the size of the collection).

A search thus costs in proportion to the documents holding the query's words, not to the
collection. The index is kept up to date document by document (:meth:`WordIndex.put`,
:meth:`WordIndex.remove`) and remembers the order documents were first added in, as a
dict does, so results can keep the collection's order.
"""

from __future__ import annotations

from collections.abc import Iterable

_GRAM = 3


def _grams(token: str) -> set[str]:
    if len(token) < _GRAM:
        return {token}
    return {token[i : i + _GRAM] for i in range(len(token) - _GRAM + 1)}


class WordIndex:
    """Documents (by ref) holding a word, over texts given already case-folded."""

    def __init__(self) -> None:
        # A token held by one document maps to its ref, not to a one-element set: most
        # tokens are rare (names, numbers), and a set would cost ~200 bytes each.
        self._postings: dict[str, str | set[str]] = {}
        self._grams: dict[str, set[str]] = {}
        self._order: dict[str, int] = {}
        self._next = 0

    def put(self, ref: str, folded: str, old_folded: str | None = None) -> None:
        """Index ``ref`` with its folded text; ``old_folded`` is what it was indexed with
        before, if anything (a replaced document keeps its place in the order)."""
        old = set(old_folded.split()) if old_folded is not None else set()
        new = set(folded.split())
        for token in old - new:
            self._unpost(token, ref)
        for token in new - old:
            self._post(token, ref)
        if ref not in self._order:
            self._order[ref] = self._next
            self._next += 1

    def remove(self, ref: str, folded: str) -> None:
        """Forget ``ref``, which was indexed with ``folded``."""
        for token in set(folded.split()):
            self._unpost(token, ref)
        self._order.pop(ref, None)

    def holding(self, word: str) -> set[str]:
        """Refs of the documents whose folded text contains ``word`` (no whitespace)."""
        found: set[str] = set()
        for token in self._tokens_containing(word):
            refs = self._postings[token]
            if isinstance(refs, str):
                found.add(refs)
            else:
                found |= refs
        return found

    def in_order(self, refs: Iterable[str]) -> list[str]:
        """``refs`` in the order their documents were first added."""
        return sorted(refs, key=self._order.__getitem__)

    # -- internals ----------------------------------------------------------------------

    def _tokens_containing(self, word: str) -> set[str]:
        grams = self._grams
        if len(word) < _GRAM:
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

    def _post(self, token: str, ref: str) -> None:
        refs = self._postings.get(token)
        if refs is None:
            self._postings[token] = ref
            for gram in _grams(token):
                self._grams.setdefault(gram, set()).add(token)
        elif isinstance(refs, str):
            if refs != ref:
                self._postings[token] = {refs, ref}
        else:
            refs.add(ref)

    def _unpost(self, token: str, ref: str) -> None:
        refs = self._postings.get(token)
        if refs is None:
            return
        if isinstance(refs, set):
            refs.discard(ref)
            if len(refs) > 1:
                return
            if refs:
                self._postings[token] = next(iter(refs))
                return
        elif refs != ref:
            return
        del self._postings[token]
        for gram in _grams(token):
            tokens = self._grams.get(gram)
            if tokens is not None:
                tokens.discard(token)
                if not tokens:
                    del self._grams[gram]
