"""Get an access token for an OAuth-protected MCP server, through the user's browser.

An MCP server that wants a token answers ``401`` with a ``WWW-Authenticate: Bearer``
challenge pointing at its protected-resource metadata. From there the flow is the one the
MCP authorization spec lays out, done here step by step:

1. read the challenge and the protected-resource metadata (RFC 9728) to learn which
   authorization server issues tokens for this server;
2. read that authorization server's metadata (RFC 8414, or OpenID discovery) to find its
   authorization, token and registration endpoints;
3. register a public client on the fly (RFC 7591) unless a ``client_id`` is given;
4. open the authorization URL in the browser, with a PKCE challenge (RFC 7636), and wait
   on an HTTP listener on 127.0.0.1 for the redirect that carries the code and the
   request's ``state`` (any other request to it is turned away);
5. exchange the code, with the PKCE verifier, at the token endpoint.

Metadata is checked before it is trusted: the protected resource must be the MCP server
itself, the authorization server's ``issuer`` must be the server it was looked up for, and
every URL involved must be https unless it points at a loopback host. Tokens, client
secrets, codes and PKCE verifiers are kept out of reprs, error messages and log lines.

:func:`authorize_mcp_server` runs all of it and returns an :class:`OAuthToken`; pass its
``access_token`` as ``MCPHTTPConnectionConfig.bearer_token``. Each step is also available
on its own. The browser step is injectable (``open_browser``) so the flow can run without
a desktop; by default it uses :func:`webbrowser.open`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import inspect
import logging
import re
import secrets
import sys
import threading
import time
import webbrowser
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from akgentic.tool.mcp._oauth_urls import (
    RESOURCE_METADATA_PATH,
    is_secure_endpoint,
    origin,
    resource_identifiers,
    same_identifier,
)
from akgentic.tool.mcp._redact import redact_text

__all__ = [
    "AuthorizationCallback",
    "AuthorizationCode",
    "AuthorizationServerMetadata",
    "OAuthCallbackHandler",
    "OAuthClient",
    "OAuthFlowError",
    "OAuthToken",
    "PKCEPair",
    "ProtectedResourceMetadata",
    "authorize_mcp_server",
    "authorize_mcp_server_sync",
    "discover_authorization_server",
    "exchange_code",
    "get_mcp_token_with_oauth_if_needed",
    "handle_mcp_oauth_flow",
    "listen_for_callback",
    "new_pkce_pair",
    "parse_www_authenticate",
    "parse_www_authenticate_header",
    "probe_mcp_with_oauth",
    "register_client",
    "request_authorization_code",
]

logger = logging.getLogger(__name__)

_MAX_REDIRECTS = 5

_Document = TypeVar("_Document", bound=BaseModel)

BrowserOpener = Callable[[str], Any]
"""Called with the authorization URL. May be sync or async; a ``False`` result means the
browser could not be opened, and the URL is then logged for the user to open by hand."""


class OAuthFlowError(RuntimeError):
    """A step of the authorization flow failed; the message names the step and the server."""


class ProtectedResourceMetadata(BaseModel):
    """RFC 9728 metadata of the MCP server (only the fields the flow uses)."""

    model_config = ConfigDict(extra="ignore")

    resource: str | None = None
    authorization_servers: list[str] = []
    scopes_supported: list[str] | None = None


class AuthorizationServerMetadata(BaseModel):
    """RFC 8414 metadata of the authorization server (only the fields the flow uses)."""

    model_config = ConfigDict(extra="ignore")

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str | None = None
    scopes_supported: list[str] | None = None
    code_challenge_methods_supported: list[str] | None = None


# The secrets below stay plain `str` (callers read `token.access_token` and pass it on as
# a bearer token) but are left out of repr()/str(), so printing or logging one of these
# objects does not print the credential.


class OAuthClient(BaseModel):
    """The client identity used at the authorization server (the secret is not in repr)."""

    client_id: str
    client_secret: str | None = Field(default=None, repr=False)
    token_endpoint_auth_method: str = "none"


class OAuthToken(BaseModel):
    """What the token endpoint issued (the access and refresh tokens are not in repr)."""

    model_config = ConfigDict(extra="ignore")

    access_token: str = Field(repr=False)
    token_type: str = "Bearer"
    expires_in: int | None = None
    refresh_token: str | None = Field(default=None, repr=False)
    scope: str | None = None


class AuthorizationCode(BaseModel):
    """The result of the browser step: a code, and what is needed to redeem it.

    The code and the PKCE verifier are what redeem it, so neither is in repr.
    """

    code: str = Field(repr=False)
    redirect_uri: str
    code_verifier: str = Field(repr=False)


@dataclass(frozen=True)
class PKCEPair:
    """A PKCE verifier and its S256 challenge (the verifier is not in repr)."""

    verifier: str = field(repr=False)
    challenge: str


def new_pkce_pair() -> PKCEPair:
    """A fresh random verifier (86 URL-safe characters) and its S256 challenge."""
    verifier = secrets.token_urlsafe(64)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    challenge = base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
    return PKCEPair(verifier=verifier, challenge=challenge)


_AUTH_PARAM = re.compile(r'([A-Za-z0-9_\-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')


def parse_www_authenticate(header: str) -> dict[str, str]:
    """The parameters of a ``Bearer`` challenge (``{}`` when the header has none).

    >>> parse_www_authenticate('Bearer error="invalid_token", resource_metadata="https://x/y"')
    {'error': 'invalid_token', 'resource_metadata': 'https://x/y'}
    """
    scheme, _, rest = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return {}
    params: dict[str, str] = {}
    for match in _AUTH_PARAM.finditer(rest):
        name, quoted, bare = match.groups()
        value = quoted if quoted is not None else bare
        params[name.lower()] = re.sub(r"\\(.)", r"\1", value)
    return params


async def discover_authorization_server(
    server_url: str, http: httpx.AsyncClient
) -> tuple[ProtectedResourceMetadata | None, AuthorizationServerMetadata]:
    """Find the authorization server of the MCP server at ``server_url``, and its metadata.

    Probes the server without credentials and follows its ``resource_metadata`` challenge;
    when the server gives none, tries the well-known protected-resource locations; when
    there is no protected-resource metadata at all, treats the server's origin as its own
    authorization server (what MCP servers did before RFC 9728 was adopted).

    Refused with :class:`OAuthFlowError`, before any token is asked for:

    - protected-resource metadata whose ``resource`` is not this server (RFC 9728 §3.3): a
      token for another audience would otherwise be handed to this server;
    - authorization-server metadata whose ``issuer`` is not the server it was looked up
      for (RFC 8414 §3.3);
    - any URL of the flow (this server, the metadata documents, the authorization server
      and its endpoints) over plain http to a host that is not loopback;
    - an authorization server that does not advertise S256 PKCE.
    """
    _require_secure(server_url, "the MCP server URL")
    resource_meta = await _protected_resource_metadata(server_url, http)
    if resource_meta is not None and resource_meta.authorization_servers:
        issuer = resource_meta.authorization_servers[0]
    else:
        issuer = origin(server_url)
    _require_secure(issuer, "the authorization server")
    found = await _first_document(
        http,
        _authorization_metadata_urls(issuer),
        AuthorizationServerMetadata,
        "authorization server metadata",
    )
    if found is None:
        raise OAuthFlowError(
            f"no authorization server metadata found for {issuer} "
            "(tried RFC 8414 and OpenID discovery locations)"
        )
    url, server_meta = found
    _check_authorization_server(server_meta, issuer, url)
    return resource_meta, server_meta


def _check_authorization_server(
    server_meta: AuthorizationServerMetadata, issuer: str, metadata_url: str
) -> None:
    """Refuse metadata that is not the issuer's own, or that would weaken the flow."""
    # RFC 8414 §3.3: a document naming another issuer must not be used (it could be a
    # copy planted to send the user's consent and the code to someone else's endpoints).
    if not same_identifier(server_meta.issuer, issuer):
        raise OAuthFlowError(
            f"authorization server metadata at {metadata_url} names issuer "
            f"{server_meta.issuer!r}, but it was looked up for {issuer!r}; refusing it "
            "(RFC 8414: the issuer must be the server the metadata was discovered for)"
        )
    endpoints = {
        "authorization_endpoint": server_meta.authorization_endpoint,
        "token_endpoint": server_meta.token_endpoint,
        "registration_endpoint": server_meta.registration_endpoint,
    }
    for name, endpoint in endpoints.items():
        if endpoint is not None:
            _require_secure(endpoint, f"{name} in the metadata at {metadata_url}")
    # The MCP authorization spec has clients refuse servers that do not advertise
    # S256 PKCE, absence of the field included: without it the code is unprotected.
    methods = server_meta.code_challenge_methods_supported
    if not methods or "S256" not in methods:
        raise OAuthFlowError(
            f"authorization server {issuer} does not advertise PKCE with S256 "
            f"(code_challenge_methods_supported: {methods}); this flow requires it"
        )


