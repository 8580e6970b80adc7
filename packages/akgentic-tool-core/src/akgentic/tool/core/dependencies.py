"""Wiring order of cards: a card is attached after the cards it names in ``depends_on``.

Dependencies are by class name, so a consumer never imports the package it depends on.
A name that matches a known card class absent from this factory is skipped (the consumer
is expected to degrade, e.g. to keyword search without a vector store); a name that is no
card class at all is a configuration mistake and fails loudly, as does a cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from akgentic.tool.core.card import ToolCard

__all__ = ["CardDependencyError", "known_card_names", "order_cards"]


class CardDependencyError(ValueError):
    """``depends_on`` names an unknown card class, or the cards depend on one another in a cycle."""


def known_card_names() -> set[str]:
    """Class names of every ToolCard subclass defined so far, plus installed exports."""
    names: set[str] = set()
    stack: list[type[ToolCard]] = [ToolCard]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub.__name__ not in names:
                names.add(sub.__name__)
                stack.append(sub)
    from akgentic.tool.core.registry import KNOWN_EXPORTS, exported_names

    # Our own domain cards count as known even when their distribution is absent: a
    # consumer may name one in depends_on and degrade when it is not in the factory.
    return names | set(exported_names()) | set(KNOWN_EXPORTS)


def order_cards(cards: Sequence[ToolCard], known: Iterable[str] | None = None) -> list[ToolCard]:
    """Return ``cards`` in an order where each card follows the cards it depends on.

    The sort is stable: cards with no ordering constraint keep their given order.
    """
    present: dict[str, list[int]] = {}
    for index, card in enumerate(cards):
        present.setdefault(type(card).__name__, []).append(index)

    known_names: set[str] | None = set(known) if known is not None else None
    edges: dict[int, list[int]] = {i: [] for i in range(len(cards))}
    for index, card in enumerate(cards):
        for name in card.depends_on:
            if name in present:
                edges[index].extend(present[name])
                continue
            if known_names is None:
                known_names = known_card_names()
            if name not in known_names:
                raise CardDependencyError(
                    f"{type(card).__name__}.depends_on names {name!r}, which is not a known "
                    "tool card class; check the spelling or install the package that defines it"
                )

    ordered: list[int] = []
    state: dict[int, int] = {}  # 1 = visiting, 2 = done

    def visit(index: int, path: list[int]) -> None:
        if state.get(index) == 2:
            return
        if state.get(index) == 1:
            cycle = [*path[path.index(index) :], index]
            names = " -> ".join(type(cards[i]).__name__ for i in cycle)
            raise CardDependencyError(f"tool cards depend on each other in a cycle: {names}")
        state[index] = 1
        for dep in edges[index]:
            if dep != index:
                visit(dep, [*path, index])
        state[index] = 2
        ordered.append(index)

    for index in range(len(cards)):
        visit(index, [])
    return [cards[i] for i in ordered]
