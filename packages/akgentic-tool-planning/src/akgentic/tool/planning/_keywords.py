"""Keyword matching over task texts (description and output).

The plan's word index (:mod:`akgentic.tool.core.word_index`) answers; :class:`PlanState`
builds it on the first search and keeps it up to date task by task, so a query costs in
proportion to the tasks sharing its rarest word, not to the size of the plan.
"""

from __future__ import annotations

from akgentic.tool.planning.state import PlanState


class TaskKeywordIndex:
    """Which tasks contain every word of a query (case-insensitive substring match)."""

    def search(self, state: PlanState, query: str) -> list[int]:
        """Ids of the matching tasks, in id order."""
        return state.keyword_search(query)
