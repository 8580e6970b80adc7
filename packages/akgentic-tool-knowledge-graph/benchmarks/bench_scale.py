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

The growth exponent of a metric is the slope of log(metric) against log(size) over the
four sizes (1 = linear; the targets: at most 1.2 for load, below 1 for search).

Run: .venv/bin/python packages/akgentic-tool-knowledge-graph/benchmarks/bench_scale.py
(``--quick`` for a smoke run at 1/20 of the sizes; times are the process's CPU time, all
threads included, unless ``--clock wall``).
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import sys
import time
import tracemalloc
from typing import Any, Self

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message
from akgentic.core.messages.orchestrator import EventMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.knowledge_graph import KnowledgeGraphTool
from akgentic.tool.knowledge_graph.event import KnowledgeGraphStateEvent
from akgentic.tool.knowledge_graph.state import KnowledgeGraphState

ENTITIES = 50_000
RELATIONS = 100_000
BATCH = 100
SEARCHES = 200
RESUMES = 2
FRACTIONS = (8, 4, 2, 1)

# What the figures measure: CPU seconds of this process, all its threads (the actors'
# included), by default, because other processes on a shared machine inflate wall times
# at random and would bend the growth exponents; ``--clock wall`` measures wall time.
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]


class BenchAgent(Akgent[BaseConfig, BaseState]):
    """A plain team member carrying the card (an Akgent is an ActorToolObserver)."""

    def itself(self) -> Self:
        return self


class Recorder:
    """Keeps what an event store would persist of the graph: its deltas."""

    def __init__(self) -> None:
        self.deltas: list[tuple[int, KnowledgeGraphStateEvent]] = []

    def on_message(self, msg: Message) -> None:
        event = msg.event if isinstance(msg, EventMessage) else None
        if isinstance(event, ToolStateEvent) and isinstance(
            event.payload, KnowledgeGraphStateEvent
        ):
            self.deltas.append((event.seq, event.payload))


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


def start_team() -> tuple[ActorSystem, Any, Recorder, dict[str, Any]]:
    system = ActorSystem()
    orchestrator = system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    recorder = Recorder()
    orch = system.proxy_ask(orchestrator, Orchestrator)
    orch.subscribe(recorder)
    address = orch.createActor(BenchAgent, config=BaseConfig(name="@Bench", role="Bench"))
    agent = system.proxy_ask(address, BenchAgent).itself()
    factory = ToolFactory([KnowledgeGraphTool(vector_store=False)], observer=agent)
    return system, orch, recorder, {fn.__name__: fn for fn in factory.get_tools()}


def resume(recorder: Recorder) -> tuple[KnowledgeGraphState, float, float]:
    """The two ways a resumed team gets its state back, each the fastest of a few runs:
    every delta replayed from JSON onto an empty state (a team that never snapshotted),
    and the whole state read back from one JSON snapshot (the one published on stop).
    Returns the state and both times."""
    deltas = [(seq, delta.model_dump_json()) for seq, delta in recorder.deltas]
    replay = snapshot = math.inf
    for _ in range(RESUMES):  # the fastest: other processes only ever add time
        began = clock()
        state = KnowledgeGraphState()
        for seq, text in deltas:
            state.apply(KnowledgeGraphStateEvent.model_validate_json(text), seq=seq)
        replay = min(replay, clock() - began)
    payload = state.model_dump_json()
    for _ in range(RESUMES):
        began = clock()
        KnowledgeGraphState.model_validate_json(payload)
        snapshot = min(snapshot, clock() - began)
    return state, replay, snapshot


def state_bytes(state_json: str, query: str) -> int:
    """Bytes held by a state read back from ``state_json``, with its keyword index built."""
    from akgentic.tool.knowledge_graph._search import KeywordIndex

    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        state = KnowledgeGraphState.model_validate_json(state_json)
        index = KeywordIndex()
        index.search(state, query)
        state.relations_of(next(iter(state.entities)))  # builds the adjacency index
        held = tracemalloc.get_traced_memory()[0] - before
        del state, index
    finally:
        tracemalloc.stop()
    return held


