"""How the plan's costs grow with its size (issue 19, item 4).

At 1/8, 1/4, 1/2 and all of 20,000 tasks, each size in a fresh akgentic-core actor system
with the callables from ``ToolFactory.get_tools()``:

* load: every task through ``update_planning`` in batches of 100 (the fastest of three
  loads, each into a fresh team);
* resume, both ways a resumed team rebuilds the plan: replay, every persisted delta read
  back from JSON and applied to an empty ``PlanState``; snapshot, the whole plan read back
  from one JSON snapshot;
* keyword search: ``search_planning(query=..., mode="keyword")``, median and p95 over 200
  queries each naming one task (zero-padded codes, so the answer's size stays the same at
  every plan size);
* listing: ``search_planning(status=..., owner=...)``, median and p95 over 200 calls; the
  answer is cut at 50 tasks but counts every match, and a twenty-fourth of the plan
  matches, so this cost follows the plan's size through its answer;
* blocked: ``search_planning(status="blocked")``, 200 calls, where 20 tasks match at every
  plan size (the listing whose cost should not grow);
* prompt: the ``get_planning`` system prompt of the agent that created every task (so
  its own tasks, which the prompt counts, are the whole plan), rendered right after a
  change, median over 50 renders;
* memory: the bytes a resumed state holds, with its keyword and filter indexes built
  (tracemalloc, on a pass of its own because tracing slows everything down).

The plan refuses more than ``PLAN_MAX_TASKS`` (10,000) tasks; this benchmark lifts that cap
in its own process to measure the algorithms at twice the cap.

The growth exponent of a metric is the slope of log(metric) against log(size) over the
four sizes (1 = linear; the targets: at most 1.2 for load, below 1 for search).

Run: .venv/bin/python packages/akgentic-tool-planning/benchmarks/bench_scale.py
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

import akgentic.tool.planning._update as plan_update
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message
from akgentic.core.messages.orchestrator import EventMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.planning import PlanningTool
from akgentic.tool.planning._keywords import TaskKeywordIndex
from akgentic.tool.planning.event import PlanningStateEvent
from akgentic.tool.planning.state import PlanState

TASKS = 20_000
BATCH = 100
SEARCHES = 200
RESUMES = 2
RENDERS = 50
LOADS = 3
FRACTIONS = (8, 4, 2, 1)

# What the figures measure: CPU seconds of this process, all its threads (the actors'
# included), by default, because other processes on a shared machine inflate wall times
# at random and would bend the growth exponents; ``--clock wall`` measures wall time.
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]
OWNERS = [f"@Agent{i}" for i in range(8)]
STATUSES = ("pending", "started", "completed")
BLOCKED = 20  # tasks "blocked" at every plan size: a listing whose answer does not grow


class BenchAgent(Akgent[BaseConfig, BaseState]):
    """A plain team member carrying the card."""

    def itself(self) -> Self:
        return self


class Recorder:
    """Keeps what an event store would persist of the plan: its deltas."""

    def __init__(self) -> None:
        self.deltas: list[tuple[int, PlanningStateEvent]] = []

    def on_message(self, msg: Message) -> None:
        event = msg.event if isinstance(msg, EventMessage) else None
        if isinstance(event, ToolStateEvent) and isinstance(event.payload, PlanningStateEvent):
            self.deltas.append((event.seq, event.payload))


def batches(tasks: int) -> list[list[dict[str, Any]]]:
    return [
        [
            {
                "description": f"T{i:06d}: prepare deliverable d{i % 97} for milestone m{i % 13}",
                "owner": OWNERS[i % len(OWNERS)],
                "status": "blocked" if i % (tasks // BLOCKED) == 0 else STATUSES[i % 3],
            }
            for i in range(start, min(start + BATCH, tasks))
        ]
        for start in range(0, tasks, BATCH)
    ]


def start_team() -> tuple[ActorSystem, Any, Recorder, dict[str, Any]]:
    system = ActorSystem()
    orchestrator = system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    orch = system.proxy_ask(orchestrator, Orchestrator)
    recorder = Recorder()
    orch.subscribe(recorder)
    address = orch.createActor(BenchAgent, config=BaseConfig(name="@Agent0", role="Bench"))
    agent = system.proxy_ask(address, BenchAgent).itself()
    factory = ToolFactory([PlanningTool(vector_store=False)], observer=agent)
    tools = {fn.__name__: fn for fn in factory.get_tools()}
    (tools["prompt"],) = factory.get_system_prompts()
    return system, orch, recorder, tools


def resume(recorder: Recorder) -> tuple[PlanState, float, float]:
    """The two ways a resumed team gets its state back, each the fastest of a few runs:
    every delta replayed from JSON onto an empty state (a team that never snapshotted),
    and the whole state read back from one JSON snapshot (the one published on stop).
    Returns the state and both times."""
    deltas = [(seq, delta.model_dump_json()) for seq, delta in recorder.deltas]
    replay = snapshot = math.inf
    for _ in range(RESUMES):  # the fastest: other processes only ever add time
        began = clock()
        state = PlanState()
        for seq, text in deltas:
            state.apply(PlanningStateEvent.model_validate_json(text), seq=seq)
        replay = min(replay, clock() - began)
    payload = state.model_dump_json()
    for _ in range(RESUMES):
        began = clock()
        PlanState.model_validate_json(payload)
        snapshot = min(snapshot, clock() - began)
    return state, replay, snapshot


def state_bytes(state_json: str, query: str) -> int:
    """Bytes held by a plan read back from ``state_json``, its indexes built."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        state = PlanState.model_validate_json(state_json)
        index = TaskKeywordIndex()
        index.search(state, query)
        state.filtered_ids({"status": "blocked"})  # builds the filter index
        held = tracemalloc.get_traced_memory()[0] - before
        del state, index
    finally:
        tracemalloc.stop()
    return held


