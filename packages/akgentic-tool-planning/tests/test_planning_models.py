"""The plan's public data types used on their own, as a client following the team's events
does: a task's line, the delta's change count, and ids reserved on a ``PlanState``."""

from __future__ import annotations

from akgentic.tool.planning import PlanningStateEvent, PlanState, Task


def test_a_task_line_lists_its_dependencies_and_names_who_is_missing() -> None:
    deploy = Task(id=4, description="Deploy", owner="@Bob", creator="@Alice", dependencies=[2, 3])
    # The README's example line.
    assert (
        deploy.line()
        == "- ID 4 [pending] Deploy — Depends on: #2, #3 (Owner: @Bob, Creator: @Alice)"
    )
    # A task from a stored plan may lack both people.
    assert Task(id=1, description="Tidy up").line() == (
        "- ID 1 [pending] Tidy up (Owner: unassigned, Creator: unknown)"
    )


def test_the_change_count_adds_every_kind_of_change() -> None:
    delta = PlanningStateEvent(
        tasks_added=[Task(id=1, description="a")],
        tasks_modified=[Task(id=2, description="b"), Task(id=3, description="c")],
        tasks_removed=[4, 5, 6],
    )
    assert delta.change_count() == 6


def test_reserved_ids_keep_counting() -> None:
    state = PlanState()
    assert [state.allocate_id(), state.allocate_id()] == [1, 2]
    state.put_task(Task(id=10, description="chosen id"))
    assert state.allocate_id() == 11
    assert state.next_id == 12
