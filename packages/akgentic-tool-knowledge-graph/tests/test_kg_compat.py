"""What code and conversations written for the predecessor rely on: item ids, read-only
cards, the ``search`` field, the nested ``update`` and ``query`` arguments, ``get_graph``
queries, and the graph actor's own calls."""

from __future__ import annotations

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    LocalVectorStore,
    ToolTestAgent,
    bind_card,
    expect_retry,
    team_tool_actor,
)
from akgentic.tool.knowledge_graph import (
    KG_ACTOR_NAME,
    KG_ACTOR_ROLE,
    KG_COLLECTION,
    VS_ACTOR_NAME,
    Entity,
    GetGraphQuery,
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
    KnowledgeGraphState,
    KnowledgeGraphTool,
    ManageGraph,
    PathStep,
    Relation,
    SearchGraph,
    SearchQuery,
)
from akgentic.tool.knowledge_graph._search import graph_view
from akgentic.tool.knowledge_graph._update import apply_update


def _graph() -> KnowledgeGraphState:
    """Acme (root) <-works_at- Ann -knows-> Bob -works_at-> Beta; Ann -owns-> Car."""
    state = KnowledgeGraphState()
    outcome = apply_update(
        state,
        ManageGraph.model_validate(
            {
                "create_entities": [
                    {"name": "Acme", "entity_type": "Company", "is_root": True},
                    {"name": "Beta", "entity_type": "Company"},
                    {"name": "Ann", "entity_type": "Person"},
                    {"name": "Bob", "entity_type": "Person"},
                    {"name": "Car", "entity_type": "Thing"},
                ],
                "create_relations": [
                    {"from_entity": "Ann", "to_entity": "Acme", "relation_type": "works_at"},
                    {"from_entity": "Ann", "to_entity": "Bob", "relation_type": "knows"},
                    {"from_entity": "Bob", "to_entity": "Beta", "relation_type": "works_at"},
                    {"from_entity": "Ann", "to_entity": "Car", "relation_type": "owns"},
                ],
            }
        ),
    )
    assert outcome.errors == []
    return state


def _names(view: object) -> list[str]:
    return sorted(e.name for e in view.entities)  # type: ignore[attr-defined]


def test_constants_of_the_predecessor() -> None:
    assert KG_ACTOR_NAME == "#KnowledgeGraphTool"
    assert KG_ACTOR_ROLE == "ToolActor" == KnowledgeGraphConfig().role
    assert KG_COLLECTION == "knowledge_graph"
    assert VS_ACTOR_NAME == "#VectorStore"


def test_ids_are_stable_across_updates_and_relation_changes_are_modifications() -> None:
    state = _graph()
    ann, rel = state.entities["Ann"].id, state.relations_of("Car")[0].id
    outcome = apply_update(
        state,
        ManageGraph.model_validate(
            {
                "update_entities": [{"name": "Ann", "description": "engineer"}],
                "create_relations": [
                    {
                        "from_entity": "Ann",
                        "to_entity": "Car",
                        "relation_type": "owns",
                        "description": "since 2020",
                    }
                ],
            }
        ),
    )
    assert state.entities["Ann"].id == ann
    assert [(r.label(), r.id) for r in outcome.delta.relations_modified] == [
        ("Ann -[owns]-> Car", rel)
    ]
    assert outcome.delta.relations_added == outcome.delta.relations_removed == []
    assert outcome.summary == "1 entity updated, 1 relation updated"


