"""Keyword matching over entity and relation texts.

The graph's word index (:mod:`akgentic.tool.core.word_index`) answers; the state builds
it on the first search and keeps it up to date item by item, so a query costs in
proportion to the items sharing its rarest word, not to the size of the graph.
"""

from __future__ import annotations

from akgentic.tool.knowledge_graph.state import KnowledgeGraphState


class KeywordIndex:
    """Substring search over every item of a :class:`KnowledgeGraphState`."""

    def search(self, state: KnowledgeGraphState, query: str) -> list[tuple[str, str]]:
        """Items ``(kind, entity name | relation key)`` whose text contains every word of
        ``query`` (case-insensitive), entities first, each kind in the graph's order."""
        return state.keyword_search(query)
