"""Bounds on what the model writes can be lowered per card (``input_limits``).

The schema's ceilings stay the defaults; a lowered bound is enforced at the tool's entry
with a RetriableError naming the field, its length and the limit, and nothing changes.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    ToolTestAgent,
    bind_card,
    expect_retry,
    spawn_tool_agent,
    team_tool_actor,
    tool_event_seqs,
)
from akgentic.tool.knowledge_graph import (
    ENTITY_DESCRIPTION_MAX_CHARS,
    ENTITY_NAME_MAX_CHARS,
    KG_ACTOR_NAME,
    OBSERVATION_MAX_CHARS,
    OBSERVATIONS_PER_ENTITY_MAX,
    QUERY_MAX_CHARS,
    InputLimits,
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
    KnowledgeGraphTool,
)

TIGHT = InputLimits(
    name_max_chars=10,
    observation_max_chars=20,
    observations_per_entity=3,
    relation_description_max_chars=10,
    query_max_chars=20,
)


@pytest.fixture
def tight(tool_agent: ToolTestAgent) -> dict[str, Any]:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, input_limits=TIGHT))
    tools["update_graph"](
        create_entities=[{"name": "Ann", "entity_type": "P", "observations": ["a", "b"]}]
    )
    return tools


def test_defaults_are_the_schema_ceilings() -> None:
    limits = InputLimits()
    assert limits.name_max_chars == ENTITY_NAME_MAX_CHARS
    assert limits.entity_description_max_chars == ENTITY_DESCRIPTION_MAX_CHARS
    assert limits.observation_max_chars == OBSERVATION_MAX_CHARS
    assert limits.observations_per_entity == OBSERVATIONS_PER_ENTITY_MAX
    assert limits.query_max_chars == QUERY_MAX_CHARS
    with pytest.raises(ValidationError, match="query_max_chars"):
        KnowledgeGraphTool(input_limits={"query_max_chars": QUERY_MAX_CHARS + 1})


def test_lowered_text_limits_name_each_field_and_its_limit(
    tight: dict[str, Any],
) -> None:
    # That such a call changes nothing is a standard test (test_standard.py, tight limits).
    message = expect_retry(
        tight["update_graph"],
        create_entities=[
            {"name": "Bartholomew", "entity_type": "P", "observations": ["ok", "o" * 25]}
        ],
        create_relations=[
            {
                "from_entity": "Ann",
                "to_entity": "Ann",
                "relation_type": "self",
                "description": "d" * 11,
            }
        ],
    )
    assert "create_entities[0].name: 11 characters, at most 10 (input_limits.name_max_chars)" in (
        message
    )
    assert "create_entities[0].observations[1]: 25 characters, at most 20" in message
    assert "create_relations[0].description: 11 characters, at most 10" in message
    assert "nothing was changed" in message


def test_lowered_observations_per_entity_bound_updates_too(
    actor_system: ActorSystem, orchestrator: ActorAddress, tight: dict[str, Any]
) -> None:
    message = expect_retry(
        tight["update_graph"],
        create_entities=[{"name": "Bo", "entity_type": "P", "observations": list("wxyz")}],
    )
    assert "create_entities[0].observations: 4 observations, at most 3" in message
    message = expect_retry(
        tight["update_graph"], update_entities=[{"name": "Ann", "add_observations": ["c", "d"]}]
    )
    assert "'Ann': observations would number 4, at most 3 per entity" in message
    graph = team_tool_actor(actor_system, orchestrator, KnowledgeGraphActor, KnowledgeGraphConfig())
    assert graph.graph().entities["Ann"].observations == ("a", "b")
    assert tool_event_seqs(actor_system, orchestrator, KG_ACTOR_NAME) == [1]


def test_an_item_named_before_the_limit_was_lowered_can_still_be_reached(
    actor_system: ActorSystem, orchestrator: ActorAddress, tight: dict[str, Any]
) -> None:
    roomy = bind_card(
        spawn_tool_agent(actor_system, orchestrator, "@Roomy"),
        KnowledgeGraphTool(vector_store=False),
    )
    roomy["update_graph"](create_entities=[{"name": "A long old name", "entity_type": "P"}])
    tight["update_graph"](
        update_entities=[{"name": "A long old name", "description": "still here"}],
        create_relations=[
            {"from_entity": "Ann", "to_entity": "A long old name", "relation_type": "r"}
        ],
    )
    tight["update_graph"](delete_entities=["A long old name"])
    assert tool_event_seqs(actor_system, orchestrator, KG_ACTOR_NAME) == [1, 2, 3, 4]


def test_lowered_query_limit(tight: dict[str, Any]) -> None:
    message = expect_retry(tight["search_graph"], query="a" * 25, mode="keyword")
    assert "query: 25 characters, at most 20 (input_limits.query_max_chars)" in message
    assert [h.entity.name for h in tight["search_graph"](query="Ann", mode="keyword").hits] == [
        "Ann"
    ]


def test_the_tool_descriptions_state_the_lowered_limits(tight: dict[str, Any]) -> None:
    update_doc = tight["update_graph"].__doc__
    assert "tighter limits: entity names 10 characters, observations 20 characters" in update_doc
    assert "3 observations per entity" in update_doc
    assert "limits the query to 20 characters" in tight["search_graph"].__doc__


def test_default_descriptions_are_unchanged(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    assert "tighter" not in tools["update_graph"].__doc__
    assert "limits the query" not in tools["search_graph"].__doc__
