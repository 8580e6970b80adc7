"""The knowledge graph's data: entities, relations, the batch update and the search query.

Stored items (:class:`Entity`, :class:`Relation`) are frozen. A change replaces the object
instead of editing it, which is what lets a state snapshot share items with the live graph
(copying only the containers) and lets a delta event hold them without defensive copies.

Every text and list the model writes is bounded, by the constants below, in the input
models (so the bounds appear in the tool schema the model sees, and an oversize argument
refuses the whole call before anything changes). Two bounds depend on more than one
argument and are checked elsewhere: ``OBSERVATIONS_PER_CALL_MAX`` by the tool, over the
whole batch, and ``OBSERVATIONS_PER_ENTITY_MAX`` also when an update adds to the
observations an entity already holds (that item is then rejected like any invalid item).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal
from uuid import UUID, uuid4

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from akgentic.tool.knowledge_graph._names import check_single_script, normalize_name

if TYPE_CHECKING:
    from akgentic.tool.knowledge_graph.event import KnowledgeGraphStateEvent
    from akgentic.tool.knowledge_graph.state import KnowledgeGraphState

__all__ = [
    "BATCH_MAX_ITEMS",
    "DEFAULT_KG_SCORE_THRESHOLD",
    "DEFAULT_KG_TOP_K",
    "DEFAULT_OBSERVATIONS_PER_HIT",
    "DEFAULT_PATH_MAX_HOPS",
    "DEFAULT_RESULT_MAX_CHARS",
    "ENTITY_DESCRIPTION_MAX_CHARS",
    "ENTITY_NAME_MAX_CHARS",
    "ENTITY_TYPE_MAX_CHARS",
    "OBSERVATIONS_PER_CALL_MAX",
    "OBSERVATIONS_PER_ENTITY_MAX",
    "OBSERVATION_MAX_CHARS",
    "QUERY_MAX_CHARS",
    "RELATION_DESCRIPTION_MAX_CHARS",
    "RELATION_TYPE_MAX_CHARS",
    "Entity",
    "EntityCreate",
    "EntityUpdate",
    "GetGraphQuery",
    "GraphPath",
    "GraphSearchHit",
    "GraphSearchResult",
    "GraphView",
    "KnowledgeGraph",
    "KnowledgeGraphState",
    "KnowledgeGraphStateEvent",
    "ManageGraph",
    "MatchKind",
    "PathStep",
    "ReadLimits",
    "Relation",
    "RelationCreate",
    "RelationDelete",
    "SearchHit",
    "SearchMode",
    "SearchQuery",
    "SearchResult",
    "relation_key",
]

DEFAULT_KG_TOP_K = 10
# Lower than planning's threshold on purpose: graph exploration favours recall.
DEFAULT_KG_SCORE_THRESHOLD = 0.3

SearchMode = Literal["hybrid", "keyword", "vector"]
MatchKind = Literal["keyword", "vector", "both"]

ENTITY_NAME_MAX_CHARS: Final = 200
ENTITY_TYPE_MAX_CHARS: Final = 100
ENTITY_DESCRIPTION_MAX_CHARS: Final = 1000
RELATION_TYPE_MAX_CHARS: Final = 100
RELATION_DESCRIPTION_MAX_CHARS: Final = 500
# An observation is one short fact; a paragraph belongs in the description.
OBSERVATION_MAX_CHARS: Final = 500
# Far beyond what a model reads back usefully about one entity, and what search embeds.
OBSERVATIONS_PER_ENTITY_MAX: Final = 1000
# Observations created, added and removed together in one update_graph call.
OBSERVATIONS_PER_CALL_MAX: Final = 2000
# Items per list argument of one update_graph call (the benchmark's batches hold 100).
BATCH_MAX_ITEMS: Final = 500
# Search text: a question or a few words, never a document.
QUERY_MAX_CHARS: Final = 500

# Bounds on what a read returns (defaults of ReadLimits, configurable per card):
# a path longer than this many relations is not looked for (nor returned),
DEFAULT_PATH_MAX_HOPS: Final = 10
# a whole answer (as the JSON the model reads) is cut to this many characters (~10k tokens),
DEFAULT_RESULT_MAX_CHARS: Final = 40_000
# and an entity in an answer shows this many observations, the rest counted.
DEFAULT_OBSERVATIONS_PER_HIT: Final = 20

_NAME = Field(
    min_length=1,
    max_length=ENTITY_NAME_MAX_CHARS,
    description=f"Unique entity name (its id); at most {ENTITY_NAME_MAX_CHARS} characters.",
)
_TYPE = Field(
    min_length=1,
    max_length=ENTITY_TYPE_MAX_CHARS,
    description=f"Entity type, e.g. 'Person'; at most {ENTITY_TYPE_MAX_CHARS} characters.",
)
# Names and types are normalised where they enter (NFC, no format characters: see
# _names), so every spelling that renders the same finds the same entity.
_Normalized = BeforeValidator(normalize_name)
# A reference to an entity by name: any name the graph could hold.
EntityName = Annotated[str, Field(min_length=1, max_length=ENTITY_NAME_MAX_CHARS), _Normalized]
# The name of a new entity: normalised, and no word mixing look-alike scripts.
NewEntityName = Annotated[str, _Normalized, AfterValidator(check_single_script)]
EntityType = Annotated[str, Field(min_length=1, max_length=ENTITY_TYPE_MAX_CHARS), _Normalized]
Observation = Annotated[str, Field(max_length=OBSERVATION_MAX_CHARS)]
RelationType = Annotated[str, Field(min_length=1, max_length=RELATION_TYPE_MAX_CHARS), _Normalized]
_OBSERVATIONS_NOTE = (
    f"at most {OBSERVATIONS_PER_ENTITY_MAX} per entity, "
    f"each at most {OBSERVATION_MAX_CHARS} characters"
)


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
    id: UUID = Field(
        default_factory=uuid4,
        description="Stable identifier, kept across updates (the name is the lookup key).",
    )


class Relation(BaseModel):
    """A directed, typed edge between two entities."""

    model_config = ConfigDict(frozen=True)

    from_entity: str
    to_entity: str
    relation_type: str
    description: str = ""
    id: UUID = Field(
        default_factory=uuid4,
        description="Stable identifier, kept while the relation exists (its key is its ends "
        "and type).",
    )

    @property
    def key(self) -> str:
        """See :func:`relation_key`."""
        return relation_key(self.from_entity, self.relation_type, self.to_entity)

    def label(self) -> str:
        """``from -[type]-> to``, the form used in messages to the model."""
        return f"{self.from_entity} -[{self.relation_type}]-> {self.to_entity}"


class EntityCreate(BaseModel):
    """A new entity. Its name must not be taken yet."""

    name: NewEntityName = _NAME
    entity_type: EntityType = _TYPE
    description: str = Field(default="", max_length=ENTITY_DESCRIPTION_MAX_CHARS)
    observations: list[Observation] = Field(
        default_factory=list,
        max_length=OBSERVATIONS_PER_ENTITY_MAX,
        description=f"Short facts about the entity; {_OBSERVATIONS_NOTE}.",
    )
    is_root: bool = Field(
        default=False, description="Mark top-level entities shown in the graph overview."
    )


class EntityUpdate(BaseModel):
    """Changes to an existing entity; fields left out are kept."""

    name: EntityName = Field(description="Name of the entity to change.")
    entity_type: EntityType | None = None
    description: str | None = Field(default=None, max_length=ENTITY_DESCRIPTION_MAX_CHARS)
    add_observations: list[Observation] | None = Field(
        default=None,
        max_length=OBSERVATIONS_PER_ENTITY_MAX,
        description=f"Observations to add; the entity then holds {_OBSERVATIONS_NOTE}.",
    )
    remove_observations: list[Observation] | None = Field(
        default=None,
        max_length=OBSERVATIONS_PER_ENTITY_MAX,
        description="Observations to drop (exact text).",
    )
    is_root: bool | None = None

    @property
    def added(self) -> list[str]:
        """``add_observations``, empty when left out."""
        return self.add_observations or []

    @property
    def removed(self) -> list[str]:
        """``remove_observations``, empty when left out."""
        return self.remove_observations or []


class RelationCreate(BaseModel):
    """A new relation; both entities must exist (or be created in the same call)."""

    from_entity: EntityName
    to_entity: EntityName
    relation_type: RelationType = Field(description="e.g. 'works_at'.")
    description: str = Field(default="", max_length=RELATION_DESCRIPTION_MAX_CHARS)


class RelationDelete(BaseModel):
    """Identifies the relation to delete."""

    from_entity: EntityName
    to_entity: EntityName
    relation_type: RelationType


class ManageGraph(BaseModel):
    """One batch of graph changes.

    Applied in this order: entity creations, entity updates, relation creations, relation
    deletions, entity deletions (which also delete the entity's relations). Valid items are
    applied even when others are rejected; the rejected ones are reported by position.
    """

    create_entities: list[EntityCreate] = Field(default_factory=list, max_length=BATCH_MAX_ITEMS)
    update_entities: list[EntityUpdate] = Field(default_factory=list, max_length=BATCH_MAX_ITEMS)
    delete_entities: list[EntityName] = Field(
        default_factory=list, max_length=BATCH_MAX_ITEMS, description="Names of entities to delete."
    )
    create_relations: list[RelationCreate] = Field(default_factory=list, max_length=BATCH_MAX_ITEMS)
    delete_relations: list[RelationDelete] = Field(default_factory=list, max_length=BATCH_MAX_ITEMS)

    def item_count(self) -> int:
        """Number of individual changes requested."""
        return (
            len(self.create_entities)
            + len(self.update_entities)
            + len(self.delete_entities)
            + len(self.create_relations)
            + len(self.delete_relations)
        )

    def observation_count(self) -> int:
        """Observations the batch carries: created, added and removed together."""
        return sum(len(e.observations) for e in self.create_entities) + sum(
            len(u.added) + len(u.removed) for u in self.update_entities
        )


class SearchQuery(BaseModel):
    """A graph search over entities and relations."""

    query: Annotated[str, _Normalized] = Field(
        min_length=1,
        max_length=QUERY_MAX_CHARS,
        description=f"Words to look for, or a question; at most {QUERY_MAX_CHARS} characters.",
    )
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

    def steps(self, entities: Mapping[str, Entity]) -> list[Entity | Relation]:
        """The path as the predecessor gave it: entity, relation, entity, ... (entities
        missing from ``entities`` are left out)."""
        steps: list[Entity | Relation] = []
        for index, name in enumerate(self.entities):
            if index > 0:
                steps.append(self.relations[index - 1])
            if (entity := entities.get(name)) is not None:
                steps.append(entity)
        return steps


class GraphSearchResult(BaseModel):
    """What ``search_graph`` returns: hits by descending score, plus requested context."""

    hits: list[GraphSearchHit] = Field(default_factory=list)
    neighbors: list[Entity] = Field(default_factory=list)
    edges: list[Relation] = Field(default_factory=list)
    paths: list[GraphPath] = Field(default_factory=list)
    note: str | None = Field(default=None, description="Set when part of the search could not run.")

    def as_search_result(self, entities: Mapping[str, Entity]) -> SearchResult:
        """The same answer in the predecessor's shape (:class:`SearchResult`).

        ``entities`` (the graph's entities by name) supplies the entities along the paths.
        """
        hits: list[SearchHit] = []
        for hit in self.hits:
            item = hit.entity if hit.entity is not None else hit.relation
            if item is not None:
                hits.append(
                    SearchHit(
                        ref_id=str(item.id),
                        ref_type=hit.kind,
                        score=hit.score,
                        entity=hit.entity,
                        relation=hit.relation,
                    )
                )
        return SearchResult(
            hits=hits,
            neighbors=list(self.neighbors),
            connected_relations=list(self.edges),
            paths=[path.steps(entities) for path in self.paths],
        )


# -- the predecessor's models ---------------------------------------------------------------


class SearchHit(BaseModel):
    """One hit in the predecessor's result shape: ``ref_type`` and ``ref_id`` (the item's
    ``id``) name the item, which comes in ``entity`` or ``relation``."""

    ref_id: str
    ref_type: Literal["entity", "relation"]
    score: float
    entity: Entity | None = None
    relation: Relation | None = None


class SearchResult(BaseModel):
    """A search answer in the predecessor's shape; :meth:`GraphSearchResult.as_search_result`
    builds one. A path alternates entities and relations, from one hit to another."""

    hits: list[SearchHit] = Field(default_factory=list)
    neighbors: list[Entity] = Field(default_factory=list)
    connected_relations: list[Relation] = Field(default_factory=list)
    paths: list[list[Entity | Relation]] = Field(default_factory=list)


class PathStep(BaseModel):
    """One step of a :class:`GetGraphQuery` path: follow outgoing relations of
    ``relation_type`` to entities matching ``to_entity`` (a name, an entity type, or ``*``
    for any)."""

    relation_type: str
    to_entity: str


class GetGraphQuery(BaseModel):
    """Which part of the graph :meth:`KnowledgeGraphActor.get_graph` returns.

    Start: the entities named in ``entity_names`` (unknown names are skipped), else the
    root entities when ``roots_only``, else every entity. Then either follow ``path``
    step by step (the result holds the start, every entity reached and the relations
    followed), or expand ``depth`` hops in both directions (the result holds the entities
    reached and every relation between them). ``relation_types``, when given, limits the
    relations expanded along and returned.
    """

    entity_names: list[str] = Field(default_factory=list)
    relation_types: list[str] = Field(default_factory=list)
    depth: int | None = Field(default=None, ge=0)
    path: list[PathStep] = Field(default_factory=list)
    roots_only: bool = False


class _GraphLists(BaseModel):
    entities: list[Entity] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)


class GraphView(_GraphLists):
    """Part or all of the graph, as lists. A view selected by a query is bounded like a
    search answer (see :class:`ReadLimits`); ``note`` then says what was cut."""

    note: str | None = Field(default=None, description="Set when the view was cut.")


class KnowledgeGraph(_GraphLists):
    """The whole graph as lists: the predecessor's state content (``KnowledgeGraphState``
    accepts it under ``knowledge_graph`` and shows it as that property)."""


class ReadLimits(BaseModel):
    """How much one read of the graph may return (``search_graph``, ``get_graph(query)``).

    A read over ``result_max_chars`` is cut, best items kept, and its ``note`` says what
    was left out and how to narrow the request.
    """

    model_config = ConfigDict(frozen=True)

    path_max_hops: int = Field(
        default=DEFAULT_PATH_MAX_HOPS,
        ge=1,
        le=1000,
        description="Longest path (in relations) find_paths looks for.",
    )
    result_max_chars: int = Field(
        default=DEFAULT_RESULT_MAX_CHARS,
        ge=500,
        description="Size of one answer, as JSON characters; the rest is cut and counted.",
    )
    observations_per_hit: int = Field(
        default=DEFAULT_OBSERVATIONS_PER_HIT,
        ge=0,
        le=OBSERVATIONS_PER_ENTITY_MAX,
        description="Observations shown per entity in an answer; the rest are counted.",
    )


def __getattr__(name: str) -> Any:
    # The state and delta live in their own modules (they import this one); the
    # predecessor defined them here, and persisted snapshots name this module.
    if name == "KnowledgeGraphState":
        from akgentic.tool.knowledge_graph.state import KnowledgeGraphState

        return KnowledgeGraphState
    if name == "KnowledgeGraphStateEvent":
        from akgentic.tool.knowledge_graph.event import KnowledgeGraphStateEvent

        return KnowledgeGraphStateEvent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
