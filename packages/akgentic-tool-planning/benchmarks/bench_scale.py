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

Each metric's growth exponent over the four plan sizes (see
:mod:`akgentic.tool.core.growth`) must stay at or below 1.2 for the load and resume, and
below 1 for keyword search and the blocked listing.

Run: .venv/bin/python packages/akgentic-tool-planning/benchmarks/bench_scale.py, with
``--quick`` for a smoke run and ``--clock wall`` for wall time instead of CPU time.
"""

from __future__ import annotations

import sys
from functools import partial
from typing import Any

import akgentic.tool.planning._update as plan_update
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import growth
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import orchestrator_events, spawn_tool_agent
from akgentic.tool.planning import PlanningTool
from akgentic.tool.planning._keywords import TaskKeywordIndex
from akgentic.tool.planning.event import PlanningStateEvent
from akgentic.tool.planning.state import PlanState

TASKS = 20_000
BATCH = 100
SEARCHES = 200
RENDERS = 50
LOADS = 3

STATUSES = ("pending", "started", "completed")
OWNERS = [f"@Agent{i}" for i in range(8)]
BLOCKED = 20  # tasks "blocked" at every plan size: a listing whose answer does not grow
WATCH = growth.Stopwatch()  # CPU time of the process unless --clock wall


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


def start_team() -> tuple[ActorSystem, Any, dict[str, Any]]:
    """A team with one member carrying the planning card: its orchestrator address and
    the card's callables (``prompt`` is its system prompt)."""
    system = ActorSystem()
    orchestrator = system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    agent = spawn_tool_agent(system, orchestrator, name="@Agent0", role="Bench")
    factory = ToolFactory([PlanningTool(vector_store=False)], observer=agent)
    tools = {fn.__name__: fn for fn in factory.get_tools()}
    (tools["prompt"],) = factory.get_system_prompts()
    return system, orchestrator, tools


def persisted_deltas(system: ActorSystem, orchestrator: Any) -> list[tuple[int, str]]:
    """What an event store keeps of the plan: each delta's seq and JSON."""
    return [
        (event.seq, event.payload.model_dump_json())
        for event in orchestrator_events(system, orchestrator, ToolStateEvent)
        if isinstance(event.payload, PlanningStateEvent)
    ]


def state_bytes(state_json: str, query: str) -> int:
    """Bytes held by a plan read back from ``state_json``, its indexes built."""

    def rebuilt() -> PlanState:
        state = PlanState.model_validate_json(state_json)
        TaskKeywordIndex().search(state, query)
        state.filtered_ids({"status": "blocked"})  # builds the filter index
        return state

    return growth.held_bytes(rebuilt)


def load_once(work: list[list[dict[str, Any]]]) -> float:
    """One load into a fresh team (the team is shut down afterwards)."""
    system, _, tools = start_team()
    try:
        return WATCH.call(lambda: [tools["update_planning"](create_tasks=b) for b in work])[1]
    finally:
        system.shutdown(timeout=30)


def timed(calls: list[dict[str, Any]], search: Any) -> tuple[growth.Samples, float]:
    """Call times, and the tasks returned per call on average."""
    found: list[int] = []

    def call(kwargs: dict[str, Any]) -> None:
        found.append(len(search(**kwargs).tasks))

    samples = WATCH.samples([partial(call, kwargs) for kwargs in calls])
    return samples, sum(found) / len(found)


def render_after_changes(update: Any, prompt: Any) -> growth.Samples:
    """Times of the agent's plan prompt, each rendered right after a change (so the
    cached render cannot answer)."""
    times: list[float] = []
    for i in range(RENDERS):
        update(update_tasks=[{"id": i + 1, "status": ("started", "pending")[i % 2]}])
        times.append(WATCH.call(prompt)[1])
    return growth.Samples.of(times)


def measure(tasks: int) -> dict[str, float]:
    work = batches(tasks)
    extra = [load_once(work) for _ in range(LOADS - 1)]
    system, orchestrator, tools = start_team()
    update, search = tools["update_planning"], tools["search_planning"]
    try:
        _, first = WATCH.call(lambda: [update(create_tasks=batch) for batch in work])
        # The fastest of the loads: other processes on the machine only ever add time.
        load = min([first, *extra])
        queries = [
            {"query": f"t{i * 7919 % tasks:06d}", "mode": "keyword"} for i in range(SEARCHES)
        ]
        listings = [
            {"status": STATUSES[i % len(STATUSES)], "owner": OWNERS[i % len(OWNERS)]}
            for i in range(SEARCHES)
        ]
        search(**queries[0])  # builds the keyword index once
        keyword, hits = timed(queries, search)
        listing, listed = timed(listings, search)
        few, _ = timed([{"status": "blocked"}] * SEARCHES, search)
        renders = render_after_changes(update, tools["prompt"])
        deltas = persisted_deltas(system, orchestrator)
    finally:
        system.shutdown(timeout=30)
    state, replayed, restored = growth.time_resume(PlanState, PlanningStateEvent, deltas, WATCH)
    assert len(state.tasks) == tasks
    memory = state_bytes(state.model_dump_json(), str(queries[0]["query"]))
    return {
        "load_s": load,
        "replay_s": replayed,
        "snapshot_s": restored,
        "search_median_ms": keyword.median_ms,
        "search_p95_ms": keyword.p95_ms,
        "listing_median_ms": listing.median_ms,
        "listing_p95_ms": listing.p95_ms,
        "blocked_median_ms": few.median_ms,
        "blocked_p95_ms": few.p95_ms,
        "prompt_median_ms": renders.median_ms,
        "memory_mb": memory / 1e6,
        "hits_per_query": hits,
        "listed_per_call": listed,
    }


# Listing and prompt answers are a fixed share of the plan (see the docstring).
GROWS = "answer grows with the plan: linear in its matches"
METRICS = growth.metric_targets(
    {
        growth.NEAR_LINEAR: "load_s replay_s snapshot_s",
        growth.SUBLINEAR: "search_median_ms search_p95_ms blocked_median_ms blocked_p95_ms",
        GROWS: "listing_median_ms listing_p95_ms prompt_median_ms",
        None: "memory_mb",
    }
)


def main() -> int:
    options = growth.start(__doc__.splitlines()[0], WATCH)
    plan_update.PLAN_MAX_TASKS = TASKS  # type: ignore[attr-defined]  # the cap, lifted here only
    sizes = growth.size_ladder(TASKS, options.scale)
    print(f"planning at scale: up to {sizes[-1]} tasks, batches of {BATCH}")
    rows = growth.measure_ladder(sizes, measure, "tasks")
    return growth.finish(sizes, rows, METRICS)


if __name__ == "__main__":
    sys.exit(main())
