"""MCP logins that last: authorize once, then reuse and refresh the stored tokens.

The protocol work is the MCP SDK's ``mcp.client.auth.OAuthClientProvider`` (an
``httpx2.Auth``): it answers a server's ``401`` with discovery (RFC 9728, RFC 8414),
dynamic registration (RFC 7591), the authorization-code grant with PKCE S256, the token
exchange, and it refreshes the access token with the refresh token when it has expired.
:class:`MCPOAuthProvider` adds what lasting logins need on top:

- the tokens, the registered client and the discovered metadata are kept in a
  :class:`~akgentic.tool.mcp.oauth_store.LoginStore` (by default a ``0600`` file per
  server, see :mod:`akgentic.tool.mcp.oauth_store`), with the moment the access token
  expires, so a new process refreshes a reloaded token on time, at the token endpoint
  that issued it;
- the token is refreshed a little before it expires (a quarter of its lifetime, at most a
  minute), not after a request has been refused;
- without an interaction (the ``MCPTool`` case: an agent run has nobody at a browser) a
  login that cannot be refreshed ends with :class:`MCPLoginError` saying how to log in
  again, instead of an attempt to open a browser in the middle of a run;
- before the user is sent to authorize, the discovered metadata goes through the same
  checks as :func:`~akgentic.tool.mcp.oauth_handler.authorize_mcp_server` applies (https
  off loopback for every endpoint, S256 PKCE advertised).

:func:`login_mcp_server` (and ``login_mcp_server_sync``) runs the interactive part once.
The interaction is pluggable (:class:`OAuthInteraction`): by default the system browser
and a listener on 127.0.0.1 (:func:`browser_interaction`); tests give their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import webbrowser
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import httpx2
from pydantic import AnyUrl

from akgentic.tool.mcp._redact import mask_url, redact_text
from akgentic.tool.mcp.mcp import MCPConnectionError
from akgentic.tool.mcp.oauth_handler import (
    AuthorizationServerMetadata,
    BrowserOpener,
    OAuthFlowError,
    _check_authorization_server,
    _code_from_redirect,
    _require_secure,
    _send_user,
    listen_for_callback,
)
from akgentic.tool.mcp.oauth_store import FileLoginStore, LoginStore, StoredLogin
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth import OAuthFlowError as SDKOAuthFlowError
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

__all__ = [
    "MCPLoginError",
    "MCPOAuthProvider",
    "OAuthInteraction",
    "browser_interaction",
    "login_mcp_server",
    "login_mcp_server_sync",
]

# A provider that may not authorize still needs a redirect URI in its client metadata; it is
# never sent anywhere, since such a provider refuses before any authorization request.
_UNUSED_REDIRECT_URI = "http://127.0.0.1/callback"
_MAX_REFRESH_MARGIN = 60.0

RedirectHandler = Callable[[str], Awaitable[None]]
CallbackHandler = Callable[[], Awaitable[AuthorizationCodeResult]]


class MCPLoginError(MCPConnectionError):
    """The stored login of an MCP server is missing, expired or revoked: log in again.

    A subclass of :class:`~akgentic.tool.mcp.mcp.MCPConnectionError`, since it stops the
    connection from opening. The message names the server and the call that logs in again.
    """


@dataclass(frozen=True)
class OAuthInteraction:
    """The part of the authorization that involves the user.

    ``redirect_handler`` receives the authorization URL (a browser should go there);
    ``callback_handler`` returns the code and ``state`` the authorization server redirected
    to ``redirect_uri`` with. The redirect URI is registered with the client, so it must
    stay the same as long as the stored client is used.
    """

    redirect_uri: str
    redirect_handler: RedirectHandler
    callback_handler: CallbackHandler


def _login_hint(server_url: str) -> str:
    return (
        f"run the authorization again with login_mcp_server_sync({mask_url(server_url)!r}) "
        "from akgentic.tool.mcp.oauth_login (it opens a browser and stores the new login)"
    )


def login_expired(server_url: str) -> MCPLoginError:
    """The error for a login that was refused by the server or could not be refreshed."""
    return MCPLoginError(
        f"the login for {mask_url(server_url)} expired or was revoked; {_login_hint(server_url)}"
    )


def _refresh_at(expires_at: float | None, lifetime: int | None) -> float | None:
    """When to refresh: a quarter of the lifetime (at most a minute) before the expiry."""
    if expires_at is None:
        return None
    margin = min(_MAX_REFRESH_MARGIN, (lifetime or 0) / 4)
    return expires_at - margin


class _BoundStorage:
    """The SDK's ``TokenStorage`` for one server, kept in a :class:`LoginStore` entry.

    Each write also records the metadata the provider discovered, so that a later process
    can refresh at the right token endpoint without discovering it again.
    """

    def __init__(self, store: LoginStore, server_url: str, provider: MCPOAuthProvider) -> None:
        self._store = store
        self._server_url = server_url
        self._provider = provider

    async def _entry(self) -> StoredLogin:
        return await self._store.load(self._server_url) or StoredLogin(server_url=self._server_url)

    async def _save(self, login: StoredLogin) -> None:
        context = self._provider.context
        login.authorization_server = context.oauth_metadata or login.authorization_server
        login.resource_metadata = context.protected_resource_metadata or login.resource_metadata
        await self._store.save(login)

    async def get_tokens(self) -> OAuthToken | None:
        return (await self._entry()).tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        login = await self._entry()
        login.tokens = tokens
        login.expires_at = time.time() + tokens.expires_in if tokens.expires_in else None
        await self._save(login)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return (await self._entry()).client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        login = await self._entry()
        login.client_info = client_info
        await self._save(login)


class _AskedScopeMetadata(OAuthClientMetadata):
    """Client metadata whose scope stays the one the caller asked for.

    On every ``401`` the SDK replaces the scope with its own choice (the challenge's, then
    the server's advertised scopes, else none) before it registers the client and builds
    the authorization URL: the ``scopes`` a caller asked for would never be requested.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "scope":
            super().__setattr__(name, value)


class MCPOAuthProvider(OAuthClientProvider):
    """The SDK's OAuth provider, with a lasting store and early refresh (see the module).

    Without ``interaction`` it only uses and refreshes the stored login, and raises
    :class:`MCPLoginError` where it would have to ask the user.
    """

    def __init__(
        self,
        server_url: str,
        *,
        store: LoginStore | None = None,
        interaction: OAuthInteraction | None = None,
        scopes: list[str] | None = None,
        client_name: str = "akgentic",
    ) -> None:
        self.server_url = server_url
        # The last refusal this provider raised: a call made through a transport that it
        # broke only sees a closed connection, and reads the reason here.
        self.failure: MCPLoginError | None = None
        self.store: LoginStore = store if store is not None else FileLoginStore()
        self._interaction = interaction
        redirect_uri = interaction.redirect_uri if interaction else _UNUSED_REDIRECT_URI
        fields: dict[str, Any] = {
            "client_name": client_name,
            "redirect_uris": [AnyUrl(redirect_uri)],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
        # Without scopes of its own the SDK's choice applies (and may grow on a step-up).
        metadata = (
            _AskedScopeMetadata(scope=" ".join(scopes), **fields)
            if scopes
            else OAuthClientMetadata(**fields)
        )
        super().__init__(
            server_url,
            metadata,
            _BoundStorage(self.store, server_url, self),
            redirect_handler=self._send_user_to_authorize,
            callback_handler=self._receive_authorization,
        )

    # -- the SDK's hooks (mcp 2.3: the methods it calls around loading and token answers) --

    async def _initialize(self) -> None:
        await super()._initialize()
        login = await self.store.load(self.server_url)
        if login is None or login.tokens is None:
            if self._interaction is None:
                raise self._fail(
                    MCPLoginError(
                        f"no login is stored for {mask_url(self.server_url)}; "
                        + _login_hint(self.server_url).replace(" again", "", 1)
                    )
                )
            return
        self._restore(login)

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        await super()._handle_token_response(response)
        self._refresh_early()

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        used = self.context.current_tokens
        if await super()._handle_refresh_response(response):
            self._refresh_early()
            return True
        # Another provider sharing the store (another MCPTool on this server) may have
        # rotated the refresh token in the meantime: its newer login is as good as ours.
        if await self._adopt_newer_login(than=used):
            return True
        if self._interaction is not None:
            return False  # the SDK goes on with a new authorization
        if response.status_code in (400, 401):
            await self._forget_tokens(used)
            raise self._fail(login_expired(self.server_url))
        raise self._fail(
            MCPLoginError(
                f"could not refresh the login for {mask_url(self.server_url)}: the "
                f"authorization server answered HTTP {response.status_code}; try again later, "
                "or " + _login_hint(self.server_url)
            )
        )

    async def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if self._initialized and not self.context.is_token_valid():
            await self._adopt_newer_login(than=self.context.current_tokens)
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    # -- helpers ------------------------------------------------------------------------

    def _fail(self, error: MCPLoginError) -> MCPLoginError:
        self.failure = error
        return error

    def _restore(self, login: StoredLogin) -> None:
        """Use ``login``: its tokens, client and metadata together, replacing those held.

        They belong together: a login another process stored meanwhile may come from
        another registration, or from an authorization server with other endpoints, and
        its refresh token is only good for its own client at its own token endpoint.
        """
        context = self.context
        context.current_tokens = login.tokens
        context.client_info = login.client_info or context.client_info
        lifetime = login.tokens.expires_in if login.tokens else None
        context.token_expiry_time = _refresh_at(login.expires_at, lifetime)
        context.oauth_metadata = login.authorization_server or context.oauth_metadata
        resource = login.resource_metadata
        if resource is not None:
            context.protected_resource_metadata = resource
            context.auth_server_url = str(resource.authorization_servers[0])

    def _refresh_early(self) -> None:
        tokens = self.context.current_tokens
        if tokens is not None and tokens.expires_in:
            expires_at = time.time() + tokens.expires_in
            self.context.token_expiry_time = _refresh_at(expires_at, tokens.expires_in)

    async def _adopt_newer_login(self, *, than: OAuthToken | None) -> bool:
        """Take the stored login when it is another, still valid one; whether it was."""
        login = await self.store.load(self.server_url)
        if login is None or login.tokens is None or login.is_expired():
            return False
        if than is not None and login.tokens.access_token == than.access_token:
            return False
        self._restore(login)
        return self.context.is_token_valid()

    async def _forget_tokens(self, refused: OAuthToken | None) -> None:
        """Drop the stored tokens the server refused (not newer ones stored meanwhile)."""
        login = await self.store.load(self.server_url)
        if login is None or login.tokens is None:
            return
        if refused is not None and login.tokens.refresh_token != refused.refresh_token:
            return
        login.tokens = None
        login.expires_at = None
        await self.store.save(login)

    async def _send_user_to_authorize(self, authorization_url: str) -> None:
        if self._interaction is None:
            # Reached when the server refuses a token that looked valid (revoked early).
            raise self._fail(login_expired(self.server_url))
        self._check_discovered_metadata()
        await self._interaction.redirect_handler(authorization_url)

    async def _receive_authorization(self) -> AuthorizationCodeResult:
        if self._interaction is None:
            raise self._fail(login_expired(self.server_url))
        return await self._interaction.callback_handler()

    def _check_discovered_metadata(self) -> None:
        """Refuse, before any code is issued, endpoints the handler's own flow refuses."""
        found = self.context.oauth_metadata
        if found is None:
            raise OAuthFlowError(
                f"no authorization server metadata was found for {mask_url(self.server_url)}; "
                "this flow needs it (RFC 8414) to check where the code and tokens go"
            )
        meta = AuthorizationServerMetadata.model_validate(found.model_dump(mode="json"))
        _check_authorization_server(meta, meta.issuer, "the discovered metadata")


@contextlib.asynccontextmanager
async def browser_interaction(
    *,
    open_browser: BrowserOpener | None = None,
    callback_port: int = 0,
    timeout: float = 300.0,
) -> AsyncIterator[OAuthInteraction]:
    """The default interaction: the system browser, and a listener on 127.0.0.1.

    The listener (the handler module's, on ``callback_port``, 0 for any free port) takes
    only the redirect carrying the request's ``state``, and waits ``timeout`` seconds.
    ``open_browser`` defaults to :func:`webbrowser.open` (looked up at each call); when it
    reports failure the URL is logged for the user to open.
    """
    opener = open_browser if open_browser is not None else webbrowser.open
    async with listen_for_callback(callback_port) as callback:

        async def send_user(url: str) -> None:
            state = parse_qs(urlsplit(url).query).get("state", [""])[0]
            callback.expect(state)
            await _send_user(opener, url)

        async def receive() -> AuthorizationCodeResult:
            try:
                params = await asyncio.wait_for(callback.wait(), timeout)
            except TimeoutError:
                raise OAuthFlowError(
                    f"no authorization arrived at {callback.redirect_uri} within {timeout:g} s"
                ) from None
            code = _code_from_redirect(params)
            return AuthorizationCodeResult(code=code, state=params["state"], iss=params.get("iss"))

        yield OAuthInteraction(callback.redirect_uri, send_user, receive)


async def login_mcp_server(
    server_url: str,
    *,
    store: LoginStore | None = None,
    interaction: OAuthInteraction | None = None,
    transport: Literal["streamable-http", "sse"] = "streamable-http",
    scopes: list[str] | None = None,
    client_name: str = "akgentic",
    open_browser: BrowserOpener | None = None,
    callback_port: int = 0,
    timeout: float = 300.0,
) -> StoredLogin:
    """Make sure a working login for the MCP server at ``server_url`` is stored.

    Connects to the server with the stored login (refreshing it when needed); when there
    is none, or the server refuses it, runs the authorization with ``interaction`` (by
    default :func:`browser_interaction` with ``open_browser``, ``callback_port`` and
    ``timeout``) and stores the result in ``store`` (by default the per-user file store).
    Returns the stored login (its tokens are not in its repr). Failures raise
    :class:`~akgentic.tool.mcp.oauth_handler.OAuthFlowError` or :class:`MCPLoginError`.
    """
    _require_secure(server_url, "the MCP server URL")
    store = store if store is not None else FileLoginStore()
    async with contextlib.AsyncExitStack() as stack:
        if interaction is None:
            interaction = await stack.enter_async_context(
                browser_interaction(
                    open_browser=open_browser, callback_port=callback_port, timeout=timeout
                )
            )
        provider = MCPOAuthProvider(
            server_url, store=store, interaction=interaction, scopes=scopes, client_name=client_name
        )
        await _connect_once(server_url, transport, provider, timeout)
    login = await store.load(server_url)
    if login is None or login.tokens is None:
        raise OAuthFlowError(
            f"{mask_url(server_url)} accepted the connection without a token: it needs no login"
        )
    return login


def login_mcp_server_sync(server_url: str, **kwargs: Any) -> StoredLogin:
    """:func:`login_mcp_server` for code that is not running an event loop."""
    return asyncio.run(login_mcp_server(server_url, **kwargs))


async def _connect_once(
    server_url: str, transport: str, provider: MCPOAuthProvider, timeout: float
) -> None:
    """Open and close one MCP session: the server's ``401`` starts the SDK's flow."""
    from fastmcp import Client
    from fastmcp.client.transports import SSETransport, StreamableHttpTransport

    connection = (
        SSETransport(server_url, auth=provider)
        if transport == "sse"
        else StreamableHttpTransport(server_url, auth=provider)
    )
    try:
        # The handshake waits for the user in the browser: it gets their time too.
        async with Client(connection, init_timeout=timeout + 30.0):
            pass
    except Exception as exc:
        found = find_login_failure(exc)
        if found is not None:
            raise found from exc
        sdk_error = _find_sdk_failure(exc)
        if sdk_error is None:
            raise
        raise OAuthFlowError(
            f"the authorization for {mask_url(server_url)} failed: "
            f"{type(sdk_error).__name__}: {redact_text(str(sdk_error))}"
        ) from exc


def _find_sdk_failure(exc: BaseException) -> BaseException | None:
    return next((e for e in _chain(exc) if isinstance(e, SDKOAuthFlowError)), None)


def find_login_failure(exc: BaseException) -> MCPLoginError | OAuthFlowError | None:
    """The login error inside ``exc`` (its causes, or the members of an exception group).

    The SDK's provider runs inside the HTTP client inside the MCP session's task group, so
    what reaches the caller is often a wrapper; the error worth showing is the one inside.
    """
    for current in _chain(exc):
        if isinstance(current, MCPLoginError | OAuthFlowError):
            return current
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, its causes and contexts, and the members of exception groups, once each."""
    seen: set[int] = set()
    pending: list[BaseException] = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