def timed(calls: list[dict[str, Any]], search: Any) -> tuple[list[float], int]:
    """Sorted call times, and the tasks returned in all."""
    times: list[float] = []
    found = 0
    for kwargs in calls:
        t0 = clock()
        found += len(search(**kwargs).tasks)
        times.append(clock() - t0)
    return sorted(times), found


def load_once(work: list[list[dict[str, Any]]]) -> float:
    """One load into a fresh team (the team is shut down afterwards)."""
    system, _, _, tools = start_team()
    try:
        began = clock()
        for batch in work:
            tools["update_planning"](create_tasks=batch)
        return clock() - began
    finally:
        system.shutdown(timeout=30)


def render_after_changes(update: Any, prompt: Any) -> list[float]:
    """Sorted times of the agent's plan prompt, each rendered right after a change (so
    the cached render cannot answer)."""
    times: list[float] = []
    for i in range(RENDERS):
        update(update_tasks=[{"id": i + 1, "status": ("started", "pending")[i % 2]}])
        t0 = clock()
        prompt()
        times.append(clock() - t0)
    return sorted(times)


def measure(tasks: int) -> dict[str, float]:
    work = batches(tasks)
    extra = [load_once(work) for _ in range(LOADS - 1)]
    system, orch, recorder, tools = start_team()
    update, search = tools["update_planning"], tools["search_planning"]
    try:
        began = clock()
        for batch in work:
            update(create_tasks=batch)
        # The fastest of the loads: other processes on the machine only ever add time.
        load = min([clock() - began, *extra])
        orch.get_team()  # the orchestrator has received everything sent
        queries = [
            {"query": f"t{i * 7919 % tasks:06d}", "mode": "keyword"} for i in range(SEARCHES)
        ]
        listings = [
            {"status": STATUSES[i % len(STATUSES)], "owner": OWNERS[i % len(OWNERS)]}
            for i in range(SEARCHES)
        ]
        blocked = [{"status": "blocked"}] * SEARCHES
        search(**queries[0])  # builds the keyword index once
        keyword, hits = timed(queries, search)
        listing, listed = timed(listings, search)
        few, _ = timed(blocked, search)
        renders = render_after_changes(update, tools["prompt"])
    finally:
        system.shutdown(timeout=30)
    state, replayed, restored = resume(recorder)
    assert len(state.tasks) == tasks
    memory = state_bytes(state.model_dump_json(), str(queries[0]["query"]))
    p95 = int(0.95 * SEARCHES)
    return {
        "load_s": load,
        "replay_s": replayed,
        "snapshot_s": restored,
        "search_median_ms": statistics.median(keyword) * 1e3,
        "search_p95_ms": keyword[p95] * 1e3,
        "listing_median_ms": statistics.median(listing) * 1e3,
        "listing_p95_ms": listing[p95] * 1e3,
        "blocked_median_ms": statistics.median(few) * 1e3,
        "blocked_p95_ms": few[p95] * 1e3,
        "prompt_median_ms": statistics.median(renders) * 1e3,
        "memory_mb": memory / 1e6,
        "hits_per_query": hits / SEARCHES,
        "listed_per_call": listed / SEARCHES,
    }


