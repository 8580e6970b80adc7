"""KnowledgeGraphTool through ToolFactory, against a real actor system (the event and
retry rules every delta actor keeps are standard tests, in test_standard.py)."""

from __future__ import annotations

from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    ToolTestAgent,
    bind_card,
    tool_state_events,
)
from akgentic.tool.knowledge_graph import (
    KG_ACTOR_NAME,
    KnowledgeGraphStateEvent,
    KnowledgeGraphTool,
)


def _person(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "entity_type": "Person", **extra}


def test_update_emits_one_delta_before_returning(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    result = tools["update_graph"](
        create_entities=[_person("Alice"), {"name": "Acme", "entity_type": "Company"}],
        create_relations=[
            {"from_entity": "Alice", "to_entity": "Acme", "relation_type": "works_at"}
        ],
    )
    assert "2 entities created" in result
    assert "1 relation added" in result
    # No waiting: the event was sent before update_graph returned, so the orchestrator,
    # asked now, has already processed it.
    events = tool_state_events(actor_system, orchestrator, KG_ACTOR_NAME)
    assert [e.seq for e in events] == [1]
    delta = events[0].payload
    assert isinstance(delta, KnowledgeGraphStateEvent)
    assert sorted(e.name for e in delta.entities_added) == ["Acme", "Alice"]
    assert [r.label() for r in delta.relations_added] == ["Alice -[works_at]-> Acme"]


def test_a_new_entity_type_is_applied_and_emitted(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    # Issue 21: nothing noticed an update whose entity_type was silently ignored.
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    tools["update_graph"](create_entities=[_person("Alice", observations=["likes tea"])])
    result = tools["update_graph"](update_entities=[{"name": "Alice", "entity_type": "Engineer"}])
    assert "1 entity updated" in result
    events = tool_state_events(actor_system, orchestrator, KG_ACTOR_NAME)
    assert [e.seq for e in events] == [1, 2]
    (changed,) = events[1].payload.entities_modified
    assert (changed.name, changed.entity_type) == ("Alice", "Engineer")
    assert changed.observations == ("likes tea",)  # the rest is kept
    hits = tools["search_graph"](query="Engineer", mode="keyword").hits
    assert [(h.entity.name, h.entity.entity_type) for h in hits if h.entity] == [
        ("Alice", "Engineer")
    ]


def test_deleting_an_entity_removes_its_relations_in_the_same_delta(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    tools["update_graph"](
        create_entities=[_person("A"), _person("B"), _person("C")],
        create_relations=[
            {"from_entity": "A", "to_entity": "B", "relation_type": "knows"},
            {"from_entity": "C", "to_entity": "A", "relation_type": "knows"},
            {"from_entity": "B", "to_entity": "C", "relation_type": "knows"},
        ],
    )
    tools["update_graph"](delete_entities=["A"])
    delta = tool_state_events(actor_system, orchestrator, KG_ACTOR_NAME)[-1].payload
    assert delta.entities_removed == ["A"]
    assert sorted(r.label() for r in delta.relations_removed) == [
        "A -[knows]-> B",
        "C -[knows]-> A",
    ]
    result = tools["search_graph"](query="knows", mode="keyword")
    assert [h.relation.label() for h in result.hits if h.relation] == ["B -[knows]-> C"]


def test_get_graph_prompt_shows_types_and_root_entities(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    assert "empty" in tools["get_graph"]()
    tools["update_graph"](
        create_entities=[
            {
                "name": "Acme",
                "entity_type": "Company",
                "description": "the client",
                "is_root": True,
            },
            _person("Alice"),
            _person("Bob"),
        ],
        create_relations=[
            {"from_entity": "Alice", "to_entity": "Acme", "relation_type": "works_at"},
        ],
    )
    prompt = tools["get_graph"]()
    assert "3 entities, 1 relation" in prompt
    assert "Person (2), Company (1)" in prompt
    assert "works_at (1)" in prompt
    assert "- Acme (Company): the client" in prompt
    assert "Alice (Person)" not in prompt  # not a root entity


@pytest.mark.parametrize("disabled", ["get_graph", "update_graph", "search_graph"])
def test_capabilities_can_be_switched_off(tool_agent: ToolTestAgent, disabled: str) -> None:
    card = KnowledgeGraphTool(vector_store=False, **{disabled: False})
    names = set(bind_card(tool_agent, card))
    assert disabled not in names
    assert names == {"get_graph", "update_graph", "search_graph"} - {disabled}


def test_commands_run_from_slash_lines(tool_agent: ToolTestAgent) -> None:
    from akgentic.tool.core.factory import ToolFactory

    factory = ToolFactory([KnowledgeGraphTool(vector_store=False)], observer=tool_agent)
    assert set(factory.commands.names()) == {"get_graph", "search_graph"}
    tools = {fn.__name__: fn for fn in factory.get_tools()}
    tools["update_graph"](create_entities=[_person("Alice", description="likes tea")])
    result = factory.commands.execute('/search_graph "likes tea" mode=keyword top_k=3')
    assert [h.entity.name for h in result.hits if h.entity] == ["Alice"]
    assert "1 entity, 0 relations" in factory.commands.execute("/get_graph")


def test_overview_stays_short_on_a_large_graph(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    tools["update_graph"](
        create_entities=[
            {"name": f"N{i}", "entity_type": f"Type{i}", "is_root": True} for i in range(80)
        ]
    )
    prompt = tools["get_graph"]()
    assert "80 entities, 0 relations" in prompt
    assert "... 50 more" in prompt
    assert "- ... and 30 more root entities" in prompt
    assert len(prompt.splitlines()) < 60