def _check_resource(meta: ProtectedResourceMetadata, server_url: str, metadata_url: str) -> None:
    """RFC 9728 §3.3: metadata describing another resource must not be used.

    The resource named here becomes the audience of the token, and the token is then sent
    to ``server_url``: a server advertising someone else's resource would collect a token
    it could replay there.
    """
    if meta.resource is None:
        return  # nothing to mismatch: the token is asked for server_url itself
    allowed = resource_identifiers(server_url, metadata_url)
    if not any(same_identifier(meta.resource, identifier) for identifier in allowed):
        raise OAuthFlowError(
            f"protected resource metadata at {metadata_url} is for resource "
            f"{meta.resource!r}, not for the MCP server {server_url!r}; refusing to ask for "
            "a token meant for another resource (RFC 9728: the resource must be the server's)"
        )


def _require_secure(url: str, what: str) -> None:
    if not is_secure_endpoint(url):
        raise OAuthFlowError(
            f"{what} ({url!r}) is not https; the OAuth flow allows plain http only to "
            "loopback hosts (localhost, 127.0.0.0/8, ::1)"
        )


async def register_client(
    server_meta: AuthorizationServerMetadata,
    redirect_uri: str,
    http: httpx.AsyncClient,
    *,
    client_name: str = "akgentic",
    scopes: list[str] | None = None,
) -> OAuthClient:
    """Register a public client for ``redirect_uri`` (RFC 7591 dynamic registration)."""
    if not server_meta.registration_endpoint:
        raise OAuthFlowError(
            f"authorization server {server_meta.issuer} offers no dynamic client registration; "
            "register a client there and pass its client_id"
        )
    body: dict[str, Any] = {
        "client_name": client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    if scopes:
        body["scope"] = " ".join(scopes)
    response = await _send(http, "POST", server_meta.registration_endpoint, json=body)
    if response.status_code not in (200, 201):
        raise OAuthFlowError(
            f"client registration at {server_meta.registration_endpoint} failed: "
            f"HTTP {response.status_code} {_oauth_error(response)}"
        )
    data = _json_object(response, "client registration")
    client_id = data.get("client_id")
    if not isinstance(client_id, str) or not client_id:
        raise OAuthFlowError("client registration answered without a client_id")
    secret = data.get("client_secret")
    return OAuthClient(
        client_id=client_id,
        client_secret=secret if isinstance(secret, str) else None,
        token_endpoint_auth_method=str(data.get("token_endpoint_auth_method") or "none"),
    )


async def request_authorization_code(
    server_meta: AuthorizationServerMetadata,
    client: OAuthClient,
    callback: AuthorizationCallback,
    *,
    open_browser: BrowserOpener = webbrowser.open,
    scopes: list[str] | None = None,
    resource: str | None = None,
    timeout: float = 300.0,
) -> AuthorizationCode:
    """The browser step: send the user to authorize, wait for the redirect with the code.

    ``callback`` (from :func:`listen_for_callback`) provides the redirect URI, which must be
    one registered for ``client``; it is bound to this request's ``state``, so only the
    matching redirect is taken (others get an error page while the wait goes on).
    """
    redirect_uri = callback.redirect_uri
    pkce = new_pkce_pair()
    state = secrets.token_urlsafe(24)
    query: dict[str, str] = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": pkce.challenge,
        "code_challenge_method": "S256",
    }
    if scopes:
        query["scope"] = " ".join(scopes)
    if resource:
        query["resource"] = resource
    endpoint = server_meta.authorization_endpoint
    url = endpoint + ("&" if urlsplit(endpoint).query else "?") + urlencode(query)
    callback.expect(state)
    await _send_user(open_browser, url)

    try:
        params = await asyncio.wait_for(callback.wait(), timeout)
    except TimeoutError:
        raise _no_authorization(redirect_uri, timeout, callback.rejected) from None
    # The callback only hands over the redirect carrying `state`.
    code = _code_from_redirect(params)
    return AuthorizationCode(code=code, redirect_uri=redirect_uri, code_verifier=pkce.verifier)


