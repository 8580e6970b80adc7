"""Size limits of the graph callables (security review findings).

An over-limit argument is a ``RetriableError`` naming the field and the limit, and the
graph stays exactly as it was (no item changes, no state event). A value exactly at a
limit is accepted. Wrongly typed arguments are refusals of the standard bad-input tests
(test_standard.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    ToolTestAgent,
    bind_card,
    expect_retry,
    tool_event_seqs,
)
from akgentic.tool.knowledge_graph import (
    BATCH_MAX_ITEMS,
    ENTITY_DESCRIPTION_MAX_CHARS,
    ENTITY_NAME_MAX_CHARS,
    ENTITY_TYPE_MAX_CHARS,
    KG_ACTOR_NAME,
    OBSERVATION_MAX_CHARS,
    OBSERVATIONS_PER_CALL_MAX,
    OBSERVATIONS_PER_ENTITY_MAX,
    QUERY_MAX_CHARS,
    RELATION_DESCRIPTION_MAX_CHARS,
    RELATION_TYPE_MAX_CHARS,
    KnowledgeGraphActor,
    KnowledgeGraphState,
    KnowledgeGraphTool,
)
from akgentic.tool.knowledge_graph.kg_actor import KnowledgeGraphConfig


def _graph(system: ActorSystem, orchestrator: ActorAddress) -> KnowledgeGraphState:
    from akgentic.core.orchestrator import Orchestrator

    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(KnowledgeGraphActor, KnowledgeGraphConfig())
    graph: KnowledgeGraphState = system.proxy_ask(address, KnowledgeGraphActor).graph()
    return graph


@pytest.fixture
def tools(tool_agent: ToolTestAgent) -> dict[str, Any]:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    tools["update_graph"](
        create_entities=[
            {"name": "Alice", "entity_type": "Person", "observations": ["likes tea"]},
            {"name": "Acme", "entity_type": "Company"},
        ],
        create_relations=[{"from_entity": "Alice", "to_entity": "Acme", "relation_type": "at"}],
    )
    return tools


def _unchanged(
    system: ActorSystem, orchestrator: ActorAddress, before: KnowledgeGraphState
) -> bool:
    seqs = tool_event_seqs(system, orchestrator, KG_ACTOR_NAME)
    return _graph(system, orchestrator).same_graph(before) and seqs == [1]


def test_limits_are_the_documented_values() -> None:
    assert (ENTITY_NAME_MAX_CHARS, ENTITY_TYPE_MAX_CHARS, ENTITY_DESCRIPTION_MAX_CHARS) == (
        200,
        100,
        1000,
    )
    assert (RELATION_TYPE_MAX_CHARS, RELATION_DESCRIPTION_MAX_CHARS) == (100, 500)
    assert (OBSERVATION_MAX_CHARS, OBSERVATIONS_PER_ENTITY_MAX, OBSERVATIONS_PER_CALL_MAX) == (
        500,
        1000,
        2000,
    )
    assert (BATCH_MAX_ITEMS, QUERY_MAX_CHARS) == (500, 500)


def test_100_000_observations_are_refused(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    before = _graph(actor_system, orchestrator)
    flood = [f"fact {i}" for i in range(100_000)]
    message = expect_retry(
        tools["update_graph"],
        create_entities=[{"name": "Bob", "entity_type": "P", "observations": flood}],
    )
    assert "create_entities[0].observations" in message
    assert f"at most {OBSERVATIONS_PER_ENTITY_MAX} items" in message
    message = expect_retry(
        tools["update_graph"], update_entities=[{"name": "Alice", "add_observations": flood}]
    )
    assert "update_entities[0].add_observations" in message
    assert f"at most {OBSERVATIONS_PER_ENTITY_MAX} items" in message
    assert len(message) < 500
    assert _unchanged(actor_system, orchestrator, before)


def test_observations_per_entity_at_the_limit_and_one_past_it(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    full = [f"fact {i}" for i in range(OBSERVATIONS_PER_ENTITY_MAX)]
    tools["update_graph"](
        create_entities=[{"name": "Bob", "entity_type": "P", "observations": full}]
    )
    assert len(_graph(actor_system, orchestrator).entities["Bob"].observations) == 1000
    seqs = tool_event_seqs(actor_system, orchestrator, KG_ACTOR_NAME)

    # Adding to a full entity: the item is rejected, and the entity keeps what it had.
    message = expect_retry(
        tools["update_graph"], update_entities=[{"name": "Bob", "add_observations": ["one more"]}]
    )
    assert "update_entities[0] 'Bob'" in message
    assert f"at most {OBSERVATIONS_PER_ENTITY_MAX} per entity" in message
    assert _graph(actor_system, orchestrator).entities["Bob"].observations == tuple(full)
    assert tool_event_seqs(actor_system, orchestrator, KG_ACTOR_NAME) == seqs

    # Swapping one for another keeps the count at the limit, which is allowed.
    tools["update_graph"](
        update_entities=[
            {"name": "Bob", "remove_observations": ["fact 0"], "add_observations": ["one more"]}
        ]
    )
    observations = _graph(actor_system, orchestrator).entities["Bob"].observations
    assert len(observations) == OBSERVATIONS_PER_ENTITY_MAX
    assert observations[-1] == "one more"


def test_observations_per_call_are_bounded(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    before = _graph(actor_system, orchestrator)
    three = [
        {"name": f"E{i}", "entity_type": "T", "observations": [f"o{j}" for j in range(700)]}
        for i in range(3)
    ]
    message = expect_retry(tools["update_graph"], create_entities=three)
    assert f"at most {OBSERVATIONS_PER_CALL_MAX} per update_graph call" in message
    assert "got 2100" in message
    assert "nothing was changed" in message
    assert _unchanged(actor_system, orchestrator, before)

    at_limit = [
        {"name": f"E{i}", "entity_type": "T", "observations": [f"o{j}" for j in range(1000)]}
        for i in range(2)
    ]
    assert "2 entities created" in tools["update_graph"](create_entities=at_limit)


@pytest.mark.parametrize(
    ("kwargs", "field", "limit"),
    [
        (
            {"create_entities": [{"name": "n" * 201, "entity_type": "T"}]},
            "create_entities[0].name",
            ENTITY_NAME_MAX_CHARS,
        ),
        (
            {"create_entities": [{"name": "N", "entity_type": "t" * 101}]},
            "create_entities[0].entity_type",
            ENTITY_TYPE_MAX_CHARS,
        ),
        (
            {"create_entities": [{"name": "N", "entity_type": "T", "description": "d" * 1001}]},
            "create_entities[0].description",
            ENTITY_DESCRIPTION_MAX_CHARS,
        ),
        (
            {"create_entities": [{"name": "N", "entity_type": "T", "observations": ["o" * 501]}]},
            "create_entities[0].observations[0]",
            OBSERVATION_MAX_CHARS,
        ),
        (
            {"update_entities": [{"name": "Alice", "add_observations": ["ok", "o" * 501]}]},
            "update_entities[0].add_observations[1]",
            OBSERVATION_MAX_CHARS,
        ),
        (
            {"update_entities": [{"name": "x" * 2_000_000}]},
            "update_entities[0].name",
            ENTITY_NAME_MAX_CHARS,
        ),
        ({"delete_entities": ["x" * 201]}, "delete_entities[0]", ENTITY_NAME_MAX_CHARS),
        (
            {
                "create_relations": [
                    {"from_entity": "Alice", "to_entity": "a" * 201, "relation_type": "r"}
                ]
            },
            "create_relations[0].to_entity",
            ENTITY_NAME_MAX_CHARS,
        ),
        (
            {
                "create_relations": [
                    {"from_entity": "Alice", "to_entity": "Acme", "relation_type": "r" * 101}
                ]
            },
            "create_relations[0].relation_type",
            RELATION_TYPE_MAX_CHARS,
        ),
        (
            {
                "create_relations": [
                    {
                        "from_entity": "Alice",
                        "to_entity": "Acme",
                        "relation_type": "r",
                        "description": "d" * 501,
                    }
                ]
            },
            "create_relations[0].description",
            RELATION_DESCRIPTION_MAX_CHARS,
        ),
        (
            {
                "delete_relations": [
                    {"from_entity": "f" * 201, "to_entity": "Acme", "relation_type": "at"}
                ]
            },
            "delete_relations[0].from_entity",
            ENTITY_NAME_MAX_CHARS,
        ),
    ],
)
def test_over_long_texts_are_refused_by_field(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tools: dict[str, Any],
    kwargs: dict[str, Any],
    field: str,
    limit: int,
) -> None:
    before = _graph(actor_system, orchestrator)
    message = expect_retry(tools["update_graph"], **kwargs)
    assert f"{field}: String should have at most {limit} characters" in message
    assert len(message) < 500
    assert _unchanged(actor_system, orchestrator, before)


def test_texts_at_their_limits_are_accepted(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    name = "n" * ENTITY_NAME_MAX_CHARS
    tools["update_graph"](
        create_entities=[
            {
                "name": name,
                "entity_type": "t" * ENTITY_TYPE_MAX_CHARS,
                "description": "d" * ENTITY_DESCRIPTION_MAX_CHARS,
                "observations": ["o" * OBSERVATION_MAX_CHARS],
            }
        ],
        create_relations=[
            {
                "from_entity": name,
                "to_entity": "Acme",
                "relation_type": "r" * RELATION_TYPE_MAX_CHARS,
                "description": "d" * RELATION_DESCRIPTION_MAX_CHARS,
            }
        ],
    )
    graph = _graph(actor_system, orchestrator)
    assert graph.entities[name].observations == ("o" * OBSERVATION_MAX_CHARS,)
    assert len(graph.relations) == 2
    tools["update_graph"](
        delete_relations=[
            {
                "from_entity": name,
                "to_entity": "Acme",
                "relation_type": "r" * RELATION_TYPE_MAX_CHARS,
            }
        ],
        delete_entities=[name],
    )
    assert name not in _graph(actor_system, orchestrator).entities


@pytest.mark.parametrize(
    "key",
    [
        "create_entities",
        "update_entities",
        "delete_entities",
        "create_relations",
        "delete_relations",
    ],
)
def test_items_per_call_are_bounded(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any], key: str
) -> None:
    item: Any = {
        "create_entities": {"name": "N", "entity_type": "T"},
        "update_entities": {"name": "Alice"},
        "delete_entities": "Alice",
        "create_relations": {"from_entity": "Alice", "to_entity": "Acme", "relation_type": "r"},
        "delete_relations": {"from_entity": "Alice", "to_entity": "Acme", "relation_type": "at"},
    }[key]
    before = _graph(actor_system, orchestrator)
    message = expect_retry(tools["update_graph"], **{key: [item] * (BATCH_MAX_ITEMS + 1)})
    assert f"{key}: List should have at most {BATCH_MAX_ITEMS} items" in message
    assert _unchanged(actor_system, orchestrator, before)


def test_a_batch_at_the_item_limit_is_accepted(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    batch = [{"name": f"E{i}", "entity_type": "T"} for i in range(BATCH_MAX_ITEMS)]
    assert f"{BATCH_MAX_ITEMS} entities created" in tools["update_graph"](create_entities=batch)


def test_search_query_is_bounded(tools: dict[str, Any]) -> None:
    message = expect_retry(tools["search_graph"], query="tea " * 1_000_000, mode="keyword")
    assert f"query: String should have at most {QUERY_MAX_CHARS} characters" in message
    at_limit = "tea" + " " * (QUERY_MAX_CHARS - 3)
    hits = tools["search_graph"](query=at_limit, mode="keyword").hits
    assert [hit.entity.name for hit in hits if hit.entity] == ["Alice"]


def test_the_overview_clips_long_root_descriptions(tools: dict[str, Any]) -> None:
    tools["update_graph"](
        create_entities=[
            {"name": "Big", "entity_type": "T", "is_root": True, "description": "d" * 1000},
            {"name": "Small", "entity_type": "T", "is_root": True, "description": "short"},
        ]
    )
    lines = tools["get_graph"]().splitlines()
    big = next(line for line in lines if line.startswith("- Big (T): "))
    assert len(big) == len("- Big (T): ") + 150
    assert big.endswith("…")
    assert "- Small (T): short" in lines
