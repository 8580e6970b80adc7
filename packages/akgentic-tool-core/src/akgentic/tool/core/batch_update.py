"""One model call that creates, changes and deletes many items: its arguments and its answer.

Planning and the knowledge graph share this shape of tool. The call takes one list per kind
of change (``create_tasks``, ``delete_entities`` ...) and, for callers of the earlier
form, the same lists inside one ``update`` object; both are accepted at once, the flat
list first. Items are applied one by one: a rejected item changes nothing, the valid ones
are applied, and the model is told how many were rejected and why, with what was applied.
The actor computes the call's net delta from the first version of every item it touched.

Arguments reach these helpers unvalidated (a model may send anything): they only join and
route them, and leave validation to the tool's models so its errors name the field.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from akgentic.tool.errors import RetriableError

__all__ = ["NetChanges", "joined_lists", "net_changes", "raise_rejected"]


def joined_lists(flat: Mapping[str, Any], update: Any) -> dict[str, Any]:
    """Each list of ``flat`` (argument name -> value or None) followed by the same list of
    ``update`` (the nested object: a model, a dict or None).

    ``update`` may only hold the keys of ``flat``. A list missing from both comes back as
    ``[]``; a value that is not a list comes back as given, so that validation names it.
    """
    nested = _nested(update, tuple(flat))
    return {key: _joined(value, nested.get(key)) for key, value in flat.items()}


def raise_rejected(errors: Sequence[str], total: int, summary: str) -> None:
    """Refuse the call (``RetriableError``) when any of its ``total`` changes was rejected;
    the message lists each rejection and says what was applied all the same."""
    if errors:
        raise RetriableError(
            f"{len(errors)} of {total} change(s) rejected: "
            + "; ".join(errors)
            + f". Applied: {summary}."
        )


@dataclass
class NetChanges[K: Hashable, V]:
    """What a batch did to each touched item, comparing its first and last version."""

    added: list[V] = field(default_factory=list)
    modified: list[V] = field(default_factory=list)
    removed: list[tuple[K, V]] = field(default_factory=list)
    """The key and the first version of each item gone."""


def net_changes[K: Hashable, V](
    first: Mapping[K, V | None], now: Mapping[K, V]
) -> NetChanges[K, V]:
    """Sort the items of ``first`` (key -> version before the batch, None for an item the
    batch created) by what the batch did to them, in ``first``'s order.

    An item created and deleted in the same batch, or changed and changed back, appears
    nowhere: the delta holds the net effect only.
    """
    changes: NetChanges[K, V] = NetChanges()
    for key, before in first.items():
        after = now.get(key)
        if before is None:
            if after is not None:
                changes.added.append(after)
        elif after is None:
            changes.removed.append((key, before))
        elif after != before:
            changes.modified.append(after)
    return changes


def _nested(update: Any, lists: tuple[str, ...]) -> dict[str, Any]:
    """The lists given inside ``update`` (None values left out), unvalidated."""
    if update is None:
        return {}
    if isinstance(update, BaseModel):
        update = update.model_dump(exclude_unset=True)
    expected = ", ".join(lists)
    if not isinstance(update, dict):
        raise RetriableError(
            f"Invalid arguments: update must be an object with {expected}; "
            f"got {type(update).__name__} (nothing was changed)"
        )
    unknown = sorted(set(update) - set(lists))
    if unknown:
        raise RetriableError(
            f"Invalid arguments: update: unknown field(s) {', '.join(map(repr, unknown))}; "
            f"use {expected} (nothing was changed)"
        )
    return {key: value for key, value in update.items() if value is not None}


def _joined(flat: Any, nested: Any) -> Any:
    if nested is None:
        return [] if flat is None else flat
    if flat is None:
        return nested
    if isinstance(flat, list) and isinstance(nested, list):
        return [*flat, *nested]
    return flat if not isinstance(flat, list) else nested  # the one that is no list is reported
