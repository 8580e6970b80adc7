"""The plan held by the ``#PlanningTool`` actor, as that actor's persisted state.

Same persistence design as the knowledge graph's state: change detection is a dirty flag
set by the mutators (no full JSON dump to compare), and a snapshot copies the task
dictionary but shares the frozen tasks. When to snapshot is the actor's decision; the
delta events carry the changes in between.
"""

from __future__ import annotations

from pydantic import Field, PrivateAttr

from akgentic.core.agent_state import BaseState
from akgentic.tool.planning.event import PlanningStateEvent
from akgentic.tool.planning.models import Task

__all__ = ["PlanState"]


class PlanState(BaseState):
    """Tasks by id, the next id to assign, and ``seq`` of the last delta reflected.

    Mutate through :meth:`put_task`, :meth:`remove_task` or :meth:`apply`. A client
    following the team's events rebuilds the plan with ``PlanState()`` and :meth:`apply`.
    """

    tasks: dict[int, Task] = Field(default_factory=dict)
    next_id: int = 1
    seq: int = Field(default=0, description="seq of the last delta reflected here.")

    _version: int = PrivateAttr(default=0)
    _dirty: bool = PrivateAttr(default=False)

    # -- persistence hooks (akgentic-core's BaseState protocol) -------------------------

    def notify_state_change(self) -> None:
        """Publish to the owning actor, without the base class's full JSON dump."""
        self._dirty = False
        if self._observer is not None:
            self._observer.notify_state_change(self)

    def notify_if_changed(self) -> None:
        """Publish only when a mutation happened since the last publication."""
        if self._observer is not None and self._dirty:
            self.notify_state_change()

    def serializable_copy(self) -> PlanState:
        """An independent snapshot sharing the (frozen) tasks, without the observer."""
        return type(self).model_construct(
            tasks=dict(self.tasks), next_id=self.next_id, seq=self.seq
        )

    @property
    def dirty(self) -> bool:
        """Whether the state changed since it was last published."""
        return self._dirty

    @property
    def version(self) -> int:
        """A counter bumped by every mutation (for caches derived from the plan)."""
        return self._version

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

    def _touch(self) -> None:
        # Direct access to pydantic's private dict: BaseModel.__setattr__ would cost more
        # than the mutation itself on this per-task path.
        private = self.__pydantic_private__
        assert private is not None
        private["_version"] += 1
        private["_dirty"] = True
