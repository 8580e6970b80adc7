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

from pydantic import BaseModel, ConfigDict, Field

from akgentic.tool.errors import RetriableError
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

# Problems named in one refusal; the rest are counted (a flood must not flood the error).
_PROBLEMS_SHOWN = 5


class InputLimits(BaseModel):
    """Most characters (or items) the model may write; defaults are the schema's ceilings."""

    model_config = ConfigDict(frozen=True)

    name_max_chars: int = Field(default=ENTITY_NAME_MAX_CHARS, ge=1, le=ENTITY_NAME_MAX_CHARS)
    entity_type_max_chars: int = Field(
        default=ENTITY_TYPE_MAX_CHARS, ge=1, le=ENTITY_TYPE_MAX_CHARS
    )
    entity_description_max_chars: int = Field(
        default=ENTITY_DESCRIPTION_MAX_CHARS, ge=0, le=ENTITY_DESCRIPTION_MAX_CHARS
    )
    observation_max_chars: int = Field(
        default=OBSERVATION_MAX_CHARS, ge=1, le=OBSERVATION_MAX_CHARS
    )
    observations_per_entity: int = Field(
        default=OBSERVATIONS_PER_ENTITY_MAX, ge=0, le=OBSERVATIONS_PER_ENTITY_MAX
    )
    relation_type_max_chars: int = Field(
        default=RELATION_TYPE_MAX_CHARS, ge=1, le=RELATION_TYPE_MAX_CHARS
    )
    relation_description_max_chars: int = Field(
        default=RELATION_DESCRIPTION_MAX_CHARS, ge=0, le=RELATION_DESCRIPTION_MAX_CHARS
    )
    query_max_chars: int = Field(default=QUERY_MAX_CHARS, ge=1, le=QUERY_MAX_CHARS)

    def describe_update(self) -> str | None:
        """The limits of ``update_graph`` lowered below the schema's, as one sentence for
        the tool description (None when none is)."""
        lowered = [
            f"{label} {value} characters"
            for label, value, ceiling in (
                ("entity names", self.name_max_chars, ENTITY_NAME_MAX_CHARS),
                ("entity types", self.entity_type_max_chars, ENTITY_TYPE_MAX_CHARS),
                (
                    "entity descriptions",
                    self.entity_description_max_chars,
                    ENTITY_DESCRIPTION_MAX_CHARS,
                ),
                ("observations", self.observation_max_chars, OBSERVATION_MAX_CHARS),
                ("relation types", self.relation_type_max_chars, RELATION_TYPE_MAX_CHARS),
                (
                    "relation descriptions",
                    self.relation_description_max_chars,
                    RELATION_DESCRIPTION_MAX_CHARS,
                ),
            )
            if value < ceiling
        ]
        if self.observations_per_entity < OBSERVATIONS_PER_ENTITY_MAX:
            lowered.append(f"{self.observations_per_entity} observations per entity")
        if not lowered:
            return None
        return "This team's tighter limits: " + ", ".join(lowered) + "."

    def describe_query(self) -> str | None:
        """The search text's limit, when lowered, as a sentence (None otherwise)."""
        if self.query_max_chars >= QUERY_MAX_CHARS:
            return None
        return f"This team limits the query to {self.query_max_chars} characters."


_CEILINGS = InputLimits()


def check_update(batch: ManageGraph, limits: InputLimits) -> None:
    """Refuse ``batch`` (RetriableError, nothing changed) if it writes past ``limits``."""
    if limits == _CEILINGS:
        return  # validation already enforced these
    _refuse(list(_update_problems(batch, limits)), "nothing was changed; shorten these")


def check_query(query: str, limits: InputLimits) -> None:
    """Refuse a search text longer than ``limits.query_max_chars``."""
    problems = list(_too_long("query", query, limits.query_max_chars, "query_max_chars"))
    _refuse(problems, "search with a few words or a short question")


def _update_problems(batch: ManageGraph, limits: InputLimits) -> Iterator[str]:
    for i, create in enumerate(batch.create_entities):
        at = f"create_entities[{i}]"
        yield from _too_long(f"{at}.name", create.name, limits.name_max_chars, "name_max_chars")
        yield from _too_long(
            f"{at}.entity_type",
            create.entity_type,
            limits.entity_type_max_chars,
            "entity_type_max_chars",
        )
        yield from _too_long(
            f"{at}.description",
            create.description,
            limits.entity_description_max_chars,
            "entity_description_max_chars",
        )
        yield from _observations(f"{at}.observations", create.observations, limits)
    for i, change in enumerate(batch.update_entities):
        at = f"update_entities[{i}]"
        yield from _too_long(
            f"{at}.entity_type",
            change.entity_type or "",
            limits.entity_type_max_chars,
            "entity_type_max_chars",
        )
        yield from _too_long(
            f"{at}.description",
            change.description or "",
            limits.entity_description_max_chars,
            "entity_description_max_chars",
        )
        yield from _observations(f"{at}.add_observations", change.added, limits)
    for i, relation in enumerate(batch.create_relations):
        at = f"create_relations[{i}]"
        yield from _too_long(
            f"{at}.relation_type",
            relation.relation_type,
            limits.relation_type_max_chars,
            "relation_type_max_chars",
        )
        yield from _too_long(
            f"{at}.description",
            relation.description,
            limits.relation_description_max_chars,
            "relation_description_max_chars",
        )


def _observations(at: str, observations: list[str], limits: InputLimits) -> Iterator[str]:
    if len(observations) > limits.observations_per_entity:
        yield (
            f"{at}: {len(observations)} observations, at most "
            f"{limits.observations_per_entity} (input_limits.observations_per_entity)"
        )
    for j, text in enumerate(observations):
        yield from _too_long(
            f"{at}[{j}]", text, limits.observation_max_chars, "observation_max_chars"
        )


def _too_long(at: str, text: str, limit: int, setting: str) -> Iterator[str]:
    if len(text) > limit:
        yield f"{at}: {len(text)} characters, at most {limit} (input_limits.{setting})"


def _refuse(problems: list[str], advice: str) -> None:
    if not problems:
        return
    shown = "; ".join(problems[:_PROBLEMS_SHOWN])
    if len(problems) > _PROBLEMS_SHOWN:
        shown += f"; and {len(problems) - _PROBLEMS_SHOWN} more"
    raise RetriableError(f"Invalid arguments: {shown}; {advice}")
