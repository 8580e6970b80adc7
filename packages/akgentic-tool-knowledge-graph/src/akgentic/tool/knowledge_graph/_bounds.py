"""Fitting one read of the graph into its budget (:class:`ReadLimits`).

Two cuts, both reported in the answer's ``note``:

- an entity shows at most ``observations_per_hit`` observations, those containing a word
  of the query first, and a last line ``+N more observations`` stands for the rest;
- the whole answer, measured as the JSON the model reads, holds at most
  ``result_max_chars`` characters: items are kept best first (hits, then paths, edges,
  neighbours; each list in its own order) while they fit, and the first one that does not
  fit ends its list, so a kept item never ranks below a dropped one of the same list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from pydantic import BaseModel

from akgentic.tool.knowledge_graph.models import (
    Entity,
    GraphSearchResult,
    GraphView,
    ReadLimits,
)

__all__ = ["MORE_OBSERVATIONS", "fit_graph_view", "fit_search_result", "trim_entity"]

MORE_OBSERVATIONS: Final = "+{count} more observations"
# Room kept for the answer's own structure and its note, which are not items.
_RESERVED_CHARS: Final = 600


def trim_entity(entity: Entity, keep: int, query: str = "") -> tuple[Entity, int]:
    """``entity`` with at most ``keep`` observations, plus the number left out.

    Observations containing a word of ``query`` (case-insensitive) are shown first, so a
    keyword hit shows why it matched; the order among the shown ones is kept.
    """
    observations = entity.observations
    hidden = len(observations) - keep
    if hidden <= 0:
        return entity, 0
    words = [word for word in query.lower().split() if word]
    matching = [i for i, obs in enumerate(observations) if _mentions(obs, words)]
    chosen = set(matching[:keep])
    for i in range(len(observations)):
        if len(chosen) >= keep:
            break
        chosen.add(i)
    shown = [observations[i] for i in sorted(chosen)]
    shown.append(MORE_OBSERVATIONS.format(count=hidden))
    return entity.model_copy(update={"observations": tuple(shown)}), hidden


def fit_search_result(result: GraphSearchResult, limits: ReadLimits, query: str) -> None:
    """Trim the entities of ``result`` and cut it to ``limits`` (in place), noting cuts."""
    hit_hidden: list[int] = []
    for index, hit in enumerate(result.hits):
        count = 0
        if hit.entity is not None:
            entity, count = trim_entity(hit.entity, limits.observations_per_hit, query)
            if count:
                result.hits[index] = hit.model_copy(update={"entity": entity})
        hit_hidden.append(count)
    trimmed = [trim_entity(n, limits.observations_per_hit, query) for n in result.neighbors]
    result.neighbors = [entity for entity, _ in trimmed]

    budget = _Budget(limits.result_max_chars)
    cuts = [
        budget.cut("hits", result.hits),
        budget.cut("paths", result.paths),
        budget.cut("edges", result.edges),
        budget.cut("neighbours", result.neighbors),
    ]
    result.hits = _kept(result.hits, cuts[0])
    result.paths = _kept(result.paths, cuts[1])
    result.edges = _kept(result.edges, cuts[2])
    result.neighbors = _kept(result.neighbors, cuts[3])
    # Observations of the items shown: a dropped item's are counted in its list's cut.
    hidden = sum(hit_hidden[: cuts[0]]) + sum(count for _, count in trimmed[: cuts[3]])
    notes = [_observations_note(hidden)] if hidden else []
    if budget.dropped:
        notes.append(
            _size_note(limits.result_max_chars, budget.dropped)
            + "; narrow the search: a smaller top_k, fewer of include_neighbors / "
            "include_edges / find_paths, or a query naming the entity you need"
        )
    _add_notes(result, notes)


def fit_graph_view(view: GraphView, limits: ReadLimits) -> GraphView:
    """``view`` with its entities trimmed and cut to ``limits``, the cuts in its note."""
    trimmed = [trim_entity(entity, limits.observations_per_hit) for entity in view.entities]
    entities = [entity for entity, _ in trimmed]
    budget = _Budget(limits.result_max_chars)
    kept_entities = budget.cut("entities", entities)
    kept_relations = budget.cut("relations", view.relations)
    hidden = sum(count for _, count in trimmed[:kept_entities])
    notes = [_observations_note(hidden)] if hidden else []
    if budget.dropped:
        notes.append(
            _size_note(limits.result_max_chars, budget.dropped)
            + "; narrow the query: fewer entity_names, a smaller depth, or relation_types"
        )
    return GraphView(
        entities=entities[:kept_entities],
        relations=view.relations[:kept_relations],
        note="; ".join(notes) or None,
    )


class _Budget:
    """Characters left for items, and what each list lost to the limit."""

    def __init__(self, max_chars: int) -> None:
        self.left = max_chars - _RESERVED_CHARS
        self.dropped: list[tuple[str, int, int]] = []  # (list, dropped, total)

    def cut(self, label: str, items: Sequence[BaseModel]) -> int:
        """How many of ``items``, from the first, fit in what is left (which they use)."""
        for index, item in enumerate(items):
            size = len(item.model_dump_json()) + 1  # the separating comma
            if size > self.left:
                self.dropped.append((label, len(items) - index, len(items)))
                self.left = 0  # later lists get nothing: a smaller item must not jump in
                return index
            self.left -= size
        return len(items)


def _kept[T](items: list[T], count: int) -> list[T]:
    return items if count == len(items) else items[:count]


def _mentions(observation: str, words: list[str]) -> bool:
    lowered = observation.lower()
    return any(word in lowered for word in words)


def _observations_note(hidden: int) -> str:
    return (
        f"{hidden} observations not shown (each entity shows its first ones, those "
        "mentioning the query first); search with words of the one you need"
    )


def _size_note(max_chars: int, dropped: list[tuple[str, int, int]]) -> str:
    parts = ", ".join(f"{count} of {total} {label}" for label, count, total in dropped)
    return f"answer cut to {max_chars} characters: left out {parts}"


def _add_notes(result: GraphSearchResult, notes: list[str]) -> None:
    if notes:
        result.note = "; ".join([result.note, *notes] if result.note else notes)
