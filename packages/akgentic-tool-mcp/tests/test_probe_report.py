"""What ``probe_mcp_connection`` reports about a server, and what listing tools is bounded by.

Against the demo MCP server over streamable HTTP (among its tools: ``ping``, which has no
description, and ``shout``, whose description runs over several lines), and a socket that
takes connections and never answers.
"""

from __future__ import annotations

import logging
import re
import socket
import sys
import time
from pathlib import Path

import pytest
from mcp_harness import ServerProcess
from pydantic import ValidationError

from akgentic.tool.mcp import (
    MCPConnectionError,
    MCPDiagnosticsConfig,
    MCPHTTPConnectionConfig,
    MCPStdioConnectionConfig,
    list_mcp_tools,
    probe_mcp_connection,
)


async def _count(connection: MCPHTTPConnectionConfig) -> int:
    return len(await list_mcp_tools(connection))


async def test_each_tool_is_shown_with_the_first_line_of_its_description(
    streamable_server: ServerProcess, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="akgentic.tool.mcp.mcp")
    connection = MCPHTTPConnectionConfig(url=streamable_server.url)
    count = await _count(connection)
    report = await probe_mcp_connection(connection, max_tools_to_print=count)
    lines = report.splitlines()
    assert lines[0].endswith(f": reachable, {count} tool(s)")
    assert len(lines) == 1 + count  # every tool, and no "... more" line
    assert "  - ping" in lines
    assert "  - shout: Upper-case a text." in lines
    assert "Letters only" not in report
    # The report is what is logged, as it is.
    assert [r.getMessage() for r in caplog.records if r.name == "akgentic.tool.mcp.mcp"] == [report]


@pytest.mark.parametrize("shown", [0, 2])
async def test_the_rest_of_a_long_list_is_counted(
    streamable_server: ServerProcess, shown: int
) -> None:
    connection = MCPHTTPConnectionConfig(url=streamable_server.url)
    count = await _count(connection)
    for report in (
        await probe_mcp_connection(connection, max_tools_to_print=shown),
        await MCPDiagnosticsConfig(max_tools_to_print=shown).probe(connection),
    ):
        lines = report.splitlines()
        assert len([line for line in lines if line.startswith("  - ")]) == shown
        assert lines[-1] == f"  ... and {count - shown} more"


async def test_listing_tools_is_bounded_by_init_timeout() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/mcp"
        started = time.monotonic()
        with pytest.raises(MCPConnectionError):
            await list_mcp_tools(MCPHTTPConnectionConfig(url=url, init_timeout=1.0))
        assert time.monotonic() - started < 6


def test_a_login_store_must_be_one() -> None:
    connection = MCPHTTPConnectionConfig(url="https://mcp.acme.example/mcp", auth="oauth")
    with pytest.raises(TypeError, match="got dict$"):
        connection.use_login_store({})


# A stdio MCP server in a few lines: it completes the handshake, then refuses the tool
# listing, or with "stall" never answers it (what the demo server cannot be made to do).
_STUB_SERVER = """
import json, sys
stall = sys.argv[1:] == ["stall"]
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "stub", "version": "0"},
        }
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
    elif message.get("method") == "tools/list":
        if stall:
            continue
        error = {"code": -32000, "message": "tools are down, api_key=KEY-LEAK"}
        reply = {"jsonrpc": "2.0", "id": message["id"], "error": error}
    elif "id" in message:
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
    else:
        continue  # a notification
    print(json.dumps(reply), flush=True)
"""


def _stub(tmp_path: Path, *args: str, **settings: float) -> MCPStdioConnectionConfig:
    script = tmp_path / "stub_server.py"
    script.write_text(_STUB_SERVER)
    return MCPStdioConnectionConfig(
        stdio_command=sys.executable, stdio_args=[str(script), *args], **settings
    )


async def test_a_listing_the_server_refuses_is_named_without_its_secrets(tmp_path: Path) -> None:
    connection = _stub(tmp_path)
    with pytest.raises(MCPConnectionError) as caught:
        await list_mcp_tools(connection)
    message = str(caught.value)
    assert message.startswith(f"could not list the tools of the {connection.describe()}: ")
    # The SDK's error, by its class name and message, with the secret masked.
    assert re.search(r": \w+Error: tools are down, api_key=\*\*\*$", message), message
    assert "KEY-LEAK" not in message


async def test_a_listing_the_server_never_answers_is_bounded_by_read_timeout(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    with pytest.raises(MCPConnectionError, match="could not list the tools"):
        await list_mcp_tools(_stub(tmp_path, "stall", read_timeout=0.5))
    assert time.monotonic() - started < 5


def test_a_bad_tool_prefix_is_named() -> None:
    with pytest.raises(ValidationError) as caught:
        MCPHTTPConnectionConfig(url="https://mcp.acme.example/mcp", tool_prefix="9lives")
    assert "tool_prefix '9lives' must start with a letter" in str(caught.value)
