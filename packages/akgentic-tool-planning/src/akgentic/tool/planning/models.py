"""Tasks of the team plan, and the shapes the model uses to create and change them.

The limits are part of the tool schema the model sees: a description holds at most
``DESCRIPTION_MAX_CHARS`` characters (longer is refused), an output at most
``OUTPUT_MAX_CHARS`` (longer is cut, never refused, since an output is a report the model
has already written), an owner at most ``OWNER_MAX_CHARS`` (longer is refused: every
teammate's prompt counts owners, so an unbounded name would flood them all). Stored tasks
are frozen: a change replaces the object.

The other limits bound what one call or the plan as a whole may hold: ``BATCH_MAX_ITEMS``
items per list argument of ``update_planning``, ``PLAN_MAX_TASKS`` tasks in the plan,
``QUERY_MAX_CHARS`` characters of search text, and ``PROMPT_MAX_OWNERS`` owners named in the
prompt's owner line (the rest are counted).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "BATCH_MAX_ITEMS",
    "DEPENDENCIES_MAX",
    "DESCRIPTION_MAX_CHARS",
    "OUTPUT_MAX_CHARS",
    "OWNER_MAX_CHARS",
    "PLAN_MAX_TASKS",
    "PROMPT_MAX_OWNERS",
    "QUERY_MAX_CHARS",
    "TASK_STATUSES",
    "Task",
    "TaskCreate",
    "TaskStatus",
    "TaskUpdate",
    "UpdatePlan",
    "normalize_agent",
    "truncate_output",
]

DESCRIPTION_MAX_CHARS: Final = 300
OUTPUT_MAX_CHARS: Final = 150
# An agent name such as '@Alice': real names are a few dozen characters at most.
OWNER_MAX_CHARS: Final = 100
# Items per list argument of one update_planning call (the benchmark's batches hold 50).
BATCH_MAX_ITEMS: Final = 100
# Tasks the plan holds; a team plan of this size is already past what a prompt can show.
PLAN_MAX_TASKS: Final = 10_000
# Search text: a question or a few words, never a document.
QUERY_MAX_CHARS: Final = 500
# Owners named on the prompt's owner line; the rest are summed into one entry.
PROMPT_MAX_OWNERS: Final = 20

# 'abort' (given up) is the predecessor's status; stored plans and restored conversations
# use it, so it stays accepted next to 'blocked' (waiting on something outside the plan).
TaskStatus = Literal["pending", "started", "completed", "blocked", "abort"]
TASK_STATUSES: Final[tuple[str, ...]] = ("pending", "started", "completed", "blocked", "abort")
# Dependencies one task may list: a task waiting on more is a plan to split.
DEPENDENCIES_MAX: Final = 50

# Status is typed as a plain string in the input models (with the allowed values in the
# schema) so that one bad status rejects one item of a batch, not the whole call.
_STATUS_SCHEMA: dict[str, Any] = {"enum": list(TASK_STATUSES)}


def truncate_output(text: str) -> str:
    """Cut ``text`` to ``OUTPUT_MAX_CHARS`` characters, marking the cut with an ellipsis."""
    text = text.strip()
    if len(text) <= OUTPUT_MAX_CHARS:
        return text
    return text[: OUTPUT_MAX_CHARS - 1].rstrip() + "…"


def normalize_agent(name: str) -> str:
    """An agent reference as the team writes it: ``@Name`` (empty stays empty)."""
    name = name.strip()
    if not name:
        return ""
    return name if name.startswith("@") else f"@{name}"


def _now() -> datetime:
    return datetime.now(UTC)


class Task(BaseModel):
    """One task of the plan. ``owner`` is empty while nobody is assigned.

    ``dependencies`` are the ids of the tasks that must be completed before this one; the
    plan keeps them pointing at existing tasks and free of cycles. ``updated_at`` is when
    the task last changed.
    """

    model_config = ConfigDict(frozen=True)

    id: int
    description: str
    status: TaskStatus = "pending"
    owner: str = ""
    creator: str = ""
    output: str = ""
    dependencies: list[int] = Field(default_factory=list)
    updated_at: datetime = Field(default_factory=_now)

    def line(self) -> str:
        """The task on one line, as listed in the plan and in search results."""
        text = f"- ID {self.id} [{self.status}] {self.description}"
        if self.output:
            text += f" — Output: {self.output}"
        if self.dependencies:
            text += " — Depends on: " + ", ".join(f"#{i}" for i in self.dependencies)
        owner = self.owner or "unassigned"
        return f"{text} (Owner: {owner}, Creator: {self.creator or 'unknown'})"

    def same_content(self, other: Task) -> bool:
        """Whether ``other`` holds the same task, ``updated_at`` aside."""
        return self.model_dump(exclude={"updated_at"}) == other.model_dump(exclude={"updated_at"})


_DEPENDENCIES_DESCRIPTION = (
    "Ids of the tasks that must be completed before this one; they must exist, and a task "
    f"cannot end up depending on itself. At most {DEPENDENCIES_MAX}."
)


class TaskCreate(BaseModel):
    """A new task. The plan assigns its id unless ``id`` names a free one."""

    id: int | None = Field(
        default=None,
        ge=1,
        description="Optional id for the new task (must not be taken); left out, the plan "
        "assigns the next free id.",
    )
    description: str = Field(
        min_length=1,
        max_length=DESCRIPTION_MAX_CHARS,
        description=f"What is to be done; at most {DESCRIPTION_MAX_CHARS} characters.",
    )
    owner: str = Field(
        default="",
        max_length=OWNER_MAX_CHARS,
        description=(
            f"Agent responsible, e.g. '@Alice'; empty: none. At most {OWNER_MAX_CHARS} characters."
        ),
    )
    status: str = Field(default="pending", json_schema_extra=_STATUS_SCHEMA)
    output: str = Field(
        default="",
        max_length=OUTPUT_MAX_CHARS,
        description=f"Result summary; at most {OUTPUT_MAX_CHARS} characters (longer is cut).",
    )
    dependencies: list[int] = Field(
        default_factory=list, max_length=DEPENDENCIES_MAX, description=_DEPENDENCIES_DESCRIPTION
    )

    @field_validator("output", mode="before")
    @classmethod
    def truncate_output(cls, v: Any) -> Any:
        """An output longer than ``OUTPUT_MAX_CHARS`` is cut, never refused."""
        return truncate_output(v) if isinstance(v, str) else v


class TaskUpdate(BaseModel):
    """Changes to an existing task, by id; fields left out are kept."""

    id: int = Field(description="Id of the task to change.")
    description: str | None = Field(
        default=None,
        min_length=1,
        max_length=DESCRIPTION_MAX_CHARS,
        description=f"New description; at most {DESCRIPTION_MAX_CHARS} characters.",
    )
    owner: str | None = Field(
        default=None,
        max_length=OWNER_MAX_CHARS,
        description=f"New owner; empty string: unassign. At most {OWNER_MAX_CHARS} characters.",
    )
    status: str | None = Field(default=None, json_schema_extra=_STATUS_SCHEMA)
    output: str | None = Field(
        default=None,
        max_length=OUTPUT_MAX_CHARS,
        description=f"Result summary; at most {OUTPUT_MAX_CHARS} characters (longer is cut).",
    )
    dependencies: list[int] | None = Field(
        default=None,
        max_length=DEPENDENCIES_MAX,
        description="New list of dependency ids (replaces the old one; [] clears it). "
        + _DEPENDENCIES_DESCRIPTION,
    )

    @field_validator("output", mode="before")
    @classmethod
    def truncate_output(cls, v: Any) -> Any:
        """An output longer than ``OUTPUT_MAX_CHARS`` is cut, never refused."""
        return truncate_output(v) if isinstance(v, str) else v


class UpdatePlan(BaseModel):
    """One batch of plan changes in one object: the predecessor's ``update_planning(update=...)``
    argument, accepted next to the three separate lists."""

    create_tasks: list[TaskCreate] = Field(default_factory=list, description="Tasks to add.")
    update_tasks: list[TaskUpdate] = Field(
        default_factory=list, description="Changes to existing tasks, by id."
    )
    delete_tasks: list[int] = Field(default_factory=list, description="Ids of tasks to delete.")
