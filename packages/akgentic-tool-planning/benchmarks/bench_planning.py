"""Benchmark of PlanningTool as a team uses it: callables from ToolFactory, a real
akgentic-core actor system, and a subscriber persisting every message as JSON.

Workload (issue 7): 2,000 tasks through update_planning in batches of 50 (target: under
0.7 s; the predecessor needed 7.1 s), 500 keyword search_planning calls, 200 renders of the
get_planning prompt. Baselines measured in the same run:

* load: the same batches validated and stored in a plain dict in this thread;
* search: a Python substring scan over the same descriptions;
* render: the prompt built from a plain list of tasks in this thread.

Run: .venv/bin/python packages/akgentic-tool-planning/benchmarks/bench_planning.py
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
from akgentic.tool.planning import GetPlanning, PlanningTool, Task, TaskCreate

TASKS = 2_000
BATCH = 50
SEARCHES = 500
RENDERS = 200
RUNS = 5
OWNERS = [f"@Agent{i}" for i in range(8)]


class BenchAgent(Akgent[BaseConfig, BaseState]):
    """A plain team member carrying the card."""

    def itself(self) -> Self:
        return self


class PersistingSubscriber:
    """Serializes every message to JSON on the orchestrator thread, as an event store does."""

    def __init__(self) -> None:
        self.snapshots = 0
        self.bytes = 0

    def on_message(self, msg: Message) -> None:
        self.bytes += len(msg.model_dump_json())
        self.snapshots += isinstance(msg, StateChangedMessage)


def batches() -> list[list[dict[str, Any]]]:
    return [
        [
            {
                "description": f"Task {i}: prepare deliverable {i % 97} for milestone {i % 13}",
                "owner": OWNERS[i % len(OWNERS)],
                "status": ("pending", "started", "completed")[i % 3],
            }
            for i in range(start, start + BATCH)
        ]
        for start in range(0, TASKS, BATCH)
    ]


def raw_load(work: list[list[dict[str, Any]]]) -> tuple[float, list[Task]]:
    began = time.perf_counter()
    tasks: dict[int, Task] = {}
    for batch in work:
        for item in batch:
            new = TaskCreate.model_validate(item)
            task_id = len(tasks) + 1
            tasks[task_id] = Task(
                id=task_id,
                description=new.description,
                owner=new.owner,
                status=new.status,  # type: ignore[arg-type]
                creator="@Bench",
            )
    return time.perf_counter() - began, list(tasks.values())


def raw_render(tasks: list[Task], agent: str) -> str:
    lines = [f"**Team planning:** {len(tasks)} tasks total"]
    lines += [t.line() for t in tasks if agent in (t.owner, t.creator)][:100]
    return "\n".join(lines)


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1e3


def start_team() -> tuple[ActorSystem, Any, PersistingSubscriber, dict[str, Any], Any]:
    """A team with one agent carrying the card, and a persisting subscriber."""
    system = ActorSystem()
    orchestrator = system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    orch = system.proxy_ask(orchestrator, Orchestrator)
    subscriber = PersistingSubscriber()
    orch.subscribe(subscriber)
    address = orch.createActor(BenchAgent, config=BaseConfig(name="@Agent0", role="Bench"))
    agent = system.proxy_ask(address, BenchAgent).itself()
    card = PlanningTool(vector_store=False, get_planning=GetPlanning(filter_by_agent=True))
    factory = ToolFactory([card], observer=agent)
    (prompt,) = factory.get_system_prompts()
    return system, orch, subscriber, {fn.__name__: fn for fn in factory.get_tools()}, prompt


def main() -> int:
    work = batches()
    runs: list[list[float]] = []
    totals: list[float] = []
    for run in range(RUNS):
        system, orch, subscriber, tools, prompt = start_team()
        update, search = tools["update_planning"], tools["search_planning"]
        try:
            timings: list[float] = []
            began = time.perf_counter()
            for batch in work:
                t0 = time.perf_counter()
                update(create_tasks=batch)
                timings.append(time.perf_counter() - t0)
            totals.append(time.perf_counter() - began)
            runs.append(timings)
            orch.get_team()
            drained = time.perf_counter() - began
            if run < RUNS - 1:
                continue

            queries = [f"deliverable {i % 97}" for i in range(SEARCHES)]
            search_times, found = [], 0
            for query in queries:
                t0 = time.perf_counter()
                found += search(query=query).total
                search_times.append(time.perf_counter() - t0)

            render_times, changed_render_times = [], []
            for i in range(RENDERS):
                t0 = time.perf_counter()
                prompt()
                render_times.append(time.perf_counter() - t0)
                if i % 10 == 0:  # every tenth render follows a change: no cache to hit
                    update(update_tasks=[{"id": i + 1, "status": "blocked"}])
                    t0 = time.perf_counter()
                    prompt()
                    changed_render_times.append(time.perf_counter() - t0)
        finally:
            system.shutdown(timeout=30)

    raw = statistics.median(raw_load(work)[0] for _ in range(RUNS))
    raw_tasks = raw_load(work)[1]
    texts = [t.description.lower() for t in raw_tasks]
    scan_times = []
    for query in queries:
        t0 = time.perf_counter()
        words = query.lower().split()
        _ = [t for t in texts if all(w in t for w in words)]
        scan_times.append(time.perf_counter() - t0)
    raw_render_times = []
    for _ in range(RENDERS):
        t0 = time.perf_counter()
        raw_render(raw_tasks, "@Agent0")
        raw_render_times.append(time.perf_counter() - t0)

    # Per batch position, the fastest of the runs: interference from other processes on a
    # shared machine only ever adds time, so the minimum is the stable estimate of a
    # batch's own cost, and the growth figure compares those.
    timings = [min(column) for column in zip(*runs, strict=True)]
    growth = batch_growth(timings)
    total = statistics.median(totals)
    print(
        f"planning load: {TASKS} tasks, batches of {BATCH} ({len(timings)} update_planning calls)"
    )
    print(f"  ({RUNS} runs, each in a fresh actor system: total = median, batch = fastest)")
    print(f"  total load (tool calls)     {total:7.3f} s   (target < 0.7 s)")
    print(f"  last run incl. persistence  {drained:7.3f} s")
    print(f"  raw dict baseline           {raw:7.3f} s   ratio {total / raw:5.1f}x")
    print(
        f"  batch median {median_ms(timings):.2f} ms; batches 3-12 / last 10 (median) "
        f"{median_ms(timings[2:12]):.2f} / {median_ms(timings[-10:]):.2f} ms, growth {growth:.2f}"
    )
    print(
        f"  persisted (last run) {subscriber.snapshots} snapshots, "
        f"{subscriber.bytes / 1e6:.2f} MB in total"
    )
    print(f"keyword search: {SEARCHES} calls, {found} matches")
    search_ratio = median_ms(search_times) / median_ms(scan_times)
    print(
        f"  median {median_ms(search_times):.3f} ms   python scan baseline "
        f"{median_ms(scan_times):.3f} ms   ratio {search_ratio:.2f}x"
    )
    print(f"get_planning prompt: {RENDERS} renders (filter_by_agent, {TASKS} tasks)")
    print(
        f"  median {median_ms(render_times):.3f} ms (unchanged plan), "
        f"{median_ms(changed_render_times):.3f} ms (right after a change)"
    )
    print(
        f"  plain render baseline {median_ms(raw_render_times):.3f} ms   ratio "
        f"{median_ms(changed_render_times) / median_ms(raw_render_times):.2f}x (after a change)"
    )
    ok = batched_load_rows(
        "plan",
        f"{TASKS} tasks, batches of {BATCH}",
        total=total,
        floor=raw,
        timings=timings,
        growth=growth,
        target_seconds=0.7,
    )
    bench_row(
        f"plan keyword search ({SEARCHES} calls)",
        median_ms(search_times) / 1e3,
        ratio=search_ratio,
        baseline="python scan of the same texts",
    )
    bench_row(
        f"get_planning prompt render ({TASKS} tasks, after a change)",
        median_ms(changed_render_times) / 1e3,
        ratio=median_ms(changed_render_times) / median_ms(raw_render_times),
        baseline="plain string render",
    )
    print("PASS" if ok else "FAIL: targets missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
