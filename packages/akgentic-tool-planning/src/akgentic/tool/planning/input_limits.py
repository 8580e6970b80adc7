"""Tighter bounds on what the model writes to the plan, configurable per card.

The constants of ``models`` are the ceilings, stated in the tool schema and enforced by
validation; a card's ``input_limits`` may lower them, never raise them. The lowered bounds
are applied at the tool's entry, after validation and before the plan actor is asked, the
same way as the ceilings: a description or owner too long, a list too long or a search
text too long refuses the call (nothing changes); an output too long is cut and marked,
since an output is a report the model has already written.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from akgentic.tool.core.input_limits import (
    LowerableLimits,
    lowerable,
    refuse_problems,
    tighter_limits,
    too_long,
)
from akgentic.tool.planning.models import (
    BATCH_MAX_ITEMS,
    DESCRIPTION_MAX_CHARS,
    OUTPUT_MAX_CHARS,
    OWNER_MAX_CHARS,
    QUERY_MAX_CHARS,
    TaskCreate,
    TaskUpdate,
)

__all__ = ["PlanInputLimits", "cut_outputs", "refuse_over_limit"]


class PlanInputLimits(LowerableLimits):
    """How much ``update_planning`` and ``search_planning`` accept, for a team that wants
    less than the schema's ceilings (the defaults)."""

    description_max_chars: int = lowerable(DESCRIPTION_MAX_CHARS)
    output_max_chars: int = lowerable(OUTPUT_MAX_CHARS)
    owner_max_chars: int = lowerable(OWNER_MAX_CHARS)
    query_max_chars: int = lowerable(QUERY_MAX_CHARS)
    tasks_per_call: int = lowerable(BATCH_MAX_ITEMS)

    def describe(self) -> str | None:
        """The lowered bounds as one sentence for ``update_planning``'s description."""
        return tighter_limits(
            (
                ("descriptions {}", self.description_max_chars, DESCRIPTION_MAX_CHARS),
                ("outputs {}", self.output_max_chars, OUTPUT_MAX_CHARS),
                ("owners {}", self.owner_max_chars, OWNER_MAX_CHARS),
                ("items per list {}", self.tasks_per_call, BATCH_MAX_ITEMS),
            )
        )


def refuse_over_limit(
    limits: PlanInputLimits,
    creates: list[TaskCreate],
    updates: list[TaskUpdate],
    deletes: list[int],
) -> None:
    """A RetriableError (nothing changed) naming each field of the batch past ``limits``."""
    refuse_problems(_problems(limits, creates, updates, deletes))


def cut_outputs[M: (TaskCreate, TaskUpdate)](items: list[M], limit: int) -> list[M]:
    """``items`` with each output past ``limit`` characters cut and marked with ``…``."""
    return [
        item.model_copy(update={"output": item.output[: limit - 1].rstrip() + "…"})
        if item.output is not None and len(item.output) > limit
        else item
        for item in items
    ]


def _problems(
    limits: PlanInputLimits,
    creates: list[TaskCreate],
    updates: list[TaskUpdate],
    deletes: list[int],
) -> Iterator[str]:
    for name, count in (
        ("create_tasks", len(creates)),
        ("update_tasks", len(updates)),
        ("delete_tasks", len(deletes)),
    ):
        if count > limits.tasks_per_call:
            yield (
                f"{name}: {count} items, at most {limits.tasks_per_call} per call "
                "(input_limits.tasks_per_call); split the batch"
            )
    written: tuple[tuple[str, Sequence[TaskCreate | TaskUpdate]], ...] = (
        ("create_tasks", creates),
        ("update_tasks", updates),
    )
    for where, items in written:
        for i, item in enumerate(items):
            yield from too_long(
                f"{where}[{i}].description",
                item.description or "",
                limits,
                "description_max_chars",
            )
            yield from too_long(f"{where}[{i}].owner", item.owner or "", limits, "owner_max_chars")
