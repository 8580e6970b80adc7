"""Benchmark of KnowledgeGraphTool as a team uses it: tools from ToolFactory.get_tools(),
a real akgentic-core actor system, and a subscriber persisting every message as JSON.

Workload (issue 7): 5,000 entities then 10,000 relations through update_graph in batches
of 100, then 500 keyword search_graph calls. Baselines measured in the same run:

* load: the same batches applied to plain Python dicts in this thread (no actor, no
  events, no persistence): the floor of the data work itself;
* search: a Python substring scan over the same texts (a list comprehension).

Run: .venv/bin/python packages/akgentic-tool-knowledge-graph/benchmarks/bench_kg.py
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any, Self

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message
from akgentic.core.messages.orchestrator import StateChangedMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing.batch_load import batch_growth, batched_load_rows
from akgentic.tool.core.testing.benchmark import bench_row
from akgentic.tool.knowledge_graph import KnowledgeGraphTool

ENTITIES = 5_000
RELATIONS = 10_000
BATCH = 100
SEARCHES = 500
RUNS = 5


class BenchAgent(Akgent[BaseConfig, BaseState]):
    """A plain team member carrying the card (an Akgent is an ActorToolObserver)."""

    def itself(self) -> Self:
        return self


class PersistingSubscriber:
    """Serializes every message to JSON on the orchestrator thread, as an event store does."""

    def __init__(self) -> None:
        self.event_bytes: list[int] = []
        self.snapshot_bytes: list[int] = []

    def on_message(self, msg: Message) -> None:
        size = len(msg.model_dump_json())
        (self.snapshot_bytes if isinstance(msg, StateChangedMessage) else self.event_bytes).append(
            size
        )


def entity_batches() -> list[list[dict[str, Any]]]:
    return [
        [
            {
                "name": f"Entity{i}",
                "entity_type": f"Type{i % 7}",
                "description": f"entity number {i} in cluster {i % 50}",
                "observations": [f"observed {i}"],
            }
            for i in range(start, start + BATCH)
        ]
        for start in range(0, ENTITIES, BATCH)
    ]


def relation_batches() -> list[list[dict[str, Any]]]:
    return [
        [
            {
                "from_entity": f"Entity{i % ENTITIES}",
                "to_entity": f"Entity{(i * 7 + 1 + i // ENTITIES) % ENTITIES}",
                "relation_type": f"rel{i % 5}",
            }
            for i in range(start, start + BATCH)
        ]
        for start in range(0, RELATIONS, BATCH)
    ]


def raw_load(ents: list[list[dict[str, Any]]], rels: list[list[dict[str, Any]]]) -> float:
    """The floor: the same batches into plain dicts, validated with the same models."""
    from akgentic.tool.knowledge_graph import Entity, Relation

    began = time.perf_counter()
    entities: dict[str, Entity] = {}
    relations: dict[tuple[str, str, str], Relation] = {}
    for batch in ents:
        for item in batch:
            entities[item["name"]] = Entity(**item)
    for batch in rels:
        for item in batch:
            r = Relation(**item)
            if r.from_entity in entities and r.to_entity in entities:
                relations[(r.from_entity, r.relation_type, r.to_entity)] = r
    return time.perf_counter() - began


def start_team() -> tuple[ActorSystem, Any, PersistingSubscriber, dict[str, Any]]:
    """A team with one agent carrying the card, and a persisting subscriber."""
    system = ActorSystem()
    orchestrator = system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    subscriber = PersistingSubscriber()
    orch = system.proxy_ask(orchestrator, Orchestrator)
    orch.subscribe(subscriber)
    address = orch.createActor(BenchAgent, config=BaseConfig(name="@Bench", role="Bench"))
    agent = system.proxy_ask(address, BenchAgent).itself()
    factory = ToolFactory([KnowledgeGraphTool(vector_store=False)], observer=agent)
    return system, orch, subscriber, {fn.__name__: fn for fn in factory.get_tools()}


def load(tools: dict[str, Any], ents: list[Any], rels: list[Any]) -> list[float]:
    """Every batch through update_graph; the time of each call."""
    timings: list[float] = []
    for kind, work in (("create_entities", ents), ("create_relations", rels)):
        for batch in work:
            t0 = time.perf_counter()
            tools["update_graph"](**{kind: batch})
            timings.append(time.perf_counter() - t0)
    return timings


def main() -> int:
    ents, rels = entity_batches(), relation_batches()
    distinct = {(r["from_entity"], r["relation_type"], r["to_entity"]) for b in rels for r in b}
    assert len(distinct) == RELATIONS, "the workload must create distinct relations"

    runs: list[list[float]] = []
    totals: list[float] = []
    for run in range(RUNS):
        system, orch, subscriber, tools = start_team()
        try:
            began = time.perf_counter()
            runs.append(load(tools, ents, rels))
            totals.append(time.perf_counter() - began)
            orch.get_team()  # wait until the orchestrator has persisted everything sent
            drained = time.perf_counter() - began
            if run < RUNS - 1:
                continue
            queries = [f"number {i * 37 % ENTITIES}" for i in range(SEARCHES)]
            search_times: list[float] = []
            hits = 0
            for query in queries:
                t0 = time.perf_counter()
                result = tools["search_graph"](query=query, mode="keyword")
                search_times.append(time.perf_counter() - t0)
                hits += len(result.hits)
        finally:
            system.shutdown(timeout=30)

    texts = [
        f"entity{i} | type{i % 7} | entity number {i} in cluster {i % 50} | observed {i}"
        for i in range(ENTITIES)
    ] + [f"entity{i} -[rel{i % 5}]-> entity{i}" for i in range(RELATIONS)]
    scan_times: list[float] = []
    for query in queries[:50]:  # the baseline is slow; 50 queries give a stable median
        t0 = time.perf_counter()
        words = query.lower().split()
        _ = [t for t in texts if all(w in t for w in words)]
        scan_times.append(time.perf_counter() - t0)
    raw = statistics.median(raw_load(ents, rels) for _ in range(RUNS))

    # Per batch position, the fastest of the runs: interference from other processes on a
    # shared machine only ever adds time, so the minimum is the stable estimate of a
    # batch's own cost, and the growth figure compares those.
    timings = [min(column) for column in zip(*runs, strict=True)]
    n = len(ents)
    entity_ratio = batch_growth(timings[:n])
    relation_ratio = batch_growth(timings[n:])
    total = statistics.median(totals)
    print(f"knowledge graph load: {ENTITIES} entities + {RELATIONS} relations, batches of {BATCH}")
    print(f"  ({RUNS} runs, each in a fresh actor system: total = median, batch = fastest)")
    print(f"  total load (tool calls)        {total:8.3f} s   (target < 4 s)")
    print(f"  last run incl. persistence     {drained:8.3f} s")
    print(f"  raw dict baseline              {raw:8.3f} s   ratio {total / raw:6.1f}x")
    print(f"  median batch                   {statistics.median(timings) * 1e3:8.2f} ms")
    for label, part in (("entity", timings[:n]), ("relation", timings[n:])):
        print(
            f"  {label:8} batches: first {part[0] * 1e3:.2f} ms, last {part[-1] * 1e3:.2f} ms,"
            f" median of batches 3-12 {statistics.median(part[2:12]) * 1e3:.2f} ms,"
            f" of the last 10 {statistics.median(part[-10:]) * 1e3:.2f} ms"
        )
    growth = max(entity_ratio, relation_ratio)
    print(
        f"  growth (last 10 / batches 3-12)  entity {entity_ratio:4.2f}, relation "
        f"{relation_ratio:4.2f}   (target <= 2)"
    )
    events = subscriber.event_bytes
    print(
        f"  persisted (last run): {len(subscriber.snapshot_bytes)} snapshots "
        f"({sum(subscriber.snapshot_bytes) / 1e6:.1f} MB), {len(events)} other messages "
        f"({sum(events) / 1e6:.1f} MB)"
    )
    print(f"keyword search: {SEARCHES} calls, {hits} hits")
    print(
        f"  median {statistics.median(search_times) * 1e3:6.3f} ms   "
        f"p95 {sorted(search_times)[int(0.95 * SEARCHES)] * 1e3:6.3f} ms"
    )
    print(
        f"  python scan baseline median {statistics.median(scan_times) * 1e3:6.3f} ms   "
        f"ratio {statistics.median(search_times) / statistics.median(scan_times):5.2f}x"
    )
    ok = batched_load_rows(
        "graph",
        f"{ENTITIES} entities + {RELATIONS} relations",
        total=total,
        floor=raw,
        timings=timings,
        growth=growth,
        target_seconds=4.0,
    )
    search_median = statistics.median(search_times)
    bench_row(
        f"graph keyword search ({SEARCHES} calls)",
        search_median,
        ratio=search_median / statistics.median(scan_times),
        baseline="python scan of the same texts",
    )
    print("PASS" if ok else "FAIL: targets missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
