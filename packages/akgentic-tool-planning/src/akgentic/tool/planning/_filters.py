"""Which tasks have a given status, owner or creator, without looking at every task.

A listing such as ``search_planning(status="blocked")``, or the "your tasks" part of the
prompt, used to test every task of the plan. The plan now keeps, for each of the three
filterable fields, the ids of the tasks holding each value; a listing intersects the sets
of its filters, smallest first, so it costs in proportion to the tasks that pass its most
selective filter, not to the plan. The prompt's owner line reads its counts from the same
sets.
"""

from __future__ import annotations

from typing import Final

from akgentic.tool.planning.models import Task

FIELDS: Final = ("status", "owner", "creator")


def _values(task: Task) -> tuple[str, str, str]:
    return (task.status, task.owner, task.creator)


class TaskFilterIndex:
    """Task ids by (field, value), kept up to date task by task."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, str], set[int]] = {}

    def put(self, task: Task, old: Task | None = None) -> None:
        """Index ``task``; ``old`` is the version it replaces, if any."""
        if old is not None:
            self.remove(old)
        for field, value in zip(FIELDS, _values(task), strict=True):
            self._ids.setdefault((field, value), set()).add(task.id)

    def remove(self, task: Task) -> None:
        """Forget ``task`` (as it was indexed)."""
        for field, value in zip(FIELDS, _values(task), strict=True):
            ids = self._ids.get((field, value))
            if ids is not None:
                ids.discard(task.id)
                if not ids:
                    del self._ids[(field, value)]

    def counts(self, field: str) -> dict[str, int]:
        """How many tasks hold each value of ``field`` (values held by none are absent)."""
        return {value: len(ids) for (name, value), ids in self._ids.items() if name == field}

    def matching(self, wanted: dict[str, str]) -> set[int]:
        """Ids of the tasks whose fields equal every value in ``wanted`` (at least one)."""
        sets = sorted((self._ids.get(pair, set()) for pair in wanted.items()), key=len)
        return sets[0].intersection(*sets[1:])