def test_get_graph_queries() -> None:
    state = _graph()
    assert _names(graph_view(state, None)) == ["Acme", "Ann", "Beta", "Bob", "Car"]
    assert _names(graph_view(state, GetGraphQuery(roots_only=True))) == ["Acme"]
    one_hop = graph_view(state, GetGraphQuery(entity_names=["Bob", "Nobody"], depth=1))
    assert _names(one_hop) == ["Ann", "Beta", "Bob"]
    assert sorted(r.label() for r in one_hop.relations) == [
        "Ann -[knows]-> Bob",
        "Bob -[works_at]-> Beta",
    ]
    typed = graph_view(
        state, GetGraphQuery(entity_names=["Ann"], depth=2, relation_types=["works_at"])
    )
    assert _names(typed) == ["Acme", "Ann"]
    path = graph_view(
        state,
        GetGraphQuery(
            entity_names=["Ann"],
            path=[
                PathStep(relation_type="knows", to_entity="Person"),
                PathStep(relation_type="works_at", to_entity="*"),
            ],
        ),
    )
    assert _names(path) == ["Ann", "Beta", "Bob"]
    assert [r.label() for r in path.relations] == ["Ann -[knows]-> Bob", "Bob -[works_at]-> Beta"]


def test_read_only_card_offers_no_update_anywhere(tool_agent: ToolTestAgent) -> None:
    card = KnowledgeGraphTool(read_only=True, vector_store=False)
    tools = bind_card(tool_agent, card)
    assert sorted(tools) == ["get_graph", "search_graph"]
    assert "update_graph" not in tools["get_graph"]()


def test_search_field_and_its_other_name() -> None:
    assert KnowledgeGraphTool(search=False).search is False
    assert KnowledgeGraphTool.model_validate({"search_graph": False}).search is False
    configured = KnowledgeGraphTool.model_validate({"search_graph": {"instructions": "Hi."}})
    assert isinstance(configured.search, SearchGraph)
    assert "search_graph" not in KnowledgeGraphTool().model_dump()


def test_nested_arguments_of_the_earlier_call_shapes(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))
    assert tools["update_graph"](
        create_entities=[{"name": "A", "entity_type": "T"}],
        update=ManageGraph.model_validate({"create_entities": [{"name": "B", "entity_type": "T"}]}),
    ) == ("Knowledge graph updated: 2 entities created.")
    tools["update_graph"](update={"update_entities": [{"name": "A", "add_observations": None}]})
    assert "unknown field(s) 'entities'" in expect_retry(
        tools["update_graph"], update={"entities": []}
    )
    result = tools["search_graph"](query=SearchQuery(query="B", mode="keyword"))
    assert [h.entity.name for h in result.hits if h.entity] == ["B"]
    assert "query" in expect_retry(tools["search_graph"], query={"mode": "keyword"})


def test_the_graph_actor_answers_the_predecessor_calls(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    vector_store: LocalVectorStore,
) -> None:
    bind_card(tool_agent, KnowledgeGraphTool())["update_graph"](
        create_entities=[
            {"name": "Ann", "entity_type": "Person", "description": "database administrator"},
            {"name": "Bob", "entity_type": "Person", "description": "holiday party planner"},
            {"name": "Acme", "entity_type": "Company"},
        ],
        create_relations=[
            {"from_entity": "Ann", "to_entity": "Acme", "relation_type": "works_at"},
            {"from_entity": "Bob", "to_entity": "Acme", "relation_type": "works_at"},
        ],
    )
    graph = team_tool_actor(actor_system, orchestrator, KnowledgeGraphActor, KnowledgeGraphConfig())
    assert _names(graph.get_graph()) == ["Acme", "Ann", "Bob"]
    assert _names(graph.get_graph(GetGraphQuery(entity_names=["Ann"]))) == ["Ann"]
    # search(query) alone: the actor asks the vector store itself.
    semantic = graph.search(SearchQuery(query="database administrator", mode="vector"))
    assert semantic.note is None
    assert [h.entity.name for h in semantic.hits if h.entity][:1] == ["Ann"]
    both = graph.search_result(SearchQuery(query="Person", mode="keyword", find_paths=True))
    assert [h.ref_type for h in both.hits] == ["entity", "entity"]
    assert {h.ref_id for h in both.hits} == {str(h.entity.id) for h in both.hits if h.entity}
    (path,) = both.paths
    assert [type(step) for step in path] == [Entity, Relation, Entity, Relation, Entity]
    assert [step.name for step in path if isinstance(step, Entity)] == ["Ann", "Acme", "Bob"]
