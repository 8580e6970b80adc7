"""Logins that last: stored, reused, refreshed before they expire, and clear when revoked.

The server is `mcp_demo_server.py --oauth --token-lifetime 2`: a real MCP server that checks
the bearer token of every request, and its own OAuth authorization server (discovery,
dynamic registration, /authorize that approves at once, /token for code and refresh grants)
issuing access tokens that live two seconds, with rotating refresh tokens. The user's side
of the authorization is a test interaction that follows the authorization URL with an HTTP
client and hands the code of the redirect back, or, for the default interaction, a
"browser" that follows the redirect to the real listener on 127.0.0.1.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from mcp.shared.auth import OAuthToken
from mcp_harness import ServerProcess, start_http_server
from oauth_users import AutoApprove
from pydantic import ValidationError
from pydantic_ai import Agent
from pydantic_ai.messages import RetryPromptPart, ToolReturnPart

from akgentic.llm.testing import ScriptedCall, ScriptedModel, ScriptedRequest
from akgentic.tool.mcp import MCPConnectionError, MCPHTTPConnectionConfig, MCPTool
from akgentic.tool.mcp.oauth_login import (
    MCPLoginError,
    login_mcp_server,
)
from akgentic.tool.mcp.oauth_store import (
    FileLoginStore,
    LoginStoreError,
    MemoryLoginStore,
    StoredLogin,
    default_login_dir,
)

LIFETIME = "2"


@pytest.fixture
def server() -> Iterator[ServerProcess]:
    started = start_http_server("streamable-http", "/mcp", "--oauth", "--token-lifetime", LIFETIME)
    yield started
    started.stop()


def events(server: ServerProcess) -> list[str]:
    answer: list[str] = httpx.get(server.base_url + "/__oauth/events").json()
    return answer


def card(server: ServerProcess, store_dir: Path) -> MCPTool:
    return MCPTool(
        connection=MCPHTTPConnectionConfig(
            url=server.url, auth="oauth", oauth_store_dir=str(store_dir)
        )
    )


async def run(tool: MCPTool, *calls: ScriptedCall) -> ScriptedModel:
    script = ScriptedModel(*calls)
    await Agent(script, toolsets=tool.get_toolsets()).run("go")
    return script


async def test_a_run_outlives_its_first_token(server: ServerProcess, tmp_path: Path) -> None:
    user = AutoApprove()
    await login_mcp_server(
        server.url, store=FileLoginStore(tmp_path), interaction=user.interaction()
    )
    script = await run(
        card(server, tmp_path),
        ScriptedCall("seen_authorization"),
        ScriptedCall("nap", {"seconds": 2.2}),  # the first access token expires meanwhile
        ScriptedCall("seen_authorization"),
        ScriptedCall("add", {"a": 40, "b": 2}),
    )
    first, napped, second, added = script.tool_results()
    assert isinstance(first, ToolReturnPart)
    assert isinstance(second, ToolReturnPart)
    assert first.content.startswith("Bearer at-")
    assert second.content.startswith("Bearer at-")
    assert second.content != first.content  # a new access token, from the refresh grant
    assert isinstance(napped, ToolReturnPart)
    assert isinstance(added, ToolReturnPart)
    assert added.content == 42
    seen = events(server)
    assert "grant:refresh_token" in seen
    assert seen.count("authorize") == 1
    assert user.visits == 1


async def test_the_login_is_stored_0600_and_reused_without_authorizing(
    server: ServerProcess, tmp_path: Path
) -> None:
    store_dir = tmp_path / "logins"
    store = FileLoginStore(store_dir)
    user = AutoApprove()
    login = await login_mcp_server(server.url, store=store, interaction=user.interaction())
    assert login.tokens is not None
    assert login.tokens.refresh_token
    assert login.tokens.access_token not in repr(login)
    assert login.tokens.refresh_token not in repr(login)

    path = store.path_for(server.url)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store_dir.stat().st_mode) == 0o700
    assert [p.name for p in store_dir.iterdir()] == [path.name]  # no temporary file left

    # A new card (a new provider, as in a new process) uses the stored login as it is...
    script = await run(card(server, store_dir), ScriptedCall("seen_authorization"))
    (seen,) = script.tool_results()
    assert isinstance(seen, ToolReturnPart)
    assert seen.content == f"Bearer {login.tokens.access_token}"
    # ...and once it has expired, refreshes it at the stored token endpoint.
    stored = await store.load(server.url)
    assert stored is not None
    assert stored.expires_at is not None
    stored.expires_at -= 10  # as if the process started again much later
    await store.save(stored)
    script = await run(card(server, store_dir), ScriptedCall("add", {"a": 1, "b": 2}))
    assert [r.content for r in script.tool_results()] == [3]
    assert events(server).count("grant:refresh_token") == 1

    # Logging in again finds a working login: nobody is sent to authorize.
    again = await login_mcp_server(server.url, store=store, interaction=user.interaction())
    assert again.tokens is not None
    assert events(server).count("authorize") == 1
    assert user.visits == 1


async def test_a_stored_login_authorizes_an_sse_connection(tmp_path: Path) -> None:
    sse = start_http_server("sse", "/sse", "--oauth")
    try:
        store = FileLoginStore(tmp_path)
        login = await login_mcp_server(
            sse.url, store=store, transport="sse", interaction=AutoApprove().interaction()
        )
        assert login.tokens is not None
        tool = MCPTool(
            connection=MCPHTTPConnectionConfig(
                url=sse.url, transport="sse", auth="oauth", oauth_store_dir=str(tmp_path)
            )
        )
        script = await run(tool, ScriptedCall("seen_authorization"))
        (seen,) = script.tool_results()
        assert isinstance(seen, ToolReturnPart)
        assert seen.content == f"Bearer {login.tokens.access_token}"
    finally:
        sse.stop()


async def test_a_revoked_refresh_token_says_to_log_in_again(
    server: ServerProcess, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    store = FileLoginStore(tmp_path)
    login = await login_mcp_server(server.url, store=store, interaction=AutoApprove().interaction())
    assert login.tokens is not None
    assert login.tokens.refresh_token
    httpx.post(server.base_url + "/__oauth/revoke").raise_for_status()
    stored = await store.load(server.url)
    assert stored is not None
    assert stored.expires_at is not None
    stored.expires_at -= 10  # expired: the next request first tries the refresh token
    await store.save(stored)

    with pytest.raises(MCPLoginError) as caught:
        await run(card(server, tmp_path), ScriptedCall("add", {"a": 1, "b": 2}))
    message = str(caught.value)
    assert message.startswith(f"the login for {server.url} expired or was revoked; ")
    assert f"run the authorization again with login_mcp_server_sync('{server.url}')" in message
    assert isinstance(caught.value, MCPConnectionError)  # what callers already catch
    # The refused tokens are dropped from the store; nothing kept or said shows a token.
    after = await store.load(server.url)
    assert after is not None
    assert after.tokens is None
    assert after.client_info is not None
    secrets = [login.tokens.access_token, login.tokens.refresh_token]
    everything = [message, *(r.getMessage() for r in caplog.records)]
    everything += [str(r.exc_info[1]) for r in caplog.records if r.exc_info]
    assert not [line for line in everything for secret in secrets if secret in line]

    # The next card is told the same thing, without another attempt at the server.
    with pytest.raises(MCPLoginError, match="no login is stored for .*run the authorization"):
        await run(card(server, tmp_path), ScriptedCall("add", {"a": 1, "b": 2}))


async def test_a_token_revoked_before_it_expires_says_to_log_in_again(
    server: ServerProcess, tmp_path: Path
) -> None:
    store = MemoryLoginStore()
    await login_mcp_server(server.url, store=store, interaction=AutoApprove().interaction())
    httpx.post(server.base_url + "/__oauth/revoke").raise_for_status()
    tool = card(server, tmp_path)
    tool.connection.use_login_store(store)  # type: ignore[union-attr]
    with pytest.raises(MCPLoginError, match="expired or was revoked; run the authorization"):
        await run(tool, ScriptedCall("add", {"a": 1, "b": 2}))


async def test_without_a_stored_login_nothing_is_registered(
    server: ServerProcess, tmp_path: Path
) -> None:
    with pytest.raises(MCPLoginError) as caught:
        await run(card(server, tmp_path), ScriptedCall("add", {"a": 1, "b": 2}))
    assert str(caught.value) == (
        f"no login is stored for {server.url}; run the authorization with "
        f"login_mcp_server_sync('{server.url}') from akgentic.tool.mcp.oauth_login "
        "(it opens a browser and stores the new login)"
    )
    assert events(server) == []  # no registration, no authorization was attempted


async def test_the_default_interaction_uses_the_browser_and_local_listener(
    server: ServerProcess, tmp_path: Path
) -> None:
    visited: list[str] = []

    async def browser(url: str) -> bool:
        visited.append(url)
        async with httpx.AsyncClient() as client:
            consent = await client.get(url)
            landing = await client.get(consent.headers["location"])
            assert landing.status_code == 200
        return True

    store = FileLoginStore(tmp_path)
    login = await login_mcp_server(server.url, store=store, open_browser=browser, timeout=20)
    assert login.tokens is not None
    query = parse_qs(urlsplit(visited[0]).query)
    assert query["code_challenge_method"] == ["S256"]
    assert urlsplit(query["redirect_uri"][0]).hostname == "127.0.0.1"
    script = await run(card(server, tmp_path), ScriptedCall("add", {"a": 2, "b": 2}))
    assert [r.content for r in script.tool_results()] == [4]


# -- the store ------------------------------------------------------------------------------


def _login(url: str = "https://mcp.acme.example/mcp") -> StoredLogin:
    return StoredLogin(
        server_url=url,
        tokens=OAuthToken(access_token="AT-SECRET-1", refresh_token="RT-SECRET-1", expires_in=60),
        expires_at=1.0,
    )


async def test_a_damaged_file_is_reported_without_its_content(tmp_path: Path) -> None:
    store = FileLoginStore(tmp_path)
    url = "https://mcp.acme.example/mcp"
    path = store.path_for(url)
    path.write_text(json.dumps({"server_url": url, "tokens": {"refresh_token": "RT-SECRET-1"}}))
    path.chmod(0o600)
    with pytest.raises(LoginStoreError) as caught:
        await store.load(url)
    assert "tokens.access_token" in str(caught.value)
    assert "RT-SECRET-1" not in str(caught.value)
    assert "delete the file and run the authorization again" in str(caught.value)


async def test_a_file_others_can_read_is_narrowed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = FileLoginStore(tmp_path)
    await store.save(_login())
    path = store.path_for("https://mcp.acme.example/mcp")
    path.chmod(0o644)
    loaded = await store.load("https://mcp.acme.example/mcp")
    assert loaded is not None
    assert loaded.tokens is not None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "readable by others" in caplog.text
    assert "SECRET" not in caplog.text


async def test_a_file_of_another_server_is_refused(tmp_path: Path) -> None:
    store = FileLoginStore(tmp_path)
    await store.save(_login("https://other.example/mcp"))
    os.replace(
        store.path_for("https://other.example/mcp"), store.path_for("https://mcp.acme.example/mcp")
    )
    with pytest.raises(LoginStoreError, match="holds the login of another server"):
        await store.load("https://mcp.acme.example/mcp")


async def test_stores_keep_one_login_per_server(tmp_path: Path) -> None:
    for store in (FileLoginStore(tmp_path), MemoryLoginStore()):
        await store.save(_login("https://a.example/mcp"))
        await store.save(_login("https://b.example/mcp"))
        await store.delete("https://a.example/mcp")
        assert await store.load("https://a.example/mcp") is None
        kept = await store.load("https://b.example/mcp")
        assert kept is not None
        assert kept.tokens is not None
        assert kept.tokens.refresh_token == "RT-SECRET-1"
        assert "SECRET" not in repr(kept)
        await store.delete("https://a.example/mcp")  # deleting twice is fine


def test_the_default_directory_is_per_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", "/somewhere/state")
    assert default_login_dir() == Path("/somewhere/state/akgentic/mcp-oauth")
    monkeypatch.delenv("XDG_STATE_HOME")
    assert default_login_dir() == Path.home() / ".local/state/akgentic/mcp-oauth"


def test_the_connection_takes_one_credential() -> None:
    with pytest.raises(ValidationError, match="give one of them"):
        MCPHTTPConnectionConfig(url="https://x.example/mcp", auth="oauth", bearer_token="t")
    with pytest.raises(ValidationError, match="only used with auth='oauth'"):
        MCPHTTPConnectionConfig(url="https://x.example/mcp", oauth_store_dir="/tmp/x")
    with pytest.raises(TypeError, match="expects a LoginStore"):
        MCPHTTPConnectionConfig(url="https://x.example/mcp", auth="oauth").use_login_store({})
    connection = MCPHTTPConnectionConfig(
        url="https://x.example/mcp", auth="oauth", oauth_store_dir="/tmp/x"
    ).use_login_store(MemoryLoginStore())
    again = MCPHTTPConnectionConfig.model_validate(connection.model_dump())
    assert (again.auth, again.oauth_store_dir) == ("oauth", "/tmp/x")


async def test_a_login_refused_mid_run_reaches_the_model_as_a_failed_call(
    server: ServerProcess, tmp_path: Path
) -> None:
    store = MemoryLoginStore()
    await login_mcp_server(server.url, store=store, interaction=AutoApprove().interaction())
    tool = card(server, tmp_path)
    tool.connection.use_login_store(store)  # type: ignore[union-attr]

    def revoke_then_add(request: ScriptedRequest) -> ScriptedCall:
        # The first call came back: the login is revoked before the model makes the next.
        httpx.post(server.base_url + "/__oauth/revoke").raise_for_status()
        return ScriptedCall("add", {"a": 1, "b": 2})

    script = ScriptedModel(ScriptedCall("nap", {"seconds": 0.01}), revoke_then_add)
    await Agent(script, toolsets=tool.get_toolsets()).run("go")
    napped, added = script.tool_results()
    assert isinstance(napped, ToolReturnPart)
    assert isinstance(added, RetryPromptPart | ToolReturnPart)
    assert "expired or was revoked" in str(added.content)
