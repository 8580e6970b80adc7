"""Entity names that render the same are one entity (security review, finding 8).

Reproduces the four spoofs on a real team: a zero-width space appended, the decomposed
form of an accented name, a Cyrillic look-alike letter inside a Latin word, and the
same names reached through updates, relations and deletions.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    ToolTestAgent,
    bind_card,
    expect_retry,
    team_tool_actor,
)
from akgentic.tool.knowledge_graph import (
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
    KnowledgeGraphTool,
)

NFC_CAFE = unicodedata.normalize("NFC", "Café")
NFD_CAFE = unicodedata.normalize("NFD", "Café")
CYRILLIC_A = "\u0410"  # looks like Latin 'A'
ZWSP = "\u200b"


@pytest.fixture
def tools(tool_agent: ToolTestAgent) -> dict[str, Any]:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    tools["update_graph"](
        create_entities=[
            {"name": "Acme", "entity_type": "Company"},
            {"name": NFC_CAFE, "entity_type": "Place"},
        ]
    )
    return tools


def _names(system: ActorSystem, orchestrator: ActorAddress) -> list[str]:
    actor = team_tool_actor(
        system, orchestrator, KnowledgeGraphActor, KnowledgeGraphConfig(vector_store=False)
    )
    return sorted(actor.graph().entities)


def test_a_zero_width_space_does_not_make_a_second_entity(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    message = expect_retry(
        tools["update_graph"], create_entities=[{"name": "Acme" + ZWSP, "entity_type": "X"}]
    )
    assert "entity 'Acme' already exists" in message
    # Referring to it with the invisible character finds the same entity.
    tools["update_graph"](update_entities=[{"name": ZWSP + "Acme", "description": "client"}])
    assert _names(actor_system, orchestrator) == sorted(["Acme", NFC_CAFE])


def test_the_decomposed_form_is_the_same_name(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    assert NFC_CAFE != NFD_CAFE
    message = expect_retry(
        tools["update_graph"], create_entities=[{"name": NFD_CAFE, "entity_type": "Place"}]
    )
    assert f"entity {NFC_CAFE!r} already exists" in message
    tools["update_graph"](
        create_relations=[{"from_entity": "Acme", "to_entity": NFD_CAFE, "relation_type": "owns"}]
    )
    hits = tools["search_graph"](query=NFD_CAFE, mode="keyword").hits
    assert [h.entity.name for h in hits if h.entity] == [NFC_CAFE]
    tools["update_graph"](delete_entities=[NFD_CAFE])
    assert _names(actor_system, orchestrator) == ["Acme"]


def test_a_cyrillic_look_alike_inside_a_latin_word_is_refused(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    spoof = CYRILLIC_A + "cme"
    message = expect_retry(
        tools["update_graph"], create_entities=[{"name": spoof, "entity_type": "Company"}]
    )
    assert "create_entities[0].name" in message
    assert "mixes Cyrillic and Latin letters" in message
    assert _names(actor_system, orchestrator) == sorted(["Acme", NFC_CAFE])


@pytest.mark.parametrize(
    "name", ["Москва", "東京タワー", "Αθήνα", "Zürich Hauptbahnhof", "Acme ООО", "R2-D2"]
)
def test_names_written_in_one_script_per_word_are_kept(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any], name: str
) -> None:
    tools["update_graph"](create_entities=[{"name": name, "entity_type": "Place"}])
    assert name in _names(actor_system, orchestrator)
    hits = tools["search_graph"](query=name, mode="keyword").hits
    assert [h.entity.name for h in hits if h.entity] == [name]


def test_a_name_of_only_invisible_characters_is_refused(tools: dict[str, Any]) -> None:
    message = expect_retry(
        tools["update_graph"], create_entities=[{"name": ZWSP * 3, "entity_type": "X"}]
    )
    assert "create_entities[0].name: String should have at least 1 character" in message
