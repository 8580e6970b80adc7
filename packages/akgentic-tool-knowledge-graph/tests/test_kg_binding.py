"""Binding the card and calling it once the team is gone: both errors name the graph."""

from __future__ import annotations

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.testing import ToolTestAgent, agent_at, bind_card, expect_retry, stop_team
from akgentic.tool.knowledge_graph import KnowledgeGraphTool


def test_a_call_after_the_team_stopped_names_the_graph(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    stop_team(actor_system, orchestrator)
    message = expect_retry(tools["search_graph"], query="anything", mode="keyword")
    assert message.startswith("The team knowledge graph is not running")


def test_a_card_bound_outside_a_team_names_itself(actor_system: ActorSystem) -> None:
    lone = agent_at(
        actor_system, actor_system.createActor(ToolTestAgent, config=BaseConfig(name="@Lone"))
    )
    with pytest.raises(RuntimeError, match=r"^KnowledgeGraphTool needs an agent that belongs"):
        bind_card(lone, KnowledgeGraphTool(vector_store=False))
