"""The plan held by the ``#PlanningTool`` actor, as that actor's persisted state.

Persistence follows core's ``DeltaState``: change detection is a dirty flag set by the
mutators (no full JSON dump to compare), and a snapshot copies the task dictionary but
shares the frozen tasks. When to snapshot is the actor's decision; the delta events carry
the changes in between.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, PrivateAttr, model_validator

from akgentic.tool.core.delta_state import DeltaState
from akgentic.tool.core.word_index import WordIndex
from akgentic.tool.planning._filters import TaskFilterIndex
from akgentic.tool.planning.event import PlanningStateEvent
from akgentic.tool.planning.models import Task

__all__ = ["PlanState"]


class PlanState(DeltaState):
    """Tasks by id, the next id to assign, and ``seq`` of the last delta reflected.

    Mutate through :meth:`put_task`, :meth:`remove_task` or :meth:`apply`. A client
    following the team's events rebuilds the plan with ``PlanState()`` and :meth:`apply`.
    """

    tasks: dict[int, Task] = Field(default_factory=dict)
    next_id: int = 1

    # The keyword index of the tasks' texts: built by the first search, then kept up to
    # date by the mutators (a plan nobody searches never pays for it).
    _keywords: WordIndex[int] | None = PrivateAttr(default=None)
    # Task ids by status, owner and creator, for listings: built by the first filtered
    # listing, then kept up to date by the mutators, like the keyword index.
    _filters: TaskFilterIndex | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _from_task_list(cls, data: Any) -> Any:
        """Accept the predecessor's shape, ``task_list`` (a list of tasks), as input."""
        if not isinstance(data, dict) or "task_list" not in data:
            return data
        data = dict(data)
        task_list = data.pop("task_list") or []
        tasks = {
            (task.id if isinstance(task, Task) else int(task["id"])): task for task in task_list
        }
        data.setdefault("tasks", tasks)
        data.setdefault("next_id", max(tasks, default=0) + 1)
        return data

    def serializable_copy(self) -> PlanState:
        """An independent snapshot sharing the (frozen) tasks, without the observer."""
        return type(self).model_construct(
            tasks=dict(self.tasks), next_id=self.next_id, seq=self.seq
        )

    def size(self) -> int:
        """Number of tasks."""
        return len(self.tasks)

    # -- mutators -----------------------------------------------------------------------

    def allocate_id(self) -> int:
        """Reserve the next task id."""
        task_id = self.next_id
        self.next_id += 1
        self._touch()
        return task_id

    def put_task(self, task: Task) -> None:
        """Add or replace a task (ids at or above ``next_id`` move it forward)."""
        private = self.__pydantic_private__
        assert private is not None
        keywords: WordIndex[int] | None = private["_keywords"]
        filters: TaskFilterIndex | None = private["_filters"]
        if keywords is not None or filters is not None:
            old = self.tasks.get(task.id)
            if keywords is not None:
                keywords.put(task.id, task_text(task), None if old is None else task_text(old))
            if filters is not None:
                filters.put(task, old)
        self.tasks[task.id] = task
        if task.id >= self.next_id:
            self.next_id = task.id + 1
        self._touch()

    def remove_task(self, task_id: int) -> Task | None:
        """Remove a task; returns it, or None if there was none."""
        task = self.tasks.pop(task_id, None)
        if task is not None:
            private = self.__pydantic_private__
            assert private is not None
            if private["_keywords"] is not None:
                private["_keywords"].remove(task_id, task_text(task))
            if private["_filters"] is not None:
                private["_filters"].remove(task)
            self._touch()
        return task

    def apply(self, delta: PlanningStateEvent, seq: int | None = None) -> None:
        """Apply one delta (removals, then additions and changes); set ``seq`` if given."""
        for task_id in delta.tasks_removed:
            self.remove_task(task_id)
        for task in (*delta.tasks_added, *delta.tasks_modified):
            self.put_task(task)
        if seq is not None:
            self.seq = seq
            self._touch()

    def keyword_search(self, query: str) -> list[int]:
        """Ids, in order, of the tasks whose text holds every word of ``query``
        (case-insensitive substrings)."""
        keywords = self._keyword_index()
        return sorted(keywords.search(query, lambda task_id: task_text(self.tasks[task_id])))

    def filtered_ids(self, wanted: dict[str, str]) -> set[int]:
        """Ids of the tasks whose ``status`` / ``owner`` / ``creator`` equal every value
        in ``wanted`` (a non-empty mapping of those field names to values)."""
        return self._filter_index().matching(wanted)

    def value_counts(self, field: str) -> dict[str, int]:
        """How many tasks hold each value of ``field`` (``status``, ``owner``, ``creator``)."""
        return self._filter_index().counts(field)

    def same_plan(self, other: PlanState) -> bool:
        """Whether ``other`` holds the same tasks (``seq`` and ``next_id`` aside)."""
        return self.tasks == other.tasks

    def _filter_index(self) -> TaskFilterIndex:
        private = self.__pydantic_private__
        assert private is not None
        filters: TaskFilterIndex | None = private["_filters"]
        if filters is None:
            filters = TaskFilterIndex()
            for task in self.tasks.values():
                filters.put(task)
            private["_filters"] = filters
        return filters

    def _keyword_index(self) -> WordIndex[int]:
        # pydantic's private-attribute dict directly, as the mutators do (and as
        # DeltaState._touch): BaseModel.__getattr__ costs more than the work here.
        private = self.__pydantic_private__
        assert private is not None
        keywords: WordIndex[int] | None = private["_keywords"]
        if keywords is None:
            keywords = WordIndex()
            for task_id, task in self.tasks.items():
                keywords.put(task_id, task_text(task))
            private["_keywords"] = keywords
        return keywords


def task_text(task: Task) -> str:
    """The text keyword search matches: the description, then the output."""
    return f"{task.description}\n{task.output}"
