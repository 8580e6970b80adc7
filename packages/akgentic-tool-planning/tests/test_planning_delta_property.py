"""Property: for any sequence of batches, replaying the emitted deltas rebuilds the plan."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from akgentic.tool.planning import PlanState, TaskCreate, TaskUpdate
from akgentic.tool.planning._update import apply_plan_update

IDS = st.integers(min_value=1, max_value=8)
STATUS = st.sampled_from(["pending", "started", "completed", "blocked", "abort", "bogus"])
DEPS = st.lists(IDS, max_size=3)

CREATE = st.builds(
    TaskCreate,
    description=st.sampled_from(["a", "b", "c"]),
    owner=st.sampled_from(["", "@A", "B"]),
    status=STATUS,
    dependencies=DEPS,
)
UPDATE = st.builds(
    TaskUpdate,
    id=IDS,
    description=st.one_of(st.none(), st.sampled_from(["a", "d"])),
    owner=st.one_of(st.none(), st.sampled_from(["", "@A"])),
    status=st.one_of(st.none(), STATUS),
    output=st.one_of(st.none(), st.sampled_from(["", "done"])),
    dependencies=st.one_of(st.none(), DEPS),
)
BATCH = st.tuples(
    st.lists(CREATE, max_size=3), st.lists(UPDATE, max_size=3), st.lists(IDS, max_size=2)
)


@settings(max_examples=100, deadline=None)
@given(st.lists(BATCH, min_size=1, max_size=8))
def test_replayed_deltas_equal_the_live_plan(
    batches: list[tuple[list[TaskCreate], list[TaskUpdate], list[int]]],
) -> None:
    live = PlanState()
    client = PlanState()
    seq = 0
    for creates, updates, deletes in batches:
        outcome = apply_plan_update(live, creates, updates, deletes, "@Me")
        bad = sum(c.status == "bogus" for c in creates)
        assert len(outcome.created) <= len(creates) - bad
        if not outcome.delta.is_empty():
            seq += 1
            client.apply(outcome.delta, seq=seq)
    assert client.same_plan(live)
    # The replayed plan must never hand out an id it already holds (issue 21: a one-task
    # delta that left next_id behind made the next create overwrite that task).
    assert all(task_id < client.next_id for task_id in client.tasks)
    assert client.next_id <= live.next_id
    assert all(task.status != "bogus" for task in live.tasks.values())
    assert all(task_id < live.next_id for task_id in live.tasks)
    # Dependencies always name existing tasks, never the task itself.
    assert all(
        dep in live.tasks and dep != task.id
        for task in live.tasks.values()
        for dep in task.dependencies
    )
