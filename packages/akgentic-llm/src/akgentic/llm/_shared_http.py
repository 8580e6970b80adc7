"""One retrying HTTP client per distinct ``HttpClientConfig``, shared by every agent in the process.

Building an ``httpx.AsyncClient`` the ordinary way builds an SSL context and loads the whole CA
bundle into it: about 16-30 ms and a few hundred KB per agent, which is nearly all that a
``ReactAgent`` costs to construct. Here the process keeps:

* one ``ssl.SSLContext`` per certificate setting (``SSL_CERT_FILE`` / ``SSL_CERT_DIR``);
* one client (retry transport included) per distinct HTTP configuration, counted by its users:
  ``acquire`` hands it out, ``release`` reports when the last user let go, and only then is
  it closed. A later ``acquire`` with the same settings builds a fresh one.

*Decision (event loops):* an httpx connection pool belongs to the event loop that opened its
connections, while agents run on different loops (``run_sync`` drives a loop of the agent's
own; actors run in threads of their own). So the shared client does not share one pool: its
innermost transport keeps one pool per running loop, each built on the shared SSL context
(about 3 µs). Agents that run on the same loop share that loop's pool; a pool is closed when
the agent that owns its loop closes, or dropped once its loop has been closed.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import threading
import weakref
from dataclasses import dataclass

import httpx

from akgentic.llm.config import HttpClientConfig

__all__ = [
    "HttpLease",
    "PerLoopTransport",
    "acquire",
    "release",
    "shared_ssl_context",
    "user_count",
]

_ssl_lock = threading.Lock()
_ssl_contexts: dict[tuple[str | None, str | None], ssl.SSLContext] = {}


def shared_ssl_context() -> ssl.SSLContext:
    """The process's SSL context for the current certificate environment (built once)."""
    key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    with _ssl_lock:
        context = _ssl_contexts.get(key)
        if context is None:
            # httpx's own recipe (certifi bundle, or the files the environment names), so a
            # shared client verifies exactly what an unshared one would.
            context = httpx.create_ssl_context(trust_env=True)
            _ssl_contexts[key] = context
        return context


# No cap on connections in flight: each agent used to have a pool of its own (httpx's default
# cap of 100 each), so a shared pool with that cap would queue one agent's request behind
# others'. Idle keep-alive connections stay bounded at httpx's default.
_POOL_LIMITS = httpx.Limits(max_connections=None, max_keepalive_connections=20)


class PerLoopTransport(httpx.AsyncBaseTransport):
    """Sends each request through the connection pool of the loop it runs on."""

    def __init__(self, ssl_context: ssl.SSLContext) -> None:
        self._ssl_context = ssl_context
        self._lock = threading.Lock()
        # id(loop) -> (weak reference to the loop, its pool). The weak reference tells a live
        # loop from a new one that reuses a dead loop's id.
        self._pools: dict[
            int, tuple[weakref.ref[asyncio.AbstractEventLoop], httpx.AsyncHTTPTransport]
        ] = {}

    @property
    def pool_count(self) -> int:
        """How many loops currently hold a pool (for tests and benchmarks)."""
        with self._lock:
            return len(self._pools)

    def _pool_for(self, loop: asyncio.AbstractEventLoop) -> httpx.AsyncHTTPTransport:
        with self._lock:
            entry = self._pools.get(id(loop))
            if entry is not None and entry[0]() is loop:
                return entry[1]
            self._forget_dead_loops()
            pool = httpx.AsyncHTTPTransport(verify=self._ssl_context, limits=_POOL_LIMITS)
            self._pools[id(loop)] = (weakref.ref(loop), pool)
            return pool

    def _forget_dead_loops(self) -> None:
        # A closed loop's connections can neither be used nor closed cleanly any more; their
        # sockets go with the garbage collector. Called with the lock held.
        for key, (ref, _) in list(self._pools.items()):
            loop = ref()
            if loop is None or loop.is_closed():
                del self._pools[key]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        pool = self._pool_for(asyncio.get_running_loop())
        return await pool.handle_async_request(request)

    async def close_loop_pool(self) -> None:
        """Close the pool of the running loop, if it has one (its owner is going away)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._pools.pop(id(loop), None)
        if entry is not None and entry[0]() is loop:
            await entry[1].aclose()

    async def aclose(self) -> None:
        """Close the running loop's pool and drop the others (their loops cannot be driven here)."""
        await self.close_loop_pool()
        self.forget_all()

    def forget_all(self) -> None:
        """Drop every pool without closing it (their loops cannot be driven from here)."""
        with self._lock:
            self._pools.clear()


