"""A refused call names the argument at fault by its path (``create_entities[0].entity_type``),
and a value within a lowered limit, or a field left out, is not refused."""

from __future__ import annotations

import re
from typing import Any

import pytest

from akgentic.tool.core.testing import ToolTestAgent, bind_card, expect_retry
from akgentic.tool.knowledge_graph import InputLimits, KnowledgeGraphTool
from akgentic.tool.knowledge_graph import models as graph_models

TIGHT = InputLimits(
    entity_type_max_chars=3,
    entity_description_max_chars=3,
    relation_type_max_chars=3,
    observations_per_entity=2,
)


@pytest.fixture
def tight(tool_agent: ToolTestAgent) -> dict[str, Any]:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False, input_limits=TIGHT))
    tools["update_graph"](
        create_entities=[
            {"name": "Ann", "entity_type": "P", "description": "abc"},
            {"name": "Bo", "entity_type": "P"},
        ]
    )
    return tools


def test_a_schema_error_names_the_nested_argument(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    message = expect_retry(tools["update_graph"], create_entities=[{"name": "X"}, {"name": "Y"}])
    assert message.startswith("Invalid arguments: create_entities[0].entity_type: ")
    assert "; create_entities[1].entity_type: " in message
    message = expect_retry(tools["search_graph"], query="x", top_k=0)
    assert message.startswith("Invalid arguments: top_k: ")


CREATE = {"name": "Cy", "entity_type": "P"}
RELATE = {"from_entity": "Ann", "to_entity": "Bo", "relation_type": "r"}


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        (
            {"create_entities": [{**CREATE, "entity_type": "Pers"}]},
            "create_entities[0].entity_type: 4 characters, at most 3",
        ),
        (
            {"update_entities": [{"name": "Ann", "entity_type": "Pers"}]},
            "update_entities[0].entity_type: 4 characters, at most 3",
        ),
        (
            {"create_entities": [{**CREATE, "description": "abcd"}]},
            "create_entities[0].description: 4 characters, at most 3",
        ),
        (
            {"update_entities": [{"name": "Ann", "description": "abcd"}]},
            "update_entities[0].description: 4 characters, at most 3",
        ),
        (
            {"create_relations": [{**RELATE, "relation_type": "know"}]},
            "create_relations[0].relation_type: 4 characters, at most 3",
        ),
    ],
)
def test_a_lowered_limit_names_the_argument_past_it(
    tight: dict[str, Any], call: dict[str, Any], problem: str
) -> None:
    message = expect_retry(tight["update_graph"], **call)
    assert problem in message
    # After the problem, the model is told what to do about it.
    assert message.endswith("; shorten these")


def test_an_update_leaving_type_and_description_out_is_within_any_limit(
    tight: dict[str, Any],
) -> None:
    result = tight["update_graph"](update_entities=[{"name": "Ann", "add_observations": ["x"]}])
    assert "1 entity updated" in result


def test_exactly_the_lowered_observation_count_is_accepted(tight: dict[str, Any]) -> None:
    result = tight["update_graph"](
        create_entities=[{"name": "Cy", "entity_type": "P", "observations": ["a", "b"]}]
    )
    assert "1 entity created" in result


def test_a_missing_module_attribute_is_named() -> None:
    with pytest.raises(AttributeError, match="no_such_model"):
        graph_models.no_such_model  # noqa: B018 - the lookup is what is tested


def test_a_long_query_is_refused_with_advice(tool_agent: ToolTestAgent) -> None:
    card = KnowledgeGraphTool(vector_store=False, input_limits=InputLimits(query_max_chars=10))
    message = expect_retry(bind_card(tool_agent, card)["search_graph"], query="a" * 11)
    problem, _, advice = message.partition("(input_limits.query_max_chars)")
    assert problem.endswith("query: 11 characters, at most 10 ")
    # After the problem, the model is told how to ask instead.
    assert advice.startswith("; ")
    assert "a few words" in advice


def test_observations_added_and_removed_count_toward_the_call_bound(
    tool_agent: ToolTestAgent,
) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    held = [f"old {i}" for i in range(500)]
    tools["update_graph"](
        create_entities=[{"name": "Bo", "entity_type": "P", "observations": held}]
    )
    # 1000 created + 600 added + 500 removed: 2100 observations in one call.
    message = expect_retry(
        tools["update_graph"],
        create_entities=[
            {"name": "Cy", "entity_type": "P", "observations": [f"n {i}" for i in range(1000)]}
        ],
        update_entities=[
            {
                "name": "Bo",
                "add_observations": [f"new {i}" for i in range(600)],
                "remove_observations": held,
            }
        ],
    )
    assert "got 2100" in message


def test_an_empty_update_names_the_five_lists_to_pass(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    message = expect_retry(tools["update_graph"])
    assert set(re.findall(r"\b\w+_(?:entities|relations)\b", message)) == {
        "create_entities",
        "update_entities",
        "delete_entities",
        "create_relations",
        "delete_relations",
    }
