"""Stored knowledge-graph configurations of akgentic-tool 1.6 load and work.

Each entry of ``fixtures/stored_config.yaml`` is validated (its round trip is a standard
test, in test_standard.py), then put to work on a real team: a card through
``ToolFactory`` (its tools called), the actor configuration by creating the graph actor
with it, the predecessor's state by restoring a graph actor from it, a recorded delta by
applying it to that state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import yaml
from pydantic import BaseModel

from akgentic.core.utils.deserializer import deserialize_object
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import (
    LiveTeam,
    StoredFormTests,
    StoredUseTests,
    ToolRetry,
    ToolTestAgent,
    card_callables,
    team_tool_actor,
)
from akgentic.tool.knowledge_graph import (
    GetGraph,
    GraphSearchResult,
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
    KnowledgeGraphState,
    KnowledgeGraphStateEvent,
    KnowledgeGraphTool,
    ManageGraph,
    SearchQuery,
)

ENTRIES = StoredFormTests.stored_entries(__file__, yaml.safe_load)
# The stored models with a stored form of their own (a delta's is its ToolStateEvent's).
FORMS = [KnowledgeGraphTool, KnowledgeGraphConfig, KnowledgeGraphState]


def _stored(card: str) -> dict[str, Any]:
    config: dict[str, Any] = next(e["config"] for e in ENTRIES if e["card"] == card)
    return config


class TestGraphStoredUse(StoredUseTests):
    # Round trips and the stored class paths: the stored-form tests below.
    stored_models = StoredFormTests.models_of(ENTRIES, [*FORMS, KnowledgeGraphStateEvent])

    def put_to_work(self, model: BaseModel, team: LiveTeam) -> None:
        if isinstance(model, KnowledgeGraphTool):
            _use_card(model, team.agent)
        elif isinstance(model, KnowledgeGraphConfig):
            graph = team_tool_actor(team.system, team.orchestrator, KnowledgeGraphActor, model)
            report = graph.update_graph(
                ManageGraph.model_validate(
                    {"create_entities": [{"name": "X", "entity_type": "T", "description": "x"}]}
                )
            )
            assert report.errors == []
            assert [e.name for e in graph.get_graph().entities] == ["X"]
        elif isinstance(model, KnowledgeGraphState):
            graph = team_tool_actor(
                team.system,
                team.orchestrator,
                KnowledgeGraphActor,
                KnowledgeGraphConfig(vector_store=False),
            )
            graph.init_state(model)
            view = graph.get_graph()
            assert [e.name for e in view.entities] == ["Acme", "Alice", "Bob"]
            assert str(view.entities[0].id) == "6f1c2a58-0d4e-4a53-9a2f-1b1f7c0c2a01"
            hits = graph.search(SearchQuery(query="premium", mode="keyword")).hits
            assert [h.entity.name for h in hits if h.entity] == ["Acme"]
            assert "Acme (Company)" in graph.overview()
        else:
            assert isinstance(model, KnowledgeGraphStateEvent)
            state = KnowledgeGraphState.model_validate(_stored("KnowledgeGraphState"))
            state.apply(model, seq=1)
            assert sorted(state.entities) == ["Acme", "Alice"]  # Bob removed by id
            assert state.entities["Acme"].description.endswith("renewed in 2024")
            assert [(r.label(), r.description) for r in state.relations.values()] == [
                ("Alice -[manages]-> Acme", "Since 2022, main contact")
            ]


def _use_card(card: KnowledgeGraphTool, agent: ToolTestAgent) -> None:
    factory = ToolFactory([card], observer=agent, retry_exception=ToolRetry)
    callables = card_callables(factory)  # tools and system prompts, by name
    if card.read_only:
        assert "update_graph" not in callables
        assert "update_graph" not in factory.commands.names()
    else:
        # The predecessor's call shape: one `update` object.
        result = callables["update_graph"](
            update={
                "create_entities": [
                    {
                        "name": "Acme",
                        "entity_type": "Company",
                        "description": "Customer",
                        "is_root": True,
                    },
                    {"name": "Alice", "entity_type": "Person", "description": "Manager"},
                ],
                "create_relations": [
                    {"from_entity": "Alice", "to_entity": "Acme", "relation_type": "manages"}
                ],
                "update_entities": [
                    {"name": "Acme", "add_observations": ["Lyon"], "remove_observations": None}
                ],
            }
        )
        assert result == ("Knowledge graph updated: 2 entities created, 1 relation added.")
    if "search_graph" in callables:
        found = callables["search_graph"](query={"query": "Acme", "mode": "keyword", "top_k": 3})
        assert isinstance(found, GraphSearchResult)
        if not card.read_only:
            assert [h.entity.name for h in found.hits if h.entity] == ["Acme"]
    else:
        assert card.search is False
    if "get_graph" in callables:
        text = callables["get_graph"]()
        param = card.get_graph if isinstance(card.get_graph, GetGraph) else GetGraph()
        if card.read_only:
            assert "update_graph" not in text
        else:
            assert ("Entity types:" in text) == param.prompt_include_schema
            assert ("**Root entities:**" in text) == param.prompt_include_roots


def test_stored_state_and_delta_deserialize_by_the_predecessor_module_path() -> None:
    """Snapshots and deltas name their class by module path; the predecessor's was
    ``knowledge_graph.models``."""
    state = KnowledgeGraphState.model_validate(_stored("KnowledgeGraphState")).model_dump()
    state["__model__"] = "akgentic.tool.knowledge_graph.models.KnowledgeGraphState"
    restored = deserialize_object(state)
    assert isinstance(restored, KnowledgeGraphState)
    assert sorted(restored.entities) == ["Acme", "Alice", "Bob"]
    assert [e.name for e in restored.knowledge_graph.entities] == ["Acme", "Alice", "Bob"]
    delta = KnowledgeGraphStateEvent.model_validate(_stored("KnowledgeGraphStateEvent"))
    data = delta.model_dump()
    data["__model__"] = "akgentic.tool.knowledge_graph.models.KnowledgeGraphStateEvent"
    assert deserialize_object(data) == delta


class TestGraphStoredForms(StoredFormTests):
    # Deltas travel inside a ToolStateEvent, whose dump names their class: their own dump
    # has no __model__ (the test above loads them by the predecessor's path).
    stored_models = StoredFormTests.models_of(ENTRIES, FORMS)
    model_paths: ClassVar[Mapping[type[BaseModel], str]] = {
        KnowledgeGraphTool: "akgentic.tool.knowledge_graph.kg_tool.KnowledgeGraphTool",
    }

    def same_model(self, left: BaseModel, right: BaseModel) -> bool:
        if isinstance(left, KnowledgeGraphState) and isinstance(right, KnowledgeGraphState):
            return left.same_graph(right)
        return super().same_model(left, right)
