"""The plan's keyword search goes through core's word index, which follows every change.

(The index itself is proven against a full scan in akgentic-tool-core's
``test_core_word_index.py``; here only the plan's wiring: which text is indexed, that
deltas reach the index, and that a search does not read every task.)
"""

from __future__ import annotations

from typing import Any

import akgentic.tool.planning.state as state_module
from akgentic.tool.planning import Task
from akgentic.tool.planning.event import PlanningStateEvent
from akgentic.tool.planning.state import PlanState, task_text


def test_description_and_output_are_searched_through_deltas() -> None:
    state = PlanState()
    state.apply(PlanningStateEvent(tasks_added=[Task(id=1, description="write the intro")]))
    state.put_task(Task(id=2, description="Review", output="Intro reviewed"))
    assert state.keyword_search("intro") == [1, 2]
    assert state.keyword_search("review intro") == [2]
    state.apply(PlanningStateEvent(tasks_modified=[Task(id=1, description="write the end")]))
    assert state.keyword_search("intro") == [2]
    assert state.keyword_search("END") == [1]
    state.apply(PlanningStateEvent(tasks_removed=[1]))
    assert state.keyword_search("end") == []


def test_a_search_reads_the_tasks_sharing_the_rarest_word_only(monkeypatch: Any) -> None:
    state = PlanState()
    for task_id in range(1, 2_001):
        state.put_task(Task(id=task_id, description=f"T{task_id:05d} milestone m{task_id % 9}"))
    assert state.keyword_search("t00042") == [42]  # builds the index
    read: list[int] = []

    def counting(task: Task) -> str:
        read.append(task.id)
        return task_text(task)

    monkeypatch.setattr(state_module, "task_text", counting)
    assert state.keyword_search("milestone t01234") == [1234]
    assert len(read) == 1, read


def test_a_task_added_after_the_first_search_is_found() -> None:
    state = PlanState()
    state.put_task(Task(id=1, description="write the intro"))
    assert state.keyword_search("intro") == [1]  # builds the index
    state.put_task(Task(id=2, description="proofread the intro"))
    assert state.keyword_search("intro") == [1, 2]
