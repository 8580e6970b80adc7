"""What one team member's tools cost to build: ToolFactory + WorkspaceTool + PlanningTool.

Usage: python packages/akgentic-tool-core/benchmarks/bench_factory.py [--members N]

N members of one real team (akgentic-core actors) each get a ``ToolFactory`` over a
``WorkspaceTool`` and a ``PlanningTool`` (no vector store) and collect its tools (as
pydantic-ai ``Tool``s, ``get_pydantic_ai_tools()``), toolsets and system prompts, the way an
agent does when it joins. Reported: the median µs per member
and the KB allocated per member (tracemalloc, objects kept alive as a team keeps them),
with the process-wide caches on ("after") and off ("before"), measured in the same run.

Then the step that follows in every agent: pydantic-ai turning each callable into a
``Tool`` (validator and JSON schema). Registering the plain callables (``get_tools()``)
makes pydantic-ai build every schema for every member; ``get_pydantic_ai_tools()`` builds
each distinct schema once per process. Both are measured, per member.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import team_actor
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.pydantic_ai_tools import _SCHEMAS
from akgentic.tool.core.testing import ToolRetry, ToolTestAgent, spawn_tool_agent
from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV

TARGET_US = 2000.0  # leaves most of the 5 ms per member to the actor and the agent


def bench_row(workload: str, ms: float, target: str, ratio: float, baseline: str, ok: bool) -> None:
    """One machine-readable line for scripts/bench.py's table."""
    row = {
        "workload": workload,
        "median_ms": round(ms, 4),
        "target": target,
        "ratio": round(ratio, 3),
        "baseline": baseline,
        "ok": ok,
    }
    print("BENCH " + json.dumps(row))


@contextmanager
def caches(enabled: bool) -> Iterator[None]:
    """Switch the process-wide caches on or off for the duration (empty at the start)."""
    switches = (team_actor._PROXIES, team_actor._TEAM_ACTORS, _SCHEMAS)
    previous = [switch.enabled for switch in switches]
    for switch in switches:
        switch.enabled = enabled
        switch.clear()
    try:
        yield
    finally:
        for switch, was in zip(switches, previous, strict=True):
            switch.enabled = was


def build_member(agent: ToolTestAgent) -> tuple[ToolFactory, list[Any]]:
    from akgentic.tool.planning import PlanningTool
    from akgentic.tool.workspace import WorkspaceTool

    factory = ToolFactory(
        [WorkspaceTool(workspace_id="bench"), PlanningTool()],
        observer=agent,
        retry_exception=ToolRetry,
    )
    tools = factory.get_pydantic_ai_tools()
    factory.get_toolsets()
    factory.get_system_prompts()
    return factory, tools


def per_member_us(agents: list[ToolTestAgent]) -> tuple[float, list[Any]]:
    """Median µs to build one member's tools; the built objects are returned (kept)."""
    kept: list[Any] = []
    times: list[float] = []
    for agent in agents:
        started = time.perf_counter()
        kept.append(build_member(agent))
        times.append((time.perf_counter() - started) * 1e6)
    return statistics.median(times), kept


def per_member_kb(agents: list[ToolTestAgent]) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        kept = [build_member(agent) for agent in agents]
        current, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del kept
    return current / len(agents) / 1024


def schema_us(factory: ToolFactory) -> float:
    """µs for pydantic-ai to build one member's Tools from its plain callables."""
    from pydantic_ai import Tool

    callables = factory.get_tools()
    started = time.perf_counter()
    for tool in callables:
        Tool(tool)
    return (time.perf_counter() - started) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=200)
    args = parser.parse_args()
    os.environ[WORKSPACES_ROOT_ENV] = tempfile.mkdtemp(prefix="bench-factory-")
    system = ActorSystem()
    try:
        orchestrator = system.createActor(
            Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        agents = [spawn_tool_agent(system, orchestrator, f"@m{i:04d}") for i in range(args.members)]
        build_member(agents[0])  # warm-up: imports and the team's #PlanningTool actor
        half = len(agents) // 2
        results: dict[str, tuple[float, float]] = {}
        # Each half binds fresh members; both halves run after the same warm-up.
        for label, enabled, chosen in (
            ("before", False, agents[:half]),
            ("after", True, agents[half:]),
        ):
            with caches(enabled):
                us, kept = per_member_us(chosen)
                kb = per_member_kb(chosen)
            results[label] = (us, kb)
        factory, tools = kept[0]
        plain = statistics.median(schema_us(factory) for _ in range(20))
    finally:
        system.shutdown(timeout=30)

    (before_us, before_kb), (after_us, after_kb) = results["before"], results["after"]
    print(f"members: {args.members} (half before, half after); tools per member: {len(tools)}")
    print("| per member | before (no caches) | after | after / before |")
    print("|---|---:|---:|---:|")
    ratio = after_us / before_us
    print(f"| factory+cards+Tools, µs | {before_us:.0f} | {after_us:.0f} | {ratio:.2f} |")
    print(f"| allocated, KB | {before_kb:.1f} | {after_kb:.1f} | {after_kb / before_kb:.2f} |")
    print(f"| (for reference) pydantic-ai Tools from get_tools(), µs | {plain:.0f} | | |")
    bench_row(
        "ToolFactory workspace+planning, per member",
        after_us / 1000,
        f"< {TARGET_US / 1000:g} ms per member",
        after_us / before_us,
        "the same without the shared caches",
        after_us < TARGET_US,
    )


if __name__ == "__main__":
    main()
