"""Size limits of the planning callables (security review findings).

Every refusal is a ``RetriableError`` that names the field and the limit, and leaves the
plan exactly as it was: no task changes, no state event. Wrongly typed arguments are
refusals of the standard bad-input tests (test_standard.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    ToolTestAgent,
    bind_card,
    expect_retry,
    spawn_tool_agent,
    tool_event_seqs,
)
from akgentic.tool.planning import (
    BATCH_MAX_ITEMS,
    OWNER_MAX_CHARS,
    PLAN_MAX_TASKS,
    PLANNING_ACTOR_NAME,
    PROMPT_MAX_OWNERS,
    QUERY_MAX_CHARS,
    GetPlanning,
    PlanningTool,
)


@pytest.fixture
def tools(tool_agent: ToolTestAgent) -> dict[str, Any]:
    return bind_card(tool_agent, PlanningTool(vector_store=False))


def test_limits_are_the_documented_values() -> None:
    assert (OWNER_MAX_CHARS, BATCH_MAX_ITEMS, PLAN_MAX_TASKS) == (100, 100, 10_000)
    assert (QUERY_MAX_CHARS, PROMPT_MAX_OWNERS) == (500, 20)


def test_a_huge_owner_never_reaches_a_teammates_prompt(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    attacker = bind_card(
        spawn_tool_agent(actor_system, orchestrator, "@Mallory"), PlanningTool(vector_store=False)
    )
    victim = bind_card(
        spawn_tool_agent(actor_system, orchestrator, "@Alice"),
        PlanningTool(vector_store=False, get_planning=GetPlanning(filter_by_agent=False)),
    )
    attacker["update_planning"](create_tasks=[{"description": "decoy"}])
    before = victim["get_planning"]()

    message = expect_retry(
        attacker["update_planning"],
        create_tasks=[{"description": "flood", "owner": "x" * 2_000_000}],
    )
    assert "create_tasks[0].owner" in message
    assert f"at most {OWNER_MAX_CHARS} characters" in message
    assert "nothing was changed" in message
    assert len(message) < 500  # the refusal does not echo the value either

    message = expect_retry(
        attacker["update_planning"], update_tasks=[{"id": 1, "owner": "y" * 2_000_000}]
    )
    assert "update_tasks[0].owner" in message
    assert f"at most {OWNER_MAX_CHARS} characters" in message

    assert victim["get_planning"]() == before
    assert tool_event_seqs(actor_system, orchestrator, PLANNING_ACTOR_NAME) == [1]


def test_an_owner_at_the_limit_is_accepted(tools: dict[str, Any]) -> None:
    name = "@" + "a" * (OWNER_MAX_CHARS - 1)
    tools["update_planning"](create_tasks=[{"description": "t", "owner": name}])
    assert tools["get_planning_task"](1).owner == name
    other = "b" * OWNER_MAX_CHARS  # the '@' added afterwards does not count against it
    tools["update_planning"](update_tasks=[{"id": 1, "owner": other}])
    assert tools["get_planning_task"](1).owner == "@" + other


def test_batch_size_is_bounded_per_list(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    too_many = [{"description": f"t{i}"} for i in range(BATCH_MAX_ITEMS + 1)]
    message = expect_retry(tools["update_planning"], create_tasks=too_many)
    assert f"create_tasks holds at most {BATCH_MAX_ITEMS} items per call" in message
    assert "nothing was changed" in message
    assert tool_event_seqs(actor_system, orchestrator, PLANNING_ACTOR_NAME) == []

    tools["update_planning"](create_tasks=too_many[:BATCH_MAX_ITEMS])
    updates = [{"id": 1, "status": "started"}] * (BATCH_MAX_ITEMS + 1)
    assert "update_tasks holds at most" in expect_retry(
        tools["update_planning"], update_tasks=updates
    )
    deletes = list(range(1, BATCH_MAX_ITEMS + 2))
    assert "delete_tasks holds at most" in expect_retry(
        tools["update_planning"], delete_tasks=deletes
    )
    assert tool_event_seqs(actor_system, orchestrator, PLANNING_ACTOR_NAME) == [1]
    assert tools["get_planning_task"](1).status == "pending"


def test_the_plan_stops_growing_at_its_limit(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    batch = [{"description": "t"}] * BATCH_MAX_ITEMS
    for _ in range(PLAN_MAX_TASKS // BATCH_MAX_ITEMS):
        tools["update_planning"](create_tasks=batch)
    assert f"{PLAN_MAX_TASKS} tasks total" in tools["get_planning"]()

    message = expect_retry(
        tools["update_planning"],
        create_tasks=[{"description": "one more"}],
        update_tasks=[{"id": 1, "status": "started"}],
    )
    assert f"the plan holds at most {PLAN_MAX_TASKS} tasks" in message
    assert "nothing was changed" in message
    assert tools["get_planning_task"](1).status == "pending"  # the update was not applied
    assert (
        len(tool_event_seqs(actor_system, orchestrator, PLANNING_ACTOR_NAME))
        == PLAN_MAX_TASKS // BATCH_MAX_ITEMS
    )

    # Deleting in the same call makes room: a full plan can still turn over.
    tools["update_planning"](create_tasks=[{"description": "new"}], delete_tasks=[1])
    assert tools["get_planning_task"](PLAN_MAX_TASKS + 1).description == "new"


def test_the_owner_line_names_at_most_the_limit(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    owners = [f"@Agent{i:02d}" for i in range(PROMPT_MAX_OWNERS + 5)]
    tools["update_planning"](
        create_tasks=[{"description": "t", "owner": name} for name in owners]
        + [{"description": "u"}]
    )
    line = tools["get_planning"]().splitlines()[1]
    assert line.startswith("Owners: @Agent00: 1 | ")
    assert f"@Agent{PROMPT_MAX_OWNERS - 1:02d}: 1" in line
    assert f"@Agent{PROMPT_MAX_OWNERS:02d}" not in line
    assert line.endswith("| 5 other owners: 5 | unassigned: 1")


def test_search_arguments_are_bounded(tools: dict[str, Any]) -> None:
    tools["update_planning"](create_tasks=[{"description": "walk the dog", "owner": "@Al"}])
    search = tools["search_planning"]
    message = expect_retry(search, query="dog " * 1_000_000)
    assert f"query holds at most {QUERY_MAX_CHARS} characters" in message
    message = expect_retry(search, owner="o" * (OWNER_MAX_CHARS + 1))
    assert f"owner holds at most {OWNER_MAX_CHARS} characters" in message
    message = expect_retry(search, creator="c" * (OWNER_MAX_CHARS + 1))
    assert f"creator holds at most {OWNER_MAX_CHARS} characters" in message
    at_limit = "dog" + " " * (QUERY_MAX_CHARS - 3)
    assert [t.id for t in search(query=at_limit).tasks] == [1]
    assert [t.id for t in search(owner="@" + "l" * (OWNER_MAX_CHARS - 1)).tasks] == []


def test_a_huge_bad_task_id_is_not_echoed(tools: dict[str, Any]) -> None:
    message = expect_retry(tools["get_planning_task"], "7" * 2_000_000)
    assert "task_id must be an integer task id" in message
    assert len(message) < 200
    message = expect_retry(tools["update_planning"], delete_tasks=["7" * 2_000_000])
    assert len(message) < 300
