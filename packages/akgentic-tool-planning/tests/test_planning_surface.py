"""Public names, spec module paths, card conformance and pure plan logic."""

from __future__ import annotations

import pytest

import akgentic.tool.planning as planning
from akgentic.tool.core.testing import ToolTestAgent, assert_card_conformance, bind_card
from akgentic.tool.planning import PlanningTool, PlanState, Task, TaskCreate, TaskUpdate
from akgentic.tool.planning._update import apply_plan_update
from akgentic.tool.planning.models import normalize_agent, truncate_output


def test_public_names_are_pinned() -> None:
    assert sorted(planning.__all__) == [
        "BATCH_MAX_ITEMS",
        "DEFAULT_PLANNING_SCORE_THRESHOLD",
        "DEFAULT_PLANNING_TOP_K",
        "DEPENDENCIES_MAX",
        "DESCRIPTION_MAX_CHARS",
        "GetPlanning",
        "GetPlanningTask",
        "OUTPUT_MAX_CHARS",
        "OWNER_MAX_CHARS",
        "PLANNING_ACTOR_NAME",
        "PLANNING_ACTOR_ROLE",
        "PLANNING_COLLECTION",
        "PLAN_COLLECTION",
        "PLAN_MAX_TASKS",
        "PROMPT_MAX_OWNERS",
        "PlanActor",
        "PlanConfig",
        "PlanInputLimits",
        "PlanManagerState",
        "PlanSearchResult",
        "PlanState",
        "PlanUpdateReport",
        "PlanningStateEvent",
        "PlanningTool",
        "QUERY_MAX_CHARS",
        "SearchPlanning",
        "TASK_STATUSES",
        "Task",
        "TaskCreate",
        "TaskStatus",
        "TaskUpdate",
        "UpdatePlan",
        "UpdatePlanning",
        "VS_ACTOR_NAME",
    ]
    for name in planning.__all__:
        assert getattr(planning, name) is not None


def test_spec_module_paths() -> None:
    from akgentic.tool.planning.planning import PlanningTool as FromCard
    from akgentic.tool.planning.planning_actor import PlanActor, PlanConfig
    from akgentic.tool.planning.planning_actor import Task as FromActorModule

    assert FromCard is PlanningTool
    assert FromActorModule is Task
    assert PlanConfig().name == "#PlanningTool"
    assert PlanActor.__name__ == "PlanActor"


def test_defaults() -> None:
    card = PlanningTool()
    assert card.search_top_k == 10
    assert card.search_score_threshold == 0.5
    assert card.vector_store is True
    assert "VectorStoreTool" not in PlanningTool(vector_store=False).depends_on
    with pytest.raises(ValueError, match="starts with '#'"):
        PlanningTool(vector_store="store")


def test_card_conformance(tool_agent: ToolTestAgent) -> None:
    assert_card_conformance(
        PlanningTool(search_top_k=3, vector_store="#Elsewhere"),
        observer=tool_agent,
        bad_calls={
            "update_planning": [
                {},
                {"create_tasks": [{"owner": "@A"}]},
                {"create_tasks": "nope"},
                {"delete_tasks": ["x"]},
                {"update_tasks": [{"id": 3}]},
            ],
            "get_planning_task": [{"task_id": 7}, {"task_id": None}],
            "search_planning": [{"status": "bogus"}],
        },
    )


def test_instructions_reach_the_description(tool_agent: ToolTestAgent) -> None:
    card = PlanningTool(
        vector_store=False,
        update_planning=planning.UpdatePlanning(instructions="Keep tasks small."),
    )
    doc = bind_card(tool_agent, card)["update_planning"].__doc__ or ""
    assert doc.rstrip().endswith("Keep tasks small.")


def test_truncate_and_normalize() -> None:
    assert truncate_output("  short  ") == "short"
    cut = truncate_output("a" * 200)
    assert len(cut) == 150
    assert cut.endswith("…")
    assert normalize_agent(" Alice ") == "@Alice"
    assert normalize_agent("@Bob") == "@Bob"
    assert normalize_agent("") == ""
    assert TaskUpdate(id=1, output="b" * 500).output == "b" * 149 + "…"


def test_net_delta_and_ids() -> None:
    state = PlanState()
    outcome = apply_plan_update(
        state,
        [TaskCreate(description="a"), TaskCreate(description="b")],
        [TaskUpdate(id=2, owner="Zoe")],
        [1],
        "Me",
    )
    assert outcome.errors == []
    assert outcome.created == [2]
    assert [(t.id, t.owner, t.creator) for t in outcome.delta.tasks_added] == [(2, "@Zoe", "@Me")]
    assert outcome.delta.tasks_removed == []  # 1 came and went in the same call
    assert outcome.summary == "created #2"
    assert state.next_id == 3


def test_snapshot_copy_is_independent() -> None:
    state = PlanState()
    apply_plan_update(state, [TaskCreate(description="a")], [], [], "@Me")
    copy = state.serializable_copy()
    state.remove_task(1)
    assert 1 in copy.tasks
    assert copy.same_plan(PlanState.model_validate_json(copy.model_dump_json()))
