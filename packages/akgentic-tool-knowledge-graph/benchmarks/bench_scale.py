"""How the knowledge graph's costs grow with its size (issue 19, item 4).

At 1/8, 1/4, 1/2 and all of 50,000 entities and 100,000 relations, each size in a fresh
akgentic-core actor system with the tools from ``ToolFactory.get_tools()``:

* load: every entity, then every relation, through ``update_graph`` in batches of 100;
* resume, both ways a resumed team rebuilds the graph: replay, every persisted delta read
  back from JSON and applied to an empty ``KnowledgeGraphState``; snapshot, the whole
  graph read back from one JSON snapshot;
* search: ``search_graph(mode="keyword")``, median and p95 over 200 queries, each naming
  one entity (names are zero-padded, so a query matches that entity and its relations
  only: the answer's size stays the same at every graph size);
* memory: the bytes the resumed state holds, with the keyword index built by one search
  (tracemalloc, measured on its own pass because tracing slows everything down).

Targets, as exponents of growth with the item count (:mod:`akgentic.tool.core.growth`
fits them): load and both resumes at most 1.2, keyword search under 1.

Command: .venv/bin/python packages/akgentic-tool-knowledge-graph/benchmarks/bench_scale.py
(add ``--quick`` to try it at a twentieth of the sizes, ``--clock wall`` to time the wall).
"""

from __future__ import annotations

import sys
from functools import partial
from typing import Any

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import growth
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import orchestrator_events, spawn_tool_agent
from akgentic.tool.knowledge_graph import KnowledgeGraphTool
from akgentic.tool.knowledge_graph._search import KeywordIndex
from akgentic.tool.knowledge_graph.event import KnowledgeGraphStateEvent
from akgentic.tool.knowledge_graph.state import KnowledgeGraphState

ENTITIES = 50_000
RELATIONS = 100_000
BATCH = 100
SEARCHES = 200

WATCH = growth.Stopwatch()  # CPU time of the process unless --clock wall


def entity_batches(entities: int) -> list[list[dict[str, Any]]]:
    return [
        [
            {
                "name": f"E{i:06d}",
                "entity_type": f"Type{i % 7}",
                "description": f"entity in cluster c{i % 50} owned by team t{i % 13}",
                "observations": [f"observed at step s{i % 997}"],
            }
            for i in range(start, min(start + BATCH, entities))
        ]
        for start in range(0, entities, BATCH)
    ]


def relation_batches(entities: int, relations: int) -> list[list[dict[str, Any]]]:
    return [
        [
            {
                "from_entity": f"E{i % entities:06d}",
                "to_entity": f"E{(i * 7 + 1 + i // entities) % entities:06d}",
                "relation_type": f"rel{i % 5}",
            }
            for i in range(start, min(start + BATCH, relations))
        ]
        for start in range(0, relations, BATCH)
    ]


def graph_team() -> tuple[ActorSystem, Any, Any, Any]:
    """A team whose member carries the graph card: the system, the orchestrator's
    address, and the card's ``update_graph`` and ``search_graph``."""
    system = ActorSystem()
    address = system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    member = spawn_tool_agent(system, address, name="@Bench", role="Bench")
    card = {
        fn.__name__: fn
        for fn in ToolFactory([KnowledgeGraphTool(vector_store=False)], observer=member).get_tools()
    }
    return system, address, card["update_graph"], card["search_graph"]


def graph_deltas(system: ActorSystem, address: Any) -> list[tuple[int, str]]:
    """The graph's deltas as an event store persists them: seq and JSON."""
    events = orchestrator_events(system, address, ToolStateEvent)
    return [
        (e.seq, e.payload.model_dump_json())
        for e in events
        if isinstance(e.payload, KnowledgeGraphStateEvent)
    ]


def state_bytes(state_json: str, query: str) -> int:
    """Bytes held by a state read back from ``state_json``, with its keyword index built."""

    def rebuilt() -> KnowledgeGraphState:
        state = KnowledgeGraphState.model_validate_json(state_json)
        KeywordIndex().search(state, query)
        state.relations_of(next(iter(state.entities)))  # builds the adjacency index
        return state

    return growth.held_bytes(rebuilt)


def measure(entities: int, relations: int) -> dict[str, float]:
    ents, rels = entity_batches(entities), relation_batches(entities, relations)
    system, address, update_graph, search_graph = graph_team()
    try:

        def load() -> None:
            for batch in ents:
                update_graph(create_entities=batch)
            for batch in rels:
                update_graph(create_relations=batch)

        loaded = WATCH.call(load)[1]
        queries = [f"e{i * 7919 % entities:06d}" for i in range(SEARCHES)]
        search_graph(query=queries[0], mode="keyword")  # builds the index once
        hits: list[int] = []

        def keyword(query: str) -> None:
            hits.append(len(search_graph(query=query, mode="keyword").hits))

        times = WATCH.samples([partial(keyword, query) for query in queries])
        deltas = graph_deltas(system, address)
    finally:
        system.shutdown(timeout=30)
    state, replayed, restored = growth.time_resume(
        KnowledgeGraphState, KnowledgeGraphStateEvent, deltas, WATCH
    )
    assert (len(state.entities), len(state.relations)) == (entities, relations)
    return {
        "load_s": loaded,
        "replay_s": replayed,
        "snapshot_s": restored,
        "search_median_ms": times.median_ms,
        "search_p95_ms": times.p95_ms,
        "memory_mb": state_bytes(state.model_dump_json(), queries[0]) / 1e6,
        "hits_per_query": sum(hits) / len(hits),
    }


METRICS = growth.metric_targets(
    {
        growth.NEAR_LINEAR: "load_s replay_s snapshot_s",
        growth.SUBLINEAR: "search_median_ms search_p95_ms",
        None: "memory_mb",
    }
)


def main() -> int:
    scale = growth.start(__doc__.splitlines()[0], WATCH).scale
    # A size is the item count; both kinds grow together, relations twice as many.
    by_items = {
        e + r: (e, r)
        for e, r in zip(
            growth.size_ladder(ENTITIES, scale), growth.size_ladder(RELATIONS, scale), strict=True
        )
    }
    print(f"knowledge graph at scale: up to {max(by_items)} items (entities + relations)")
    print("  loaded through update_graph, batches of 100")
    rows = growth.measure_ladder(list(by_items), lambda n: measure(*by_items[n]), "items")
    return growth.finish(list(by_items), rows, METRICS)


if __name__ == "__main__":
    sys.exit(main())
