"""MCPTool: one Model Context Protocol server, handed to the agent as a pydantic-ai toolset.

The card is configuration only. Its single ``connection`` says how to reach the server:

- ``MCPHTTPConnectionConfig``: a URL, over streamable HTTP (the default) or SSE;
- ``MCPStdioConnectionConfig``: a command started as a subprocess, speaking over stdio.

``get_tools()`` is empty: the server's tools reach the agent through ``get_toolsets()``,
which builds a pydantic-ai ``MCPToolset`` (inside a ``PrefixedToolset`` when the
connection sets ``tool_prefix``), so that listing the tools, validating their arguments
and dispatching calls all happen in pydantic-ai over the real protocol.

The transport is always the one the config names. pydantic-ai (through FastMCP) would
otherwise guess it from the URL, and only a path ending in ``/sse`` is recognised as SSE:
an SSE endpoint published at any other path would silently be spoken to in the wrong
protocol. So the transport object is built here, explicitly, and handed over ready-made.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any, Literal, Self
from urllib.parse import urlsplit

from fastmcp.client.transports import (
    ClientTransport,
    SSETransport,
    StdioTransport,
    StreamableHttpTransport,
)
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)
from pydantic_ai import RunContext
from pydantic_ai.exceptions import (
    ApprovalRequired,
    CallDeferred,
    ModelRetry,
    ToolFailed,
)
from pydantic_ai.mcp import CallToolFunc, MCPToolset, ToolResult

from akgentic.tool.core.card import ToolCard
from akgentic.tool.mcp._redact import mask_args, mask_url, redact_text
from mcp import types as mcp_types

__all__ = [
    "MCPConnectionConfig",
    "MCPConnectionError",
    "MCPDiagnosticsConfig",
    "MCPHTTPConnectionConfig",
    "MCPStdioConnectionConfig",
    "MCPTool",
    "list_mcp_tools",
    "probe_mcp_connection",
]

logger = logging.getLogger(__name__)

# pydantic-ai's own default for how long a request may wait for the server's answer.
DEFAULT_READ_TIMEOUT = 300.0
# How long opening the connection (the MCP initialize handshake) may take. pydantic-ai's
# default of 5 s suits a running HTTP server; a stdio server started through `uvx` or `npx`
# may first have to download itself, so stdio gets a minute.
DEFAULT_HTTP_INIT_TIMEOUT = 5.0
DEFAULT_STDIO_INIT_TIMEOUT = 60.0

# Tool names that models accept are letters, digits, '_' and '-'; a prefix is joined to
# each server tool name with '_', so it must keep to the same alphabet.
_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_TIMEOUT_DOC = (
    "The predecessor's name for init_timeout: seconds opening the connection (start and MCP "
    "handshake) may take. When given it sets init_timeout."
)


def _timeout_sets_init_timeout(data: Any) -> Any:
    """Stored configurations name the connection bound ``timeout``: it sets ``init_timeout``.

    Both may be given (a dump of a validated config carries both) as long as they agree.
    """
    if not isinstance(data, dict) or data.get("timeout") is None:
        return data
    timeout = data["timeout"]
    init = data.get("init_timeout")
    if init is None:
        return {**data, "init_timeout": timeout}
    if init != timeout:
        raise ValueError(
            f"timeout={timeout!r} and init_timeout={init!r} disagree: timeout is the former "
            "name of init_timeout, give one of them"
        )
    return data


def _check_prefix(value: str | None) -> str | None:
    if value is not None and not _PREFIX.match(value):
        raise ValueError(
            f"tool_prefix {value!r} must start with a letter and use only letters, digits, "
            "'_' or '-' (at most 32 characters): it becomes part of every tool name"
        )
    return value


class MCPHTTPConnectionConfig(BaseModel):
    """Reach an MCP server over HTTP.

    ``transport`` is taken as given, never guessed from ``url``. ``bearer_token`` is sent
    as ``Authorization: Bearer <token>`` on every request of the transport (it is excluded
    from ``repr`` but, being configuration, it is serialized with the card: keep cards that
    carry one out of logs). ``auth="oauth"`` uses instead the login stored for ``url`` by
    :func:`~akgentic.tool.mcp.oauth_login.login_mcp_server`, refreshing it as it expires
    (in ``oauth_store_dir``, by default the per-user directory; a store object can be set
    with :meth:`use_login_store`). ``read_timeout`` bounds how long a call waits for an
    answer and, for SSE, how long the event stream may stay silent before it is dropped;
    ``init_timeout`` bounds opening the connection.
    """

    model_config = ConfigDict(extra="forbid")

    url: str = Field(description="The server's MCP endpoint, http:// or https://.")
    transport: Literal["streamable-http", "sse"] = "streamable-http"
    bearer_token: str | None = Field(default=None, repr=False)
    auth: Literal["oauth"] | None = Field(
        default=None,
        description="'oauth': authenticate with the stored OAuth login of this URL, "
        "refreshed as it expires (instead of bearer_token).",
    )
    oauth_store_dir: str | None = Field(
        default=None,
        description="Directory of the stored logins (default: the per-user directory).",
    )
    read_timeout: float = Field(default=DEFAULT_READ_TIMEOUT, gt=0)
    init_timeout: float = Field(default=DEFAULT_HTTP_INIT_TIMEOUT, gt=0)
    timeout: float | None = Field(default=None, gt=0, description=_TIMEOUT_DOC)
    tool_prefix: str | None = None

    # A store object is runtime state, not configuration: never serialized with the card.
    _login_store: Any = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _former_timeout(cls, data: Any) -> Any:
        return _timeout_sets_init_timeout(data)

    @model_validator(mode="after")
    def _one_credential(self) -> Self:
        if self.auth == "oauth" and self.bearer_token is not None:
            raise ValueError(
                "auth='oauth' sends the stored OAuth login's token; bearer_token would be "
                "another credential for the same requests: give one of them"
            )
        if self.oauth_store_dir is not None and self.auth != "oauth":
            raise ValueError("oauth_store_dir is only used with auth='oauth'")
        return self

    def use_login_store(self, store: Any) -> Self:
        """Keep this connection's OAuth login in ``store`` (a ``LoginStore``); returns self."""
        from akgentic.tool.mcp.oauth_store import LoginStore

        if not isinstance(store, LoginStore):
            raise TypeError(
                f"use_login_store expects a LoginStore (load, save, delete), "
                f"got {type(store).__name__}"
            )
        self._login_store = store
        return self

    @field_validator("url")
    @classmethod
    def _absolute_http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"url must be an absolute http(s) URL, got {value!r}")
        return value

    @field_validator("tool_prefix")
    @classmethod
    def _valid_prefix(cls, value: str | None) -> str | None:
        return _check_prefix(value)

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        # A URL may carry credentials too (userinfo, `?api_key=`): shown masked.
        for name, value in super().__repr_args__():
            yield name, mask_url(value) if name == "url" else value

    def describe(self) -> str:
        """The server as named in errors and logs (secret-looking URL parts masked)."""
        return f"{self.transport} MCP server at {mask_url(self.url)}"