async def _send_user(open_browser: BrowserOpener, url: str) -> None:
    """Open ``url`` with ``open_browser`` (sync or async); if it says it could not, log the
    URL for the user to open by hand."""
    opened = open_browser(url)
    if inspect.isawaitable(opened):
        opened = await opened
    if opened is False:
        logger.warning("Could not open a browser; open this URL to authorize: %s", url)


def _code_from_redirect(params: Mapping[str, str]) -> str:
    """The authorization code of a redirect, or the refusal it carries as `OAuthFlowError`."""
    if "error" in params:
        description = params.get("error_description", "")
        raise OAuthFlowError(
            f"authorization was refused: {params['error']}"
            + (f" ({description})" if description else "")
        )
    code = params.get("code")
    if not code:
        raise OAuthFlowError("the authorization redirect carried no code")
    return code


async def exchange_code(
    server_meta: AuthorizationServerMetadata,
    client: OAuthClient,
    authorization: AuthorizationCode,
    http: httpx.AsyncClient,
    *,
    resource: str | None = None,
) -> OAuthToken:
    """Redeem an authorization code (with its PKCE verifier) at the token endpoint."""
    form = {
        "grant_type": "authorization_code",
        "code": authorization.code,
        "redirect_uri": authorization.redirect_uri,
        "client_id": client.client_id,
        "code_verifier": authorization.code_verifier,
    }
    if resource:
        form["resource"] = resource
    auth: httpx.BasicAuth | None = None
    if client.client_secret:
        if client.token_endpoint_auth_method == "client_secret_basic":
            auth = httpx.BasicAuth(client.client_id, client.client_secret)
        else:
            form["client_secret"] = client.client_secret
    response = await _send(
        http,
        "POST",
        server_meta.token_endpoint,
        data=form,
        auth=auth,
        headers={"Accept": "application/json"},
    )
    if response.status_code != 200:
        raise OAuthFlowError(
            f"token exchange at {server_meta.token_endpoint} failed: "
            f"HTTP {response.status_code} {_oauth_error(response)}"
        )
    try:
        return OAuthToken.model_validate(_json_object(response, "token exchange"))
    except ValidationError as exc:
        # Name the fields at fault, not their values: the answer may hold a refresh token.
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc']))}: {error['msg']}"
            for error in exc.errors(include_input=False, include_url=False)
        )
        raise OAuthFlowError(
            f"the token endpoint answered without an access token ({problems})"
        ) from None


