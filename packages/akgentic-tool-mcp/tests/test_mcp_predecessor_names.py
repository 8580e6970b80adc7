"""The names akgentic-tool 1.6 offered, and what they do here, against real servers.

- ``timeout`` on a connection bounds opening it (it is the former name of ``init_timeout``);
- ``stdio_cwd`` is the stdio server's working directory;
- ``bearer_token`` reaches a stdio server in the variable ``stdio_token_env_var``;
- ``list_mcp_tools`` / ``probe_mcp_connection`` / ``MCPDiagnosticsConfig`` list a server;
- the synchronous OAuth helpers (``handle_mcp_oauth_flow``,
  ``get_mcp_token_with_oauth_if_needed``, ``probe_mcp_with_oauth``) run the real flow.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest
from mcp_harness import ServerProcess, StartServer, free_port, start_http_server, stdio_args
from pydantic import ValidationError
from pydantic_ai import Agent
from pydantic_ai.messages import ToolReturnPart

from akgentic.llm.testing import ScriptedCall, ScriptedModel
from akgentic.tool.mcp import (
    MCPConnectionError,
    MCPDiagnosticsConfig,
    MCPHTTPConnectionConfig,
    MCPStdioConnectionConfig,
    MCPTool,
    get_mcp_token_with_oauth_if_needed,
    handle_mcp_oauth_flow,
    list_mcp_tools,
    parse_www_authenticate_header,
    probe_mcp_connection,
    probe_mcp_with_oauth,
)
from akgentic.tool.mcp.oauth_handler import OAuthFlowError


def stdio(**kwargs: object) -> MCPStdioConnectionConfig:
    command, args = stdio_args()
    return MCPStdioConnectionConfig.model_validate(
        {"stdio_command": command, "stdio_args": args, **kwargs}
    )


async def call(connection: MCPStdioConnectionConfig, *calls: ScriptedCall) -> list[object]:
    script = ScriptedModel(*calls)
    await Agent(script, toolsets=MCPTool(connection=connection).get_toolsets()).run("go")
    outcomes = script.tool_results()
    assert all(isinstance(o, ToolReturnPart) for o in outcomes), outcomes
    return [o.content for o in outcomes]


# -- timeout -------------------------------------------------------------------------------


def test_timeout_is_the_former_name_of_init_timeout() -> None:
    assert stdio(timeout=7.5).init_timeout == 7.5
    assert MCPHTTPConnectionConfig(url="http://127.0.0.1:1/mcp", timeout=3.0).init_timeout == 3.0
    # Without it, our defaults stay.
    assert stdio().init_timeout == 60.0
    assert stdio().timeout is None
    # A dump carries both, in agreement, and validates again.
    dumped = stdio(timeout=7.5).model_dump()
    assert (dumped["timeout"], dumped["init_timeout"]) == (7.5, 7.5)
    assert MCPStdioConnectionConfig.model_validate(dumped).init_timeout == 7.5
    with pytest.raises(ValidationError, match="former name of init_timeout"):
        stdio(timeout=7.5, init_timeout=2.0)
    with pytest.raises(ValidationError):
        stdio(timeout=0)


async def test_timeout_bounds_opening_a_slow_stdio_server() -> None:
    command, args = stdio_args()
    connection = MCPStdioConnectionConfig.model_validate(
        {"stdio_command": command, "stdio_args": [*args, "--startup-delay", "60"], "timeout": 1.5}
    )
    started = time.monotonic()
    with pytest.raises(MCPConnectionError, match="could not open the stdio MCP server"):
        await call(connection, ScriptedCall("add", {"a": 1, "b": 1}))
    assert time.monotonic() - started < 15


async def test_timeout_bounds_opening_an_http_server_that_never_answers() -> None:
    # A listening socket nobody accepts on: the TCP handshake completes (backlog), the
    # MCP handshake never does.
    import socket

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)
    try:
        port = silent.getsockname()[1]
        connection = MCPHTTPConnectionConfig.model_validate(
            {"url": f"http://127.0.0.1:{port}/mcp", "timeout": 1.0}
        )
        started = time.monotonic()
        with pytest.raises(MCPConnectionError):
            await call(connection, ScriptedCall("add", {"a": 1, "b": 1}))  # type: ignore[arg-type]
        assert time.monotonic() - started < 15
    finally:
        silent.close()


async def test_a_generous_timeout_lets_a_slow_server_start() -> None:
    command, args = stdio_args()
    connection = MCPStdioConnectionConfig.model_validate(
        {"stdio_command": command, "stdio_args": [*args, "--startup-delay", "1"], "timeout": 30}
    )
    assert await call(connection, ScriptedCall("add", {"a": 2, "b": 3})) == [5]


# -- stdio_cwd and stdio_token_env_var -----------------------------------------------------


async def test_stdio_cwd_is_the_servers_working_directory(tmp_path: Path) -> None:
    assert await call(stdio(stdio_cwd=str(tmp_path)), ScriptedCall("cwd")) == [
        str(tmp_path.resolve())
    ]


async def test_a_missing_stdio_cwd_fails_the_connection_naming_the_server(tmp_path: Path) -> None:
    with pytest.raises(MCPConnectionError, match="could not open the stdio MCP server"):
        await call(stdio(stdio_cwd=str(tmp_path / "absent")), ScriptedCall("cwd"))


async def test_the_bearer_token_reaches_a_stdio_server_in_its_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    connection = stdio(
        bearer_token="tok-123", stdio_token_env_var="ACME_TOKEN", stdio_env={"OTHER": "kept"}
    )
    assert "tok-123" not in repr(connection)
    assert await call(
        connection,
        ScriptedCall("env", {"name": "ACME_TOKEN"}),
        ScriptedCall("env", {"name": "OTHER"}),
    ) == [
        "tok-123",
        "kept",
    ]


def test_a_stdio_token_needs_a_variable_and_one_place() -> None:
    with pytest.raises(ValidationError, match="stdio_token_env_var"):
        stdio(bearer_token="tok")
    with pytest.raises(ValidationError, match="not an environment variable name"):
        stdio(bearer_token="tok", stdio_token_env_var="1-BAD")
    with pytest.raises(ValidationError, match="give the token in one place"):
        stdio(bearer_token="tok", stdio_token_env_var="T", stdio_env={"T": "other"})
    # A variable without a token sets nothing.
    assert stdio(stdio_token_env_var="T").subprocess_env() is None
    with pytest.raises(ValidationError, match="transport"):
        stdio(transport="sse")


# -- diagnostics ---------------------------------------------------------------------------


async def test_list_and_probe_a_server(streamable_server: ServerProcess) -> None:
    connection = MCPHTTPConnectionConfig(url=streamable_server.url, tool_prefix="ignored")
    names = {tool.name for tool in await list_mcp_tools(connection)}
    assert {"add", "shout", "cwd"} <= names
    report = await probe_mcp_connection(connection, max_tools_to_print=2)
    lines = report.splitlines()
    assert f"reachable, {len(names)} tool(s)" in lines[0]
    assert len([line for line in lines if line.startswith("  - ")]) == 2
    assert lines[-1] == f"  ... and {len(names) - 2} more"
    full = await MCPDiagnosticsConfig(max_tools_to_print=50).probe(stdio())
    assert "  - add: Add two integers." in full.splitlines()


async def test_listing_an_unreachable_server_fails_clearly() -> None:
    with pytest.raises(MCPConnectionError, match="127.0.0.1:9"):
        await list_mcp_tools(MCPHTTPConnectionConfig(url="http://127.0.0.1:9/mcp", timeout=2))


# -- the synchronous OAuth helpers ---------------------------------------------------------


def test_parse_www_authenticate_header() -> None:
    assert parse_www_authenticate_header(
        'Bearer resource_metadata="https://a.example/.well-known/x", scope="read"'
    ) == {"resource_metadata": "https://a.example/.well-known/x", "scope": "read"}
    assert parse_www_authenticate_header("Basic realm=x") == {}


def test_handle_mcp_oauth_flow_returns_the_code_of_the_matching_redirect() -> None:
    port = free_port()
    redirect = f"http://127.0.0.1:{port}/cb"
    auth_url = "https://auth.example/authorize?" + urlencode(
        {"response_type": "code", "state": "st-1", "redirect_uri": redirect}
    )
    answers: list[int] = []
    visitors: list[threading.Thread] = []

    def browser(url: str) -> bool:
        assert url == auth_url

        def visit() -> None:
            answers.append(httpx.get(f"{redirect}?code=forged&state=wrong").status_code)
            answers.append(
                httpx.get(f"http://127.0.0.1:{port}/other?code=x&state=st-1").status_code
            )
            answers.append(httpx.get(f"{redirect}?code=the-code&state=st-1").status_code)

        visitors.append(threading.Thread(target=visit, daemon=True))
        visitors[0].start()
        return True

    assert (
        handle_mcp_oauth_flow(auth_url, callback_port=port, auth_timeout=10, open_browser=browser)
        == "the-code"
    )
    visitors[0].join(timeout=10)
    assert answers == [400, 404, 200]


def test_handle_mcp_oauth_flow_refusals() -> None:
    # Both refusals say what is wrong and what to do, in full.
    with pytest.raises(
        OAuthFlowError,
        match=r"^the authorization URL carries no state: without one the redirect cannot be "
        r"told apart from a forged request; add a random state parameter$",
    ):
        handle_mcp_oauth_flow("https://auth.example/authorize?client_id=x", callback_port=0)
    with pytest.raises(
        OAuthFlowError, match=r"^the authorization URL \('http://auth\.[^)]*\) is not https"
    ):
        handle_mcp_oauth_flow("http://auth.example/authorize?state=s", callback_port=0)
    port = free_port()

    def refuse(url: str) -> bool:
        threading.Thread(
            target=lambda: httpx.get(
                f"http://127.0.0.1:{port}/callback?error=access_denied&state=s"
            ),
            daemon=True,
        ).start()
        return True

    with pytest.raises(OAuthFlowError, match="access_denied"):
        handle_mcp_oauth_flow(
            "https://auth.example/authorize?state=s", callback_port=port, open_browser=refuse
        )
    started = time.monotonic()
    with pytest.raises(OAuthFlowError, match="no authorization arrived"):
        handle_mcp_oauth_flow(
            "https://auth.example/authorize?state=s",
            callback_port=free_port(),
            auth_timeout=0.5,
            open_browser=lambda url: True,
        )
    assert time.monotonic() - started < 5


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[str]:
    server = start_http_server("streamable-http", "/mcp", "--oauth")
    yield server.url
    server.stop()


def follow_consent(url: str) -> bool:
    """The user's browser: approve, then land on the local listener (from another thread,
    as the listener runs in the caller's event loop)."""

    def visit() -> None:
        consent = httpx.get(url)
        httpx.get(consent.headers["location"])

    threading.Thread(target=visit, daemon=True).start()
    return True


