"""Keyword search answers from a token index, exactly as a scan of every task would.

The plan builds the index on its first search and keeps it up to date through every
mutation; these tests compare it with a plain substring scan after random changes, and
check that a search reads the text of the tasks sharing the query's rarest word only.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import akgentic.tool.planning.state as state_module
from akgentic.tool.planning import Task
from akgentic.tool.planning.event import PlanningStateEvent
from akgentic.tool.planning.state import PlanState, task_text

WORDS = st.sampled_from(["draft", "DRAFT", "af", "é", "report", "-2", "q", "zz", "\n", "ΣΑ"])
TEXTS = st.sampled_from(["Draft report", "draft-2", "résumé", "ΣΑ plan", "", "q"])


def _scan(state: PlanState, query: str) -> list[int]:
    """The reference: ids of the tasks whose lower-cased text holds every word."""
    words = query.lower().split()
    if not words:
        return []
    return [
        task_id
        for task_id in sorted(state.tasks)
        if all(w in task_text(state.tasks[task_id]).lower() for w in words)
    ]


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.integers(1, 6), TEXTS, TEXTS),
        st.tuples(st.just("drop"), st.integers(1, 6)),
        st.tuples(st.just("search"), st.lists(WORDS, max_size=3)),
    ),
    max_size=30,
)


def _run(state: PlanState, op: tuple[Any, ...]) -> None:
    if op[0] == "put":
        _, task_id, description, output = op
        state.put_task(Task(id=task_id, description=description or "x", output=output))
    elif op[0] == "drop":
        state.remove_task(op[1])
    else:
        query = " ".join(op[1])
        assert state.keyword_search(query) == _scan(state, query), query


@settings(max_examples=150, deadline=None)
@given(_OPS, st.lists(WORDS, min_size=1, max_size=3))
def test_index_answers_as_a_scan_after_any_changes(ops: list[Any], last: list[str]) -> None:
    state = PlanState()
    for op in ops:
        _run(state, op)
    query = " ".join(last)
    assert state.keyword_search(query) == _scan(state, query)


def test_index_follows_deltas_applied_after_the_first_search() -> None:
    state = PlanState()
    state.apply(PlanningStateEvent(tasks_added=[Task(id=1, description="write the intro")]))
    assert state.keyword_search("intro") == [1]
    state.apply(PlanningStateEvent(tasks_modified=[Task(id=1, description="write the end")]))
    assert state.keyword_search("intro") == []
    assert state.keyword_search("END") == [1]
    state.apply(PlanningStateEvent(tasks_removed=[1]))
    assert state.keyword_search("end") == []


def test_search_reads_only_the_tasks_sharing_the_rarest_word(monkeypatch: Any) -> None:
    """2,000 tasks: a query naming one task reads a handful of texts, not the plan."""
    state = PlanState()
    for i in range(1, 2_001):
        state.put_task(Task(id=i, description=f"T{i:05d} for milestone m{i % 9}"))
    assert state.keyword_search("t00042 milestone") == [42]
    reads: list[int] = []

    def counting(task: Task) -> str:
        reads.append(task.id)
        return task_text(task)

    monkeypatch.setattr(state_module, "task_text", counting)
    assert state.keyword_search("milestone t01234") == [1234]
    assert state.keyword_search("t0199 m3") == [1992]
    assert len(reads) <= 12, reads  # 1 + the ten ids starting T0199
