"""Ten agents updating one graph at once, each through its own card and proxy."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.testing import (
    ToolRetry,
    bind_card,
    spawn_tool_agent,
    team_tool_actor,
    tool_event_seqs,
)
from akgentic.tool.knowledge_graph import (
    KG_ACTOR_NAME,
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
    KnowledgeGraphTool,
)

AGENTS = 10
CALLS = 15


def test_ten_agents_updating_concurrently_lose_nothing(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    agents = [spawn_tool_agent(actor_system, orchestrator, f"@Agent{i}") for i in range(AGENTS)]
    tools: list[dict[str, Any]] = [{} for _ in agents]
    errors: list[BaseException] = []
    start = threading.Barrier(AGENTS)

    def work(index: int) -> None:
        try:
            # Binding races too: every card must end up on the same singleton actor.
            tools[index] = bind_card(agents[index], KnowledgeGraphTool(vector_store=False))
            update = tools[index]["update_graph"]
            start.wait()
            for call in range(CALLS):
                name = f"A{index}-{call}"
                update(
                    create_entities=[{"name": name, "entity_type": "Note"}],
                    create_relations=[
                        {
                            "from_entity": name,
                            "to_entity": f"A{index}-{call - 1}",
                            "relation_type": "next",
                        }
                    ]
                    if call
                    else [],
                )
                # Everyone also edits one shared entity (created by whoever gets there first).
                with contextlib.suppress(ToolRetry):  # another agent created it first
                    update(create_entities=[{"name": "Shared", "entity_type": "Hub"}])
                update(update_entities=[{"name": "Shared", "add_observations": [name]}])
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(AGENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []

    graph = team_tool_actor(
        actor_system, orchestrator, KnowledgeGraphActor, KnowledgeGraphConfig()
    ).graph()
    assert len(graph.entities) == AGENTS * CALLS + 1
    assert len(graph.relations) == AGENTS * (CALLS - 1)
    assert sorted(graph.entities["Shared"].observations) == sorted(
        f"A{i}-{c}" for i in range(AGENTS) for c in range(CALLS)
    )
    seqs = tool_event_seqs(actor_system, orchestrator, KG_ACTOR_NAME)
    # 150 creations + 1 hub creation + 150 observation updates, numbered without gaps.
    assert seqs == list(range(1, 2 * AGENTS * CALLS + 2))
    team = [m.name for m in actor_system.proxy_ask(orchestrator, Orchestrator).get_team()]
    assert team.count(KG_ACTOR_NAME) == 1