def test_get_token_if_needed_runs_the_flow_only_when_asked(
    oauth_server: str, start_server: StartServer
) -> None:
    open_server = start_server("streamable-http", "/mcp")
    assert get_mcp_token_with_oauth_if_needed(open_server.url, callback_port=0) is None
    assert get_mcp_token_with_oauth_if_needed(open_server.url, "given", callback_port=0) == "given"

    token = get_mcp_token_with_oauth_if_needed(
        oauth_server, callback_port=0, oauth_timeout=20, open_browser=follow_consent
    )
    assert token is not None
    assert token.startswith("at-")
    # The token now works: the server answers without a new flow.
    assert get_mcp_token_with_oauth_if_needed(oauth_server, token, callback_port=0) == token


def test_a_401_without_a_bearer_challenge_is_not_oauth(start_server: StartServer) -> None:
    gated = start_server("streamable-http", "/mcp", "--require-token", "s3cret")
    with pytest.raises(OAuthFlowError, match="without a Bearer challenge"):
        get_mcp_token_with_oauth_if_needed(gated.url, callback_port=0)
    assert get_mcp_token_with_oauth_if_needed(gated.url, "s3cret", callback_port=0) == "s3cret"


def test_probe_with_oauth_proves_the_token_over_mcp(oauth_server: str) -> None:
    token = probe_mcp_with_oauth(oauth_server, callback_port=0, open_browser=follow_consent)
    assert token is not None
    assert token.startswith("at-")
