"""The shapes of Tavily's answers, checked before anything is read from them.

tavily-python hands back whatever JSON object the endpoint sent. Reading it with ``.get``
and ``isinstance`` silently turned a malformed answer into an empty or partial result; here
each answer is validated against the fields the tools use, and a mismatch becomes advice
that names the field at fault. Fields the tools do not use are ignored, so additions to
Tavily's API do not break anything.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from akgentic.tool.errors import RetriableError

__all__ = [
    "CrawlAnswer",
    "ExtractAnswer",
    "SearchAnswer",
    "parse_answer",
]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


class SearchHit(_Shape):
    url: str
    title: str | None = None
    content: str | None = None
    score: float | None = None


class SearchAnswer(_Shape):
    results: list[SearchHit]


class ExtractedPage(_Shape):
    url: str
    raw_content: str | None = None


class FailedPage(_Shape):
    url: str
    error: str | None = None


class ExtractAnswer(_Shape):
    results: list[ExtractedPage]
    failed_results: list[FailedPage] = []


class CrawledRecord(_Shape):
    url: str
    raw_content: str | None = None


class CrawlAnswer(_Shape):
    base_url: str | None = None
    results: list[CrawledRecord]


A = TypeVar("A", bound=_Shape)

# How many field problems one message lists; the rest are counted.
_SHOWN_PROBLEMS = 3


def parse_answer(action: str, shape: type[A], answer: Any) -> A:
    """``answer`` read as ``shape``, or a RetriableError naming the fields that do not fit."""
    try:
        return shape.model_validate(answer)
    except ValidationError as exc:
        problems = [f"{_where(e['loc'])}: {e['msg']}" for e in exc.errors()]
        shown = "; ".join(problems[:_SHOWN_PROBLEMS])
        more = len(problems) - _SHOWN_PROBLEMS
        extra = f" (and {more} more)" if more > 0 else ""
        raise RetriableError(
            f"{action} failed: Tavily's answer did not have the expected shape ({shown}{extra}). "
            "Retry once; if it fails again, continue without web results."
        ) from None


def _where(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "the answer"
