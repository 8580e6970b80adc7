"""search_planning: filters, keyword ∪ semantic, degraded and disabled stores."""

from __future__ import annotations

from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    LocalVectorStore,
    ToolTestAgent,
    bind_card,
    expect_retry,
    spawn_local_vector_store,
    spawn_tool_agent,
)
from akgentic.tool.core.vector_store import CollectionConfig
from akgentic.tool.planning import PLANNING_COLLECTION, PlanningTool, PlanSearchResult

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
    assert "invalid status 'open'" in expect_retry(search, status="open")


def test_keyword_query_matches_description_and_output(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    _seed(tools)
    result = tools["search_planning"](query="DOG")
    assert _ids(result) == [1, 5]  # description of 1, output of 5
    assert result.note is None
    assert _ids(tools["search_planning"](query="the dog", owner="@Alice")) == [1]
    assert _ids(tools["search_planning"](query="canine")) == []


def test_descriptions_are_mirrored_into_the_store(
    plan: dict[str, Any], vector_store: LocalVectorStore
) -> None:
    assert vector_store.refs(PLANNING_COLLECTION) == [f"task:{i}" for i in range(1, 6)]
    plan["update_planning"](delete_tasks=[3])
    assert "task:3" not in vector_store.refs(PLANNING_COLLECTION)


def test_query_is_keyword_union_semantic(plan: dict[str, Any]) -> None:
    # 'puppy' shares no word with 'dog' but is close in meaning (test embedding).
    result = plan["search_planning"](query="dog")
    ids = _ids(result)
    assert set(ids[:2]) == {1, 5}  # keyword matches first
    assert 2 in ids  # Feed the puppy: semantic only
    assert 3 not in ids  # Wash the car: neither
    assert result.note is None
    vehicle = plan["search_planning"](query="car")
    assert set(_ids(vehicle)) >= {3, 4}  # 'automobile' found semantically


def test_semantic_threshold_is_the_cards(
    tool_agent: ToolTestAgent, vector_store: LocalVectorStore
) -> None:
    tools = bind_card(tool_agent, PlanningTool(collection=SMALL, search_score_threshold=0.99))
    _seed(tools)
    assert _ids(tools["search_planning"](query="dog")) == [1, 5]  # keyword only


def test_degraded_store_keeps_keyword_results_with_a_note(
    plan: dict[str, Any], vector_store: LocalVectorStore
) -> None:
    vector_store.set_degraded("embedding provider unreachable")
    result = plan["search_planning"](query="dog")
    assert _ids(result) == [1, 5]
    assert result.note is not None
    assert "embedding provider unreachable" in result.note


def test_no_store_in_team_means_keyword_only(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool())
    _seed(tools)
    result = tools["search_planning"](query="dog")
    assert _ids(result) == [1, 5]
    assert result.note is not None
    assert "no usable vector store" in result.note


def test_disabled_store_is_left_alone(
    tool_agent: ToolTestAgent, vector_store: LocalVectorStore
) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False, collection=SMALL))
    _seed(tools)
    assert vector_store.list_collections() == []
    result = tools["search_planning"](query="dog")
    assert _ids(result) == [1, 5]
    assert result.note is None


def test_named_store_is_used(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    store = spawn_local_vector_store(actor_system, orchestrator, "#VectorStore-RAG")
    tools = bind_card(tool_agent, PlanningTool(vector_store="#VectorStore-RAG", collection=SMALL))
    _seed(tools)
    assert len(store.refs(PLANNING_COLLECTION)) == 5
    assert 2 in _ids(tools["search_planning"](query="dog"))


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
    assert "50 of 60" in result.note


def test_a_store_joining_later_receives_every_task(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    from akgentic.core.orchestrator import Orchestrator
    from akgentic.tool.core.vector_store import VECTOR_STORE_NAME
    from akgentic.tool.planning import PlanActor, PlanConfig

    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    orch.getChildrenOrCreate(PlanActor, PlanConfig(collection=SMALL, store_retry_seconds=0))
    tools = bind_card(tool_agent, PlanningTool(collection=SMALL))
    _seed(tools)
    assert 2 not in _ids(tools["search_planning"](query="dog"))
    store = spawn_local_vector_store(actor_system, orchestrator, VECTOR_STORE_NAME)
    result = tools["search_planning"](query="dog")
    assert 2 in _ids(result)  # semantic now
    assert result.note is None
    assert store.refs(PLANNING_COLLECTION) == [f"task:{i}" for i in range(1, 6)]


def test_a_conflicting_collection_keeps_search_keyword_only(
    tool_agent: ToolTestAgent, vector_store: LocalVectorStore
) -> None:
    vector_store.create_collection(PLANNING_COLLECTION, CollectionConfig(dimension=32))
    tools = bind_card(tool_agent, PlanningTool(collection=SMALL))
    _seed(tools)
    result = tools["search_planning"](query="dog")
    assert _ids(result) == [1, 5]
    assert result.note is not None
    assert "no usable vector store" in result.note
