"""What one ``update_planning`` batch does to the plan and what it reports back: every item
judged on its own, the summary naming each task touched, dependency cycles found however
they are reached, and a batch refused whole reporting that nothing changed."""

from __future__ import annotations

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    Tools,
    ToolTestAgent,
    bind_card,
    expect_retry,
    team_tool_actor,
)
from akgentic.tool.planning import (
    PLAN_MAX_TASKS,
    PlanActor,
    PlanConfig,
    PlanManagerState,
    PlanningTool,
    Task,
    TaskCreate,
)


@pytest.fixture
def tools(tool_agent: ToolTestAgent) -> Tools:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    tools["update_planning"](
        create_tasks=[{"description": "one"}, {"description": "two"}, {"description": "three"}]
    )
    return tools


def test_a_rejected_item_does_not_stop_the_items_after_it(tools: Tools) -> None:
    message = expect_retry(
        tools["update_planning"],
        create_tasks=[
            {"description": "bad", "status": "done"},
            {"id": 1, "description": "taken"},
            {"description": "kept"},
        ],
        update_tasks=[
            {"id": 1, "status": "finished"},
            {"id": 1, "dependencies": [99]},
            {"id": 2, "status": "started"},
        ],
        delete_tasks=[42, 3],
    )
    assert message.startswith("5 of 8 change(s) rejected: ")
    assert message.endswith("Applied: created #4; updated #2; deleted #3.")
    assert tools["get_planning_task"](4).description == "kept"
    assert tools["get_planning_task"](2).status == "started"
    assert "unknown task id 3" in expect_retry(tools["get_planning_task"], 3)
    # A taken id is answered with the way out: changing that task instead.
    (taken,) = [item for item in message.split("; ") if item.startswith("create_tasks[1]")]
    assert "task id 1 already exists" in taken
    assert "update_tasks" in taken


def test_the_summary_names_every_task_touched(tools: Tools) -> None:
    update = tools["update_planning"]
    assert update(update_tasks=[{"id": 1, "status": "started"}, {"id": 2, "owner": "@Al"}]) == (
        "Planning updated: updated #1, #2."
    )
    assert update(delete_tasks=[1, 3]) == "Planning updated: deleted #1, #3."
    assert update(update_tasks=[{"id": 2, "owner": "@Al"}]) == "Planning updated: no change."


def test_a_new_description_is_stored_without_its_surrounding_blanks(tools: Tools) -> None:
    tools["update_planning"](update_tasks=[{"id": 1, "description": "  one, reworded  "}])
    assert tools["get_planning_task"](1).description == "one, reworded"


def test_a_cycle_behind_a_dependency_reached_twice_is_found(tools: Tools) -> None:
    # Task 2 is reached from task 4 and named directly too; the cycle runs through task 5,
    # which the walk reaches only after meeting task 2 the second time.
    tools["update_planning"](
        create_tasks=[
            {"description": "via two", "dependencies": [2]},
            {"description": "back to one", "dependencies": [1]},
        ]
    )
    message = expect_retry(
        tools["update_planning"], update_tasks=[{"id": 1, "dependencies": [4, 2, 5]}]
    )
    assert "update_tasks[0] (task 1): dependencies would form a cycle (#1 -> #5 -> #1)" in message
    assert tools["get_planning_task"](1).dependencies == []


def test_a_chosen_id_cannot_close_a_cycle_in_a_restored_plan(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    # A plan restored from the predecessor may hold a dependency on a task it lacks.
    plan = team_tool_actor(actor_system, orchestrator, PlanActor, PlanConfig(vector_store=False))
    plan.init_state(
        PlanManagerState(task_list=[Task(id=1, description="needs two", dependencies=[2])])
    )
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    message = expect_retry(
        tools["update_planning"],
        create_tasks=[{"id": 2, "description": "needs one", "dependencies": [1]}],
    )
    assert "create_tasks[0]: dependencies would form a cycle (#2 -> #1 -> #2)" in message
    assert "unknown task id 2" in expect_retry(tools["get_planning_task"], 2)


def test_a_batch_refused_whole_reports_that_nothing_changed(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    plan = team_tool_actor(actor_system, orchestrator, PlanActor, PlanConfig(vector_store=False))
    full = plan.update_plan([TaskCreate(description="t")] * PLAN_MAX_TASKS, [], [], "@Tester")
    assert (len(full.created), full.seq) == (PLAN_MAX_TASKS, 1)
    report = plan.update_plan([TaskCreate(description="one more")], [], [], "@Tester")
    assert report.refused is not None
    assert "delete_tasks" in report.refused  # the way to make room
    assert (report.summary, report.errors, report.created, report.seq) == (
        "no change",
        [],
        [],
        None,
    )
