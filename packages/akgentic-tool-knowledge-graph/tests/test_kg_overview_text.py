"""The overview (``get_graph``): the text every teammate's system prompt carries.

Here the text is the behaviour: the README shows the model's view of a small graph and the
tool must produce exactly that; the other variants (empty graph, read-only card, long
lists) are checked for what they hold and leave out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import ToolTestAgent, bind_card, spawn_tool_agent, team_tool_actor
from akgentic.tool.knowledge_graph import (
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
    KnowledgeGraphTool,
)

README = Path(__file__).parent.parent / "README.md"
HEADING = "**Knowledge graph:**"


def _readme_overview() -> str:
    """The fenced block that follows "The overview the model sees" in the README."""
    text = README.read_text(encoding="utf-8")
    after = text.split("The overview the model sees:", 1)[1]
    return after.split("```", 2)[1].strip("\n")


def _readme_graph(tools: dict[str, Any]) -> None:
    tools["update_graph"](
        create_entities=[
            {
                "name": "Acme",
                "entity_type": "Company",
                "description": "our client",
                "is_root": True,
            },
            {"name": "Alice", "entity_type": "Person", "observations": ["likes tea"]},
        ],
        create_relations=[
            {"from_entity": "Alice", "to_entity": "Acme", "relation_type": "works_at"}
        ],
    )


@pytest.fixture
def tools(tool_agent: ToolTestAgent) -> dict[str, Any]:
    return bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))


def test_the_overview_is_the_one_the_readme_shows(tools: dict[str, Any]) -> None:
    _readme_graph(tools)
    assert tools["get_graph"]() == _readme_overview()


def test_the_actor_overview_defaults_to_schema_roots_and_the_update_hint(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    # Code written for the predecessor calls overview() without arguments.
    _readme_graph(tools)
    graph = team_tool_actor(actor_system, orchestrator, KnowledgeGraphActor, KnowledgeGraphConfig())
    assert graph.overview() == _readme_overview()


def test_a_read_only_overview_drops_only_the_update_hint(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    _readme_graph(tools)
    reader = bind_card(
        spawn_tool_agent(actor_system, orchestrator, "@Reader"),
        KnowledgeGraphTool(vector_store=False, read_only=True),
    )
    writable = tools["get_graph"]().splitlines()
    read_only = reader["get_graph"]().splitlines()
    assert read_only[:-1] == writable[:-1]
    # The read-only hint is the writable one without its update_graph part.
    assert "update_graph" not in read_only[-1]
    assert "search_graph(query=...)" in read_only[-1]
    assert writable[-1].startswith(read_only[-1].rstrip("."))


def test_an_empty_graph_says_so_under_the_same_heading(
    actor_system: ActorSystem, orchestrator: ActorAddress, tools: dict[str, Any]
) -> None:
    reader = bind_card(
        spawn_tool_agent(actor_system, orchestrator, "@Reader"),
        KnowledgeGraphTool(vector_store=False, read_only=True),
    )
    writable, read_only = tools["get_graph"](), reader["get_graph"]()
    for text in (writable, read_only):
        assert text.startswith(f"{HEADING} empty.")
    assert "update_graph(...)" in writable
    assert "update_graph" not in read_only


def test_fifty_roots_are_all_listed_the_fifty_first_is_counted(tools: dict[str, Any]) -> None:
    roots = [{"name": f"R{i:02}", "entity_type": "T", "is_root": True} for i in range(50)]
    tools["update_graph"](create_entities=roots)
    fifty = tools["get_graph"]()
    assert [line for line in fifty.splitlines() if line.startswith("- ")] == [
        f"- R{i:02} (T)" for i in range(50)
    ]
    tools["update_graph"](create_entities=[{"name": "R50", "entity_type": "T", "is_root": True}])
    listed = [line for line in tools["get_graph"]().splitlines() if line.startswith("- ")]
    assert listed[:50] == [f"- R{i:02} (T)" for i in range(50)]
    assert listed[50:] == ["- ... and 1 more root entities"]


def test_thirty_types_are_all_named_the_thirty_first_is_counted(tools: dict[str, Any]) -> None:
    # Type T00 is the most frequent, so the type left out is the last one created.
    tools["update_graph"](
        create_entities=[{"name": "Extra", "entity_type": "T00"}]
        + [{"name": f"E{i:02}", "entity_type": f"T{i:02}"} for i in range(30)]
    )
    (line,) = [line for line in tools["get_graph"]().splitlines() if line.startswith("Entity")]
    assert line == "Entity types: " + ", ".join(
        ["T00 (2)", *(f"T{i:02} (1)" for i in range(1, 30))]
    )
    tools["update_graph"](create_entities=[{"name": "E30", "entity_type": "T30"}])
    (line,) = [line for line in tools["get_graph"]().splitlines() if line.startswith("Entity")]
    assert line.endswith("T29 (1), ... 1 more")
    assert "T30" not in line


def test_a_root_description_is_clipped_past_150_characters(tools: dict[str, Any]) -> None:
    # Exactly 150 characters: shown whole. Longer: cut, without a space before the mark.
    tools["update_graph"](
        create_entities=[
            {"name": "Full", "entity_type": "T", "is_root": True, "description": "f" * 150},
            {
                "name": "Cut",
                "entity_type": "T",
                "is_root": True,
                "description": "c" * 148 + "  " + "d" * 50,
            },
        ]
    )
    lines = tools["get_graph"]().splitlines()
    assert "- Full (T): " + "f" * 150 in lines
    assert "- Cut (T): " + "c" * 148 + "…" in lines
