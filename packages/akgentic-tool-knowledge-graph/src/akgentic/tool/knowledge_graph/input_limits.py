"""Tighter bounds on what the model writes, configurable per card (``input_limits``).

The constants of ``models`` are the ceilings, stated in the tool schema the model sees and
enforced by validation. A card may lower them (a team that wants short observations, or
short search texts), never raise them past the schema. These lower bounds are checked at
the tool's entry, after validation and before the graph actor is asked, so a refusal
changes nothing. Only new content is checked: names and texts that refer to items already
in the graph (an update's or a deletion's name, a relation's ends) keep the schema's
ceilings, so an item created before a limit was lowered can still be reached.
"""

from __future__ import annotations

from collections.abc import Iterator

from akgentic.tool.core.input_limits import (
    LowerableLimits,
    lowerable,
    query_limit_note,
    refuse_problems,
    tighter_limits,
    too_long,
)
from akgentic.tool.knowledge_graph.models import (
    ENTITY_DESCRIPTION_MAX_CHARS,
    ENTITY_NAME_MAX_CHARS,
    ENTITY_TYPE_MAX_CHARS,
    OBSERVATION_MAX_CHARS,
    OBSERVATIONS_PER_ENTITY_MAX,
    QUERY_MAX_CHARS,
    RELATION_DESCRIPTION_MAX_CHARS,
    RELATION_TYPE_MAX_CHARS,
    ManageGraph,
)

__all__ = ["InputLimits", "check_query", "check_update"]


class InputLimits(LowerableLimits):
    """How much ``update_graph`` and ``search_graph`` accept, for a team that wants less
    than the schema's ceilings (the defaults)."""

    name_max_chars: int = lowerable(ENTITY_NAME_MAX_CHARS)
    entity_type_max_chars: int = lowerable(ENTITY_TYPE_MAX_CHARS)
    entity_description_max_chars: int = lowerable(ENTITY_DESCRIPTION_MAX_CHARS, floor=0)
    observation_max_chars: int = lowerable(OBSERVATION_MAX_CHARS)
    observations_per_entity: int = lowerable(OBSERVATIONS_PER_ENTITY_MAX, floor=0)
    relation_type_max_chars: int = lowerable(RELATION_TYPE_MAX_CHARS)
    relation_description_max_chars: int = lowerable(RELATION_DESCRIPTION_MAX_CHARS, floor=0)
    query_max_chars: int = lowerable(QUERY_MAX_CHARS)

    def describe_update(self) -> str | None:
        """The limits of ``update_graph`` lowered below the schema's, as one sentence for
        the tool description (None when none is)."""
        return tighter_limits(
            (
                ("entity names {} characters", self.name_max_chars, ENTITY_NAME_MAX_CHARS),
                ("entity types {} characters", self.entity_type_max_chars, ENTITY_TYPE_MAX_CHARS),
                (
                    "entity descriptions {} characters",
                    self.entity_description_max_chars,
                    ENTITY_DESCRIPTION_MAX_CHARS,
                ),
                ("observations {} characters", self.observation_max_chars, OBSERVATION_MAX_CHARS),
                (
                    "relation types {} characters",
                    self.relation_type_max_chars,
                    RELATION_TYPE_MAX_CHARS,
                ),
                (
                    "relation descriptions {} characters",
                    self.relation_description_max_chars,
                    RELATION_DESCRIPTION_MAX_CHARS,
                ),
                (
                    "{} observations per entity",
                    self.observations_per_entity,
                    OBSERVATIONS_PER_ENTITY_MAX,
                ),
            )
        )

    def describe_query(self) -> str | None:
        """The search text's limit, when lowered, as a sentence (None otherwise)."""
        return query_limit_note(self.query_max_chars, QUERY_MAX_CHARS)


_CEILINGS = InputLimits()


def check_update(batch: ManageGraph, limits: InputLimits) -> None:
    """Refuse ``batch`` (RetriableError, nothing changed) if it writes past ``limits``."""
    if limits == _CEILINGS:
        return  # validation already enforced these
    refuse_problems(_update_problems(batch, limits), "shorten these")


def check_query(query: str, limits: InputLimits) -> None:
    """Refuse a search text longer than ``limits.query_max_chars``."""
    problems = too_long("query", query, limits, "query_max_chars")
    refuse_problems(problems, "search with a few words or a short question")


def _update_problems(batch: ManageGraph, limits: InputLimits) -> Iterator[str]:
    for i, create in enumerate(batch.create_entities):
        at = f"create_entities[{i}]"
        yield from too_long(f"{at}.name", create.name, limits, "name_max_chars")
        yield from _entity_texts(at, create.entity_type, create.description, limits)
        yield from _observations(f"{at}.observations", create.observations, limits)
    for i, change in enumerate(batch.update_entities):
        at = f"update_entities[{i}]"
        yield from _entity_texts(at, change.entity_type or "", change.description or "", limits)
        yield from _observations(f"{at}.add_observations", change.added, limits)
    for i, relation in enumerate(batch.create_relations):
        at = f"create_relations[{i}]"
        yield from too_long(
            f"{at}.relation_type", relation.relation_type, limits, "relation_type_max_chars"
        )
        yield from too_long(
            f"{at}.description", relation.description, limits, "relation_description_max_chars"
        )


def _entity_texts(
    at: str, entity_type: str, description: str, limits: InputLimits
) -> Iterator[str]:
    yield from too_long(f"{at}.entity_type", entity_type, limits, "entity_type_max_chars")
    yield from too_long(f"{at}.description", description, limits, "entity_description_max_chars")


def _observations(at: str, observations: list[str], limits: InputLimits) -> Iterator[str]:
    if len(observations) > limits.observations_per_entity:
        yield (
            f"{at}: {len(observations)} observations, at most "
            f"{limits.observations_per_entity} (input_limits.observations_per_entity)"
        )
    for j, text in enumerate(observations):
        yield from too_long(f"{at}[{j}]", text, limits, "observation_max_chars")
