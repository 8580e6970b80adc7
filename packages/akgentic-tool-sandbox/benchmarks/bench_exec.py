"""Latency of one short command through ExecTool, against a bare subprocess baseline.

Run:  .venv/bin/python packages/akgentic-tool-sandbox/benchmarks/bench_exec.py

Baseline: ``subprocess.run(["bash", "-c", "echo hi"])``, the least any backend can cost.
Then the same command through ``run_process`` (limits, process group, capped capture),
through ``ExecTool`` in a real actor system (allowlist, worker actor, result polling), and
the bwrap equivalents (bare ``bwrap`` argv, then ``ExecTool(mode="bwrap")``).
Prints the median of each and its ratio to the baseline.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import spawn_tool_agent
from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV
from akgentic.tool.sandbox._process import LaunchSpec, run_process
from akgentic.tool.sandbox.actor import default_shell
from akgentic.tool.sandbox.bwrap import BwrapSandboxActor, bwrap_argv
from akgentic.tool.sandbox.tool import ExecTool

ROUNDS = 30
COMMAND = "echo hi"


def median_ms(fn: Callable[[], object], rounds: int = ROUNDS) -> float:
    fn()  # warm-up
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    root = tempfile.mkdtemp(prefix="akgentic-bench-")
    try:
        _run(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _run(root: str) -> None:
    os.environ[WORKSPACES_ROOT_ENV] = root
    shell = default_shell()
    rows: list[tuple[str, float]] = []

    rows.append(
        ("subprocess.run bash -c (baseline)",
         median_ms(lambda: subprocess.run([shell, "-c", COMMAND], capture_output=True, check=True)))
    )  # fmt: skip
    spec = LaunchSpec(
        argv=[shell, "-c", COMMAND], cwd=root, env={"PATH": "/usr/bin:/bin"},
        display_command=COMMAND, timeout_seconds=10, max_output_bytes=30_000,
        cpu_seconds=60, file_size_bytes=10**8, address_space_bytes=512 * 2**20,
        max_processes=1024,
    )  # fmt: skip
    rows.append(("run_process (limits, group, capture)", median_ms(lambda: run_process(spec))))

    bwrap_ok = BwrapSandboxActor.probe()
    if bwrap_ok:
        argv = bwrap_argv(bwrap="bwrap", workspace_dir=root, shell=shell, command=COMMAND)
        rows.append(
            ("subprocess.run bwrap argv",
             median_ms(lambda: subprocess.run(argv, capture_output=True, check=True)))
        )  # fmt: skip

    system = ActorSystem()
    try:
        for mode in ["local", "bwrap"] if bwrap_ok else ["local"]:
            # One #SandboxActor per team: each mode gets its own orchestrator (team).
            orch = system.createActor(
                Orchestrator, config=BaseConfig(name=f"@Orch-{mode}", role="Orchestrator")
            )
            agent = spawn_tool_agent(system, orch, name=f"@{mode}")
            (run,) = ToolFactory([ExecTool(mode=mode)], observer=agent).get_tools()
            assert run(COMMAND).endswith("hi")
            rows.append(
                (f"ExecTool(mode={mode!r}) end to end", median_ms(lambda r=run: r(COMMAND)))
            )
    finally:
        system.shutdown(timeout=10)

    baseline = rows[0][1]
    print(f"{'path':45s} {'median ms':>10s} {'x baseline':>11s}")
    for label, value in rows:
        print(f"{label:45s} {value:10.2f} {value / baseline:11.2f}")
        if label != rows[0][0]:
            row = {
                "workload": label.strip(),
                "median_ms": round(value, 3),
                "target": None,
                "ratio": round(value / baseline, 3),
                "baseline": rows[0][0].strip(),
                "ok": None,
            }
            print("BENCH " + json.dumps(row))


if __name__ == "__main__":
    main()
