"""PlanningTool through ToolFactory, against a real actor system (the event and
retry rules every delta actor keeps are standard tests, in test_standard.py)."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.testing import (
    ToolTestAgent,
    agent_at,
    bind_card,
    eventually,
    expect_retry,
    spawn_tool_agent,
    stop_team,
    tool_state_events,
)
from akgentic.tool.planning import (
    PLANNING_ACTOR_NAME,
    GetPlanning,
    PlanningStateEvent,
    PlanningTool,
)


def test_create_update_delete_with_one_event_per_call(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    created = tools["update_planning"](
        create_tasks=[
            {"description": "Write the spec", "owner": "Alice"},
            {"description": "Review the spec", "status": "pending"},
        ]
    )
    assert created == "Planning updated: created #1, #2."
    # Emitted before returning: the orchestrator already has it.
    events = tool_state_events(actor_system, orchestrator, PLANNING_ACTOR_NAME)
    assert [e.seq for e in events] == [1]
    delta = events[0].payload
    assert isinstance(delta, PlanningStateEvent)
    assert [(t.id, t.owner, t.creator) for t in delta.tasks_added] == [
        (1, "@Alice", "@Tester"),
        (2, "", "@Tester"),
    ]
    tools["update_planning"](update_tasks=[{"id": 1, "status": "started"}], delete_tasks=[2])
    delta = tool_state_events(actor_system, orchestrator, PLANNING_ACTOR_NAME)[-1].payload
    assert [(t.id, t.status) for t in delta.tasks_modified] == [(1, "started")]
    assert delta.tasks_removed == [2]
    task = tools["get_planning_task"](1)
    assert task.status == "started"
    assert task.description == "Write the spec"


def test_output_is_truncated_never_refused(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    tools["update_planning"](create_tasks=[{"description": "t", "output": "x" * 400}])
    output = tools["get_planning_task"](1).output
    assert len(output) == 150
    assert output.endswith("…")
    tools["update_planning"](update_tasks=[{"id": 1, "output": "y" * 151}])
    assert len(tools["get_planning_task"](1).output) == 150


def test_output_is_cut_past_the_ceiling_only_and_without_trailing_blanks(
    tool_agent: ToolTestAgent,
) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    at_ceiling = "o" * 150
    cut_at_blanks = "a" * 140 + " " * 20 + "b" * 10
    tools["update_planning"](
        create_tasks=[
            {"description": "t", "output": at_ceiling},
            {"description": "u", "output": cut_at_blanks},
        ]
    )
    assert tools["get_planning_task"](1).output == at_ceiling
    assert tools["get_planning_task"](2).output == "a" * 140 + "…"


def test_the_limits_are_in_the_schema() -> None:
    # Enforced: the standard refusals (test_standard.py) hold a description past 300.
    from akgentic.tool.planning import TaskCreate

    schema = TaskCreate.model_json_schema()
    assert schema["properties"]["description"]["maxLength"] == 300
    assert schema["properties"]["output"]["maxLength"] == 150
    assert schema["properties"]["status"]["enum"] == [
        "pending",
        "started",
        "completed",
        "blocked",
        "abort",
    ]


def test_get_planning_task_errors(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    assert "unknown task id 3" in expect_retry(tools["get_planning_task"], 3)
    assert "integer" in expect_retry(tools["get_planning_task"], "three")


def test_calls_after_the_team_stopped_name_the_plan(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    stop_team(actor_system, orchestrator)
    message = expect_retry(tools["get_planning_task"], 1)
    assert message.startswith("The team plan is not running")


def test_an_agent_outside_a_team_is_refused_naming_the_card(actor_system: ActorSystem) -> None:
    address = actor_system.createActor(ToolTestAgent, config=BaseConfig(name="@Lone"))
    lone = agent_at(actor_system, address)
    with pytest.raises(RuntimeError) as info:
        bind_card(lone, PlanningTool(vector_store=False))
    assert str(info.value).startswith("PlanningTool needs an agent that belongs to a team")


def test_the_prompt_outlives_its_agent(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    # The card holds its agent weakly: once the agent is gone, a prompt still asked for
    # (a framework keeping the callable) is the plan seen by nobody in particular.
    agent = spawn_tool_agent(actor_system, orchestrator, "@Short")
    card = PlanningTool(vector_store=False)
    tools = bind_card(agent, card)
    tools["update_planning"](create_tasks=[{"description": "shared", "owner": "@Bob"}])
    address = agent.myAddress
    actor_system.proxy_ask(address, ToolTestAgent).stop()
    eventually(lambda: not address.is_alive())
    del agent
    gc.collect()
    assert card.get_observer_or_none() is None
    prompt = tools["get_planning"]()
    assert "**Your tasks** (owner or creator: unknown): none" in prompt
    assert "Owners: @Bob: 1" in prompt


def test_prompt_matches_the_documented_format(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    alice = spawn_tool_agent(actor_system, orchestrator, "@Alice")
    bob = spawn_tool_agent(actor_system, orchestrator, "@Bob")
    alice_tools = bind_card(alice, PlanningTool(vector_store=False))
    bob_tools = bind_card(bob, PlanningTool(vector_store=False))
    assert "no tasks yet" in alice_tools["get_planning"]()
    bob_tools["update_planning"](
        create_tasks=[
            {"description": "Set up CI", "owner": "@Bob"},
            {"description": "Write docs"},
        ]
    )
    alice_tools["update_planning"](
        create_tasks=[
            {"description": "Implement auth module", "owner": "@Alice", "status": "started"},
            {"description": "Design API", "owner": "@Alice"},
            {"description": "Review PR #42", "owner": "@Bob", "output": "pending"},
        ]
    )
    alice_tools["update_planning"](create_tasks=[{"description": "Fix bug", "owner": "@Alice"}])
    assert alice_tools["get_planning"]() == "\n".join(
        [
            "**Team planning:** 6 tasks total",
            "Owners: @Alice: 3 | @Bob: 2 | unassigned: 1",
            "",
            "**Your tasks** (owner or creator: @Alice):",
            "- ID 3 [started] Implement auth module (Owner: @Alice, Creator: @Alice)",
            "- ID 4 [pending] Design API (Owner: @Alice, Creator: @Alice)",
            "- ID 5 [pending] Review PR #42 — Output: pending (Owner: @Bob, Creator: @Alice)",
            "- ID 6 [pending] Fix bug (Owner: @Alice, Creator: @Alice)",
            "",
            "Use get_planning_task(id) for exact ID lookup or search_planning(...) to filter tasks.",
        ]
    )
    everyone = bind_card(
        spawn_tool_agent(actor_system, orchestrator, "@Carol"),
        PlanningTool(
            vector_store=False, get_planning=GetPlanning(filter_by_agent=False, max_listed=4)
        ),
    )["get_planning"]()
    assert "**All tasks:**" in everyone
    assert "- ID 2 [pending] Write docs (Owner: unassigned, Creator: @Bob)" in everyone
    assert "- ... and 2 more (use search_planning)" in everyone
    # Carol owns nothing: a filtered prompt says so.
    carol = bind_card(
        spawn_tool_agent(actor_system, orchestrator, "@Dan"), PlanningTool(vector_store=False)
    )["get_planning"]()
    assert "**Your tasks** (owner or creator: @Dan): none" in carol


def test_the_owner_line_ranks_the_busiest_first_then_by_name(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    assert tools["get_planning"]() == (
        "**Team planning:** no tasks yet. Create them with update_planning(...)."
    )
    tools["update_planning"](
        create_tasks=[
            {"description": "a", "owner": "@Bob"},
            {"description": "b", "owner": "@Al"},
            {"description": "c", "owner": "@Zed"},
            {"description": "d", "owner": "@Zed"},
        ]
    )
    # Everyone owns something: no 'unassigned' entry.
    assert tools["get_planning"]().splitlines()[1] == "Owners: @Zed: 2 | @Al: 1 | @Bob: 1"


def test_the_listing_is_cut_only_past_max_listed(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    card = PlanningTool(
        vector_store=False, get_planning=GetPlanning(filter_by_agent=False, max_listed=2)
    )
    tools = bind_card(spawn_tool_agent(actor_system, orchestrator), card)
    tools["update_planning"](create_tasks=[{"description": "one"}, {"description": "two"}])
    lines = tools["get_planning"]().splitlines()
    assert "**All tasks:**" in lines
    assert not any(line.startswith("- ...") for line in lines)


def test_an_unchanged_plan_is_not_rendered_again(
    tool_agent: ToolTestAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    import akgentic.tool.planning.planning_actor as actor_module

    renders: list[str] = []
    render = actor_module._render

    def counting(*args: Any) -> str:
        renders.append(args[1])
        return render(*args)

    monkeypatch.setattr(actor_module, "_render", counting)
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    tools["update_planning"](create_tasks=[{"description": "one"}])
    first = tools["get_planning"]()
    assert tools["get_planning"]() == first
    assert renders == ["@Tester"]
    tools["update_planning"](update_tasks=[{"id": 1, "status": "started"}])
    assert "[started] one" in tools["get_planning"]()
    assert renders == ["@Tester", "@Tester"]


def test_prompt_follows_changes(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    tools["update_planning"](create_tasks=[{"description": "one", "owner": "@Tester"}])
    first = tools["get_planning"]()
    assert first == tools["get_planning"]()  # cached render, same text
    tools["update_planning"](update_tasks=[{"id": 1, "status": "completed"}])
    assert "[completed] one" in tools["get_planning"]()


@pytest.mark.parametrize(
    "disabled", ["get_planning", "get_planning_task", "update_planning", "search_planning"]
)
def test_capabilities_can_be_switched_off(tool_agent: ToolTestAgent, disabled: str) -> None:
    names = set(bind_card(tool_agent, PlanningTool(vector_store=False, **{disabled: False})))
    expected = {"get_planning", "get_planning_task", "update_planning", "search_planning"}
    assert names == expected - {disabled}


def test_commands_run_from_slash_lines(tool_agent: ToolTestAgent) -> None:
    from akgentic.tool.core.factory import ToolFactory

    factory = ToolFactory([PlanningTool(vector_store=False)], observer=tool_agent)
    assert set(factory.commands.names()) == {
        "get_planning",
        "get_planning_task",
        "search_planning",
    }
    tools = {fn.__name__: fn for fn in factory.get_tools()}
    tools["update_planning"](create_tasks=[{"description": "ship it", "status": "started"}])
    found = factory.commands.execute("/search_planning status=started")
    assert [t.description for t in found.tasks] == ["ship it"]
    assert factory.commands.execute("/get_planning_task 1").status == "started"
    assert "1 tasks total" in factory.commands.execute("/get_planning")
