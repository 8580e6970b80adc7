"""The knowledge graph's data: entities, relations, the batch update and the search query.

Stored items (:class:`Entity`, :class:`Relation`) are frozen. A change replaces the object
instead of editing it, which is what lets a state snapshot share items with the live graph
(copying only the containers) and lets a delta event hold them without defensive copies.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DEFAULT_KG_SCORE_THRESHOLD",
    "DEFAULT_KG_TOP_K",
    "Entity",
    "EntityCreate",
    "EntityUpdate",
    "GraphPath",
    "GraphSearchHit",
    "GraphSearchResult",
    "ManageGraph",
    "MatchKind",
    "Relation",
    "RelationCreate",
    "RelationDelete",
    "SearchMode",
    "SearchQuery",
    "relation_key",
]

DEFAULT_KG_TOP_K = 10
# Lower than planning's threshold on purpose: graph exploration favours recall.
DEFAULT_KG_SCORE_THRESHOLD = 0.3

SearchMode = Literal["hybrid", "keyword", "vector"]
MatchKind = Literal["keyword", "vector", "both"]

_NAME = Field(min_length=1, max_length=200, description="Unique entity name (its id).")
_TYPE = Field(min_length=1, max_length=100, description="Entity type, e.g. 'Person'.")


def relation_key(from_entity: str, relation_type: str, to_entity: str) -> str:
    """The identity of a relation: its two ends and its type, as one unambiguous string.

    A JSON array keeps names containing any separator character apart, and the key stays
    readable in a persisted snapshot. (Default ``json.dumps`` arguments on purpose: they
    use the module's cached C encoder, several times faster than a custom one.)
    """
    return json.dumps([from_entity, relation_type, to_entity])


class Entity(BaseModel):
    """A node of the graph, identified by its ``name``.

    Immutable all the way down (observations are a tuple): the actor hands its entities
    to callers and to snapshots without copying them.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    entity_type: str
    description: str = ""
    observations: tuple[str, ...] = ()
    is_root: bool = Field(
        default=False, description="Root entities are listed in the graph overview."
    )


class Relation(BaseModel):
    """A directed, typed edge between two entities."""

    model_config = ConfigDict(frozen=True)

    from_entity: str
    to_entity: str
    relation_type: str
    description: str = ""

    @property
    def key(self) -> str:
        """See :func:`relation_key`."""
        return relation_key(self.from_entity, self.relation_type, self.to_entity)

    def label(self) -> str:
        """``from -[type]-> to``, the form used in messages to the model."""
        return f"{self.from_entity} -[{self.relation_type}]-> {self.to_entity}"


class EntityCreate(BaseModel):
    """A new entity. Its name must not be taken yet."""

    name: str = _NAME
    entity_type: str = _TYPE
    description: str = Field(default="", max_length=1000)
    observations: list[str] = Field(
        default_factory=list, description="Short facts about the entity."
    )
    is_root: bool = Field(
        default=False, description="Mark top-level entities shown in the graph overview."
    )


class EntityUpdate(BaseModel):
    """Changes to an existing entity; fields left out are kept."""

    name: str = Field(min_length=1, description="Name of the entity to change.")
    entity_type: str | None = Field(default=None, min_length=1, max_length=100)
    description: str | None = Field(default=None, max_length=1000)
    add_observations: list[str] = Field(default_factory=list)
    remove_observations: list[str] = Field(
        default_factory=list, description="Observations to drop (exact text)."
    )
    is_root: bool | None = None


class RelationCreate(BaseModel):
    """A new relation; both entities must exist (or be created in the same call)."""

    from_entity: str = Field(min_length=1)
    to_entity: str = Field(min_length=1)
    relation_type: str = Field(min_length=1, max_length=100, description="e.g. 'works_at'.")
    description: str = Field(default="", max_length=500)


class RelationDelete(BaseModel):
    """Identifies the relation to delete."""

    from_entity: str
    to_entity: str
    relation_type: str


class ManageGraph(BaseModel):
    """One batch of graph changes.

    Applied in this order: entity creations, entity updates, relation creations, relation
    deletions, entity deletions (which also delete the entity's relations). Valid items are
    applied even when others are rejected; the rejected ones are reported by position.
    """

    create_entities: list[EntityCreate] = Field(default_factory=list)
    update_entities: list[EntityUpdate] = Field(default_factory=list)
    delete_entities: list[str] = Field(
        default_factory=list, description="Names of entities to delete."
    )
    create_relations: list[RelationCreate] = Field(default_factory=list)
    delete_relations: list[RelationDelete] = Field(default_factory=list)

    def item_count(self) -> int:
        """Number of individual changes requested."""
        return (
            len(self.create_entities)
            + len(self.update_entities)
            + len(self.delete_entities)
            + len(self.create_relations)
            + len(self.delete_relations)
        )


class SearchQuery(BaseModel):
    """A graph search over entities and relations."""

    query: str = Field(min_length=1, description="Words to look for, or a question.")
    mode: SearchMode = Field(
        default="hybrid",
        description=(
            "'hybrid': keyword and semantic; 'keyword': substring match only; "
            "'vector': semantic similarity only."
        ),
    )
    top_k: int | None = Field(
        default=None, ge=1, le=100, description="Maximum hits; default from the tool."
    )
    score_threshold: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Minimum cosine similarity for semantic hits."
    )
    include_neighbors: bool = Field(
        default=False, description="Also return the entities one hop away from entity hits."
    )
    include_edges: bool = Field(
        default=False, description="Also return every relation touching an entity hit."
    )
    find_paths: bool = Field(
        default=False, description="Shortest paths between the best entity hits (top 5)."
    )


class GraphSearchHit(BaseModel):
    """One entity or relation found, with its score and how it was found."""

    kind: Literal["entity", "relation"]
    score: float
    matched_by: MatchKind
    entity: Entity | None = None
    relation: Relation | None = None


class GraphPath(BaseModel):
    """A shortest path between two entity hits, ignoring edge direction."""

    entities: list[str]
    relations: list[Relation]


class GraphSearchResult(BaseModel):
    """What ``search_graph`` returns: hits by descending score, plus requested context."""

    hits: list[GraphSearchHit] = Field(default_factory=list)
    neighbors: list[Entity] = Field(default_factory=list)
    edges: list[Relation] = Field(default_factory=list)
    paths: list[GraphPath] = Field(default_factory=list)
    note: str | None = Field(default=None, description="Set when part of the search could not run.")
