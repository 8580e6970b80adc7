"""Bounds on what the model writes can be lowered per card (``input_limits``).

The schema's ceilings stay the defaults; a lowered bound is stated in the tool
descriptions and enforced at the tool's entry with a RetriableError naming the field, its
length and the limit, and nothing changes (core's standard lowered-limits tests). Names
that refer to items already in the graph keep the schema's ceilings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.input_limits import LowerableLimits
from akgentic.tool.core.testing import (
    LoweredLimitsTests,
    Refusal,
    Tools,
    ToolTestAgent,
    bind_card,
    spawn_tool_agent,
    tool_event_seqs,
)
from akgentic.tool.knowledge_graph import (
    ENTITY_DESCRIPTION_MAX_CHARS,
    ENTITY_NAME_MAX_CHARS,
    ENTITY_TYPE_MAX_CHARS,
    KG_ACTOR_NAME,
    OBSERVATION_MAX_CHARS,
    OBSERVATIONS_PER_ENTITY_MAX,
    QUERY_MAX_CHARS,
    RELATION_DESCRIPTION_MAX_CHARS,
    RELATION_TYPE_MAX_CHARS,
    InputLimits,
    KnowledgeGraphTool,
)

TIGHT = InputLimits(
    name_max_chars=10,
    entity_type_max_chars=50,
    entity_description_max_chars=200,
    observation_max_chars=20,
    observations_per_entity=3,
    relation_type_max_chars=30,
    relation_description_max_chars=10,
    query_max_chars=20,
)


class TestGraphLoweredLimits(LoweredLimitsTests):
    lowered = TIGHT
    ceilings: ClassVar[Mapping[str, int]] = {
        "name_max_chars": ENTITY_NAME_MAX_CHARS,
        "entity_type_max_chars": ENTITY_TYPE_MAX_CHARS,
        "entity_description_max_chars": ENTITY_DESCRIPTION_MAX_CHARS,
        "observation_max_chars": OBSERVATION_MAX_CHARS,
        "observations_per_entity": OBSERVATIONS_PER_ENTITY_MAX,
        "relation_type_max_chars": RELATION_TYPE_MAX_CHARS,
        "relation_description_max_chars": RELATION_DESCRIPTION_MAX_CHARS,
        "query_max_chars": QUERY_MAX_CHARS,
    }
    described: ClassVar[Mapping[str, Sequence[str]]] = {
        "update_graph": [  # every lowered bound, each named as the model writes it
            "tighter limits: entity names 10 characters, entity types 50 characters, entity "
            "descriptions 200 characters, observations 20 characters, relation types 30 "
            "characters, relation descriptions 10 characters, 3 observations per entity"
        ],
        "search_graph": ["limits the query to 20 characters"],
    }
    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {
        "update_graph": [{"create_entities": [{"name": "A" * 11, "entity_type": "P"}]}],
        "search_graph": [{"query": "q" * 21}],
    }
    refusals: ClassVar[Mapping[str, Sequence[Refusal]]] = {
        "update_graph": [
            (
                {"create_entities": [{"name": "Bartholomew", "entity_type": "P"}]},
                "(nothing was changed): create_entities[0].name: 11 characters, at most 10 "
                "(input_limits.name_max_chars)",
            ),
            (
                {
                    "create_entities": [
                        {"name": "Bo", "entity_type": "P", "observations": ["o" * 25]}
                    ]
                },
                "create_entities[0].observations[0]: 25 characters, at most 20",
            ),
            (
                {"update_entities": [{"name": "Ann", "add_observations": ["o" * 21]}]},
                "update_entities[0].add_observations[0]: 21 characters, at most 20",
            ),
            (
                {  # past two bounds: the second is named too
                    "create_entities": [{"name": "Bartholomew", "entity_type": "P"}],
                    "create_relations": [
                        {
                            "from_entity": "Ann",
                            "to_entity": "Ann",
                            "relation_type": "self",
                            "description": "d" * 11,
                        }
                    ],
                },
                "create_relations[0].description: 11 characters, at most 10",
            ),
            (
                {
                    "create_entities": [
                        {"name": "Bo", "entity_type": "P", "observations": list("wxyz")}
                    ]
                },
                "create_entities[0].observations: 4 observations, at most 3",
            ),
            (
                {"update_entities": [{"name": "Ann", "add_observations": ["c", "d"]}]},
                "'Ann': observations would number 4, at most 3 per entity",
            ),
        ],
        "search_graph": [
            (
                {"query": "a" * 25, "mode": "keyword"},
                "query: 25 characters, at most 20 (input_limits.query_max_chars)",
            )
        ],
    }

    def card_with(self, limits: LowerableLimits) -> ToolCard:
        assert isinstance(limits, InputLimits)
        return KnowledgeGraphTool(vector_store=False, input_limits=limits)

    def seed(self, tools: Tools) -> None:
        tools["update_graph"](
            create_entities=[{"name": "Ann", "entity_type": "P", "observations": ["a", "b"]}]
        )

    def read_state(self, tools: Tools) -> Any:
        return tools["get_graph"]()


@pytest.fixture
def tight(tool_agent: ToolTestAgent) -> Tools:
    return TestGraphLoweredLimits().seeded_tools(tool_agent)  # TIGHT, with Ann


def test_an_item_named_before_the_limit_was_lowered_can_still_be_reached(
    actor_system: ActorSystem, orchestrator: ActorAddress, tight: Tools
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


def test_a_query_within_the_lowered_limit_is_answered(tight: Tools) -> None:
    hits = tight["search_graph"](query="Ann", mode="keyword").hits
    assert [h.entity.name for h in hits] == ["Ann"]
