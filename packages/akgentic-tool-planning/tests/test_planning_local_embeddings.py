"""Semantic task search with no API key: core's standard test on the team's real
``#VectorStore`` and a tiny local model finds a task by meaning where keyword search finds
nothing (skipped where the vector store is not installed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import LocalEmbeddingTests
from akgentic.tool.planning import PLANNING_COLLECTION, PlanningTool

TASKS = [
    {"description": "Repair the automobile", "owner": "@Alice"},
    {"description": "Bake the bread", "owner": "@Bob"},
    {"description": "Paint the fence"},
]


class TestPlanningLocalEmbeddings(LocalEmbeddingTests):
    collection = PLANNING_COLLECTION
    found_by_meaning: ClassVar[list[str]] = ["Repair the automobile"]

    def make_card(self) -> ToolCard:
        return PlanningTool()

    def seed(self, tools: dict[str, Callable[..., Any]]) -> int:
        tools["update_planning"](create_tasks=TASKS)
        return len(TASKS)

    def search(
        self, tools: dict[str, Callable[..., Any]], query: str, **options: Any
    ) -> tuple[list[str], str | None]:
        result = tools["search_planning"](query=query, **options)
        return [task.description for task in result.tasks], result.note
