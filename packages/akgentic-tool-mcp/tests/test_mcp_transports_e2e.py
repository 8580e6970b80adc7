"""MCPTool end to end: a pydantic-ai agent calls tools of real MCP servers over every transport.

The servers are `mcp_demo_server.py` processes; the model is a scripted FunctionModel, so
each tool call really goes out over stdio, streamable HTTP or SSE and its answer comes back
to the model through pydantic-ai.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import time

import pytest
from mcp_harness import ServerProcess, StartServer, stdio_args
from pydantic_ai import Agent
from pydantic_ai.messages import RetryPromptPart, ToolReturnPart

from akgentic.llm.testing import ScriptedCall, ScriptedModel
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.mcp import (
    MCPConnectionConfig,
    MCPConnectionError,
    MCPHTTPConnectionConfig,
    MCPStdioConnectionConfig,
    MCPTool,
)

DEMO_TOOLS = {
    "add",
    "ping",
    "shout",
    "seen_authorization",
    "fail",
    "nap",
    "crash",
    "env",
    "pid",
    "argv",
    "cwd",
}


def stdio_connection(**kwargs: object) -> MCPStdioConnectionConfig:
    command, args = stdio_args()
    return MCPStdioConnectionConfig(stdio_command=command, stdio_args=args, **kwargs)  # type: ignore[arg-type]


async def run_agent(card: MCPTool, script: ScriptedModel) -> str:
    agent = Agent(script, toolsets=card.get_toolsets())
    result = await agent.run("use the server")
    return str(result.output)


@pytest.fixture(params=["stdio", "streamable-http", "sse"])
def any_connection(
    request: pytest.FixtureRequest, streamable_server: ServerProcess, sse_server: ServerProcess
) -> MCPConnectionConfig:
    if request.param == "stdio":
        return stdio_connection(read_timeout=10)
    if request.param == "sse":
        return MCPHTTPConnectionConfig(url=sse_server.url, transport="sse", read_timeout=10)
    return MCPHTTPConnectionConfig(url=streamable_server.url, read_timeout=10)


async def test_a_tool_call_crosses_each_transport(any_connection: MCPConnectionConfig) -> None:
    script = ScriptedModel(
        ScriptedCall("add", {"a": 2, "b": 40}), ScriptedCall("shout", {"text": "hi"}), "finished"
    )
    assert await run_agent(MCPTool(connection=any_connection), script) == "finished"
    assert set(script.offered) == DEMO_TOOLS
    first, second = script.tool_results()
    assert isinstance(first, ToolReturnPart)
    assert first.content == 42
    assert isinstance(second, ToolReturnPart)
    assert second.content == "HI"


async def test_through_the_tool_factory(
    streamable_server: ServerProcess, tool_agent: ToolTestAgent
) -> None:
    card = MCPTool(connection=MCPHTTPConnectionConfig(url=streamable_server.url))
    factory = ToolFactory([card], observer=tool_agent)
    assert factory.get_tools() == []
    script = ScriptedModel(ScriptedCall("add", {"a": 1, "b": 1}))
    agent = Agent(script, tools=factory.get_tools(), toolsets=factory.get_toolsets())
    await agent.run("go")
    (outcome,) = script.tool_results()
    assert isinstance(outcome, ToolReturnPart)
    assert outcome.content == 2


async def test_tool_prefix_renames_the_servers_tools(sse_server: ServerProcess) -> None:
    # The prefix is applied by pydantic-ai's wrapper, above the transport: one transport
    # is enough (SSE, whose URL does not end in /sse).
    connection = MCPHTTPConnectionConfig(url=sse_server.url, transport="sse", tool_prefix="acme")
    script = ScriptedModel(ScriptedCall("acme_add", {"a": 3, "b": 4}))
    await run_agent(MCPTool(connection=connection), script)
    assert set(script.offered) == {f"acme_{name}" for name in DEMO_TOOLS}
    (outcome,) = script.tool_results()
    assert isinstance(outcome, ToolReturnPart)
    assert outcome.content == 7


async def test_a_server_side_tool_error_reaches_the_model(
    streamable_server: ServerProcess,
) -> None:
    connection = MCPHTTPConnectionConfig(url=streamable_server.url)
    script = ScriptedModel(ScriptedCall("fail", {"reason": "the ledger is locked"}), "finished")
    assert await run_agent(MCPTool(connection=connection), script) == "finished"
    (outcome,) = script.tool_results()
    assert isinstance(outcome, RetryPromptPart)
    assert "the ledger is locked" in str(outcome.content)


async def test_a_connection_without_a_credential_sends_no_authorization(
    any_connection: MCPConnectionConfig,
) -> None:
    script = ScriptedModel(ScriptedCall("seen_authorization"))
    await run_agent(MCPTool(connection=any_connection), script)
    (outcome,) = script.tool_results()
    assert isinstance(outcome, ToolReturnPart)
    assert outcome.content == ""


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
async def test_the_bearer_token_reaches_the_server(
    start_server: StartServer, transport: str
) -> None:
    server = start_server(transport, "/private/mcp", "--require-token", "s3cret")
    connection = MCPHTTPConnectionConfig(
        url=server.url,
        transport=transport,  # type: ignore[arg-type]
        bearer_token="s3cret",
    )
    script = ScriptedModel(ScriptedCall("seen_authorization"))
    await run_agent(MCPTool(connection=connection), script)
    (outcome,) = script.tool_results()
    assert isinstance(outcome, ToolReturnPart)
    assert outcome.content == "Bearer s3cret"

    # The same server turns away a connection without the token (the gate answers 401).
    anonymous = MCPTool(connection=connection.model_copy(update={"bearer_token": None}))
    with pytest.raises(MCPConnectionError, match=r"could not open the .*private/mcp"):
        await run_agent(anonymous, ScriptedModel(ScriptedCall("add", {"a": 1, "b": 1})))


async def test_read_timeout_bounds_a_silent_call(any_connection: MCPConnectionConfig) -> None:
    connection = any_connection.model_copy(update={"read_timeout": 1.0})
    transport = getattr(connection, "transport", "stdio")
    script = ScriptedModel(ScriptedCall("nap", {"seconds": 30}), "finished")
    started = time.monotonic()
    assert await run_agent(MCPTool(connection=connection), script) == "finished"
    elapsed = time.monotonic() - started
    (outcome,) = script.tool_results()
    assert isinstance(outcome, RetryPromptPart)
    # Over SSE the silent stream may be dropped a moment before the request times out:
    # either way the call ends with an error the model sees.
    assert "timed out" in str(outcome.content) or (
        transport == "sse" and "Connection closed" in str(outcome.content)
    )
    assert elapsed < 15


@pytest.mark.parametrize("transport", ["stdio", "streamable-http", "sse"])
async def test_a_server_that_dies_mid_call_gives_the_agent_an_error(
    start_server: StartServer, transport: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="akgentic.tool.mcp")
    server: ServerProcess | None = None
    connection: MCPConnectionConfig
    if transport == "stdio":
        connection = stdio_connection(read_timeout=10)
    else:
        server = start_server(transport, "/fragile")
        connection = MCPHTTPConnectionConfig(
            url=server.url,
            transport=transport,  # type: ignore[arg-type]
            read_timeout=10,
        )
    # The model calls `crash` (the server exits mid-call), then tries another tool.
    script = ScriptedModel(ScriptedCall("crash"), ScriptedCall("add", {"a": 1, "b": 2}), "finished")
    started = time.monotonic()
    assert await run_agent(MCPTool(connection=connection), script) == "finished"
    assert time.monotonic() - started < 20
    crash, after = script.tool_results()
    assert not isinstance(crash, ToolReturnPart) or crash.outcome == "failed"
    assert not isinstance(after, ToolReturnPart) or after.outcome == "failed"
    if transport == "streamable-http":
        # The broken HTTP session raises a raw transport error on the next call; the model
        # gets it as a failed tool result naming the server, and the run goes on.
        assert isinstance(after, ToolReturnPart)
        assert re.search(r"failed during `add` \(\w*Error: ", str(after.content))
        assert "may have stopped" in str(after.content)
        # Closing the dead session fails too: logged with its traceback, the run unharmed.
        (closing,) = [r for r in caplog.records if r.getMessage().startswith("closing the")]
        assert closing.levelno == logging.WARNING
        assert closing.getMessage() == f"closing the {connection.describe()} failed"
        assert closing.exc_info
        assert closing.exc_info[1] is not None
    if server is not None:
        assert server.process.wait(timeout=5) == 3


async def test_the_stdio_server_lives_only_while_the_toolset_is_open() -> None:
    script = ScriptedModel(ScriptedCall("pid"))
    await run_agent(MCPTool(connection=stdio_connection()), script)
    (outcome,) = script.tool_results()
    assert isinstance(outcome, ToolReturnPart)
    child = int(outcome.content)
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


async def test_an_unreachable_server_is_named_in_the_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/gone"
    # Nothing listens there any more.
    card = MCPTool(connection=MCPHTTPConnectionConfig(url=url))
    with pytest.raises(MCPConnectionError, match=f"streamable-http MCP server at {url}"):
        await run_agent(card, ScriptedModel(ScriptedCall("add", {"a": 1, "b": 1})))


async def test_a_missing_stdio_command_is_named_in_the_error() -> None:
    card = MCPTool(connection=MCPStdioConnectionConfig(stdio_command="/nonexistent/mcp-server"))
    # The server is named, then what went wrong: the error's kind and its own words.
    with pytest.raises(
        MCPConnectionError,
        match=r"'/nonexistent/mcp-server': \w*Error: .*No such file or directory",
    ):
        await run_agent(card, ScriptedModel(ScriptedCall("add", {"a": 1, "b": 1})))


async def test_after_a_crash_the_next_run_starts_a_fresh_stdio_server() -> None:
    # one run asks the pid then crashes the server; the next run asks the pid again
    script = ScriptedModel(
        ScriptedCall("pid"), ScriptedCall("crash"), "crashed", ScriptedCall("pid")
    )
    agent = Agent(script, toolsets=MCPTool(connection=stdio_connection()).get_toolsets())
    await agent.run("crash it")
    first_pid = script.tool_results()[0].content
    await agent.run("again")
    (outcome,) = script.tool_results()
    assert isinstance(outcome, ToolReturnPart)
    assert outcome.content != first_pid


async def test_the_stdio_server_gets_stdio_env_but_not_the_parents_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AKGENTIC_PARENT_SECRET", "do-not-leak")
    connection = stdio_connection(stdio_env={"ACME_TOKEN": "granted"})
    script = ScriptedModel(
        ScriptedCall("env", {"name": "ACME_TOKEN"}),
        ScriptedCall("env", {"name": "AKGENTIC_PARENT_SECRET"}),
    )
    await run_agent(MCPTool(connection=connection), script)
    granted, hidden = script.tool_results()
    assert isinstance(granted, ToolReturnPart)
    assert granted.content == "granted"
    assert isinstance(hidden, ToolReturnPart)
    assert hidden.content == ""


async def test_init_timeout_bounds_a_slow_start() -> None:
    command, args = stdio_args()
    connection = MCPStdioConnectionConfig(
        stdio_command=command, stdio_args=[*args, "--startup-delay", "60"], init_timeout=1.5
    )
    started = time.monotonic()
    with pytest.raises(MCPConnectionError, match="could not open the stdio MCP server"):
        await run_agent(MCPTool(connection=connection), ScriptedModel())
    assert time.monotonic() - started < 15


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); look at its state.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