async def authorize_mcp_server(
    server_url: str,
    *,
    client_id: str | None = None,
    client_secret: str | None = None,
    client_name: str = "akgentic",
    scopes: list[str] | None = None,
    open_browser: BrowserOpener = webbrowser.open,
    callback_port: int = 0,
    timeout: float = 300.0,
    http_client: httpx.AsyncClient | None = None,
) -> OAuthToken:
    """Run the whole flow for the MCP server at ``server_url`` and return the token.

    Args:
        server_url: The server's MCP endpoint (the URL given to MCPTool).
        client_id: A client registered beforehand; when ``None``, one is registered
            dynamically (the authorization server must allow it).
        client_secret: The secret of ``client_id``, for a confidential client.
        client_name: The name shown to the user on the consent page of a registered client.
        scopes: Scopes to ask for; by default those the server advertises, if any.
        open_browser: Opens the authorization URL (default: the system browser).
        callback_port: Port of the local redirect listener on 127.0.0.1 (0: any free port;
            set one when a pre-registered client's redirect URI fixes it).
        timeout: Seconds to wait for the user to finish in the browser.
        http_client: Client for the metadata, registration and token requests.
    """
    async with contextlib.AsyncExitStack() as stack:
        http = http_client
        if http is None:
            http = await stack.enter_async_context(
                httpx.AsyncClient(timeout=30.0, follow_redirects=True)
            )
        resource_meta, server_meta = await discover_authorization_server(server_url, http)
        wanted_scopes = scopes
        if wanted_scopes is None and resource_meta is not None:
            wanted_scopes = resource_meta.scopes_supported or None
        resource = (resource_meta.resource if resource_meta else None) or server_url
        callback = await stack.enter_async_context(listen_for_callback(callback_port))
        redirect_uri = callback.redirect_uri
        client = (
            OAuthClient(
                client_id=client_id,
                client_secret=client_secret,
                token_endpoint_auth_method="client_secret_post" if client_secret else "none",
            )
            if client_id
            else await register_client(
                server_meta, redirect_uri, http, client_name=client_name, scopes=wanted_scopes
            )
        )
        code = await request_authorization_code(
            server_meta,
            client,
            callback,
            open_browser=open_browser,
            scopes=wanted_scopes,
            resource=resource,
            timeout=timeout,
        )
        token = await exchange_code(server_meta, client, code, http, resource=resource)
    return token


def authorize_mcp_server_sync(server_url: str, **kwargs: Any) -> OAuthToken:
    """:func:`authorize_mcp_server` for code that is not running an event loop."""
    return asyncio.run(authorize_mcp_server(server_url, **kwargs))


# -- the local redirect listener ----------------------------------------------------------

_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
    "<body><p>{message}</p></body></html>"
)


