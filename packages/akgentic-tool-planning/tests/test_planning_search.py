"""search_planning: filters, keyword matching, caps, and core's standard vector-search
tests (mirroring, words then meaning, every degraded store)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import (
    LocalVectorStore,
    Tools,
    ToolTestAgent,
    VectorSearchTests,
    bind_card,
    expect_retry,
    spawn_tool_agent,
    team_tool_actor,
)
from akgentic.tool.core.vector_store import CollectionConfig
from akgentic.tool.planning import (
    PLANNING_COLLECTION,
    PlanActor,
    PlanConfig,
    PlanningTool,
    PlanSearchResult,
)

SMALL = CollectionConfig(dimension=64)


def _seed(tools: dict[str, Any]) -> None:
    tools["update_planning"](
        create_tasks=[
            {"description": "Walk the dog", "owner": "@Alice", "status": "started"},
            {"description": "Feed the puppy", "owner": "@Bob"},
            {"description": "Wash the car", "owner": "@Alice", "status": "completed"},
            {"description": "Service the automobile", "owner": "@Bob"},
            {"description": "Write the report", "output": "draft on the dog study"},
        ]
    )


def _ids(result: PlanSearchResult) -> list[int]:
    return [task.id for task in result.tasks]


@pytest.fixture
def plan(tool_agent: ToolTestAgent, vector_store: LocalVectorStore) -> dict[str, Any]:
    tools = bind_card(tool_agent, PlanningTool(collection=SMALL))
    _seed(tools)
    return tools


def test_filters_combine(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    _seed(tools)
    search = tools["search_planning"]
    assert _ids(search()) == [1, 2, 3, 4, 5]
    assert _ids(search(owner="Alice")) == [1, 3]
    assert _ids(search(owner="@Alice", status="completed")) == [3]
    assert _ids(search(creator="@Tester", status="pending")) == [2, 4, 5]
    assert _ids(search(creator="@Nobody")) == []
    assert _ids(search(owner="unassigned")) == [5]
    assert search(owner="Alice").note is None  # a listing has nothing to add
    assert "invalid status 'open'" in expect_retry(search, status="open")


def test_keyword_query_matches_description_and_output(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    _seed(tools)
    result = tools["search_planning"](query="DOG")
    assert _ids(result) == [1, 5]  # description of 1, output of 5
    assert result.note is None
    assert _ids(tools["search_planning"](query="the dog", owner="@Alice")) == [1]
    assert _ids(tools["search_planning"](query="canine")) == []


def test_disabled_store_is_left_alone(
    tool_agent: ToolTestAgent, vector_store: LocalVectorStore
) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False, collection=SMALL))
    _seed(tools)
    assert vector_store.list_collections() == []
    result = tools["search_planning"](query="dog")
    assert _ids(result) == [1, 5]
    assert result.note is None


def test_vector_mode_leaves_keyword_only_matches_out(plan: dict[str, Any]) -> None:
    # Task 5 holds "dog" in its output only, which the vector store never sees.
    assert _ids(plan["search_planning"](query="dog")) == [1, 5, 2]
    assert _ids(plan["search_planning"](query="dog", mode="vector")) == [1, 2]


def test_the_calls_top_k_and_threshold_override_the_cards(plan: dict[str, Any]) -> None:
    search = plan["search_planning"]
    assert len(search(query="dog", mode="vector", top_k=1).tasks) == 1
    assert search(query="dog", mode="vector", score_threshold=0.9).tasks == []


def test_a_card_without_semantic_search_answers_vector_mode_with_keywords(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    vector_store: LocalVectorStore,
) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False, collection=SMALL))
    _seed(tools)
    result = tools["search_planning"](query="dog", mode="vector")
    assert _ids(result) == [1, 5]
    assert result.note is None  # the card's choice, not a failure to report
    plan = team_tool_actor(actor_system, orchestrator, PlanActor, PlanConfig(vector_store=False))
    assert [t.id for t in plan.search_planning(query="dog", mode="vector")] == [1, 5]


def test_many_matches_are_capped_with_a_note(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    tools = bind_card(
        spawn_tool_agent(actor_system, orchestrator), PlanningTool(vector_store=False)
    )
    tools["update_planning"](create_tasks=[{"description": f"task {i}"} for i in range(60)])
    result = tools["search_planning"](query="task")
    assert len(result.tasks) == 50
    assert result.total == 60
    assert result.note is not None
    assert result.note.startswith("showing 50 of 60")  # nothing else to say before it
    tools["update_planning"](delete_tasks=list(range(1, 11)))
    exactly = tools["search_planning"](query="task")
    assert (len(exactly.tasks), exactly.total, exactly.note) == (50, 50, None)


def test_the_cap_note_keeps_the_search_note(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool())  # no store in this team
    tools["update_planning"](create_tasks=[{"description": f"task {i}"} for i in range(60)])
    note = tools["search_planning"](query="task").note
    assert note is not None
    assert "no usable vector store" in note
    assert "50 of 60" in note


def test_keyword_matches_come_before_even_a_perfect_meaning_match(
    tool_agent: ToolTestAgent, vector_store: LocalVectorStore
) -> None:
    tools = bind_card(tool_agent, PlanningTool(collection=SMALL))
    tools["update_planning"](
        create_tasks=[
            {"description": "Feed the puppy"},  # close in meaning
            {"description": "puppy"},  # the very concept of "dog": cosine 1
            {"description": "Write the report", "output": "dog walking"},  # the word only
        ]
    )
    assert _ids(tools["search_planning"](query="dog")) == [3, 2, 1]


class TestPlanningVectorSearch(VectorSearchTests):
    collection = PLANNING_COLLECTION
    keyword_hits: ClassVar[list[str]] = ["Walk the dog", "Write the report"]
    meaning_only = "Feed the puppy"
    seeded_refs = 5
    actor_class = PlanActor

    def make_card(self, **fields: Any) -> ToolCard:
        return PlanningTool(**fields)

    def seed(self, tools: Tools) -> None:
        _seed(tools)

    def search(self, tools: Tools, query: str, **options: Any) -> tuple[list[str], str | None]:
        result = tools["search_planning"](query=query, **options)
        return [task.description for task in result.tasks], result.note

    def delete_one(self, tools: Tools) -> str:
        tools["update_planning"](delete_tasks=[3])
        return "task:3"

    def late_store_config(self) -> BaseConfig:
        return PlanConfig(collection=SMALL, store_retry_seconds=0)