@dataclass
class _Entry:
    client: httpx.AsyncClient
    transport: PerLoopTransport
    users: int


_registry_lock = threading.Lock()
_registry: dict[str, _Entry] = {}


def _key(config: HttpClientConfig) -> str:
    return config.model_dump_json()


def acquire(config: HttpClientConfig) -> tuple[httpx.AsyncClient, PerLoopTransport]:
    """The shared client for ``config`` (built on first use), counted as one more user."""
    from akgentic.llm.providers import create_http_client

    key = _key(config)
    with _registry_lock:
        entry = _registry.get(key)
        if entry is None:
            transport = PerLoopTransport(shared_ssl_context())
            client = create_http_client(config, transport=transport)
            entry = _Entry(client, transport, 0)
            _registry[key] = entry
        entry.users += 1
        return entry.client, entry.transport


def release(client: httpx.AsyncClient) -> bool:
    """Count one user of ``client`` out; ``True`` when it was the last (the caller closes it)."""
    with _registry_lock:
        for key, entry in _registry.items():
            if entry.client is client:
                entry.users -= 1
                if entry.users > 0:
                    return False
                del _registry[key]
                return True
    return False


def user_count(client: httpx.AsyncClient) -> int:
    """How many agents currently hold ``client`` (0 once released by all)."""
    with _registry_lock:
        for entry in _registry.values():
            if entry.client is client:
                return entry.users
    return 0


class HttpLease:
    """One agent's hold on its HTTP client: a counted share of the process's, or its own."""

    def __init__(self, config: HttpClientConfig, *, shared: bool) -> None:
        from akgentic.llm.providers import create_http_client

        self._transport: PerLoopTransport | None
        if shared:
            self.client, self._transport = acquire(config)
        else:
            self.client, self._transport = create_http_client(config), None
        self._held = True

    @property
    def shared(self) -> bool:
        """Whether the client is the process-wide one for these settings."""
        return self._transport is not None

    async def release(self, *, own_loop: bool) -> None:
        """Let go of the client; ``own_loop``: the running loop is the agent's private one.

        Idempotent. An own client is closed. A shared one loses this user; the pool of the
        running loop is closed only when that loop is the agent's own (no other agent can be
        using it), and the client itself only when this was its last user.
        """
        if not self._held:
            return
        self._held = False
        if self._transport is None:
            await self.client.aclose()
            return
        if own_loop:
            await self._transport.close_loop_pool()
        if release(self.client):
            await self.client.aclose()

    def release_blocking(self) -> None:
        """``release`` for a caller with no loop at hand; a loop is started only to close."""
        if not self._held:
            return
        if self._transport is None:
            asyncio.run(self.release(own_loop=False))
            return
        self._held = False
        if release(self.client):
            # The transport closes only the running (here: temporary) loop's pool, which has
            # none, and drops the others: nothing is driven across loops.
            asyncio.run(self.client.aclose())

    def release_without_loop(self) -> None:
        """``release`` for when no loop can be driven (``close()`` called from async code)."""
        if not self._held:
            return
        self._held = False
        if self._transport is not None and release(self.client):
            # Nobody holds the client any more; its pools cannot be closed from here, so
            # they are dropped and their sockets left to the garbage collector.
            self._transport.forget_all()