class AuthorizationCallback:
    """An HTTP listener on 127.0.0.1 that catches the authorization redirect.

    Open one with :func:`listen_for_callback`; its ``redirect_uri`` is what the client
    registers and sends in the authorization request. It is bound to the ``state`` of one
    authorization request (:meth:`expect`): only the redirect that carries that state ends
    :meth:`wait`. A request with another state, or none, gets an error page and is
    otherwise ignored, so a stray or forged request can neither end the flow nor feed it a
    code; until :meth:`expect` is called every request is turned away.
    """

    path = "/callback"

    def __init__(self) -> None:
        self._result: asyncio.Future[dict[str, str]] = asyncio.get_running_loop().create_future()
        self._pending = _PendingRedirect(None, self.path)
        self._connections: set[asyncio.StreamWriter] = set()
        self.port = 0

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    @property
    def rejected(self) -> int:
        """Requests to the callback path turned away since :meth:`expect` (told on timeout)."""
        return self._pending.rejected

    def expect(self, state: str) -> None:
        """Accept only the redirect carrying ``state`` (call it before the user is sent off)."""
        if self._result.done():
            self._result = asyncio.get_running_loop().create_future()
        self._pending = _PendingRedirect(state, self.redirect_uri)

    async def wait(self) -> dict[str, str]:
        """The query parameters of the redirect that carried the expected state."""
        return await asyncio.shield(self._result)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections.add(writer)
        try:
            request_line = await _read_line(reader)
            while await _read_line(reader) not in (b"\r\n", b"\n", b""):
                pass  # headers are not needed
            method, target, *_ = [*request_line.decode("latin-1").split(" "), "", ""]
            parts = urlsplit(target)
            if method != "GET" or parts.path != self.path:
                page = _NOT_FOUND
            else:
                page = self._accept({k: v[0] for k, v in parse_qs(parts.query).items()})
            writer.write(_page_response(*page))
            await writer.drain()
        except (TimeoutError, ConnectionError, ValueError):
            # A slow, dropped or oversized request (ValueError covers both an over-long line
            # and undecodable bytes): not the redirect we wait for.
            return
        finally:
            self._connections.discard(writer)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    def _drop_connections(self) -> None:
        """Close the connections still open, when the listener closes.

        A browser may open a connection it sends nothing on (a preconnect); closing the
        listener waits for every connection to end, so the flow would otherwise return its
        token only once that one timed out.
        """
        for writer in list(self._connections):
            writer.close()

    def _accept(self, params: dict[str, str]) -> _Page:
        """Settle the flow if ``params`` answer the pending request; the page to show."""
        page = self._pending.accept(params)
        if self._pending.params is not None and not self._result.done():
            self._result.set_result(self._pending.params)
        return page


_Page = tuple[int, str, str]
"""What a listener answers: HTTP status, page title, page message."""

_SILENCE_LIMIT = 10.0
"""Seconds a connection to a listener may stay silent before its request line is read."""


async def _read_line(reader: asyncio.StreamReader) -> bytes:
    """The next line of a request, given at most ``_SILENCE_LIMIT`` seconds to arrive."""
    return await asyncio.wait_for(reader.readline(), _SILENCE_LIMIT)


class _PendingRedirect:
    """The redirect a listener waits for: the first request that carries ``state``.

    Both listeners (:class:`AuthorizationCallback` and the blocking one of
    :func:`handle_mcp_oauth_flow`) hand it the query of each request to their callback
    path and answer with the page it returns. With no ``state`` (nothing asked yet), or once
    the redirect has been taken, every request is turned away.
    """

    def __init__(self, state: str | None, redirect_uri: str) -> None:
        self.state = state
        self.redirect_uri = redirect_uri
        self.params: dict[str, str] | None = None
        self.rejected = 0

    def accept(self, params: dict[str, str]) -> _Page:
        if self.state is None or self.params is not None:
            return 400, "Nothing to authorize", _NOTHING_PENDING
        if not _same_secret(params.get("state", ""), self.state):
            self.rejected += 1
            # The values stay out of the log: a state or code is not for log files.
            logger.warning(
                "Turned away a request to the OAuth callback %s with a wrong or missing state",
                self.redirect_uri,
            )
            return 400, "Not accepted", _WRONG_STATE
        self.params = params
        if "error" in params:
            return 200, "Authorization refused", "You can close this tab."
        if not params.get("code"):
            return 400, "Authorization failed", _NO_CODE
        return 200, "Authorized", "Done: you can close this tab."


def _page_response(status: int, title: str, message: str) -> bytes:
    """A complete HTTP/1.1 answer with a small HTML page; the connection closes after it."""
    body = _PAGE.format(title=escape(title), message=escape(message)).encode()
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "Content-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body


def _no_authorization(redirect_uri: str, timeout: float, rejected: int) -> OAuthFlowError:
    """The error of a listener that waited ``timeout`` seconds for the redirect in vain."""
    turned_away = (
        f" ({rejected} request(s) with a wrong or missing state were turned away)"
        if rejected
        else ""
    )
    return OAuthFlowError(
        f"no authorization arrived at {redirect_uri} within {timeout:g} s{turned_away}"
    )


_NOT_FOUND: _Page = (404, "Not found", "Nothing here.")
_NOTHING_PENDING = (
    "No sign-in is waiting for this answer (it may have finished already). You can close this tab."
)
_WRONG_STATE = (
    "This answer does not belong to the sign-in in progress (its state is wrong or "
    "missing), so it was ignored. Finish signing in from the page the application opened."
)
_NO_CODE = "The answer carried no authorization code; the sign-in failed. You can close this tab."


