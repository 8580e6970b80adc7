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

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "BATCH_MAX_ITEMS",
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

TaskStatus = Literal["pending", "started", "completed", "blocked"]
TASK_STATUSES: Final[tuple[str, ...]] = ("pending", "started", "completed", "blocked")

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


class Task(BaseModel):
    """One task of the plan. ``owner`` is empty while nobody is assigned."""

    model_config = ConfigDict(frozen=True)

    id: int
    description: str
    status: TaskStatus = "pending"
    owner: str = ""
    creator: str = ""
    output: str = ""

    def line(self) -> str:
        """The task on one line, as listed in the plan and in search results."""
        text = f"- ID {self.id} [{self.status}] {self.description}"
        if self.output:
            text += f" — Output: {self.output}"
        owner = self.owner or "unassigned"
        return f"{text} (Owner: {owner}, Creator: {self.creator or 'unknown'})"


class TaskCreate(BaseModel):
    """A new task; the plan assigns its id."""

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

    @field_validator("output", mode="before")
    @classmethod
    def _cut_output(cls, value: Any) -> Any:
        return truncate_output(value) if isinstance(value, str) else value


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

    @field_validator("output", mode="before")
    @classmethod
    def _cut_output(cls, value: Any) -> Any:
        return truncate_output(value) if isinstance(value, str) else value
