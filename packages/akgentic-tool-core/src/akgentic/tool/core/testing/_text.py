"""How the kit shows values and predicates in its failure messages."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def shorten(value: Any, limit: int = 200) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def describe(predicate: Callable[[], Any]) -> str:
    """What a predicate checks, for a failure message.

    A named function is shown by name; a lambda by its source line, since its ``repr``
    (``<function <lambda> at 0x...>``) says nothing about what was awaited.
    """
    name: str | None = getattr(predicate, "__name__", None)
    if name is None:
        return shorten(predicate, 160)
    if name != "<lambda>":
        return name
    try:
        source = inspect.getsource(predicate).strip()
    except (OSError, TypeError):
        return "a lambda whose source is not available"
    return shorten(source, 160)
