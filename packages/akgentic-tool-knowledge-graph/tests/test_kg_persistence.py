"""Persistence: snapshots on a change-proportional schedule, deltas as the increment,
stop -> resume through akgentic-core's replay, and restore after an abrupt end."""

from __future__ import annotations

from typing import Any

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.testing import (
    RecordedTeam,
    agent_at,
    bind_card,
    record_team,
    recorded_tool_events,
    resume_team,
    settle,
    spawn_tool_agent,
    stop_team,
    team_tool_actor,
)
from akgentic.tool.knowledge_graph import (
    KG_ACTOR_NAME,
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
    KnowledgeGraphState,
    KnowledgeGraphStateEvent,
    KnowledgeGraphTool,
)


def _burst(tools: dict[str, Any], batches: int, size: int, start: int = 0) -> None:
    for b in range(batches):
        base = start + b * size
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


def _graph_actor(system: ActorSystem, orchestrator: ActorAddress) -> KnowledgeGraphActor:
    # The live singleton (it exists already here).
    config = KnowledgeGraphConfig(vector_store=False)
    return team_tool_actor(system, orchestrator, KnowledgeGraphActor, config)


def _deltas(persisted: RecordedTeam) -> list[ToolStateEvent]:
    return recorded_tool_events(persisted, KG_ACTOR_NAME)