def _same_secret(given: str, expected: str) -> bool:
    # Constant-time, so the state cannot be guessed a character at a time.
    return secrets.compare_digest(given.encode(), expected.encode())


@contextlib.asynccontextmanager
async def listen_for_callback(port: int = 0) -> AsyncIterator[AuthorizationCallback]:
    """Listen on 127.0.0.1:``port`` (0: any free port) for the authorization redirect."""
    callback = AuthorizationCallback()
    server = await asyncio.start_server(callback.handle, "127.0.0.1", port)
    callback.port = server.sockets[0].getsockname()[1]
    try:
        yield callback
    finally:
        server.close()
        callback._drop_connections()
        await server.wait_closed()


# -- HTTP helpers -------------------------------------------------------------------------


async def _protected_resource_metadata(
    server_url: str, http: httpx.AsyncClient
) -> ProtectedResourceMetadata | None:
    candidates: list[str] = []
    status, challenge = await _probe(server_url, http)
    if status == 401 and "resource_metadata" in challenge:
        candidates.append(challenge["resource_metadata"])
    root = origin(server_url)
    path = urlsplit(server_url).path.rstrip("/")
    if path:
        candidates.append(f"{root}{RESOURCE_METADATA_PATH}{path}")
    candidates.append(f"{root}{RESOURCE_METADATA_PATH}")
    found = await _first_document(
        http, candidates, ProtectedResourceMetadata, "protected resource metadata"
    )
    if found is None:
        return None
    url, meta = found
    _check_resource(meta, server_url, url)
    return meta


async def _first_document(
    http: httpx.AsyncClient, urls: list[str], model: type[_Document], what: str
) -> tuple[str, _Document] | None:
    """The first of ``urls`` that answers with a JSON object, as ``model``, and its URL.

    Each URL is checked (https, or http to loopback) just before it is asked; a document
    found but invalid is refused rather than passed over, as it names the wrong shape.
    """
    for url in urls:
        _require_secure(url, f"the {what} URL")
        found = await _get_json(http, url)
        if found is None:
            continue
        try:
            return url, model.model_validate(found)
        except ValidationError as exc:
            raise OAuthFlowError(f"{what} at {url} is invalid: {exc}") from exc
    return None


def _authorization_metadata_urls(issuer: str) -> list[str]:
    root = origin(issuer)
    path = urlsplit(issuer).path.rstrip("/")
    if not path:
        return [
            f"{root}/.well-known/oauth-authorization-server",
            f"{root}/.well-known/openid-configuration",
        ]
    return [
        f"{root}/.well-known/oauth-authorization-server{path}",
        f"{root}/.well-known/openid-configuration{path}",
        f"{root}{path}/.well-known/openid-configuration",
    ]


async def _probe(server_url: str, http: httpx.AsyncClient) -> tuple[int, dict[str, str]]:
    """Status and Bearer challenge of an anonymous request to the MCP endpoint.

    Streamed and closed as soon as the headers arrive: on a server that does not ask for
    a token, a GET may open an event stream that never ends.
    """
    try:
        async with http.stream(
            "GET", server_url, headers={"Accept": "application/json, text/event-stream"}
        ) as response:
            header = response.headers.get("www-authenticate", "")
            return response.status_code, parse_www_authenticate(header)
    except httpx.HTTPError as exc:
        raise OAuthFlowError(f"GET {server_url} failed: {type(exc).__name__}: {exc}") from exc


async def _send(http: httpx.AsyncClient, method: str, url: str, **kwargs: Any) -> httpx.Response:
    if method != "GET":
        # Registration and token requests carry credentials: never re-sent to wherever a
        # redirect points (possibly plain http); an endpoint that redirects simply fails.
        kwargs.setdefault("follow_redirects", False)
    try:
        return await http.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        raise OAuthFlowError(f"{method} {url} failed: {type(exc).__name__}: {exc}") from exc


async def _get_json(http: httpx.AsyncClient, url: str) -> dict[str, Any] | None:
    response = await _get_following_secure_redirects(http, url)
    if response.status_code != 200:
        return None
    try:
        data = response.json()
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


async def _get_following_secure_redirects(http: httpx.AsyncClient, url: str) -> httpx.Response:
    """GET ``url``, following redirects by hand so that each target is checked first.

    A metadata document fetched through a plain-http hop could have been rewritten on the
    way, so a redirect obeys the same https rule as the URL itself, and an insecure target
    is refused without being requested.
    """
    target = url
    for _ in range(_MAX_REDIRECTS + 1):
        response = await _send(
            http, "GET", target, headers={"Accept": "application/json"}, follow_redirects=False
        )
        if not response.is_redirect:
            return response
        target = str(response.url.join(response.headers["location"]))
        _require_secure(target, f"the redirect from {url}")
    raise OAuthFlowError(f"GET {url} was redirected more than {_MAX_REDIRECTS} times")


