"""The knowledge graph's state delta, carried as the payload of a ``ToolStateEvent``.

Each successful ``update_graph`` that changes something emits exactly one of these, with the
net effect of the batch. Applying the deltas of a team's history in ``seq`` order to an empty
:class:`~akgentic.tool.knowledge_graph.state.KnowledgeGraphState` rebuilds the graph the tool
actor holds (see ``KnowledgeGraphState.apply``).
"""

from __future__ import annotations

from pydantic import Field

from akgentic.tool.core.delta_state import StateDelta
from akgentic.tool.knowledge_graph.models import Entity, Relation

__all__ = ["KnowledgeGraphStateEvent"]


class KnowledgeGraphStateEvent(StateDelta):
    """The net change of one graph update.

    ``entities_modified`` and ``relations_added`` carry the new versions in full; removals
    carry the entity names and the removed relations. A relation whose description changed
    appears once in ``relations_removed`` (old version) and once in ``relations_added``.
    """

    entities_added: list[Entity] = Field(default_factory=list)
    entities_modified: list[Entity] = Field(default_factory=list)
    entities_removed: list[str] = Field(default_factory=list)
    relations_added: list[Relation] = Field(default_factory=list)
    relations_removed: list[Relation] = Field(default_factory=list)

    def is_empty(self) -> bool:
        """True when the update changed nothing (such a delta is never emitted)."""
        return not (
            self.entities_added
            or self.entities_modified
            or self.entities_removed
            or self.relations_added
            or self.relations_removed
        )

    def change_count(self) -> int:
        """Number of items this delta touches."""
        return (
            len(self.entities_added)
            + len(self.entities_modified)
            + len(self.entities_removed)
            + len(self.relations_added)
            + len(self.relations_removed)
        )