def test_snapshots_are_rare_and_deltas_proportional_to_the_change(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    subscriber = record_team(actor_system, orchestrator)
    tools = bind_card(
        spawn_tool_agent(actor_system, orchestrator), KnowledgeGraphTool(vector_store=False)
    )
    _burst(tools, batches=40, size=50)  # 2,000 entities + 1,960 relations, 40 calls
    settle(actor_system, orchestrator)
    store = subscriber.record
    actor_id = str(_graph_actor(actor_system, orchestrator).agent_id)
    # One snapshot at start, then one each time the unpublished changes reach the size:
    # a handful for 40 updates, not 40.
    assert 2 <= store.state_count[actor_id] <= 8
    deltas = [text for text in store.events if "KnowledgeGraphStateEvent" in text]
    assert len(deltas) == 40
    # The increment of the last batch costs what the first one did, not more.
    assert len(deltas[-1]) < 1.2 * len(deltas[0])


def test_stop_then_resume_restores_the_graph_and_continues_the_sequence(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    subscriber = record_team(actor_system, orchestrator)
    tools = bind_card(
        spawn_tool_agent(actor_system, orchestrator), KnowledgeGraphTool(vector_store=False)
    )
    _burst(tools, batches=3, size=10)
    tools["update_graph"](
        update_entities=[{"name": "E3", "description": "changed", "is_root": True}],
        delete_entities=["E5"],
    )
    before = _graph_actor(actor_system, orchestrator).graph()
    stop_team(actor_system, orchestrator)
    persisted = subscriber.record.copy()
    snapshot = persisted.state_of(KG_ACTOR_NAME)
    assert isinstance(snapshot, KnowledgeGraphState)
    assert snapshot.seq == 4  # the stop published the final state

    new_orchestrator, members = resume_team(actor_system, persisted)
    assert set(members) == {"@Tester", KG_ACTOR_NAME}
    tools = bind_card(
        agent_at(actor_system, members["@Tester"]), KnowledgeGraphTool(vector_store=False)
    )
    after = _graph_actor(actor_system, new_orchestrator).graph()
    assert after.same_graph(before)
    assert after.entities["E3"].description == "changed"
    assert "E5" not in after.entities
    assert "- E3 (Thing): changed" in tools["get_graph"]()

    tools["update_graph"](create_entities=[{"name": "New", "entity_type": "Thing"}])
    settle(actor_system, new_orchestrator)
    seqs = [
        m.event.seq
        for m in actor_system.proxy_ask(new_orchestrator, Orchestrator).get_events(
            event_class=ToolStateEvent
        )
    ]
    assert seqs == [1, 2, 3, 4, 5]  # replayed history, then the new delta: no gap, no reuse


def _killed_after_burst(
    system: ActorSystem, orchestrator: ActorAddress
) -> tuple[RecordedTeam, KnowledgeGraphState]:
    subscriber = record_team(system, orchestrator)
    tools = bind_card(
        spawn_tool_agent(system, orchestrator), KnowledgeGraphTool(vector_store=False)
    )
    _burst(tools, batches=30, size=10)
    tools["update_graph"](
        update_entities=[{"name": "E0", "add_observations": ["first"]}],
        delete_entities=["E299"],
    )
    expected = _graph_actor(system, orchestrator).graph()
    settle(system, orchestrator)
    # The process dies here: whatever reached the store is all there is.
    frozen = subscriber.record.copy()
    stop_team(system, orchestrator)
    return frozen, expected


def test_abrupt_end_after_burst_restores_everything_from_stale_snapshot(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    frozen, expected = _killed_after_burst(actor_system, orchestrator)
    stale = frozen.state_of(KG_ACTOR_NAME)
    assert stale.seq < 31  # the last snapshot predates the last updates
    assert len(stale.entities) < 300

    new_orchestrator, members = resume_team(actor_system, frozen)
    tools = bind_card(
        agent_at(actor_system, members["@Tester"]), KnowledgeGraphTool(vector_store=False)
    )
    restored = _graph_actor(actor_system, new_orchestrator).graph()
    assert restored.same_graph(expected)
    assert restored.seq == 31
    assert restored.entities["E0"].observations == ("first",)
    assert tools["search_graph"](query="item 298", mode="keyword").hits[0].entity.name == "E298"


def test_abrupt_end_before_any_snapshot_restores_from_history_alone(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    frozen, expected = _killed_after_burst(actor_system, orchestrator)
    # The store never received a snapshot with data (or the team layer restores none):
    # the recreated actor rebuilds itself from the replayed deltas alone.
    new_orchestrator, members = resume_team(actor_system, frozen, restore_states=False)
    bind_card(agent_at(actor_system, members["@Tester"]), KnowledgeGraphTool(vector_store=False))
    restored = _graph_actor(actor_system, new_orchestrator).graph()
    assert restored.same_graph(expected)
    assert restored.seq == 31


def test_replaying_the_deltas_in_order_rebuilds_the_graph(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    subscriber = record_team(actor_system, orchestrator)
    tools = bind_card(
        spawn_tool_agent(actor_system, orchestrator), KnowledgeGraphTool(vector_store=False)
    )
    _burst(tools, batches=5, size=8)
    tools["update_graph"](
        update_entities=[
            {"name": "E1", "description": "renamed", "add_observations": ["x", "y"]},
            {"name": "E2", "entity_type": "Other"},
        ],
        create_relations=[
            {"from_entity": "E1", "to_entity": "E30", "relation_type": "jumps"},
            # same key as an existing relation, new description: a replacement
            {"from_entity": "E2", "to_entity": "E1", "relation_type": "after", "description": "d"},
        ],
        delete_relations=[{"from_entity": "E9", "to_entity": "E8", "relation_type": "after"}],
        delete_entities=["E20"],
    )
    tools["update_graph"](
        create_entities=[{"name": "Temp", "entity_type": "T"}],
        delete_entities=["Temp", "E39"],
    )
    live = _graph_actor(actor_system, orchestrator).graph()
    settle(actor_system, orchestrator)

    client = KnowledgeGraphState()
    deltas = _deltas(subscriber.record)  # deserialized from the persisted JSON
    assert [d.seq for d in deltas] == list(range(1, len(deltas) + 1))
    for event in deltas:
        assert isinstance(event.payload, KnowledgeGraphStateEvent)
        client.apply(event.payload, seq=event.seq)
    assert client.same_graph(live)
    assert client.seq == live.seq
    # Temp was created and deleted in one call: it never appears in any delta.
    assert not any("Temp" in e.model_dump_json() for e in deltas)
