"""The HTTP side of every Tavily call: one total deadline and one size limit per request.

requests' ``timeout`` bounds each socket operation, not the request: a provider that
trickles its answer a byte at a time keeps a call alive for as long as it likes, and a
huge answer is held in memory whole. tavily-python accepts the session it sends through,
so ``BoundedSession`` enforces, for the request made inside a ``transfer_scope``:

- a total deadline over connect, headers and body. A watchdog timer shuts down the
  sockets the request uses when it passes, which ends any blocked read at once; the
  request then fails as a ``requests.Timeout``, which tavily-python reports as its own
  timeout error;
- a byte limit on the body, counted after decompression while it streams in. Past it the
  connection is dropped and only what arrived is kept (``Transfer.cut``);
- a first reading of a 200 answer that cannot crash the caller: not JSON, nested too
  deep for the parser, or not a JSON object all raise ``MalformedAnswerError``, before
  tavily-python would call ``.get`` on it.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.response import HTTPResponse

from akgentic.tool.search._salvage import close_cut_json

__all__ = ["BoundedSession", "MalformedAnswerError", "Transfer", "transfer_scope"]

_CHUNK_BYTES = 64 * 1024


class MalformedAnswerError(Exception):
    """A provider answer that is not the JSON object every Tavily endpoint returns."""


@dataclass
class Transfer:
    """The limits of one provider request, and what happened to its answer."""

    timeout: float
    max_bytes: int
    started: float = field(default_factory=time.monotonic)
    expired: bool = False
    cut: bool = False
    received: int = 0
    announced: int | None = None
    _connections: list[Any] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def deadline(self) -> float:
        return self.started + self.timeout

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def watch(self, connection: Any) -> None:
        """Remember a connection (or response) this request reads from, for the deadline."""
        with self._lock:
            self._connections.append(connection)
            expired = self.expired
        if expired:
            _shutdown(connection)

    def expire(self) -> None:
        """The deadline passed: end every blocked read of this request now."""
        with self._lock:
            self.expired = True
            connections = list(self._connections)
        for connection in connections:
            _shutdown(connection)


def _shutdown(watched: Any) -> None:
    """End any read blocked on ``watched``: a connection, or the response that owns its socket."""
    if isinstance(watched, HTTPResponse):
        # An answer that closes the connection when it ends (no Content-Length, or
        # `Connection: close`) takes the socket from the connection, whose `sock` is then
        # None; only the response can still shut it. It refuses once the body is read and
        # the connection released, when nothing is blocked any more.
        with contextlib.suppress(OSError, RuntimeError, ValueError):
            watched.shutdown()
        return
    sock = getattr(watched, "sock", None)
    if sock is None:
        return  # still connecting: its connect timeout is the time left, so it ends anyway
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)


_local = threading.local()


@contextmanager
def transfer_scope(transfer: Transfer) -> Iterator[Transfer]:
    """Apply ``transfer``'s limits to the requests this thread makes inside the block."""
    previous = getattr(_local, "transfer", None)
    _local.transfer = transfer
    try:
        yield transfer
    finally:
        _local.transfer = previous


def _current() -> Transfer | None:
    current: Transfer | None = getattr(_local, "transfer", None)
    return current


class _WatchedPool(HTTPConnectionPool):
    def _get_conn(self, timeout: float | None = None) -> Any:
        conn = super()._get_conn(timeout)
        transfer = _current()
        if transfer is not None:
            transfer.watch(conn)
        return conn


class _WatchedHTTPSPool(HTTPSConnectionPool):
    def _get_conn(self, timeout: float | None = None) -> Any:
        conn = super()._get_conn(timeout)
        transfer = _current()
        if transfer is not None:
            transfer.watch(conn)
        return conn


_WATCHED_POOLS: dict[str, type[HTTPConnectionPool]] = {
    "http": _WatchedPool,
    "https": _WatchedHTTPSPool,
}


class _WatchedAdapter(HTTPAdapter):
    """An adapter whose pools tell the current transfer which connection they hand out."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _WATCHED_POOLS

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        manager.pool_classes_by_scheme = _WATCHED_POOLS
        return manager


class BoundedSession(requests.Session):
    """A requests session that applies the current ``Transfer``'s deadline and size limit."""

    def __init__(self) -> None:
        super().__init__()
        self.mount("http://", _WatchedAdapter())
        self.mount("https://", _WatchedAdapter())

    def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> requests.Response:
        transfer = _current()
        if transfer is None:
            return super().request(method, url, *args, **kwargs)
        left = transfer.remaining()
        if left <= 0:
            raise requests.Timeout(f"no time left of the {transfer.timeout:g} s deadline")
        # Each socket operation may also take at most the time left; the watchdog covers
        # the sum of them.
        kwargs["timeout"] = (left, left)
        kwargs["stream"] = True
        watchdog = threading.Timer(left, transfer.expire)
        watchdog.daemon = True
        watchdog.start()
        try:
            response = super().request(method, url, *args, **kwargs)
            transfer.watch(response.raw)
            body = _read_bounded(response, transfer)
        except (requests.RequestException, OSError) as exc:
            if transfer.expired or transfer.remaining() <= 0:
                raise requests.Timeout(f"no complete answer within {transfer.timeout:g} s") from exc
            raise
        finally:
            watchdog.cancel()
        if transfer.expired:
            # The shutdown can look like a clean end of a body without a length.
            raise requests.Timeout(f"no complete answer within {transfer.timeout:g} s")
        response._content = body
        response._content_consumed = True
        if response.status_code == 200:
            parsed = _read_json_object(body, transfer)
            # tavily-python calls .json() once on a 200; hand it the checked document rather
            # than parsing (and risking a RecursionError) a second time.
            response.json = lambda **_: parsed  # type: ignore[method-assign]
        return response


def _read_bounded(response: requests.Response, transfer: Transfer) -> bytes:
    """The body, up to ``transfer.max_bytes``; past that the connection is dropped."""
    length = response.headers.get("Content-Length", "")
    transfer.announced = int(length) if length.isdigit() else None
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_content(_CHUNK_BYTES):
        room = transfer.max_bytes - size
        if len(chunk) > room:
            chunks.append(chunk[:room])
            size += room
            transfer.cut = True
            response.close()
            break
        chunks.append(chunk)
        size += len(chunk)
    transfer.received = size
    return b"".join(chunks)


def _read_json_object(body: bytes, transfer: Transfer) -> dict[str, Any]:
    if transfer.cut:
        salvaged = close_cut_json(body)
        if salvaged is None:
            raise MalformedAnswerError(
                f"it passed the {transfer.max_bytes:,}-byte download limit and the part "
                "that arrived cannot be read"
            )
        parsed: Any = salvaged
    else:
        try:
            parsed = json.loads(body)
        except RecursionError as exc:
            raise MalformedAnswerError("it is JSON nested too deeply to read") from exc
        except ValueError as exc:
            raise MalformedAnswerError("it is not JSON") from exc
    if not isinstance(parsed, dict):
        raise MalformedAnswerError(f"it is a JSON {_json_kind(parsed)}, not an object")
    return parsed


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    return "number"
