"""What closing an agent gives back: its event loop, its loop's pool, its share of the client.

Two agents with equal HTTP settings share one client whose transport keeps one connection
pool per event loop (``PerLoopTransport``). Each agent reaches a local server through the
OpenAI SDK, so its turns really open that loop's pool; ``pool_count`` tells which pools are
still held after a close.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from akgentic.llm import HttpClientConfig, ReactAgent
from akgentic.llm._shared_http import PerLoopTransport, user_count


@dataclass
class LoopRecorder:
    """A context observer noting the event loop each event was emitted on."""

    loops: list[asyncio.AbstractEventLoop] = field(default_factory=list)

    def notify_event(self, event: object) -> None:
        self.loops.append(asyncio.get_running_loop())


@dataclass
class SharingPair:
    """Two agents sharing one client; ``a``'s events are recorded to find its own loop."""

    a: ReactAgent
    b: ReactAgent
    client: httpx.AsyncClient
    transport: PerLoopTransport
    recorder: LoopRecorder

    def one_sync_turn_each(self) -> asyncio.AbstractEventLoop:
        """A ``run_sync`` turn for both (a pool on each agent's own loop); ``a``'s loop."""
        assert self.a.run_sync("hi") == "hi"
        assert self.b.run_sync("hi") == "hi"
        assert self.transport.pool_count == 2
        return self.recorder.loops[-1]


@pytest.fixture
def sharing_pair(
    serve: Callable[..., Any],
    openai_agent: Callable[..., ReactAgent],
    chat_completion: Callable[..., bytes],
) -> SharingPair:
    """Two agents with equal settings on a local server, closed after the test. The timeout
    is one no other module uses, so the shared client belongs to this test alone."""
    server = serve((200, {"Content-Type": "application/json"}, chat_completion("hi")))
    settings = HttpClientConfig(timeout=51.0, max_retries=0)
    recorder = LoopRecorder()
    a = openai_agent(f"{server.url}/v1", "sk-local", settings, observer=recorder)
    b = openai_agent(f"{server.url}/v1", "sk-local", settings)
    client = a.http_client
    assert client is not None
    assert b.http_client is client
    transport = client._transport.wrapped  # type: ignore[attr-defined]
    assert isinstance(transport, PerLoopTransport)
    return SharingPair(a, b, client, transport, recorder)


def test_close_releases_the_agents_loop_pool_and_share_once(sharing_pair: SharingPair) -> None:
    pair = sharing_pair
    own_loop = pair.one_sync_turn_each()
    assert not own_loop.is_closed()

    pair.a.close()
    assert own_loop.is_closed()
    assert pair.transport.pool_count == 1  # a's pool is closed, b's is left alone
    assert user_count(pair.client) == 1
    assert not pair.client.is_closed

    pair.a.close()  # a second close gives nothing back twice
    assert user_count(pair.client) == 1
    assert pair.b.run_sync("still there?") == "hi"

    pair.b.close()
    assert user_count(pair.client) == 0
    assert pair.client.is_closed  # the last user closed it


def test_aclose_on_the_agents_own_loop_closes_that_loops_pool(sharing_pair: SharingPair) -> None:
    pair = sharing_pair
    own_loop = pair.one_sync_turn_each()

    # Nobody else runs on an agent's own loop, so its pool goes with the agent's share.
    own_loop.run_until_complete(pair.a.aclose())
    assert pair.transport.pool_count == 1
    assert user_count(pair.client) == 1
    assert not own_loop.is_closed()  # aclose leaves the loop itself to close()
    assert pair.b.run_sync("still there?") == "hi"


def test_aclose_on_a_loop_other_agents_use_keeps_that_loops_pool(
    sharing_pair: SharingPair,
) -> None:
    a, b = sharing_pair.a, sharing_pair.b
    client, transport = sharing_pair.client, sharing_pair.transport

    async def main() -> tuple[int, int, str]:
        await a.run("hi")
        await b.run("hi")  # both on this loop: one pool between them
        await a.aclose()
        pools_after_a = transport.pool_count
        answer = str(await b.run("still there?"))
        await b.aclose()  # the last user: the client and this loop's pool are closed
        return pools_after_a, user_count(client), answer

    assert asyncio.run(main()) == (1, 0, "hi")
    assert client.is_closed
