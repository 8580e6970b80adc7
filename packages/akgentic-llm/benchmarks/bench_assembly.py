"""What one ``ReactAgent`` costs to build: milliseconds and resident memory per agent.

    .venv/bin/python packages/akgentic-llm/benchmarks/bench_assembly.py [--agents 200] [--rounds 2]

Builds ``--agents`` agents from one OpenAI config (kept alive, closed at the end) in each of
three modes, each in a fresh interpreter so that one mode's heap does not colour another's:

* ``unshared``: ``RuntimeConfig(share_http_client=False)``, every agent builds its own HTTP
  client and SSL context (what every agent did before clients were shared);
* ``shared``: the default, one client and SSL context for all;
* ``bare``: the anchor, a plain ``pydantic_ai.Agent`` on a ``FunctionModel`` (no HTTP client
  at all: the floor any wrapper is measured against).

Per agent it reports the median wall-clock construction time (``perf_counter``, first agent
excluded: it pays the one-off imports and, for ``shared``, the one SSL context) and the growth
of the resident set (``/proc/self/statm``) divided by the number of agents. Modes alternate
over ``--rounds`` rounds and the median of the rounds is printed, so drift on a shared machine
affects them alike. Nothing is sent: no agent runs.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

MODES = ("unshared", "shared", "bare")


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _builder(mode: str) -> Callable[[], object]:
    if mode == "bare":
        from pydantic_ai import Agent
        from pydantic_ai.messages import ModelResponse, TextPart
        from pydantic_ai.models.function import FunctionModel

        model = FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("ok")]))
        return lambda: Agent(model)
    from akgentic.llm import ModelConfig, ReactAgent, ReactAgentConfig, RuntimeConfig

    config = ReactAgentConfig(
        model_cfg=ModelConfig(provider="openai", model="gpt-4o"),
        runtime_cfg=RuntimeConfig(share_http_client=mode == "shared"),
    )
    return lambda: ReactAgent(config)


def _child(mode: str, agents: int) -> None:
    """Runs in a fresh interpreter: build the agents, print one JSON line."""
    os.environ["OPENAI_API_KEY"] = "sk-benchmark-not-used"
    build = _builder(mode)
    # Warm the imports the first construction would otherwise pay for, then measure.
    first = build()
    gc.collect()
    rss_before = _rss_bytes()
    built = [first]
    times: list[float] = []
    for _ in range(agents):
        start = time.perf_counter()
        built.append(build())
        times.append(time.perf_counter() - start)
    gc.collect()
    rss_after = _rss_bytes()
    for agent in built:
        close = getattr(agent, "close", None)
        if close is not None:
            close()
    print(
        json.dumps(
            {
                "ms": statistics.median(times) * 1000,
                "rss_mb": (rss_after - rss_before) / agents / 1e6,
            }
        )
    )


def _measure(mode: str, agents: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--agents", str(agents)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child, args.agents)
        return
    runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    for _ in range(args.rounds):
        for mode in MODES:
            runs[mode].append(_measure(mode, args.agents))
    print(f"ReactAgent construction, {args.agents} agents kept alive, median of {args.rounds}")
    print(f"{'mode':<10} {'ms/agent':>9} {'MB/agent':>9}")
    summary = {}
    for mode in MODES:
        ms = statistics.median(r["ms"] for r in runs[mode])
        mb = statistics.median(r["rss_mb"] for r in runs[mode])
        summary[mode] = (ms, mb)
        print(f"{mode:<10} {ms:>9.3f} {mb:>9.3f}")
    (u_ms, u_mb), (s_ms, s_mb) = summary["unshared"], summary["shared"]
    b_ms, b_mb = summary["bare"]
    memory = f"{u_mb / s_mb:.0f}x less memory" if s_mb >= 0.001 else "memory below resolution"
    print(f"shared vs unshared: {u_ms / s_ms:.0f}x faster, {memory}")
    print(f"shared vs bare pydantic-ai: {s_ms / b_ms:.2f}x the time, {s_mb - b_mb:+.3f} MB/agent")


if __name__ == "__main__":
    main()
