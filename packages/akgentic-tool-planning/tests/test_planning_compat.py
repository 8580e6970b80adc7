"""What code and conversations written for the predecessor rely on: task dependencies,
the 'abort' status, model-chosen ids, the nested ``update`` argument, search modes, and
the plan actor's own calls."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    LocalVectorStore,
    ToolTestAgent,
    bind_card,
    expect_retry,
    team_tool_actor,
    tool_event_seqs,
)
from akgentic.tool.core.vector_store import CollectionConfig
from akgentic.tool.errors import RetriableError
from akgentic.tool.planning import (
    PLAN_COLLECTION,
    PLANNING_ACTOR_NAME,
    PLANNING_ACTOR_ROLE,
    VS_ACTOR_NAME,
    PlanActor,
    PlanConfig,
    PlanningTool,
    PlanState,
    TaskCreate,
    TaskUpdate,
    UpdatePlan,
)
from akgentic.tool.planning._update import apply_plan_update

SMALL = CollectionConfig(dimension=64)


def _plan(*specs: tuple[str, list[int]]) -> PlanState:
    state = PlanState()
    creates = [TaskCreate(description=d, dependencies=deps) for d, deps in specs]
    outcome = apply_plan_update(state, creates, [], [], "@Me")
    assert outcome.errors == []
    return state


def test_constants_of_the_predecessor() -> None:
    assert PLANNING_ACTOR_NAME == "#PlanningTool"
    assert PLANNING_ACTOR_ROLE == "ToolActor" == PlanConfig().role
    assert PLAN_COLLECTION == "planning"
    assert VS_ACTOR_NAME == "#VectorStore"


def test_dependencies_must_name_existing_tasks_and_never_the_task_itself() -> None:
    state = _plan(("a", []), ("b", [1]))
    outcome = apply_plan_update(
        state,
        [
            TaskCreate(description="c", dependencies=[9]),
            TaskCreate(id=7, description="d", dependencies=[7]),
        ],
        [TaskUpdate(id=1, dependencies=[1])],
        [],
        "@Me",
    )
    assert outcome.errors == [
        "create_tasks[0]: dependency 9 is not a task of the plan (create it first, or "
        "earlier in create_tasks)",
        "create_tasks[1]: a task cannot depend on itself (dependencies holds 7)",
        "update_tasks[0] (task 1): a task cannot depend on itself (dependencies holds 1)",
    ]
    assert outcome.delta.is_empty()


def test_a_cycle_is_refused_and_named() -> None:
    state = _plan(("a", []), ("b", [1]), ("c", [2]))
    outcome = apply_plan_update(state, [], [TaskUpdate(id=1, dependencies=[3])], [], "@Me")
    assert outcome.errors == [
        "update_tasks[0] (task 1): dependencies would form a cycle (#1 -> #3 -> #2 -> #1)"
    ]
    assert state.tasks[1].dependencies == []
    ok = apply_plan_update(state, [], [TaskUpdate(id=3, dependencies=[1, 2, 1])], [], "@Me")
    assert ok.errors == []
    assert state.tasks[3].dependencies == [1, 2]  # duplicates dropped, order kept


def test_deleting_a_task_frees_its_dependents_in_the_same_delta() -> None:
    state = _plan(("a", []), ("b", [1]), ("c", [1, 2]))
    outcome = apply_plan_update(state, [], [], [1], "@Me")
    assert outcome.delta.tasks_removed == [1]
    assert [(t.id, t.dependencies) for t in outcome.delta.tasks_modified] == [(2, []), (3, [2])]
    client = _plan(("a", []), ("b", [1]), ("c", [1, 2]))
    client.apply(outcome.delta)
    assert client.same_plan(state)


def test_updated_at_moves_only_when_the_task_changes() -> None:
    state = _plan(("a", []))
    first = state.tasks[1].updated_at
    apply_plan_update(state, [], [TaskUpdate(id=1, description="a")], [], "@Me")
    assert state.tasks[1].updated_at == first
    apply_plan_update(state, [], [TaskUpdate(id=1, status="abort")], [], "@Me")
    assert state.tasks[1].status == "abort"
    assert state.tasks[1].updated_at > first


def test_model_chosen_ids_are_used_when_free(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    assert tools["update_planning"](
        create_tasks=[{"id": 5, "description": "five"}, {"description": "next"}]
    ) == ("Planning updated: created #5, #6.")
    message = expect_retry(tools["update_planning"], create_tasks=[{"id": 5, "description": "x"}])
    assert "create_tasks[0]: task id 5 already exists" in message


def test_the_nested_update_argument_joins_the_flat_lists(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    result = tools["update_planning"](
        create_tasks=[{"description": "flat"}],
        update=UpdatePlan(create_tasks=[TaskCreate(description="nested", dependencies=[1])]),
    )
    assert result == "Planning updated: created #1, #2."
    assert tools["get_planning_task"](2).dependencies == [1]
    tools["update_planning"](update={"update_tasks": [{"id": 2, "status": "completed"}]})
    assert tools["get_planning_task"](2).status == "completed"
    assert "unknown field(s) 'tasks'" in expect_retry(
        tools["update_planning"], update={"tasks": []}
    )
    assert "update must be an object" in expect_retry(tools["update_planning"], update="x")
    assert tool_event_seqs(actor_system, orchestrator, PLANNING_ACTOR_NAME) == [1, 2]


def test_search_accepts_abort_modes_and_per_call_overrides(
    tool_agent: ToolTestAgent, vector_store: LocalVectorStore
) -> None:
    tools = bind_card(tool_agent, PlanningTool())
    tools["update_planning"](
        create_tasks=[
            {"description": "Write the database migration", "status": "abort"},
            {"description": "Plan the holiday party"},
        ]
    )
    assert [t.id for t in tools["search_planning"](status="abort").tasks] == [1]
    keyword = tools["search_planning"](query="database migration", mode="keyword")
    assert [t.id for t in keyword.tasks] == [1]
    vector = tools["search_planning"](
        query="database migration", mode="vector", score_threshold=0.1
    )
    assert 1 in [t.id for t in vector.tasks]
    strict = tools["search_planning"](query="zebra", mode="vector", score_threshold=1.0)
    assert strict.tasks == []
    assert "mode must be" in expect_retry(tools["search_planning"], query="x", mode="fuzzy")
    assert "top_k must be an integer" in expect_retry(tools["search_planning"], top_k=0)
    assert "score_threshold must be a number" in expect_retry(
        tools["search_planning"], score_threshold=2
    )


def test_vector_mode_without_a_store_falls_back_to_keywords(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool())  # no store in this team
    tools["update_planning"](create_tasks=[{"description": "Fix the login bug"}])
    result = tools["search_planning"](query="login", mode="vector")
    assert [t.id for t in result.tasks] == [1]
    assert result.note is not None
    assert "no usable vector store" in result.note  # why, then what was done instead
    assert "keyword matches shown instead" in result.note


def test_the_plan_actor_answers_the_predecessor_calls(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    vector_store: LocalVectorStore,
) -> None:
    plan = team_tool_actor(actor_system, orchestrator, PlanActor, PlanConfig())
    text = plan.update_planning(
        UpdatePlan(
            create_tasks=[
                TaskCreate(id=1, description="Design the payment API", owner="@Ann"),
                TaskCreate(id=2, description="Order office chairs", dependencies=[1]),
            ]
        ),
        tool_agent.myAddress,
    )
    assert text == "Planning updated: created #1, #2."
    assert [t.id for t in plan.get_planning()] == [1, 2]
    assert plan.get_planning_task(2).creator == "@Tester"
    assert plan.get_planning_task(9) is None
    assert [t.id for t in plan.search_planning(owner="@Ann")] == [1]
    assert [t.id for t in plan.search_planning(query="payment", mode="keyword")] == [1]
    semantic = plan.search_planning(query="payment API design", mode="vector", score_threshold=0.2)
    assert [t.id for t in semantic][:1] == [1]


def _seeded_actor(
    system: ActorSystem, orchestrator: ActorAddress, agent: ToolTestAgent
) -> PlanActor:
    plan = team_tool_actor(system, orchestrator, PlanActor, PlanConfig(collection=SMALL))
    plan.update_planning(
        UpdatePlan(
            create_tasks=[
                TaskCreate(description="Walk the dog", status="started"),
                TaskCreate(description="Feed the puppy"),
                TaskCreate(description="Write the report", output="draft on the dog study"),
            ]
        ),
        agent.myAddress,
    )
    return plan


def test_the_plan_actors_search_uses_its_store_and_every_argument(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    vector_store: LocalVectorStore,
) -> None:
    plan = _seeded_actor(actor_system, orchestrator, tool_agent)

    def ids(**arguments: Any) -> list[int]:
        return [task.id for task in plan.search_planning(**arguments)]

    # Task 3 holds "dog" in its output only; task 2 matches by meaning only.
    assert ids(query="dog") == [1, 3, 2]
    assert ids(query="dog", mode="keyword") == [1, 3]
    assert ids(query="dog", mode="vector") == [1, 2]
    assert len(ids(query="dog", mode="vector", top_k=1)) == 1
    assert ids(query="dog", mode="vector", score_threshold=0.9) == []
    assert ids(query="dog", status="pending") == [3, 2]
    assert ids(creator="@Nobody") == []


def test_the_plan_actors_vector_search_without_a_store_matches_keywords(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    plan = _seeded_actor(actor_system, orchestrator, tool_agent)  # no store in this team
    assert [task.id for task in plan.search_planning(query="dog", mode="vector")] == [1, 3]


def test_the_plan_actors_update_reads_any_model_and_counts_every_change(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    class StoredUpdate(BaseModel):  # an update object of another class, e.g. the predecessor's
        create_tasks: list[dict[str, Any]]

    plan = team_tool_actor(actor_system, orchestrator, PlanActor, PlanConfig(vector_store=False))
    done = plan.update_planning(
        StoredUpdate(create_tasks=[{"description": "from elsewhere"}]), tool_agent.myAddress
    )
    assert done == "Planning updated: created #1."
    with pytest.raises(RetriableError) as refused:
        plan.update_planning({"create_tasks": "x"}, tool_agent.myAddress)
    assert "(nothing was changed)" in str(refused.value)
    assert "create_tasks" in str(refused.value)
    with pytest.raises(RetriableError) as partly:
        plan.update_planning(
            {
                "create_tasks": [{"description": "ok"}],
                "update_tasks": [{"id": 9}],
                "delete_tasks": [8],
            },
            tool_agent.myAddress,
        )
    assert str(partly.value).startswith("2 of 3 change(s) rejected")