def _json_object(response: httpx.Response, step: str) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError as exc:
        raise OAuthFlowError(f"{step} answered with something that is not JSON") from exc
    if not isinstance(data, dict):
        raise OAuthFlowError(f"{step} answered with JSON that is not an object")
    return data


def _oauth_error(response: httpx.Response) -> str:
    """What a failed answer says, for an error message: never a credential it may carry."""
    try:
        data = response.json()
    except ValueError:
        return redact_text(response.text[:200])
    if isinstance(data, dict) and "error" in data:
        description = data.get("error_description")
        return redact_text(f"{data['error']}" + (f": {description}" if description else ""))
    if isinstance(data, dict):
        # An unexpected JSON answer (a token with the wrong status...): its field names only.
        return f"(JSON with fields: {', '.join(sorted(map(str, data)))})"
    return redact_text(str(data)[:200])


# -- the predecessor's helpers ------------------------------------------------------------
#
# akgentic-tool 1.6 offered synchronous helpers under these names. They are kept, working,
# on top of the flow above: the token they return is a real access token (the predecessor
# stopped at the authorization code), and the redirect listener keeps the same checks.


def parse_www_authenticate_header(header_value: str) -> dict[str, str]:
    """The predecessor's name for :func:`parse_www_authenticate`."""
    return parse_www_authenticate(header_value)


class _CallbackServer(ThreadingHTTPServer):
    """An HTTP server on 127.0.0.1 for one authorization redirect, a thread per connection.

    Threaded because a browser may open a connection it sends nothing on (a preconnect):
    served one at a time, such a connection would hold back the redirect behind it.
    """

    daemon_threads = True

    def __init__(self, port: int, path: str, state: str) -> None:
        super().__init__(("127.0.0.1", port), OAuthCallbackHandler)
        self.callback_path = path
        bound = self.server_address[1]  # the port given, or the one picked for port 0
        self.pending = _PendingRedirect(state, f"http://127.0.0.1:{bound}{path}")
        self.taken = threading.Event()
        self._lock = threading.Lock()

    def accept(self, params: dict[str, str]) -> _Page:
        """Hand a request's query to the pending redirect (one at a time); the page to show."""
        with self._lock:
            page = self.pending.accept(params)
            if self.pending.params is not None:
                self.taken.set()
        return page

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser that drops a connection (a tab closed mid-load) is no error worth a
        # traceback on the user's terminal, as the asynchronous listener drops it quietly.
        if isinstance(sys.exception(), ConnectionError):
            logger.debug("OAuth callback: a connection was dropped by the browser")
            return
        super().handle_error(request, client_address)


class OAuthCallbackHandler(BaseHTTPRequestHandler):
    """Request handler of the blocking redirect listener used by :func:`handle_mcp_oauth_flow`.

    It serves a ``_CallbackServer``: a GET to the callback path hands its query to the
    pending request, which takes it only when it carries the expected ``state`` (others
    get an error page). Any other path is a 404. Log lines never include the query.
    """

    server: _CallbackServer
    timeout = _SILENCE_LIMIT  # a connection's thread ends once it has been silent this long

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != self.server.callback_path:
            page = _NOT_FOUND
        else:
            page = self.server.accept({k: v[0] for k, v in parse_qs(parts.query).items()})
        # Written whole, as the asynchronous listener does (no request line is logged).
        self.wfile.write(_page_response(*page))

    def log_message(self, format: str, *args: Any) -> None:
        # Reached for the requests refused before `do_GET` (another method, a malformed
        # line). The default would write the request line, query (code, state) included,
        # to stderr; only the method and path are kept, and a line too malformed to hold
        # a path has none to show.
        path = urlsplit(getattr(self, "path", "")).path
        logger.debug("OAuth callback: %s %s", self.command, path)


