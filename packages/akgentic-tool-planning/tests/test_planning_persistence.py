"""Persistence of the plan: rare snapshots, deltas as the increment, stop -> resume through
akgentic-core's replay, and restore after an abrupt end right after a burst."""

from __future__ import annotations

import threading
from typing import Any

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.testing import (
    RecordedTeam,
    ToolTestAgent,
    agent_at,
    bind_card,
    orchestrator_events,
    record_team,
    recorded_tool_events,
    resume_team,
    settle,
    spawn_tool_agent,
    stop_team,
    team_tool_actor,
)
from akgentic.tool.planning import (
    PLANNING_ACTOR_NAME,
    PlanActor,
    PlanConfig,
    PlanningStateEvent,
    PlanningTool,
    PlanState,
)


def _plan_actor(system: ActorSystem, orchestrator: ActorAddress) -> PlanActor:
    return team_tool_actor(system, orchestrator, PlanActor, PlanConfig(vector_store=False))


def _burst(tools: dict[str, Any], batches: int, size: int) -> None:
    for b in range(batches):
        tools["update_planning"](
            create_tasks=[{"description": f"task {b}-{i}", "owner": "@Tester"} for i in range(size)]
        )


def test_snapshots_are_rare_and_deltas_stay_small(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    subscriber = record_team(actor_system, orchestrator)
    tools = bind_card(
        spawn_tool_agent(actor_system, orchestrator), PlanningTool(vector_store=False)
    )
    _burst(tools, batches=40, size=50)
    settle(actor_system, orchestrator)
    actor_id = str(_plan_actor(actor_system, orchestrator).agent_id)
    assert 2 <= subscriber.record.state_count[actor_id] <= 8  # not one per update
    deltas = [text for text in subscriber.record.events if "PlanningStateEvent" in text]
    assert len(deltas) == 40
    assert len(deltas[-1]) < 1.2 * len(deltas[0])


def test_stop_then_resume_restores_the_plan(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    subscriber = record_team(actor_system, orchestrator)
    tools = bind_card(
        spawn_tool_agent(actor_system, orchestrator), PlanningTool(vector_store=False)
    )
    _burst(tools, batches=2, size=5)
    tools["update_planning"](
        update_tasks=[{"id": 2, "status": "completed", "output": "done well"}], delete_tasks=[3]
    )
    before = _plan_actor(actor_system, orchestrator).plan()
    stop_team(actor_system, orchestrator)
    persisted = subscriber.record.copy()
    snapshot = persisted.state_of(PLANNING_ACTOR_NAME)
    assert isinstance(snapshot, PlanState)
    assert snapshot.seq == 3

    new_orchestrator, members = resume_team(actor_system, persisted)
    tools = bind_card(agent_at(actor_system, members["@Tester"]), PlanningTool(vector_store=False))
    after = _plan_actor(actor_system, new_orchestrator).plan()
    assert after.same_plan(before)
    assert tools["get_planning_task"](2).output == "done well"
    created = tools["update_planning"](create_tasks=[{"description": "after resume"}])
    assert created == "Planning updated: created #11."  # ids keep counting
    settle(actor_system, new_orchestrator)
    seqs = [e.seq for e in orchestrator_events(actor_system, new_orchestrator, ToolStateEvent)]
    assert seqs == [1, 2, 3, 4]


def _killed_after_burst(
    system: ActorSystem, orchestrator: ActorAddress
) -> tuple[RecordedTeam, PlanState]:
    subscriber = record_team(system, orchestrator)
    tools = bind_card(spawn_tool_agent(system, orchestrator), PlanningTool(vector_store=False))
    _burst(tools, batches=30, size=5)
    tools["update_planning"](update_tasks=[{"id": 150, "status": "blocked"}], delete_tasks=[1])
    expected = _plan_actor(system, orchestrator).plan()
    settle(system, orchestrator)
    frozen = subscriber.record.copy()  # the process dies here
    stop_team(system, orchestrator)
    return frozen, expected


def test_abrupt_end_after_burst_restores_everything(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    frozen, expected = _killed_after_burst(actor_system, orchestrator)
    stale = frozen.state_of(PLANNING_ACTOR_NAME)
    assert stale.seq < 31
    assert len(stale.tasks) < 149
    new_orchestrator, members = resume_team(actor_system, frozen)
    tools = bind_card(agent_at(actor_system, members["@Tester"]), PlanningTool(vector_store=False))
    restored = _plan_actor(actor_system, new_orchestrator).plan()
    assert restored.same_plan(expected)
    assert restored.seq == 31
    assert tools["get_planning_task"](150).status == "blocked"


def test_abrupt_end_without_snapshot_restores_from_history(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    frozen, expected = _killed_after_burst(actor_system, orchestrator)
    new_orchestrator, members = resume_team(actor_system, frozen, restore_states=False)
    tools = bind_card(agent_at(actor_system, members["@Tester"]), PlanningTool(vector_store=False))
    assert _plan_actor(actor_system, new_orchestrator).plan().same_plan(expected)
    assert tools["update_planning"](create_tasks=[{"description": "x"}]).endswith("#151.")


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


def test_replaying_deltas_rebuilds_the_plan(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    subscriber = record_team(actor_system, orchestrator)
    tools = bind_card(
        spawn_tool_agent(actor_system, orchestrator), PlanningTool(vector_store=False)
    )
    _burst(tools, batches=3, size=4)
    tools["update_planning"](
        update_tasks=[{"id": 1, "owner": ""}, {"id": 2, "description": "reworded"}],
        delete_tasks=[5, 6],
    )
    live = _plan_actor(actor_system, orchestrator).plan()
    settle(actor_system, orchestrator)
    client = PlanState()
    events = recorded_tool_events(subscriber.record)
    assert [e.seq for e in events] == [1, 2, 3, 4]
    for event in events:
        assert isinstance(event.payload, PlanningStateEvent)
        client.apply(event.payload, seq=event.seq)
    assert client.same_plan(live)
    assert client.next_id == live.next_id


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
