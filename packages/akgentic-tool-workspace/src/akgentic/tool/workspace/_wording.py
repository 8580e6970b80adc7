"""Phrasing shared by the replies of several workspace operations."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` and `noun`, the noun in the plural unless the count is one (`1 line`, `2 lines`)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