def handle_mcp_oauth_flow(
    auth_url: str,
    callback_port: int = 8765,
    auth_timeout: float = 300.0,
    *,
    open_browser: Callable[[str], Any] = webbrowser.open,
) -> str:
    """Send the user to ``auth_url`` and return the authorization code of the redirect.

    The predecessor's browser step, blocking. ``auth_url`` is a complete authorization
    request built by the caller; it must carry a ``state`` (only the redirect with that
    state is taken) and be https unless it points at a loopback host. The redirect is
    awaited on 127.0.0.1:``callback_port``, at the path of the request's ``redirect_uri``
    (``/callback`` when it names none), for at most ``auth_timeout`` seconds. Returns the
    code (exchange it with its PKCE verifier at the token endpoint, or use
    :func:`authorize_mcp_server`, which does the whole flow); an ``error`` redirect or a
    timeout raises :class:`OAuthFlowError`.
    """
    _require_secure(auth_url, "the authorization URL")
    query = {k: v[0] for k, v in parse_qs(urlsplit(auth_url).query).items()}
    state = query.get("state")
    if not state:
        raise OAuthFlowError(
            "the authorization URL carries no state: without one the redirect cannot be "
            "told apart from a forged request; add a random state parameter"
        )
    path = urlsplit(query["redirect_uri"]).path if query.get("redirect_uri") else ""
    deadline = time.monotonic() + auth_timeout
    with _CallbackServer(callback_port, path or AuthorizationCallback.path, state) as server:
        serving = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        serving.start()
        try:
            if open_browser(auth_url) is False:
                logger.warning("Could not open a browser; open this URL to authorize: %s", auth_url)
            server.taken.wait(max(0.0, deadline - time.monotonic()))
        finally:
            server.shutdown()
    pending = server.pending
    if pending.params is None:
        raise _no_authorization(pending.redirect_uri, auth_timeout, pending.rejected)
    return _code_from_redirect(pending.params)


def get_mcp_token_with_oauth_if_needed(
    url: str,
    bearer_token: str | None = None,
    callback_port: int = 8765,
    http_timeout: float = 10.0,
    oauth_timeout: float = 300.0,
    *,
    open_browser: BrowserOpener = webbrowser.open,
) -> str | None:
    """The token to reach the MCP server at ``url`` with, running the OAuth flow if needed.

    Blocking (runs its own event loop: call it from synchronous code). The server is asked
    once, with ``bearer_token`` when one is given. Unless it answers 401, that token (or
    ``None``: no token needed) is returned as it is. A 401 runs :func:`authorize_mcp_server`
    (listener on ``callback_port``, ``oauth_timeout`` for the user, ``http_timeout`` per
    HTTP request) and returns the new access token.
    """
    return asyncio.run(
        _token_if_needed(
            url,
            bearer_token,
            callback_port=callback_port,
            http_timeout=http_timeout,
            oauth_timeout=oauth_timeout,
            open_browser=open_browser,
        )
    )


def probe_mcp_with_oauth(
    url: str,
    bearer_token: str | None = None,
    callback_port: int = 8765,
    http_timeout: float = 10.0,
    *,
    open_browser: BrowserOpener = webbrowser.open,
) -> str | None:
    """Obtain a working token for the streamable-HTTP MCP server at ``url`` and prove it.

    Blocking. Like :func:`get_mcp_token_with_oauth_if_needed` (the user gets 300 s in the
    browser), then connects over MCP with the token and lists the server's tools (logged at
    INFO). Returns the token (``None`` when the server needs none); a server that still
    refuses raises ``MCPConnectionError``.
    """
    from akgentic.tool.mcp.mcp import MCPHTTPConnectionConfig, probe_mcp_connection

    async def run() -> str | None:
        token = await _token_if_needed(
            url,
            bearer_token,
            callback_port=callback_port,
            http_timeout=http_timeout,
            oauth_timeout=300.0,
            open_browser=open_browser,
        )
        connection = MCPHTTPConnectionConfig(url=url, bearer_token=token, init_timeout=http_timeout)
        await probe_mcp_connection(connection)
        return token

    return asyncio.run(run())


async def _token_if_needed(
    url: str,
    bearer_token: str | None,
    *,
    callback_port: int,
    http_timeout: float,
    oauth_timeout: float,
    open_browser: BrowserOpener,
) -> str | None:
    _require_secure(url, "the MCP server URL")
    async with httpx.AsyncClient(timeout=http_timeout, follow_redirects=True) as http:
        headers = {"Accept": "application/json, text/event-stream"}
        if bearer_token:
            headers["Authorization"] = f"Bearer {bearer_token}"
        try:
            async with http.stream("GET", url, headers=headers) as response:
                status = response.status_code
                challenge = response.headers.get("www-authenticate", "")
        except httpx.HTTPError as exc:
            raise OAuthFlowError(f"GET {url} failed: {type(exc).__name__}: {exc}") from exc
        if status != HTTPStatus.UNAUTHORIZED:
            return bearer_token
        if not challenge.strip().lower().startswith("bearer"):
            raise OAuthFlowError(
                f"{url} answered 401 without a Bearer challenge; it does not use OAuth, "
                "so no token can be obtained for it here"
            )
        token = await authorize_mcp_server(
            url,
            open_browser=open_browser,
            callback_port=callback_port,
            timeout=oauth_timeout,
            http_client=http,
        )
    return token.access_token
