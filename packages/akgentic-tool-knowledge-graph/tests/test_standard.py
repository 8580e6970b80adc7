"""Core's standard tests, applied to the knowledge graph: the card, its public names, bad
input and the graph actor's delta persistence. The standard stored-form tests run with the
stored configurations (test_kg_stored_config.py), the vector-search ones with the search
tests (test_kg_search.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

import akgentic.tool.knowledge_graph as kg
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.delta_state import TrackedState
from akgentic.tool.core.testing import (
    BadCalls,
    CardStandardTests,
    DeltaPersistenceTests,
    PartialBatchTests,
    PublicSurfaceTests,
    Refusal,
    RefusalTests,
    Tools,
)
from akgentic.tool.knowledge_graph import (
    KG_ACTOR_NAME,
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
    KnowledgeGraphState,
    KnowledgeGraphStateEvent,
    KnowledgeGraphTool,
)


class TestGraphCard(CardStandardTests):
    def make_card(self) -> ToolCard:
        return KnowledgeGraphTool(search_top_k=5, vector_store="#OtherStore")


class TestGraphBadInput(RefusalTests):
    bad_calls: ClassVar[BadCalls] = {
        "update_graph": [
            {},
            {"create_entities": [{"name": "x"}]},
            {"create_entities": "not a list"},
            {"delete_entities": ["missing"]},
            {"update_entities": [{"name": "Nobody", "description": "?"}]},
            {
                "create_relations": [
                    {"from_entity": "Ann", "to_entity": "Zed", "relation_type": "r"}
                ]
            },
            {"update_entities": [{"name": "Ann", "remove_observations": ["never said"]}]},
        ],
        "search_graph": [{"query": ""}, {"query": "x", "score_threshold": 2}],
    }
    # The refusal names the argument path at fault and what it should be.
    refusals: ClassVar[Mapping[str, Sequence[Refusal]]] = {
        "update_graph": [
            ({}, "update_graph got no change: pass create_entities"),
            (
                {"create_entities": [{"name": "", "entity_type": "X"}]},
                "create_entities[0].name: String should have at least 1 character",
            ),
            ({"create_entities": "Alice"}, "create_entities: Input should be a valid list"),
            (
                {"create_entities": ["Alice"]},
                "create_entities[0]: Input should be a valid dictionary",
            ),
            (
                {"create_entities": [{"name": 7, "entity_type": "T"}]},
                "create_entities[0].name: Input should be a valid string",
            ),
            (
                {"create_entities": [{"name": "N", "entity_type": "T", "observations": "fact"}]},
                "create_entities[0].observations: Input should be a valid list",
            ),
            (
                {"update_entities": [{"name": "Alice", "add_observations": [1, 2]}]},
                "update_entities[0].add_observations[0]: Input should be a valid string",
            ),
            (
                {"update_entities": [{"name": "Alice", "is_root": "perhaps"}]},
                "update_entities[0].is_root: Input should be a valid boolean",
            ),
            ({"delete_entities": "Alice"}, "delete_entities: Input should be a valid list"),
            (
                {"delete_entities": [["Alice"]]},
                "delete_entities[0]: Input should be a valid string",
            ),
            (
                {
                    "create_relations": [
                        {"from_entity": "Alice", "to_entity": None, "relation_type": "r"}
                    ]
                },
                "create_relations[0].to_entity: Input should be a valid string",
            ),
            (
                {"delete_relations": [("Alice", "at", "Acme")]},
                "delete_relations[0]: Input should be",
            ),
        ],
        "search_graph": [
            ({"query": "x", "mode": "fuzzy"}, "mode: Input should be 'hybrid'"),
            ({"query": "x", "top_k": 0}, "top_k: Input should be greater than or equal to 1"),
            ({"query": 42}, "query: Input should be a valid string"),
            ({"query": ["tea"]}, "query: Input should be a valid string"),
            ({"query": "tea", "mode": 3}, "mode: Input should be 'hybrid', 'keyword' or 'vector'"),
            ({"query": "tea", "top_k": "many"}, "top_k: Input should be a valid integer"),
            ({"query": "tea", "top_k": 2.5}, "top_k: Input should be a valid integer"),
            (
                {"query": "tea", "score_threshold": "high"},
                "score_threshold: Input should be a valid",
            ),
            (
                {"query": "tea", "include_edges": [True]},
                "include_edges: Input should be a valid boolean",
            ),
            (
                {"query": "tea", "find_paths": "sometimes"},
                "find_paths: Input should be a valid boolean",
            ),
        ],
    }

    def make_card(self) -> ToolCard:
        return KnowledgeGraphTool(vector_store=False)

    def seed(self, tools: Tools) -> None:
        tools["update_graph"](
            create_entities=[{"name": "Ann", "entity_type": "P", "observations": ["a", "b"]}]
        )

    def read_state(self, tools: Tools) -> Any:
        return tools["get_graph"]()


class TestGraphPartialBatch(PartialBatchTests):
    batch_tool = "update_graph"
    tool_id = KG_ACTOR_NAME
    mixed_batch: ClassVar[Mapping[str, Any]] = {
        "create_entities": [
            {"name": "Bob", "entity_type": "Person"},
            {"name": "Alice", "entity_type": "Person"},
        ],
        "update_entities": [{"name": "Zed", "description": "x"}],
        "create_relations": [
            {"from_entity": "Bob", "to_entity": "Alice", "relation_type": "knows"},
            {"from_entity": "Bob", "to_entity": "Ghost", "relation_type": "knows"},
        ],
        "delete_entities": ["Nobody"],
    }
    changes = 6
    rejected: ClassVar[Sequence[str]] = [
        "create_entities[1]: entity 'Alice' already exists",
        "update_entities[0]: unknown entity 'Zed'",
        "create_relations[1] Bob -[knows]-> Ghost: unknown entity 'Ghost'",
        "delete_entities[0]: unknown entity 'Nobody'",
    ]
    applied = "1 entity created, 1 relation added"
    seed_batch: ClassVar[Mapping[str, Any]] = {
        "create_entities": [{"name": "Alice", "entity_type": "Person"}]
    }

    def make_card(self) -> ToolCard:
        return KnowledgeGraphTool(vector_store=False)

    def check_applied(self, tools: Tools, delta: BaseModel) -> None:
        assert isinstance(delta, KnowledgeGraphStateEvent)
        assert [e.name for e in delta.entities_added] == ["Bob"]
        assert [r.label() for r in delta.relations_added] == ["Bob -[knows]-> Alice"]
        assert delta.entities_modified == []
        assert delta.entities_removed == []


class TestGraphPersistence(DeltaPersistenceTests):
    actor_class = KnowledgeGraphActor

    def make_card(self) -> ToolCard:
        return KnowledgeGraphTool(vector_store=False)

    def actor_config(self) -> BaseConfig:
        return KnowledgeGraphConfig(vector_store=False)

    def add_batch(self, tools: Tools, index: int, size: int) -> None:
        base = index * size
        tools["update_graph"](
            create_entities=[
                {"name": f"E{base + i}", "entity_type": "Thing", "description": f"item {base + i}"}
                for i in range(size)
            ],
            create_relations=[
                {
                    "from_entity": f"E{base + i}",
                    "to_entity": f"E{base + i - 1}",
                    "relation_type": "after",
                }
                for i in range(1, size)
            ],
        )

    def edit(self, tools: Tools) -> None:
        tools["update_graph"](
            update_entities=[
                {"name": "E1", "description": "renamed", "add_observations": ["x", "y"]},
                {"name": "E2", "entity_type": "Other", "is_root": True},
            ],
            create_relations=[
                {"from_entity": "E1", "to_entity": "E9", "relation_type": "jumps"},
                # same key as an existing relation, new description: a replacement
                {
                    "from_entity": "E2",
                    "to_entity": "E1",
                    "relation_type": "after",
                    "description": "d",
                },
            ],
            delete_relations=[{"from_entity": "E4", "to_entity": "E3", "relation_type": "after"}],
            delete_entities=["E5"],
        )
        # Created and deleted in one call: no delta carries it.
        tools["update_graph"](
            create_entities=[{"name": "Temp", "entity_type": "T"}],
            delete_entities=["Temp", "E8"],
        )

    def restate(self, tools: Tools) -> None:
        tools["update_graph"](update_entities=[{"name": "E1", "entity_type": "Thing"}])

    def calls_after_stop(self, tools: Tools) -> list[Callable[[], Any]]:
        return [
            lambda: tools["update_graph"](delete_entities=["E1"]),
            lambda: tools["search_graph"](query="item"),
        ]

    def live_state(self, actor: Any) -> TrackedState:
        state: KnowledgeGraphState = actor.graph()
        return state

    def empty_state(self) -> TrackedState:
        return KnowledgeGraphState()

    def same_state(self, left: TrackedState, right: TrackedState) -> bool:
        assert isinstance(left, KnowledgeGraphState)
        assert isinstance(right, KnowledgeGraphState)
        return left.same_graph(right)

    def check_resumed(self, tools: Tools, expected: TrackedState) -> None:
        assert isinstance(expected, KnowledgeGraphState)
        assert "E5" not in expected.entities
        assert expected.entities["E1"].observations == ("x", "y")
        assert "- E2 (Other): item 2" in tools["get_graph"]()  # the root is shown
        assert tools["search_graph"](query="item 7", mode="keyword").hits[0].entity.name == "E7"


class TestGraphSurface(PublicSurfaceTests):
    module = kg
    public_names = PublicSurfaceTests.names_listed_in(
        Path(__file__).parent / "fixtures" / "public_names.txt"
    )
    aliases: ClassVar[Mapping[str, object]] = {
        "akgentic.tool.knowledge_graph.event:KnowledgeGraphStateEvent": KnowledgeGraphStateEvent,
        "akgentic.tool.knowledge_graph.kg_tool:KnowledgeGraphTool": KnowledgeGraphTool,
        "akgentic.tool.knowledge_graph.models:Entity": kg.Entity,
        "akgentic.tool.knowledge_graph.kg_actor:KnowledgeGraphActor": KnowledgeGraphActor,
    }
