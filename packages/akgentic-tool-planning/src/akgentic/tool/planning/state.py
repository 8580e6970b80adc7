"""The plan held by the ``#PlanningTool`` actor, as that actor's persisted state.

Persistence follows core's ``DeltaState``: change detection is a dirty flag set by the
mutators (no full JSON dump to compare), and a snapshot copies the task dictionary but
shares the frozen tasks. When to snapshot is the actor's decision; the delta events carry
the changes in between.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from akgentic.tool.core.delta_state import DeltaState
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
        self.tasks[task.id] = task
        if task.id >= self.next_id:
            self.next_id = task.id + 1
        self._touch()

    def remove_task(self, task_id: int) -> Task | None:
        """Remove a task; returns it, or None if there was none."""
        task = self.tasks.pop(task_id, None)
        if task is not None:
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

    def same_plan(self, other: PlanState) -> bool:
        """Whether ``other`` holds the same tasks (``seq`` and ``next_id`` aside)."""
        return self.tasks == other.tasks
