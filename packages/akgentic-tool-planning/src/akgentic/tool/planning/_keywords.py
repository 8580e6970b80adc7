"""Keyword matching over task texts (description and output), on core's ``KeywordCorpus``.

The corpus scan runs in C, one pass per query; it is rebuilt lazily, on the first search
after the plan changed.
"""

from __future__ import annotations

from akgentic.tool.core.keyword_corpus import KeywordCorpus
from akgentic.tool.planning.state import PlanState


class TaskKeywordIndex:
    """Which tasks contain every word of a query (case-insensitive substring match)."""

    def __init__(self) -> None:
        self._corpus: KeywordCorpus[int] = KeywordCorpus()

    def search(self, state: PlanState, query: str) -> list[int]:
        """Ids of the matching tasks, in id order."""
        self._corpus.sync(state, state.version, lambda: _task_texts(state))
        return self._corpus.search(query)


def _task_texts(state: PlanState) -> tuple[list[int], list[str]]:
    tasks = state.tasks
    ids = sorted(tasks)
    return ids, [f"{tasks[i].description}\n{tasks[i].output}" for i in ids]
