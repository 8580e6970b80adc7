"""The text of an entity or a relation: what keyword search matches and vectors embed."""

from __future__ import annotations

from akgentic.tool.knowledge_graph.models import Entity, Relation


def entity_text(entity: Entity) -> str:
    """The text of an entity, as matched by keyword search and embedded for vectors."""
    parts = [entity.name, entity.entity_type, entity.description, *entity.observations]
    return " | ".join(p for p in parts if p)


def relation_text(relation: Relation) -> str:
    """The text of a relation, as matched by keyword search and embedded for vectors."""
    parts = [relation.label(), relation.description]
    return " | ".join(p for p in parts if p)