class MCPStdioConnectionConfig(BaseModel):
    """Start an MCP server as a subprocess and speak to it over its stdin/stdout.

    The subprocess lives while the toolset is open: pydantic-ai opens it for each agent
    run (or once, around ``async with agent:``) and the process is stopped when it closes.
    It inherits only the MCP SDK's small default environment (PATH, HOME, ...) plus
    ``stdio_env``, so secrets of the parent process do not leak into it by default
    (``stdio_env`` is kept out of ``repr`` as it often carries them, and the values of
    ``--api-key=...``-style ``stdio_args`` are masked in ``repr`` and in error messages,
    never in the command actually run).
    ``init_timeout`` bounds the start: launching the process and the MCP handshake.
    """

    model_config = ConfigDict(extra="forbid")

    transport: Literal["stdio"] = "stdio"
    stdio_command: str = Field(min_length=1, description="The executable to start.")
    stdio_args: list[str] = Field(default_factory=list)
    stdio_env: dict[str, str] | None = Field(
        default=None, repr=False, description="Extra environment variables for the subprocess."
    )
    stdio_cwd: str | None = Field(
        default=None,
        description="Working directory of the subprocess (default: the agent process's own).",
    )
    bearer_token: str | None = Field(
        default=None,
        repr=False,
        description="A token for the server, handed over in the variable `stdio_token_env_var`.",
    )
    stdio_token_env_var: str | None = Field(
        default=None,
        description="Name of the environment variable that carries `bearer_token` to the server.",
    )
    read_timeout: float = Field(default=DEFAULT_READ_TIMEOUT, gt=0)
    init_timeout: float = Field(default=DEFAULT_STDIO_INIT_TIMEOUT, gt=0)
    timeout: float | None = Field(default=None, gt=0, description=_TIMEOUT_DOC)
    tool_prefix: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _former_timeout(cls, data: Any) -> Any:
        return _timeout_sets_init_timeout(data)

    @field_validator("stdio_command")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("stdio_command must name the executable to start")
        return value

    @field_validator("tool_prefix")
    @classmethod
    def _valid_prefix(cls, value: str | None) -> str | None:
        return _check_prefix(value)

    @field_validator("stdio_token_env_var")
    @classmethod
    def _valid_variable_name(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            raise ValueError(
                f"stdio_token_env_var {value!r} is not an environment variable name "
                "(letters, digits and '_', not starting with a digit)"
            )
        return value

    @model_validator(mode="after")
    def _token_has_a_variable(self) -> Self:
        if self.bearer_token is not None and self.stdio_token_env_var is None:
            raise ValueError(
                "a stdio server receives bearer_token in an environment variable: set "
                "stdio_token_env_var to its name (e.g. 'ACME_TOKEN')"
            )
        if (
            self.bearer_token is not None
            and self.stdio_token_env_var is not None
            and self.stdio_env
            and self.stdio_token_env_var in self.stdio_env
            and self.stdio_env[self.stdio_token_env_var] != self.bearer_token
        ):
            raise ValueError(
                f"stdio_env also sets {self.stdio_token_env_var}, the variable that carries "
                "bearer_token; give the token in one place"
            )
        return self

    def subprocess_env(self) -> dict[str, str] | None:
        """The extra environment the subprocess gets: ``stdio_env`` plus the token variable."""
        env = dict(self.stdio_env) if self.stdio_env else {}
        if self.bearer_token is not None and self.stdio_token_env_var is not None:
            env[self.stdio_token_env_var] = self.bearer_token
        return env or None

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        for name, value in super().__repr_args__():
            yield name, mask_args(value) if name == "stdio_args" else value

    def describe(self) -> str:
        """The server as named in errors and logs (secret-looking arguments masked)."""
        return f"stdio MCP server {' '.join([self.stdio_command, *mask_args(self.stdio_args)])!r}"


MCPConnectionConfig = MCPHTTPConnectionConfig | MCPStdioConnectionConfig


class MCPConnectionError(RuntimeError):
    """The MCP server could not be reached or initialised when the toolset was opened."""


class MCPTool(ToolCard):
    """Connect an agent to exactly one MCP server.

    For several servers, give the agent several ``MCPTool`` cards (set ``tool_prefix`` on
    their connections when their tool names could collide).

    Its capability table is empty, so ``get_tools``, ``get_system_prompts`` and
    ``get_commands`` give nothing: the server's tools come through :meth:`get_toolsets`,
    the one channel no row describes.
    """

    connection: MCPConnectionConfig

    @model_validator(mode="before")
    @classmethod
    def _one_connection(cls, data: Any) -> Any:
        if isinstance(data, dict) and "connections" in data:
            raise ValueError(
                "MCPTool takes exactly one server, on `connection` (singular); "
                "use one MCPTool per server"
            )
        return data

    def get_toolsets(self) -> list[Any]:
        """One fresh pydantic-ai toolset for the configured server.

        Fresh on every call, so agents never share a live connection (an open MCP session
        belongs to the event loop that opened it).
        """
        connection = self.connection
        toolset = _GuardedMCPToolset(
            _build_transport(connection),
            label=connection.describe(),
            read_timeout=connection.read_timeout,
            init_timeout=connection.init_timeout,
        )
        if connection.tool_prefix:
            return [toolset.prefixed(connection.tool_prefix)]
        return [toolset]


class MCPDiagnosticsConfig(BaseModel):
    """Settings of :func:`probe_mcp_connection` (how much of the tool list it reports)."""

    model_config = ConfigDict(extra="forbid")

    max_tools_to_print: int = Field(default=20, ge=0)

    async def probe(self, connection: MCPConnectionConfig) -> str:
        """:func:`probe_mcp_connection` with these settings."""
        return await probe_mcp_connection(connection, max_tools_to_print=self.max_tools_to_print)


async def list_mcp_tools(connection: MCPConnectionConfig) -> list[mcp_types.Tool]:
    """Connect to the server, list its tools (the MCP ``Tool`` objects), disconnect.

    ``tool_prefix`` is not applied: these are the server's own names. Raises
    :class:`MCPConnectionError` when the server cannot be reached or started within the
    connection's ``init_timeout``; the listing itself is bounded by ``read_timeout``.
    """
    toolset = _GuardedMCPToolset(
        _build_transport(connection),
        label=connection.describe(),
        read_timeout=connection.read_timeout,
        init_timeout=connection.init_timeout,
    )
    async with toolset:
        try:
            return await toolset.list_tools()
        except Exception as exc:
            raise MCPConnectionError(
                f"could not list the tools of the {connection.describe()}: "
                f"{type(exc).__name__}: {redact_text(str(exc))}"
            ) from exc


async def probe_mcp_connection(
    connection: MCPConnectionConfig, *, max_tools_to_print: int = 20
) -> str:
    """Check that a server answers, and describe what it offers.

    Returns a short report (also logged at INFO): the server, how many tools it lists and
    the first ``max_tools_to_print`` of them with the first line of their description.
    Failures raise :class:`MCPConnectionError`, as for :func:`list_mcp_tools`.
    """
    tools = await list_mcp_tools(connection)
    lines = [f"{connection.describe()}: reachable, {len(tools)} tool(s)"]
    for tool in tools[: max(0, max_tools_to_print)]:
        summary = (tool.description or "").strip().splitlines()
        lines.append(f"  - {tool.name}" + (f": {summary[0]}" if summary else ""))
    if len(tools) > max_tools_to_print:
        lines.append(f"  ... and {len(tools) - max(0, max_tools_to_print)} more")
    report = "\n".join(lines)
    logger.info("%s", report)
    return report


def _build_transport(connection: MCPConnectionConfig) -> ClientTransport:
    if isinstance(connection, MCPStdioConnectionConfig):
        return StdioTransport(
            command=connection.stdio_command,
            args=list(connection.stdio_args),
            env=connection.subprocess_env(),
            cwd=connection.stdio_cwd,
            # Stop the subprocess when the toolset closes instead of keeping it for reuse:
            # nothing else would ever stop it.
            keep_alive=False,
        )
    headers = (
        {"Authorization": f"Bearer {connection.bearer_token}"} if connection.bearer_token else None
    )
    auth = _stored_login_auth(connection) if connection.auth == "oauth" else None
    if connection.transport == "sse":
        return SSETransport(
            connection.url,
            headers=headers,
            auth=auth,
            # The SSE stream is one long response: this is how long it may stay silent.
            sse_read_timeout=connection.read_timeout,
        )
    return StreamableHttpTransport(connection.url, headers=headers, auth=auth)


def _stored_login_auth(connection: MCPHTTPConnectionConfig) -> Any:
    """The SDK's OAuth provider over the stored login, never asking the user (a run has
    nobody at a browser): a login it cannot use or refresh raises ``MCPLoginError``."""
    # Imported here: the login module builds on this one (its error subclasses ours).
    from akgentic.tool.mcp.oauth_login import MCPOAuthProvider
    from akgentic.tool.mcp.oauth_store import FileLoginStore

    store = connection._login_store
    if store is None:
        store = FileLoginStore(connection.oauth_store_dir)
    return MCPOAuthProvider(connection.url, store=store)


def _login_failure(exc: BaseException) -> BaseException | None:
    from akgentic.tool.mcp.oauth_login import MCPLoginError, find_login_failure

    found = find_login_failure(exc)
    return found if isinstance(found, MCPLoginError) else None


class _GuardedMCPToolset(MCPToolset[Any]):
    """An MCPToolset that turns a server's death into something the agent can handle.

    - Opening the connection fails with :class:`MCPConnectionError` naming the server.
    - A call whose transport breaks in a way pydantic-ai does not already map to a retry
      comes back to the model as a failed tool result (``ToolFailed``), not as an
      exception that ends the run.
    - Closing a connection whose server has already gone does not fail the finished run;
      the transport error is logged instead.
    """

    def __init__(
        self, transport: ClientTransport, *, label: str, read_timeout: float, init_timeout: float
    ) -> None:
        super().__init__(
            transport,
            read_timeout=read_timeout,
            init_timeout=init_timeout,
            process_tool_call=self._guard_call,
        )
        self._server_label = label
        # The OAuth provider of an `auth="oauth"` connection (it records a refused login).
        self._login = getattr(transport, "auth", None)

    async def __aenter__(self) -> Self:
        try:
            return await super().__aenter__()
        except Exception as exc:
            login_failure = _login_failure(exc)
            if login_failure is not None:
                # Already names the server and says how to log in again.
                raise login_failure from exc
            # The transport's own message may quote a URL or command line: masked as well.
            raise MCPConnectionError(
                f"could not open the {self._server_label}: "
                f"{type(exc).__name__}: {redact_text(str(exc))}"
            ) from exc

    async def __aexit__(self, *args: Any) -> bool | None:
        try:
            return await super().__aexit__(*args)
        except Exception:
            logger.warning("closing the %s failed", self._server_label, exc_info=True)
            return None

    async def _guard_call(
        self, ctx: RunContext[Any], call: CallToolFunc, name: str, args: dict[str, Any]
    ) -> ToolResult:
        try:
            return await call(name, args)
        except Exception as exc:
            # A login refused mid-run breaks the transport, and the call only sees a closed
            # connection: the provider's own error says what happened and what to do.
            login_failure = _login_failure(exc) or getattr(self._login, "failure", None)
            if login_failure is not None:
                raise ToolFailed(
                    f"`{name}` could not be called: {login_failure}. The server's tools are "
                    "unavailable until then: continue without them or report it."
                ) from exc
            if isinstance(exc, ModelRetry | ToolFailed | CallDeferred | ApprovalRequired):
                raise
            raise ToolFailed(
                f"The {self._server_label} failed during `{name}` "
                f"({type(exc).__name__}: {exc}). It may have stopped; its tools may be "
                "unavailable for the rest of this run: continue without them or report it."
            ) from exc
