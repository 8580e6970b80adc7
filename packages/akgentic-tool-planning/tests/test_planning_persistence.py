"""Persistence of the plan beyond core's standard delta-persistence tests (those run in
test_standard.py): a one-task delta replayed without a snapshot, and concurrent writers."""

from __future__ import annotations

import threading

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.testing import (
    ToolTestAgent,
    agent_at,
    bind_card,
    orchestrator_events,
    record_team,
    resume_team,
    settle,
    spawn_tool_agent,
    stop_team,
    team_tool_actor,
)
from akgentic.tool.planning import (
    PlanActor,
    PlanConfig,
    PlanningTool,
)


def _plan_actor(system: ActorSystem, orchestrator: ActorAddress) -> PlanActor:
    return team_tool_actor(system, orchestrator, PlanActor, PlanConfig(vector_store=False))


def test_resume_after_one_task_delta_without_snapshot_keeps_that_task(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    # Issue 21: replaying a delta that carries a single task must move next_id past it,
    # or the first create after the resume reuses id 1 and overwrites the task.
    subscriber = record_team(actor_system, orchestrator)
    tools = bind_card(
        spawn_tool_agent(actor_system, orchestrator), PlanningTool(vector_store=False)
    )
    assert tools["update_planning"](create_tasks=[{"description": "first"}]).endswith("#1.")
    settle(actor_system, orchestrator)
    frozen = subscriber.record.copy()  # the process dies before any snapshot
    stop_team(actor_system, orchestrator)

    new_orchestrator, members = resume_team(actor_system, frozen, restore_states=False)
    tools = bind_card(agent_at(actor_system, members["@Tester"]), PlanningTool(vector_store=False))
    assert _plan_actor(actor_system, new_orchestrator).plan().next_id == 2
    assert tools["update_planning"](create_tasks=[{"description": "second"}]).endswith("#2.")
    assert tools["get_planning_task"](1).description == "first"
    assert tools["get_planning_task"](2).description == "second"


def test_ten_agents_updating_concurrently_lose_nothing(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    agents = [spawn_tool_agent(actor_system, orchestrator, f"@Agent{i}") for i in range(10)]
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(agents))

    def work(agent: ToolTestAgent) -> None:
        try:
            tools = bind_card(agent, PlanningTool(vector_store=False))
            barrier.wait()
            for call in range(15):
                tools["update_planning"](create_tasks=[{"description": f"work {call}"}])
            mine = tools["search_planning"](creator=str(agent.config.name))
            tools["update_planning"](
                update_tasks=[{"id": t.id, "status": "completed"} for t in mine.tasks]
            )
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(agent,)) for agent in agents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    plan = _plan_actor(actor_system, orchestrator).plan()
    assert sorted(plan.tasks) == list(range(1, 151))  # every id once, none lost
    assert all(task.status == "completed" for task in plan.tasks.values())
    assert sorted({task.creator for task in plan.tasks.values()}) == sorted(
        f"@Agent{i}" for i in range(10)
    )
    settle(actor_system, orchestrator)
    seqs = [e.seq for e in orchestrator_events(actor_system, orchestrator, ToolStateEvent)]
    assert seqs == list(range(1, 161))  # 150 creations + 10 completions, gap-free
