"""Semantic graph search with no API key: core's standard test on the team's real
``#VectorStore`` and a tiny local model finds an entity by meaning where keyword search
finds nothing (skipped where the vector store is not installed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import LocalEmbeddingTests
from akgentic.tool.knowledge_graph import KG_COLLECTION, KnowledgeGraphTool

ENTITIES = [
    {"name": "Garage", "entity_type": "Place", "description": "where every automobile is fixed"},
    {"name": "Bakery", "entity_type": "Place", "description": "bakes the bread"},
]


class TestGraphLocalEmbeddings(LocalEmbeddingTests):
    collection = KG_COLLECTION
    # A semantic hit, and named so: the entity and how it matched.
    found_by_meaning: ClassVar[list[str]] = ["Garage (vector)"]

    def make_card(self) -> ToolCard:
        return KnowledgeGraphTool()

    def seed(self, tools: dict[str, Callable[..., Any]]) -> int:
        tools["update_graph"](create_entities=ENTITIES)
        return len(ENTITIES)

    def search(
        self, tools: dict[str, Callable[..., Any]], query: str, **options: Any
    ) -> tuple[list[str], str | None]:
        result = tools["search_graph"](query=query, **options)
        return [f"{hit.entity.name} ({hit.matched_by})" for hit in result.hits], result.note
