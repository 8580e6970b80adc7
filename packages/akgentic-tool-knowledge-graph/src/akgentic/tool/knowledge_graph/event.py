"""The knowledge graph's state delta, carried as the payload of a ``ToolStateEvent``.

Each successful ``update_graph`` that changes something emits exactly one of these, with the
net effect of the batch. Applying the deltas of a team's history in ``seq`` order to an empty
:class:`~akgentic.tool.knowledge_graph.state.KnowledgeGraphState` rebuilds the graph the tool
actor holds (see ``KnowledgeGraphState.apply``).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from pydantic import Field, field_validator

from akgentic.tool.core.delta_state import DeltaPayload
from akgentic.tool.knowledge_graph.models import Entity, Relation

__all__ = ["KnowledgeGraphStateEvent"]


class KnowledgeGraphStateEvent(DeltaPayload):
    """The net change of one graph update.

    Additions and modifications carry the new versions in full; ``entities_removed`` the
    names of the entities removed, ``relations_removed`` the removed relations. A relation
    whose description changed is in ``relations_modified``.

    Deltas recorded by the predecessor load too: there, removals are item ids (UUIDs), which
    :meth:`KnowledgeGraphState.apply` resolves against the graph's ``id`` fields.
    """

    entities_added: list[Entity] = Field(default_factory=list)
    entities_modified: list[Entity] = Field(default_factory=list)
    entities_removed: list[str] = Field(
        default_factory=list, description="Names (or, from the predecessor, ids) removed."
    )
    relations_added: list[Relation] = Field(default_factory=list)
    relations_modified: list[Relation] = Field(default_factory=list)
    relations_removed: list[Relation | UUID] = Field(
        default_factory=list, description="Relations (or, from the predecessor, ids) removed."
    )

    @field_validator("entities_removed", mode="before")
    @classmethod
    def _ids_as_text(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [str(item) if isinstance(item, UUID) else item for item in value]
        return value

    def is_empty(self) -> bool:
        """True when the update changed nothing (such a delta is never emitted)."""
        return not (
            self.entities_added
            or self.entities_modified
            or self.entities_removed
            or self.relations_added
            or self.relations_modified
            or self.relations_removed
        )

    def change_count(self) -> int:
        """Number of items this delta touches."""
        return (
            len(self.entities_added)
            + len(self.entities_modified)
            + len(self.entities_removed)
            + len(self.relations_added)
            + len(self.relations_modified)
            + len(self.relations_removed)
        )
