"""Keyword matching over task texts, one C-level scan per query.

All task texts are joined (lower-cased) into one corpus string. A query walks the
occurrences of its rarest word with ``str.find`` (counting runs in C) and checks the other
words on those candidates only, so a search does not loop over every task in Python.
The corpus is rebuilt lazily, on the first search after the plan changed.
"""

from __future__ import annotations

import bisect

from akgentic.tool.planning.state import PlanState

_SEP = "\x00"


class TaskKeywordIndex:
    """Which tasks contain every word of a query (case-insensitive substring match)."""

    def __init__(self) -> None:
        self._state: PlanState | None = None
        self._version = -1
        self._ids: list[int] = []
        self._texts: list[str] = []
        self._starts: list[int] = []
        self._corpus = ""

    def search(self, state: PlanState, query: str) -> list[int]:
        """Ids of the matching tasks, in id order."""
        words = list(dict.fromkeys(query.lower().split()))
        if not words:
            return []
        self._refresh(state)
        corpus, starts, texts = self._corpus, self._starts, self._texts
        counts = {word: corpus.count(word) for word in words}
        scan = min(words, key=counts.__getitem__)
        if counts[scan] == 0:
            return []
        others = [word for word in words if word != scan]
        found: list[int] = []
        last = len(starts) - 1
        position = corpus.find(scan)
        while position != -1:
            index = bisect.bisect_right(starts, position) - 1
            if all(word in texts[index] for word in others):
                found.append(self._ids[index])
            if index >= last:
                break
            position = corpus.find(scan, starts[index + 1])
        return found

    def _refresh(self, state: PlanState) -> None:
        if self._state is state and self._version == state.version:
            return
        ids = sorted(state.tasks)
        texts = [
            f"{state.tasks[i].description}\n{state.tasks[i].output}".lower().replace(_SEP, " ")
            for i in ids
        ]
        starts: list[int] = []
        offset = 0
        for text in texts:
            starts.append(offset)
            offset += len(text) + 1
        self._ids, self._texts, self._starts = ids, texts, starts
        self._corpus = _SEP.join(texts)
        self._state, self._version = state, state.version
