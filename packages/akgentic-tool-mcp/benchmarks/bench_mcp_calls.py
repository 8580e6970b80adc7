"""Cost of an MCP tool call through MCPTool and a pydantic-ai agent, per transport.

Run:  .venv/bin/python packages/akgentic-tool-mcp/benchmarks/bench_mcp_calls.py

Servers are the test suite's demo server (tests/mcp_demo_server.py): a subprocess over
stdio, and streamable HTTP / SSE on 127.0.0.1. For each transport, measured in the same run:
- baseline: `add` called with a FastMCP client on an already open session;
- toolset: `MCPToolset.direct_call_tool("add")` on the toolset MCPTool built (open session);
- agent run: one `Agent.run` whose scripted model calls `add` once, toolset kept open;
- open: opening and closing MCPTool's toolset (connect + initialize, or process start).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fastmcp import Client
from mcp_harness import ScriptedModel, start_http_server, stdio_args
from pydantic_ai import Agent

from akgentic.tool.mcp import (
    MCPConnectionConfig,
    MCPHTTPConnectionConfig,
    MCPStdioConnectionConfig,
    MCPTool,
)
from akgentic.tool.mcp.mcp import _build_transport

CALLS = 40
OPENS = 3


async def median_ms(fn: Callable[[], Awaitable[Any]], rounds: int) -> float:
    await fn()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        await fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


async def measure(name: str, connection: MCPConnectionConfig) -> None:
    async with Client(_build_transport(connection)) as client:
        baseline = await median_ms(lambda: client.call_tool("add", {"a": 1, "b": 2}), CALLS)

    card = MCPTool(connection=connection)
    (toolset,) = card.get_toolsets()
    async with toolset:
        direct = await median_ms(lambda: toolset.direct_call_tool("add", {"a": 1, "b": 2}), CALLS)

    script = ScriptedModel(calls=[("add", {"a": 1, "b": 2})])
    agent = Agent(script.model(), toolsets=card.get_toolsets())
    async with agent:
        run = await median_ms(lambda: agent.run("go"), CALLS)

    async def open_close() -> None:
        (fresh,) = card.get_toolsets()
        async with fresh:
            pass

    opened = await median_ms(open_close, OPENS)
    print(
        f"{name:16} baseline {baseline:7.2f} ms | toolset {direct:7.2f} ms "
        f"(x{direct / baseline:4.2f}) | agent run {run:7.2f} ms (x{run / baseline:4.2f}) "
        f"| open+close {opened:8.1f} ms"
    )
    for workload, value in ((f"{name}: MCPTool toolset call", direct), (f"{name}: agent run", run)):
        row = {
            "workload": workload,
            "median_ms": round(value, 3),
            "target": None,
            "ratio": round(value / baseline, 3),
            "baseline": "direct mcp client call",
            "ok": None,
        }
        print("BENCH " + json.dumps(row))


async def main() -> None:
    command, args = stdio_args()
    http = start_http_server("streamable-http", "/mcp")
    sse = start_http_server("sse", "/events")
    try:
        print(f"medians over {CALLS} calls ({OPENS} opens); ratios against the baseline")
        await measure("stdio", MCPStdioConnectionConfig(stdio_command=command, stdio_args=args))
        await measure("streamable-http", MCPHTTPConnectionConfig(url=http.url))
        await measure("sse", MCPHTTPConnectionConfig(url=sse.url, transport="sse"))
    finally:
        http.stop()
        sse.stop()


if __name__ == "__main__":
    asyncio.run(main())
