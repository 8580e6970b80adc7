"""Graphs the tests build through ``update_graph``, and the team's graph actor.

Several test modules search the same small graph (``seed_pets``) or a hub with spokes
(``seed_hub``); building them here keeps one definition of each.
"""

from __future__ import annotations

from typing import Any

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import team_tool_actor
from akgentic.tool.knowledge_graph import KnowledgeGraphActor, KnowledgeGraphConfig


def seed_pets(tools: dict[str, Any]) -> None:
    """Two pets (a dog and a hound), a company, two people and an island (isolated).

    Alice -[owns]-> Rex, Bob -[knows]-> Alice, Bob -[walks]-> Fido: Rex and Fido are
    three relations apart; Tesla and Island touch nothing.
    """
    tools["update_graph"](
        create_entities=[
            {"name": "Rex", "entity_type": "Animal", "description": "a loyal dog"},
            {"name": "Fido", "entity_type": "Animal", "description": "a sleepy hound"},
            {"name": "Tesla", "entity_type": "Company", "description": "builds cars"},
            {"name": "Alice", "entity_type": "Person", "description": "owns a dog"},
            {"name": "Bob", "entity_type": "Person", "description": "a neighbour"},
            {"name": "Island", "entity_type": "Place", "description": "far away"},
        ],
        create_relations=[
            {"from_entity": "Alice", "to_entity": "Rex", "relation_type": "owns"},
            {"from_entity": "Bob", "to_entity": "Alice", "relation_type": "knows"},
            {"from_entity": "Bob", "to_entity": "Fido", "relation_type": "walks"},
        ],
    )


def seed_hub(
    tools: dict[str, Any],
    spokes: range,
    *,
    description: str = "",
) -> None:
    """Entities ``S<i>`` (type Spoke) for ``i`` in ``spokes``, each the target of
    ``Hub -[has]->`` (its ``description`` given). The hub (type Centre) is created with the
    spokes starting at 0."""
    hub = [{"name": "Hub", "entity_type": "Centre"}]
    tools["update_graph"](
        create_entities=(hub if spokes.start == 0 else [])
        + [{"name": f"S{i:03}", "entity_type": "Spoke"} for i in spokes],
        create_relations=[
            {
                "from_entity": "Hub",
                "to_entity": f"S{i:03}",
                "relation_type": "has",
                "description": description,
            }
            for i in spokes
        ],
    )


def graph_actor(system: ActorSystem, orchestrator: ActorAddress) -> KnowledgeGraphActor:
    """An ask proxy to the team's graph actor (created by the first card bound)."""
    return team_tool_actor(system, orchestrator, KnowledgeGraphActor, KnowledgeGraphConfig())