def exponent(sizes: list[int], values: list[float]) -> float:
    """Least-squares slope of log(value) against log(size)."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(v, 1e-12)) for v in values]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


LOAD_TARGET = 1.2
SEARCH_TARGET = 1.0
METRICS = (
    "load_s",
    "replay_s",
    "snapshot_s",
    "search_median_ms",
    "search_p95_ms",
    "listing_median_ms",
    "listing_p95_ms",
    "blocked_median_ms",
    "blocked_p95_ms",
    "prompt_median_ms",
    "memory_mb",
)


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
    plan_update.PLAN_MAX_TASKS = TASKS  # type: ignore[misc]  # the cap, lifted here only
    rows: list[tuple[int, dict[str, float]]] = []
    print(f"planning at scale: up to {TASKS // scale} tasks, batches of {BATCH}")
    print(
        f"  {'tasks':>7} {'load s':>7} {'replay s':>9} {'snapshot s':>11}"
        f" {'search ms':>10} {'p95':>7}"
        f" {'listing ms':>11} {'p95':>7} {'blocked ms':>11} {'p95':>7}"
        f" {'prompt ms':>10} {'memory MB':>10}"
    )
    for fraction in FRACTIONS:
        tasks = TASKS // scale // fraction
        row = measure(tasks)
        rows.append((tasks, row))
        print(
            f"  {tasks:>7} {row['load_s']:7.2f} {row['replay_s']:9.3f}"
            f" {row['snapshot_s']:11.3f}"
            f" {row['search_median_ms']:10.3f} {row['search_p95_ms']:7.3f}"
            f" {row['listing_median_ms']:11.3f} {row['listing_p95_ms']:7.3f}"
            f" {row['blocked_median_ms']:11.3f} {row['blocked_p95_ms']:7.3f}"
            f" {row['prompt_median_ms']:10.3f}"
            f" {row['memory_mb']:10.1f}",
            flush=True,
        )
    sizes = [size for size, _ in rows]
    ok = True
    print("  growth exponents (slope of log metric vs log size):")
    for metric in METRICS:
        slope = exponent(sizes, [row[metric] for _, row in rows])
        verdict = ""
        if metric.endswith("_s"):
            passed = slope <= LOAD_TARGET
            verdict = f"  (target <= {LOAD_TARGET})"
        elif metric.startswith(("listing", "prompt")):
            passed = True  # its answer is a fixed share of the plan (see the docstring)
            verdict = "  (answer grows with the plan: linear in its matches)"
        elif metric.endswith("_ms"):
            passed = slope < SEARCH_TARGET
            verdict = f"  (target < {SEARCH_TARGET})"
        else:
            passed = True
        ok &= passed
        print(f"    {metric:18} {slope:5.2f}{verdict}{'' if passed else '  MISSED'}")
    print("PASS" if ok else "FAIL: targets missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
