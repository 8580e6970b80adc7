"""A total deadline for one HTTP attempt, from sending the request to the answer's last byte.

httpx's ``Timeout`` bounds each operation (connect, one read, one write, a pool wait), so a
server that sends a byte now and then keeps an attempt alive for ever. The retrying transport
of ``create_http_client`` runs each attempt under :func:`send_before`, which bounds the wait
for the answer's head and wraps the body stream so that reading it stops at the same instant.
Running out is an ``httpx.ReadTimeout``: the kind of error the transport already retries.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx

__all__ = ["send_before"]


def _expired(limit: float) -> httpx.ReadTimeout:
    return httpx.ReadTimeout(
        f"the attempt took longer than its deadline of {limit:g} s "
        "(HttpClientConfig.attempt_deadline)"
    )


class _DeadlineStream(httpx.AsyncByteStream):
    """The answer's body, cut off with ``ReadTimeout`` once the deadline has passed."""

    def __init__(self, inner: httpx.AsyncByteStream, ends_at: float, limit: float) -> None:
        self._inner = inner
        self._ends_at = ends_at
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        chunks = self._inner.__aiter__()
        while True:
            remaining = self._ends_at - time.monotonic()
            if remaining <= 0:
                raise _expired(self._limit)
            try:
                chunk = await asyncio.wait_for(chunks.__anext__(), remaining)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise _expired(self._limit) from None
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


async def send_before(
    transport: httpx.AsyncBaseTransport, request: httpx.Request, limit: float | None
) -> httpx.Response:
    """``transport``'s answer to ``request``, head and body both due within ``limit`` seconds."""
    if limit is None:
        return await transport.handle_async_request(request)
    ends_at = time.monotonic() + limit
    try:
        async with asyncio.timeout(limit):
            response = await transport.handle_async_request(request)
    except TimeoutError:
        raise _expired(limit) from None
    stream = response.stream
    if isinstance(stream, httpx.AsyncByteStream):  # what every async transport answers with
        response.stream = _DeadlineStream(stream, ends_at, limit)
    return response
