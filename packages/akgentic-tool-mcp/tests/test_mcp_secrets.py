"""Secrets stay out of what people read: reprs, str(), error messages and log lines.

They still reach the places that need them: the stdio server receives its credential flags
verbatim, and the OAuth objects keep plain attribute access.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import urllib.request
from collections.abc import Iterator
from urllib.parse import parse_qsl

import pytest
from mcp_harness import SERVER_SCRIPT
from oauth_stand_in import StandIn, running_stand_in
from pydantic_ai import Agent
from pydantic_ai.messages import ToolReturnPart

from akgentic.llm.testing import ScriptedCall, ScriptedModel
from akgentic.tool.mcp import (
    MCPConnectionError,
    MCPHTTPConnectionConfig,
    MCPStdioConnectionConfig,
    MCPTool,
)
from akgentic.tool.mcp.oauth_handler import (
    AuthorizationCode,
    OAuthClient,
    OAuthFlowError,
    OAuthToken,
    authorize_mcp_server,
    new_pkce_pair,
)

SECRET_ARGS = [
    "--api-key=sk-live-1",
    "--token",
    "tok-2",
    "--client-secret=cs-3",
    "--password=pw-4",
    "-apikey",
    "ak-5",
    "GITHUB_TOKEN=gh-6",
    "--db_password",
    "pw-7",
]
SECRET_VALUES = ["sk-live-1", "tok-2", "cs-3", "pw-4", "ak-5", "gh-6", "pw-7"]


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    with running_stand_in() as state:
        yield state


def _shows_none_of(texts: list[str], secrets: list[str]) -> None:
    leaks = [(secret, text) for text in texts for secret in secrets if secret in text]
    assert not leaks


def _shows_all_of(texts: list[str], parts: list[str]) -> None:
    missing = [(part, text) for text in texts for part in parts if part not in text]
    assert not missing


def test_oauth_objects_keep_their_secrets_out_of_repr_and_str() -> None:
    token = OAuthToken(access_token="at-secret", refresh_token="rt-secret", expires_in=60)
    client = OAuthClient(client_id="cid", client_secret="cs-secret")
    pkce = new_pkce_pair()
    code = AuthorizationCode(
        code="code-secret", redirect_uri="http://127.0.0.1:1/callback", code_verifier=pkce.verifier
    )
    _shows_none_of([repr(token), str(token), f"{token!r}"], ["at-secret", "rt-secret"])
    _shows_all_of([repr(token), str(token)], ["expires_in=60"])
    _shows_none_of([repr(client), str(client)], ["cs-secret"])
    _shows_all_of([repr(client), str(client)], ["cid"])
    _shows_none_of([repr(code), str(code), repr(pkce)], ["code-secret", pkce.verifier])
    assert pkce.challenge in repr(pkce)
    # Attribute access is unchanged: the values are plain strings.
    assert (token.access_token, token.refresh_token) == ("at-secret", "rt-secret")
    assert client.client_secret == "cs-secret"
    assert (code.code, code.code_verifier) == ("code-secret", pkce.verifier)


def test_stdio_reprs_mask_credential_arguments_and_environment() -> None:
    connection = MCPStdioConnectionConfig(
        stdio_command="npx",
        stdio_args=["acme-server", *SECRET_ARGS, "--port", "8080", "--verbose"],
        stdio_env={"ACME_API_KEY": "env-secret"},
    )
    card = MCPTool(connection=connection)
    shown = [repr(connection), str(connection), repr(card), str(card), connection.describe()]
    _shows_none_of(shown, [*SECRET_VALUES, "env-secret"])
    _shows_all_of(shown, ["acme-server", "--api-key=***", "--token", "--port", "8080", "--verbose"])
    # The configuration itself is untouched: it round-trips with the real values.
    assert MCPTool.model_validate_json(card.model_dump_json()) == card


def test_http_reprs_mask_credentials_in_the_url() -> None:
    url = "https://ops:pw-url@mcp.acme.example/mcp?api_key=k-url&tenant=7"
    connection = MCPHTTPConnectionConfig(url=url, bearer_token="bt-secret")
    shown = [repr(connection), str(connection), connection.describe()]
    _shows_none_of(shown, ["pw-url", "k-url", "bt-secret"])
    _shows_all_of(shown, ["ops:***@mcp.acme.example/mcp", "tenant=7"])
    assert connection.url == url


async def test_the_stdio_server_receives_its_credential_flags_verbatim() -> None:
    connection = MCPStdioConnectionConfig(
        stdio_command=sys.executable, stdio_args=[SERVER_SCRIPT, "stdio", *SECRET_ARGS]
    )
    script = ScriptedModel(ScriptedCall("argv"))
    await Agent(script, toolsets=MCPTool(connection=connection).get_toolsets()).run("x")
    (argv,) = script.tool_results()
    assert isinstance(argv, ToolReturnPart)
    assert argv.content == ["stdio", *SECRET_ARGS]


async def test_a_server_that_fails_to_start_is_named_without_its_credentials() -> None:
    connection = MCPStdioConnectionConfig(
        stdio_command=sys.executable,
        stdio_args=["-c", "raise SystemExit(3)", "--api-key=sk-live-1"],
        init_timeout=10,
    )
    with pytest.raises(MCPConnectionError) as caught:
        await Agent(ScriptedModel(), toolsets=MCPTool(connection=connection).get_toolsets()).run(
            "x"
        )
    assert "sk-live-1" not in str(caught.value)
    assert "--api-key=***" in str(caught.value)


async def _urllib_browser(url: str) -> bool:
    # urllib logs nothing, so every captured log line below comes from the flow itself
    # (and httpx/httpcore underneath it), not from the test's browser.
    await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=10).read())
    return True


async def test_no_log_line_carries_a_credential(
    stand_in: StandIn, caplog: pytest.LogCaptureFixture
) -> None:
    stand_in.code = "code-secret"
    stand_in.serve_as_own_authorization_server()
    stand_in.routes["/register"] = (
        201,
        {"client_id": "c-1", "client_secret": "cs-secret", "token_endpoint_auth_method": "x"},
    )
    stand_in.routes["/token"] = (200, {"access_token": "at-secret", "refresh_token": "rt-secret"})
    caplog.set_level(logging.DEBUG)
    token = await authorize_mcp_server(
        f"{stand_in.base}/mcp", open_browser=_urllib_browser, timeout=10
    )
    assert token.access_token == "at-secret"
    (exchange,) = stand_in.requests_to("/token")
    verifier = next(v for k, v in parse_qsl(exchange.body) if k == "code_verifier")
    assert caplog.records, "the flow logs its HTTP requests at DEBUG/INFO"
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    for secret in ("at-secret", "rt-secret", "cs-secret", "code-secret", verifier):
        assert secret not in logged, secret


@pytest.mark.parametrize(
    ("route", "secret"),
    [
        # A token handed out with an unexpected status must not end up in the error.
        ((201, {"access_token": "at-secret", "token_type": "bearer"}), "at-secret"),
        ((400, "error=bad&refresh_token=rt-secret"), "rt-secret"),
        ((400, {"error": "invalid_grant", "error_description": "token=at-secret"}), "at-secret"),
        # No access token, but a refresh token: the error names the field, not the values.
        ((200, {"refresh_token": "rt-secret"}), "rt-secret"),
    ],
)
async def test_token_endpoint_errors_do_not_quote_credentials(
    stand_in: StandIn, route: tuple[int, object], secret: str
) -> None:
    stand_in.serve_as_own_authorization_server()
    stand_in.routes["/token"] = route
    with pytest.raises(OAuthFlowError, match="token") as caught:
        await authorize_mcp_server(f"{stand_in.base}/mcp", open_browser=_urllib_browser, timeout=10)
    assert secret not in str(caught.value)
    assert caught.value.__cause__ is None or secret not in str(caught.value.__cause__)
