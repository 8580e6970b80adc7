"""Applying one batch of task creations, updates and deletions to the plan.

Items are checked one by one against the plan as the batch has left it; a rejected item
changes nothing and is reported by position, the others are applied. The delta holds the
net effect per task (a task created and deleted in one call appears nowhere).

A batch that would leave the plan with more than ``PLAN_MAX_TASKS`` tasks is refused as a
whole, before anything is applied: which creations to drop is the model's choice to make.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

from akgentic.tool.core.batch_update import net_changes
from akgentic.tool.planning.event import PlanningStateEvent
from akgentic.tool.planning.models import (
    PLAN_MAX_TASKS,
    TASK_STATUSES,
    Task,
    TaskCreate,
    TaskStatus,
    TaskUpdate,
    normalize_agent,
)
from akgentic.tool.planning.state import PlanState


@dataclass
class PlanUpdateOutcome:
    """Net delta, rejections, ids created, and a one-line summary.

    ``refused`` is set (and nothing applied) when the whole batch was turned down.
    """

    delta: PlanningStateEvent
    errors: list[str] = field(default_factory=list)
    created: list[int] = field(default_factory=list)
    summary: str = ""
    refused: str | None = None


def _status_error(where: str, status: str) -> str:
    return f"{where}: invalid status {status!r} (use one of {', '.join(TASK_STATUSES)})"


def apply_plan_update(
    state: PlanState,
    creates: list[TaskCreate],
    updates: list[TaskUpdate],
    deletes: list[int],
    creator: str,
) -> PlanUpdateOutcome:
    """Apply the batch to ``state`` on behalf of agent ``creator``.

    Creations come first (in order: a new task may depend on a task created before it in
    the same call), then updates, then deletions; deleting a task also removes it from the
    dependencies of the tasks that listed it.
    """
    refused = _capacity_refusal(state, len(creates), deletes)
    if refused is not None:
        return PlanUpdateOutcome(delta=PlanningStateEvent(), summary="no change", refused=refused)
    before: dict[int, Task | None] = {}
    errors: list[str] = []
    created: list[int] = []
    creator = normalize_agent(creator)

    for i, new in enumerate(creates):
        where = f"create_tasks[{i}]"
        if new.status not in TASK_STATUSES:
            errors.append(_status_error(where, new.status))
            continue
        if new.id is not None and new.id in state.tasks:
            errors.append(
                f"{where}: task id {new.id} already exists (leave id out to get a free one, "
                "or change that task with update_tasks)"
            )
            continue
        problem = _dependency_problem(state, new.id, new.dependencies)
        if problem is not None:
            errors.append(f"{where}: {problem}")
            continue
        task_id = state.allocate_id() if new.id is None else new.id
        before[task_id] = None
        state.put_task(
            Task(
                id=task_id,
                description=new.description.strip(),
                status=cast(TaskStatus, new.status),  # checked above
                owner=normalize_agent(new.owner),
                creator=creator,
                output=new.output,
                dependencies=_unique(new.dependencies),
            )
        )
        created.append(task_id)

    for i, change in enumerate(updates):
        where = f"update_tasks[{i}] (task {change.id})"
        current = state.tasks.get(change.id)
        if current is None:
            errors.append(f"{where}: unknown task id {change.id}")
            continue
        if change.status is not None and change.status not in TASK_STATUSES:
            errors.append(_status_error(where, change.status))
            continue
        fields: dict[str, object] = {}
        if change.dependencies is not None:
            problem = _dependency_problem(state, change.id, change.dependencies)
            if problem is not None:
                errors.append(f"{where}: {problem}")
                continue
            fields["dependencies"] = _unique(change.dependencies)
        if change.description is not None:
            fields["description"] = change.description.strip()
        if change.owner is not None:
            fields["owner"] = normalize_agent(change.owner)
        if change.status is not None:
            fields["status"] = change.status
        if change.output is not None:
            fields["output"] = change.output
        _replace(state, before, current, fields)

    for i, task_id in enumerate(deletes):
        current = state.tasks.get(task_id)
        if current is None:
            errors.append(f"delete_tasks[{i}]: unknown task id {task_id}")
            continue
        before.setdefault(task_id, current)
        state.remove_task(task_id)
        for other in [t for t in state.tasks.values() if task_id in t.dependencies]:
            kept = [d for d in other.dependencies if d != task_id]
            _replace(state, before, other, {"dependencies": kept})

    changes = net_changes(before, state.tasks)
    delta = PlanningStateEvent(
        tasks_added=changes.added,
        tasks_modified=changes.modified,
        tasks_removed=[task_id for task_id, _ in changes.removed],
    )
    created = [task_id for task_id in created if task_id in state.tasks]
    return PlanUpdateOutcome(delta=delta, errors=errors, created=created, summary=_summary(delta))


def _replace(
    state: PlanState, before: dict[int, Task | None], current: Task, fields: dict[str, object]
) -> None:
    """Store ``current`` with ``fields`` changed; ``updated_at`` moves only on a real change."""
    changed = current.model_copy(update=fields)
    if changed.same_content(current):
        return
    before.setdefault(current.id, current)
    state.put_task(changed.model_copy(update={"updated_at": datetime.now(UTC)}))


def _unique(ids: list[int]) -> list[int]:
    return list(dict.fromkeys(ids))


def _dependency_problem(
    state: PlanState, task_id: int | None, dependencies: list[int]
) -> str | None:
    """Why ``dependencies`` cannot be those of task ``task_id`` (None: a task not created yet),
    or None when they can: every id must name an existing task, never the task itself, and
    no chain of dependencies may lead back to the task."""
    for dep in dependencies:
        if dep == task_id:
            return f"a task cannot depend on itself (dependencies holds {dep})"
        if dep not in state.tasks:
            return (
                f"dependency {dep} is not a task of the plan (create it first, or earlier "
                "in create_tasks)"
            )
    if task_id is None:
        return None  # a task without an id yet has no dependents: no cycle possible
    # A new task with a chosen id is walked too: a plan restored from elsewhere may hold
    # tasks that already depend on that id.
    cycle = _path_to(state, dependencies, task_id)
    if cycle is not None:
        chain = " -> ".join(f"#{i}" for i in [task_id, *cycle])
        return f"dependencies would form a cycle ({chain})"
    return None


def _path_to(state: PlanState, starts: list[int], target: int) -> list[int] | None:
    """A dependency chain from one of ``starts`` to ``target`` (depth first), or None."""
    parents: dict[int, int | None] = {}
    stack: list[tuple[int, int | None]] = [(start, None) for start in reversed(starts)]
    while stack:
        node, parent = stack.pop()
        if node in parents:
            continue
        parents[node] = parent
        if node == target:
            path = [node]
            while (step := parents[path[-1]]) is not None:
                path.append(step)
            return list(reversed(path))
        task = state.tasks.get(node)
        if task is not None:
            stack.extend((dep, node) for dep in reversed(task.dependencies) if dep not in parents)
    return None


def _capacity_refusal(state: PlanState, creating: int, deletes: list[int]) -> str | None:
    """Why the batch would overfill the plan, or None when it fits.

    Counted pessimistically: every creation as if valid, only deletions of existing tasks.
    """
    if creating == 0:
        return None
    removing = len({task_id for task_id in deletes if task_id in state.tasks})
    after = len(state.tasks) + creating - removing
    if after <= PLAN_MAX_TASKS:
        return None
    return (
        f"create_tasks: the plan holds at most {PLAN_MAX_TASKS} tasks; it has "
        f"{len(state.tasks)} and this call would leave {after} (nothing was changed). "
        "Delete finished tasks (delete_tasks) or create fewer."
    )


def _summary(delta: PlanningStateEvent) -> str:
    parts: list[str] = []
    if delta.tasks_added:
        parts.append("created " + ", ".join(f"#{t.id}" for t in delta.tasks_added))
    if delta.tasks_modified:
        parts.append("updated " + ", ".join(f"#{t.id}" for t in delta.tasks_modified))
    if delta.tasks_removed:
        parts.append("deleted " + ", ".join(f"#{i}" for i in delta.tasks_removed))
    return "; ".join(parts) if parts else "no change"
