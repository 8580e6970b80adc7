"""The graph held by the ``#KnowledgeGraphTool`` actor, as that actor's persisted state.

The state is the graph itself (entities by name, relations by key) plus ``seq``, the number of
the last delta it reflects. Two choices keep persistence proportional to the change:

* change detection is a dirty flag set by the mutators below, not a comparison of two full
  serializations (akgentic-core's default), and
* a snapshot copies the two dictionaries, not the items: entities and relations are frozen,
  so the copy handed to the orchestrator can share them with the live graph safely.

The actor decides *when* to publish a snapshot; between snapshots the delta events are the
increment, and a restored actor replays the ones newer than its snapshot's ``seq``.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from pydantic import Field, PrivateAttr, model_validator

from akgentic.tool.core.delta_state import DeltaState
from akgentic.tool.core.word_index import WordIndex
from akgentic.tool.knowledge_graph._texts import entity_text, relation_text
from akgentic.tool.knowledge_graph.event import KnowledgeGraphStateEvent
from akgentic.tool.knowledge_graph.models import Entity, KnowledgeGraph, Relation

__all__ = ["KnowledgeGraphState"]


class KnowledgeGraphState(DeltaState):
    """Entities keyed by name, relations keyed by :func:`relation_key`, and ``seq``.

    Mutate through :meth:`put_entity`, :meth:`remove_entity`, :meth:`put_relation`,
    :meth:`remove_relation` or :meth:`apply`, which keep the adjacency index and the dirty
    flag right. A client following a team's event stream rebuilds the graph with
    ``KnowledgeGraphState()`` and :meth:`apply` on each delta, in ``seq`` order.
    """

    entities: dict[str, Entity] = Field(default_factory=dict)
    relations: dict[str, Relation] = Field(default_factory=dict)

    # entity name -> keys of the relations touching it; built on first use.
    _adjacency: dict[str, set[str]] | None = PrivateAttr(default=None)
    # Keyword indexes of the entities and of the relations; built by the first search,
    # then kept up to date by the mutators (a state nobody searches never pays for them).
    _keywords: _KeywordIndexes | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _from_knowledge_graph(cls, data: Any) -> Any:
        """Accept the predecessor's shape, ``knowledge_graph`` (entity and relation lists)."""
        if not isinstance(data, dict) or "knowledge_graph" not in data:
            return data
        data = dict(data)
        graph = KnowledgeGraph.model_validate(data.pop("knowledge_graph") or {})
        data.setdefault("entities", {entity.name: entity for entity in graph.entities})
        data.setdefault("relations", {relation.key: relation for relation in graph.relations})
        return data

    @property
    def knowledge_graph(self) -> KnowledgeGraph:
        """The graph as lists (the predecessor's ``knowledge_graph`` field), built on read."""
        return KnowledgeGraph(
            entities=list(self.entities.values()), relations=list(self.relations.values())
        )

    def serializable_copy(self) -> KnowledgeGraphState:
        """An independent snapshot sharing the (frozen) items, without the observer."""
        return type(self).model_construct(
            entities=dict(self.entities), relations=dict(self.relations), seq=self.seq
        )

    def size(self) -> int:
        """Entities plus relations."""
        return len(self.entities) + len(self.relations)

    # -- mutators -----------------------------------------------------------------------

    def put_entity(self, entity: Entity) -> None:
        """Add or replace an entity."""
        keywords = self._keyword_indexes(build=False)
        if keywords is not None:
            old = self.entities.get(entity.name)
            keywords.entities.put(
                entity.name, entity_text(entity), None if old is None else entity_text(old)
            )
        self.entities[entity.name] = entity
        self._touch()

    def remove_entity(self, name: str) -> list[Relation]:
        """Remove an entity and every relation touching it; returns those relations."""
        if name not in self.entities:
            return []
        removed = [
            relation
            for key in sorted(self._adjacency_index().get(name, ()))
            if (relation := self.remove_relation(key)) is not None
        ]
        keywords = self._keyword_indexes(build=False)
        if keywords is not None:
            keywords.entities.remove(name, entity_text(self.entities[name]))
        del self.entities[name]
        self._adjacency_index().pop(name, None)
        self._touch()
        return removed

    def put_relation(self, relation: Relation) -> None:
        """Add or replace a relation (its ends are not checked here)."""
        key = relation.key
        keywords = self._keyword_indexes(build=False)
        if keywords is not None:
            old = self.relations.get(key)
            keywords.relations.put(
                key, relation_text(relation), None if old is None else relation_text(old)
            )
        self.relations[key] = relation
        adjacency = self._adjacency_index()
        adjacency.setdefault(relation.from_entity, set()).add(key)
        adjacency.setdefault(relation.to_entity, set()).add(key)
        self._touch()

    def remove_relation(self, key: str) -> Relation | None:
        """Remove the relation stored under ``key``; returns it, or None if absent."""
        relation = self.relations.pop(key, None)
        if relation is None:
            return None
        keywords = self._keyword_indexes(build=False)
        if keywords is not None:
            keywords.relations.remove(key, relation_text(relation))
        adjacency = self._adjacency_index()
        for end in (relation.from_entity, relation.to_entity):
            keys = adjacency.get(end)
            if keys is not None:
                keys.discard(key)
        self._touch()
        return relation

    def apply(self, delta: KnowledgeGraphStateEvent, seq: int | None = None) -> None:
        """Apply one delta: removals first, then entities, then new relations.

        That order turns the state before an update into the state after it for any net
        delta the actor emits. ``seq``, when given, becomes this state's ``seq``.
        """
        for removed in delta.relations_removed:
            key = removed.key if isinstance(removed, Relation) else self._relation_key_of(removed)
            if key is not None:
                self.remove_relation(key)
        for name in delta.entities_removed:
            self.remove_entity(name if name in self.entities else self._entity_name_of(name))
        for entity in (*delta.entities_added, *delta.entities_modified):
            self.put_entity(entity)
        for relation in (*delta.relations_added, *delta.relations_modified):
            self.put_relation(relation)
        if seq is not None:
            self.seq = seq
            self._touch()

    # -- reads --------------------------------------------------------------------------

    def keyword_search(self, query: str) -> list[tuple[str, str]]:
        """Items ``(kind, entity name | relation key)`` whose text contains every word of
        ``query`` (case-insensitive substrings), entities first, each kind in the order of
        its dictionary."""
        keywords = self._keyword_indexes(build=True)
        assert keywords is not None
        entities = keywords.entities.search(query, lambda n: entity_text(self.entities[n]))
        relations = keywords.relations.search(query, lambda k: relation_text(self.relations[k]))
        return [("entity", name) for name in entities] + [("relation", k) for k in relations]

    def relations_of(self, name: str) -> list[Relation]:
        """Relations touching entity ``name``, in a stable order."""
        keys = self._adjacency_index().get(name, ())
        return [self.relations[key] for key in sorted(keys)]

    def neighbors_of(self, name: str) -> list[str]:
        """Names of the entities one relation away from ``name`` (either direction)."""
        found: dict[str, None] = {}
        for relation in self.relations_of(name):
            other = relation.to_entity if relation.from_entity == name else relation.from_entity
            if other != name:
                found[other] = None
        return list(found)

    def same_graph(self, other: KnowledgeGraphState) -> bool:
        """Whether ``other`` holds the same entities and relations (``seq`` aside)."""
        return self.entities == other.entities and self.relations == other.relations

    # -- internals ----------------------------------------------------------------------

    def _entity_name_of(self, entity_id: str) -> str:
        """The name of the entity whose ``id`` is ``entity_id`` (a predecessor's delta names
        removals by id), or ``entity_id`` itself when none has it."""
        for entity in self.entities.values():
            if str(entity.id) == entity_id:
                return entity.name
        return entity_id

    def _relation_key_of(self, relation_id: UUID) -> str | None:
        """The key of the relation whose ``id`` is ``relation_id``, if any."""
        for key, relation in self.relations.items():
            if relation.id == relation_id:
                return key
        return None

    def _keyword_indexes(self, build: bool) -> _KeywordIndexes | None:
        # Called by every mutator: the private-attribute dict directly, as below.
        private = self.__pydantic_private__
        assert private is not None
        keywords: _KeywordIndexes | None = private["_keywords"]
        if keywords is None and build:
            keywords = _KeywordIndexes()
            for name, entity in self.entities.items():
                keywords.entities.put(name, entity_text(entity))
            for key, relation in self.relations.items():
                keywords.relations.put(key, relation_text(relation))
            private["_keywords"] = keywords
        return keywords

    def _adjacency_index(self) -> dict[str, set[str]]:
        # Runs once per mutated item: pydantic's private-attribute dict directly, as in
        # DeltaState._touch, because BaseModel.__getattr__ costs more than the work.
        private = self.__pydantic_private__
        assert private is not None
        adjacency: dict[str, set[str]] | None = private["_adjacency"]
        if adjacency is None:
            adjacency = {}
            for key, relation in self.relations.items():
                adjacency.setdefault(relation.from_entity, set()).add(key)
                adjacency.setdefault(relation.to_entity, set()).add(key)
            private["_adjacency"] = adjacency
        return adjacency


class _KeywordIndexes:
    """The word indexes of a graph's entities (by name) and relations (by key)."""

    __slots__ = ("entities", "relations")

    def __init__(self) -> None:
        self.entities: WordIndex[str] = WordIndex()
        self.relations: WordIndex[str] = WordIndex()