def measure(entities: int, relations: int) -> dict[str, float]:
    ents, rels = entity_batches(entities), relation_batches(entities, relations)
    system, orch, recorder, tools = start_team()
    try:
        began = clock()
        for kind, work in (("create_entities", ents), ("create_relations", rels)):
            for batch in work:
                tools["update_graph"](**{kind: batch})
        load = clock() - began
        orch.get_team()  # the orchestrator has received everything sent
        queries = [f"e{i * 7919 % entities:06d}" for i in range(SEARCHES)]
        tools["search_graph"](query=queries[0], mode="keyword")  # builds the index once
        times: list[float] = []
        hits = 0
        for query in queries:
            t0 = clock()
            result = tools["search_graph"](query=query, mode="keyword")
            times.append(clock() - t0)
            hits += len(result.hits)
    finally:
        system.shutdown(timeout=30)
    state, replayed, restored = resume(recorder)
    assert len(state.entities) == entities
    assert len(state.relations) == relations
    memory = state_bytes(state.model_dump_json(), queries[0])
    times.sort()
    return {
        "load_s": load,
        "replay_s": replayed,
        "snapshot_s": restored,
        "search_median_ms": statistics.median(times) * 1e3,
        "search_p95_ms": times[int(0.95 * len(times))] * 1e3,
        "memory_mb": memory / 1e6,
        "hits_per_query": hits / len(queries),
    }


def exponent(sizes: list[int], values: list[float]) -> float:
    """Least-squares slope of log(value) against log(size)."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(v, 1e-12)) for v in values]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


TARGETS = {
    "load_s": 1.2,
    "replay_s": 1.2,
    "snapshot_s": 1.2,
    "search_median_ms": 1.0,
    "search_p95_ms": 1.0,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1/20 of the sizes (smoke run)")
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="cpu", help="what the times measure"
    )
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    print(f"times: {args.clock} ({'process CPU time' if args.clock == 'cpu' else 'wall clock'})")
    scale = 20 if args.quick else 1
    rows: list[tuple[int, dict[str, float]]] = []
    print(f"knowledge graph at scale: up to {ENTITIES // scale} entities, {RELATIONS // scale}")
    print("  items = entities + relations; load through update_graph, batches of 100")
    print(
        f"  {'items':>8} {'load s':>8} {'replay s':>9} {'snapshot s':>11}"
        f" {'search ms':>10} {'p95 ms':>8}"
        f" {'memory MB':>10} {'hits/q':>7}"
    )
    for fraction in FRACTIONS:
        entities, relations = ENTITIES // scale // fraction, RELATIONS // scale // fraction
        row = measure(entities, relations)
        rows.append((entities + relations, row))
        print(
            f"  {entities + relations:>8} {row['load_s']:8.2f} {row['replay_s']:9.2f}"
            f" {row['snapshot_s']:11.2f}"
            f" {row['search_median_ms']:10.3f} {row['search_p95_ms']:8.3f}"
            f" {row['memory_mb']:10.1f} {row['hits_per_query']:7.1f}",
            flush=True,
        )
    sizes = [size for size, _ in rows]
    ok = True
    print("  growth exponents (slope of log metric vs log size):")
    for metric in (
        "load_s",
        "replay_s",
        "snapshot_s",
        "search_median_ms",
        "search_p95_ms",
        "memory_mb",
    ):
        slope = exponent(sizes, [row[metric] for _, row in rows])
        target = TARGETS.get(metric)
        verdict = ""
        if target is not None:
            passed = slope <= target if metric.endswith("_s") else slope < target
            ok &= passed
            verdict = f"  (target {'<=' if metric.endswith('_s') else '<'} {target})"
            verdict += "" if passed else "  MISSED"
        print(f"    {metric:18} {slope:5.2f}{verdict}")
    print("PASS" if ok else "FAIL: targets missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
