"""Applying one ``ManageGraph`` batch to the graph: validation, mutation, net delta.

Each item is checked against the graph as the batch has left it so far, so a relation may
point at an entity created earlier in the same call. A rejected item changes nothing and is
reported by its position; the others are applied. The delta is computed from the first and
last version of every touched item, so it holds the net effect (an entity created and
deleted in one call appears nowhere).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from akgentic.tool.core.batch_update import net_changes
from akgentic.tool.knowledge_graph.event import KnowledgeGraphStateEvent
from akgentic.tool.knowledge_graph.models import (
    OBSERVATIONS_PER_ENTITY_MAX,
    Entity,
    ManageGraph,
    Relation,
    relation_key,
)
from akgentic.tool.knowledge_graph.state import KnowledgeGraphState


@dataclass
class UpdateOutcome:
    """The result of one batch: the net delta, the rejections, and a short summary."""

    delta: KnowledgeGraphStateEvent
    errors: list[str] = field(default_factory=list)
    summary: str = ""


class _Recorder:
    """Remembers the first version of each touched item, to compute the net delta."""

    def __init__(self, state: KnowledgeGraphState) -> None:
        self._state = state
        self.entities: dict[str, Entity | None] = {}
        self.relations: dict[str, Relation | None] = {}

    def entity(self, name: str) -> None:
        if name not in self.entities:
            self.entities[name] = self._state.entities.get(name)

    def relation(self, key: str) -> None:
        if key not in self.relations:
            self.relations[key] = self._state.relations.get(key)

    def delta(self) -> KnowledgeGraphStateEvent:
        entities = net_changes(self.entities, self._state.entities)
        relations = net_changes(self.relations, self._state.relations)
        return KnowledgeGraphStateEvent(
            entities_added=entities.added,
            entities_modified=entities.modified,
            entities_removed=[name for name, _ in entities.removed],
            relations_added=relations.added,
            relations_modified=relations.modified,
            relations_removed=[relation for _, relation in relations.removed],
        )


def apply_update(
    state: KnowledgeGraphState,
    update: ManageGraph,
    observations_per_entity: int = OBSERVATIONS_PER_ENTITY_MAX,
) -> UpdateOutcome:
    """Apply ``update`` to ``state`` and describe what happened; an update leaving an
    entity with more than ``observations_per_entity`` observations is rejected."""
    record = _Recorder(state)
    errors: list[str] = []

    for i, create in enumerate(update.create_entities):
        if create.name in state.entities:
            errors.append(
                f"create_entities[{i}]: entity {create.name!r} already exists "
                "(change it with update_entities)"
            )
            continue
        record.entity(create.name)
        state.put_entity(
            Entity(
                name=create.name,
                entity_type=create.entity_type,
                description=create.description,
                observations=_unique(create.observations),
                is_root=create.is_root,
            )
        )

    for i, change in enumerate(update.update_entities):
        current = state.entities.get(change.name)
        if current is None:
            errors.append(f"update_entities[{i}]: unknown entity {change.name!r}")
            continue
        missing = [obs for obs in change.removed if obs not in current.observations]
        if missing:
            errors.append(
                f"update_entities[{i}] {change.name!r}: no observation {missing[0]!r} to remove"
            )
            continue
        dropped = set(change.removed)
        kept = [obs for obs in current.observations if obs not in dropped]
        observations = _unique([*kept, *change.added])
        if len(observations) > observations_per_entity:
            errors.append(
                f"update_entities[{i}] {change.name!r}: observations would number "
                f"{len(observations)}, at most {observations_per_entity} per entity "
                "(remove some with remove_observations, or fold them into the description)"
            )
            continue
        record.entity(change.name)
        state.put_entity(
            current.model_copy(
                update={
                    "entity_type": change.entity_type or current.entity_type,
                    "description": (
                        current.description if change.description is None else change.description
                    ),
                    "observations": observations,
                    "is_root": current.is_root if change.is_root is None else change.is_root,
                }
            )
        )

    for i, rel in enumerate(update.create_relations):
        label = f"{rel.from_entity} -[{rel.relation_type}]-> {rel.to_entity}"
        unknown = [n for n in (rel.from_entity, rel.to_entity) if n not in state.entities]
        if unknown:
            errors.append(
                f"create_relations[{i}] {label}: unknown entity {unknown[0]!r} "
                "(create it first, or in the same call)"
            )
            continue
        key = relation_key(rel.from_entity, rel.relation_type, rel.to_entity)
        existing = state.relations.get(key)
        relation = Relation(
            from_entity=rel.from_entity,
            to_entity=rel.to_entity,
            relation_type=rel.relation_type,
            description=rel.description,
        )
        if existing is not None:  # same relation, new description: it keeps its id
            relation = relation.model_copy(update={"id": existing.id})
        record.relation(relation.key)
        state.put_relation(relation)

    for i, gone in enumerate(update.delete_relations):
        key = relation_key(gone.from_entity, gone.relation_type, gone.to_entity)
        if key not in state.relations:
            errors.append(
                f"delete_relations[{i}]: no relation "
                f"{gone.from_entity} -[{gone.relation_type}]-> {gone.to_entity}"
            )
            continue
        record.relation(key)
        state.remove_relation(key)

    for i, name in enumerate(update.delete_entities):
        if name not in state.entities:
            errors.append(f"delete_entities[{i}]: unknown entity {name!r}")
            continue
        record.entity(name)
        for relation in state.relations_of(name):
            record.relation(relation.key)
        state.remove_entity(name)

    delta = record.delta()
    return UpdateOutcome(delta=delta, errors=errors, summary=_summarize(delta))


def _unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _summarize(delta: KnowledgeGraphStateEvent) -> str:
    parts = [
        f"{plural(count, noun)} {verb}"
        for count, noun, verb in (
            (len(delta.entities_added), "entity", "created"),
            (len(delta.entities_modified), "entity", "updated"),
            (len(delta.entities_removed), "entity", "deleted"),
            (len(delta.relations_added), "relation", "added"),
            (len(delta.relations_modified), "relation", "updated"),
            (len(delta.relations_removed), "relation", "removed"),
        )
        if count
    ]
    return ", ".join(parts) if parts else "no change"


def plural(count: int, noun: str) -> str:
    """``1 entity``, ``2 entities``, ``1 relation``, ``3 relations``."""
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun[:-1]}ies" if noun.endswith("y") else f"{count} {noun}s"
