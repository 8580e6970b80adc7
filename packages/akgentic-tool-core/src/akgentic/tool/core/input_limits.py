"""Bounds a card may lower on what the model writes through its tools (``input_limits``).

A tool's models state ceilings (the most characters of a name, the most items of a list):
they are in the schema the model sees and validation enforces them. A team may want less
(short observations, short search texts), so a card can carry a model of lower bounds whose
fields default to those ceilings. Such a bound may go down, never up past the schema.

The lowered bounds are checked at the tool's entry, after validation and before the tool's
actor is asked, so a refusal changes nothing. Each problem names where it is (the argument
path), how long the text is, the limit and the setting that set it; one refusal names a
few problems and counts the rest, so a flood of bad items cannot flood the answer. The
tool's description says which bounds are lowered, so the model need not learn them by
being refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from akgentic.tool.errors import RetriableError

__all__ = [
    "LowerableLimits",
    "lowerable",
    "query_limit_note",
    "refuse_problems",
    "tighter_limits",
    "too_long",
]

_PROBLEMS_SHOWN = 5  # problems named in one refusal; the others are counted


class LowerableLimits(BaseModel):
    """Base of a card's ``input_limits`` model: each field a bound made with
    :func:`lowerable`. Frozen, so cards holding the same limits compare equal and a tool
    can tell the ceilings from lowered bounds by comparing with a default instance."""

    model_config = ConfigDict(frozen=True)


def lowerable(ceiling: int, *, floor: int = 1) -> Any:
    """A bound field of an input-limits model: ``ceiling`` by default, settable from
    ``floor`` up to ``ceiling`` and no higher."""
    return Field(default=ceiling, ge=floor, le=ceiling)


def too_long(at: str, text: str, limits: LowerableLimits, setting: str) -> Iterator[str]:
    """One problem when ``text`` (at argument path ``at``) is longer than the bound
    ``limits.<setting>``; the problem names that setting."""
    limit: int = getattr(limits, setting)
    if len(text) > limit:
        yield f"{at}: {len(text)} characters, at most {limit} (input_limits.{setting})"


def refuse_problems(problems: Iterable[str], advice: str = "") -> None:
    """Refuse the call (``RetriableError``, nothing changed) when there is any problem; the
    message names the first few, counts the rest and ends with ``advice`` when given."""
    found = list(problems)
    if not found:
        return
    shown = "; ".join(found[:_PROBLEMS_SHOWN])
    if len(found) > _PROBLEMS_SHOWN:
        shown += f"; and {len(found) - _PROBLEMS_SHOWN} more"
    ending = f"; {advice}" if advice else ""
    raise RetriableError(f"Invalid arguments (nothing was changed): {shown}{ending}")


def tighter_limits(bounds: Iterable[tuple[str, int, int]]) -> str | None:
    """The bounds lowered below their ceiling as one sentence for a tool's description, or
    None when none is.

    Each bound is ``(phrase, value, ceiling)``; the phrase shows the value where it holds
    ``{}`` (``"entity names {} characters"``, ``"{} observations per entity"``).
    """
    lowered = [phrase.format(value) for phrase, value, ceiling in bounds if value < ceiling]
    if not lowered:
        return None
    return "This team's tighter limits: " + ", ".join(lowered) + "."


def query_limit_note(limit: int, ceiling: int) -> str | None:
    """The search text's bound, when lowered below ``ceiling``, as a sentence (else None)."""
    if limit >= ceiling:
        return None
    return f"This team limits the query to {limit} characters."
