"""Listings by status, owner and creator answer from the plan's filter index, exactly as a
test of every task would, whatever changes came before or after the first listing."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import akgentic.tool.planning._filters as filters_module
from akgentic.tool.core.testing import ToolTestAgent, bind_card
from akgentic.tool.planning import PlanningTool, Task
from akgentic.tool.planning.event import PlanningStateEvent
from akgentic.tool.planning.state import PlanState

STATUSES = st.sampled_from(["pending", "started", "completed", "blocked"])
AGENTS = st.sampled_from(["", "@Ann", "@Bob"])
FILTERS = st.dictionaries(
    st.sampled_from(["status", "owner", "creator"]), st.sampled_from(["blocked", "", "@Ann"])
).filter(bool)


def _scan(state: PlanState, wanted: dict[str, str]) -> set[int]:
    return {
        task_id
        for task_id, task in state.tasks.items()
        if all(getattr(task, field) == value for field, value in wanted.items())
    }


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.integers(1, 6), STATUSES, AGENTS, AGENTS),
        st.tuples(st.just("drop"), st.integers(1, 6)),
        st.tuples(st.just("list"), FILTERS),
    ),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(_OPS, FILTERS)
def test_filter_index_answers_as_a_scan_after_any_changes(
    ops: list[Any], last: dict[str, str]
) -> None:
    state = PlanState()
    for op in ops:
        if op[0] == "put":
            _, task_id, status, owner, creator = op
            state.put_task(
                Task(id=task_id, description="d", status=status, owner=owner, creator=creator)
            )
        elif op[0] == "drop":
            state.remove_task(op[1])
        else:
            assert state.filtered_ids(op[1]) == _scan(state, op[1]), op[1]
    assert state.filtered_ids(last) == _scan(state, last)


def test_filter_index_follows_replayed_deltas() -> None:
    state = PlanState()
    state.apply(PlanningStateEvent(tasks_added=[Task(id=1, description="a", status="blocked")]))
    assert state.filtered_ids({"status": "blocked"}) == {1}
    state.apply(PlanningStateEvent(tasks_modified=[Task(id=1, description="a", owner="@Ann")]))
    assert state.filtered_ids({"status": "blocked"}) == set()
    assert state.filtered_ids({"status": "pending", "owner": "@Ann"}) == {1}
    state.apply(PlanningStateEvent(tasks_removed=[1]))
    assert state.filtered_ids({"owner": "@Ann"}) == set()


def test_a_listing_reads_no_task_once_the_index_is_built(monkeypatch: Any) -> None:
    # The listings' cost follows their matches, not the plan: the index is built once,
    # by the first listing, and kept (the mutators update it) rather than rebuilt.
    state = PlanState()
    for task_id in range(1, 501):
        status = "blocked" if task_id % 50 == 0 else "pending"
        state.put_task(Task(id=task_id, description="d", status=status))
    assert len(state.filtered_ids({"status": "blocked"})) == 10  # builds the index
    read: list[int] = []
    values = filters_module._values

    def counting(task: Task) -> tuple[str, str, str]:
        read.append(task.id)
        return values(task)

    monkeypatch.setattr(filters_module, "_values", counting)
    assert len(state.filtered_ids({"status": "blocked"})) == 10
    assert state.value_counts("status") == {"pending": 490, "blocked": 10}
    assert read == []


def test_listing_through_the_tool_keeps_order_total_and_cut(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    for start in range(0, 120, 40):
        tools["update_planning"](
            create_tasks=[
                {"description": f"task {i}", "status": "blocked" if i % 2 else "pending"}
                for i in range(start, start + 40)
            ]
        )
    listed = tools["search_planning"](status="blocked")
    assert listed.total == 60
    assert [task.id for task in listed.tasks] == list(range(2, 101, 2))  # 50, by id
    assert "showing 50 of 60" in (listed.note or "")
    tools["update_planning"](update_tasks=[{"id": 2, "status": "completed"}])
    again = tools["search_planning"](status="blocked", owner="unassigned")
    assert again.total == 59
    assert again.tasks[0].id == 4


def _reference_render_parts(state: PlanState, agent: str) -> tuple[list[int], dict[str, int]]:
    """What the prompt lists for ``agent`` and the owner counts, by a pass over every task."""
    mine = [
        i for i in sorted(state.tasks) if agent in (state.tasks[i].owner, state.tasks[i].creator)
    ]
    counts: dict[str, int] = {}
    for task in state.tasks.values():
        counts[task.owner] = counts.get(task.owner, 0) + 1
    return mine, counts


@settings(max_examples=100, deadline=None)
@given(_OPS, AGENTS)
def test_prompt_lists_and_counts_as_a_pass_over_every_task(ops: list[Any], agent: str) -> None:
    from akgentic.tool.planning.planning_actor import _render

    state = PlanState()
    state.value_counts("owner")  # the index exists before the changes, and follows them
    for op in ops:
        if op[0] == "put":
            _, task_id, status, owner, creator = op
            state.put_task(
                Task(
                    id=task_id,
                    description=f"t{task_id}",
                    status=status,
                    owner=owner,
                    creator=creator,
                )
            )
        elif op[0] == "drop":
            state.remove_task(op[1])
    mine, counts = _reference_render_parts(state, agent)
    assert state.value_counts("owner") == counts
    text = _render(state, agent, True, 100)
    listed = [line for line in text.splitlines() if line.startswith("- ID ")]
    assert [int(line.split()[2]) for line in listed] == mine
