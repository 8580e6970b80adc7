"""The plan's state delta, carried as the payload of a ``ToolStateEvent``.

Each ``update_planning`` call that changes something emits one, holding the net effect of
the batch. Applied in ``seq`` order to an empty ``PlanState``, the deltas of a team's history
rebuild the plan (``PlanState.apply``).
"""

from __future__ import annotations

from pydantic import Field

from akgentic.tool.core.delta_state import DeltaPayload
from akgentic.tool.planning.models import Task

__all__ = ["PlanningStateEvent"]


class PlanningStateEvent(DeltaPayload):
    """Tasks added, tasks changed (new version in full), ids of tasks removed."""

    tasks_added: list[Task] = Field(default_factory=list)
    tasks_modified: list[Task] = Field(default_factory=list)
    tasks_removed: list[int] = Field(default_factory=list)

    def is_empty(self) -> bool:
        """True when nothing changed (such a delta is never emitted)."""
        return not (self.tasks_added or self.tasks_modified or self.tasks_removed)

    def change_count(self) -> int:
        """Number of tasks this delta touches."""
        return len(self.tasks_added) + len(self.tasks_modified) + len(self.tasks_removed)
