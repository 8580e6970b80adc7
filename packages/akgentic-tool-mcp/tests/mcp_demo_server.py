"""A real MCP server, written with the `mcp` package, that the tests launch as a subprocess.

It serves the same small tool set over any of the three transports MCPTool supports:

    python mcp_demo_server.py stdio
    python mcp_demo_server.py streamable-http --fd 5 --path /api/v1/endpoint
    python mcp_demo_server.py sse --fd 5 --path /api/v1/stream
    python mcp_demo_server.py streamable-http --fd 5 --require-token s3cret
    python mcp_demo_server.py streamable-http --fd 5 --oauth --base-url http://127.0.0.1:PORT
    python mcp_demo_server.py streamable-http --fd 5 --oauth --token-lifetime 2 ...

For HTTP transports the test binds the listening socket itself (a free port on 127.0.0.1)
and hands its file descriptor over with `--fd`, so there is no race for the port.

`--require-token` wraps the app in a gate that answers 401 to any request that does not
carry `Authorization: Bearer <token>`. `--oauth` turns the server into its own OAuth
authorization server (the `mcp` package's auth routes backed by an in-memory provider that
approves every request), so the browser flow of `oauth_handler` can be run end to end.
Its access tokens live `--token-lifetime` seconds and come with rotating refresh tokens;
`GET /__oauth/events` lists what it did (registrations, authorizations, grants by type) and
`POST /__oauth/revoke` revokes every token, as an administrator withdrawing the grant would.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import sys
import time
from typing import Any

import anyio
import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send


class _ApproveEverythingProvider:
    """In-memory OAuth provider: registers any client, approves every authorization.

    Access tokens live ``token_lifetime`` seconds (checked to the fraction of a second, so
    tests can outlive one); each comes with a refresh token, rotated on every refresh. What
    the token endpoint granted is recorded in ``events`` for the tests to read.
    """

    def __init__(self, token_lifetime: float = 3600.0) -> None:
        self.token_lifetime = token_lifetime
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, tuple[AccessToken, float]] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}
        self.events: list[str] = []

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.events.append("register")

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(32)
        assert client.client_id is not None
        self.events.append("authorize")
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self.events.append("grant:authorization_code")
        return self._issue(client, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh_tokens.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh_tokens.pop(refresh_token.token, None)  # rotated: each is good once
        self.events.append("grant:refresh_token")
        return self._issue(client, scopes, refresh_token.resource)

    def _issue(
        self, client: OAuthClientInformationFull, scopes: list[str], resource: str | None
    ) -> OAuthToken:
        assert client.client_id is not None
        token = "at-" + secrets.token_urlsafe(24)
        refresh = "rt-" + secrets.token_urlsafe(24)
        lifetime = self.token_lifetime
        self.tokens[token] = (
            AccessToken(
                token=token,
                client_id=client.client_id,
                scopes=scopes,
                expires_at=int(time.time() + lifetime) + 1,
                resource=resource,
            ),
            time.time() + lifetime,
        )
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client.client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=token,
            token_type="Bearer",
            expires_in=max(1, int(lifetime)),
            refresh_token=refresh,
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.tokens.get(token)
        if found is None or found[1] < time.time():
            return None  # unknown or expired: the request gets a 401
        return found[0]

    async def revoke_token(self, token: Any) -> None:
        self.tokens.pop(getattr(token, "token", ""), None)

    def revoke_everything(self) -> None:
        """What an administrator revoking the user's grant does: no token works any more."""
        self.tokens.clear()
        self.refresh_tokens.clear()
        self.events.append("revoke")


class _RequireBearer:
    """ASGI gate: 401 unless the request carries the expected bearer token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != (
            self.expected
        ):
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"missing or wrong bearer token"})
            return
        await self.app(scope, receive, send)


def build_server(args: argparse.Namespace) -> MCPServer[Any]:
    auth_kwargs: dict[str, Any] = {}
    provider = _ApproveEverythingProvider(token_lifetime=args.token_lifetime)
    if args.oauth:
        base = args.base_url.rstrip("/")
        auth_kwargs = {
            "auth_server_provider": provider,
            "auth": AuthSettings(
                issuer_url=base,
                resource_server_url=base + args.path,
                client_registration_options=ClientRegistrationOptions(enabled=True),
                validate_token_resource=False,
            ),
        }
    server: MCPServer[Any] = MCPServer(name="demo", log_level="WARNING", **auth_kwargs)

    # Test controls of the OAuth stand-in (outside the protected MCP endpoint).
    @server.custom_route("/__oauth/events", methods=["GET"])
    async def oauth_events(request: Request) -> Response:
        return JSONResponse(provider.events)

    @server.custom_route("/__oauth/revoke", methods=["POST"])
    async def oauth_revoke(request: Request) -> Response:
        provider.revoke_everything()
        return JSONResponse({"revoked": True})

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def ping() -> str:  # no docstring: a tool without a description
        return "pong"

    @server.tool()
    def shout(text: str) -> str:
        """Upper-case a text.

        Letters only: digits and punctuation come back as they were.
        """
        return text.upper()

    @server.tool()
    def seen_authorization(ctx: Context) -> str:
        """Return the Authorization header this call arrived with ('' when none)."""
        headers = ctx.headers or {}
        return headers.get("authorization", "")

    @server.tool()
    def fail(reason: str) -> str:
        """Always fail with the given reason."""
        raise ToolError(reason)

    @server.tool()
    def env(name: str) -> str:
        """The value of an environment variable of the server process ('' when unset)."""
        return os.environ.get(name, "")

    @server.tool()
    def cwd() -> str:
        """The working directory of the server process."""
        return os.getcwd()

    @server.tool()
    def argv() -> list[str]:
        """The command-line arguments the server process was started with."""
        return sys.argv[1:]

    @server.tool()
    def pid() -> int:
        """The server's process id."""
        return os.getpid()

    @server.tool()
    async def nap(seconds: float) -> str:
        """Sleep, then answer."""
        await anyio.sleep(seconds)
        return f"slept {seconds}"

    @server.tool()
    def crash() -> str:
        """Kill the server process in the middle of the call."""
        os._exit(3)

    return server


def main() -> None:
    # No abbreviations: tests pass `--token x`, which would otherwise mean --token-lifetime.
    parser = argparse.ArgumentParser(allow_abbrev=False)
    parser.add_argument("transport", choices=["stdio", "sse", "streamable-http"])
    parser.add_argument("--fd", type=int, default=None)
    parser.add_argument("--path", default="/mcp")
    parser.add_argument("--require-token", default=None)
    parser.add_argument("--oauth", action="store_true")
    parser.add_argument("--base-url", default="")
    parser.add_argument("--token-lifetime", type=float, default=3600.0)
    parser.add_argument("--startup-delay", type=float, default=0.0)
    # Unknown arguments are accepted (and reported by the `argv` tool): tests pass
    # credential-style flags to check they reach the process unmasked.
    args, _ = parser.parse_known_args()
    # A server that is slow to come up (like one `uvx` first has to download).
    time.sleep(args.startup_delay)

    server = build_server(args)
    if args.transport == "stdio":
        server.run("stdio")
        return

    app: ASGIApp
    if args.transport == "sse":
        # The message endpoint lives under the stream path so one prefix serves both.
        app = server.sse_app(sse_path=args.path, message_path=args.path.rstrip("/") + "/messages/")
    else:
        app = server.streamable_http_app(streamable_http_path=args.path)
    if args.require_token:
        app = _RequireBearer(app, args.require_token)

    sock = socket.socket(fileno=args.fd)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
