"""Deferred results: one test per rule, on a real actor system."""

from __future__ import annotations

import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.orchestrator import StartMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.deferred import DeferredResultActor, DeferredWorker, poll_deferred
from akgentic.tool.core.testing import eventually

CALLS: list[str] = []
GATE = threading.Event()


class UpperWorker(DeferredWorker[str, str]):
    def produce(self, key: str, payload: Any) -> str:
        CALLS.append(key)
        GATE.wait(timeout=5)
        if payload == "boom":
            raise ValueError("provider refused")
        return str(payload).upper()


class UpperCache(DeferredResultActor[BaseConfig, BaseState, str, str]):
    cache_size: ClassVar[int] = 2
    negative_ttl_seconds: ClassVar[float] = 0.3

    def worker_class(self) -> type[DeferredWorker[Any, Any]]:
        return UpperWorker


@pytest.fixture
def cache(actor_system: ActorSystem, orchestrator: ActorAddress) -> Iterator[UpperCache]:
    CALLS.clear()
    GATE.set()
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(UpperCache, BaseConfig(name="#UpperCache"))
    yield actor_system.proxy_ask(address, UpperCache)
    GATE.set()


def test_three_callers_one_key_make_one_call(cache: UpperCache) -> None:
    GATE.clear()
    threads = [threading.Thread(target=cache.request, args=("k", "value")) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    GATE.set()
    assert eventually(lambda: cache.get("k")) == "VALUE"
    cache.request("k", "value")  # already cached: no new worker
    assert CALLS == ["k"]
    assert cache.stats()["spawned"] == 1


def test_cache_actor_answers_while_a_worker_is_busy(cache: UpperCache) -> None:
    GATE.clear()
    cache.request("slow", "x")
    eventually(lambda: CALLS == ["slow"])
    started = time.monotonic()
    assert cache.get("slow") is None
    assert cache.is_pending("slow")
    # The worker is held until GATE is set: a blocked actor would not answer at all.
    assert time.monotonic() - started < 5.0
    GATE.set()
    assert eventually(lambda: cache.get("slow")) == "X"
    assert not cache.is_pending("slow")


def test_failures_are_cached_negatively_until_the_ttl(cache: UpperCache) -> None:
    cache.request("bad", "boom")
    assert "provider refused" in eventually(lambda: cache.failure("bad"))
    for _ in range(5):
        cache.request("bad", "boom")
    assert CALLS == ["bad"]
    time.sleep(0.35)
    assert cache.failure("bad") is None
    cache.request("bad", "boom")
    eventually(lambda: len(CALLS) == 2)


def test_cache_is_an_lru_with_a_cap(cache: UpperCache) -> None:
    for key in ("a", "b"):
        cache.request(key, key)
        eventually(lambda key=key: cache.get(key))
    assert cache.get("a") == "A"  # refresh a: b is now the oldest
    cache.request("c", "c")
    eventually(lambda: cache.get("c"))
    assert cache.get("b") is None
    assert cache.get("a") == "A"
    assert cache.stats()["cached"] == 2


def test_workers_are_hash_named_and_stop_themselves(
    cache: UpperCache, actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    cache.request("named key/1", "v")
    eventually(lambda: cache.get("named key/1"))
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    started = [m.sender.name for m in orch.get_messages(message_type=StartMessage) if m.sender]
    workers = [name for name in started if name.startswith("#defer-")]
    assert workers == ["#defer-named_key_1-1"]
    eventually(lambda: all(m.name != workers[0] for m in orch.get_team()))


def test_poll_is_bounded_and_leaves_room_for_a_degraded_answer() -> None:
    sleeps: list[float] = []
    answers = iter([None, None, "late"])
    assert (
        poll_deferred(lambda: next(answers), attempts=3, delay=0.4, sleep=sleeps.append) == "late"
    )
    assert sleeps == [0.4, 0.4, 0.4]
    sleeps.clear()
    value = poll_deferred(lambda: None, attempts=5, delay=0.1, sleep=sleeps.append)
    degraded = value if value is not None else "text…"
    assert degraded == "text…"
    assert len(sleeps) == 5
    with pytest.raises(ValueError, match="attempts must be at least 1"):
        poll_deferred(lambda: None, attempts=0)


class _SlowHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        time.sleep(3)
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return


class FetchWorker(DeferredWorker[str, str]):
    timeout_seconds: ClassVar[float] = 0.3

    def produce(self, key: str, payload: Any) -> str:
        # The worker hands its own budget to the I/O client: that is what bounds it.
        with urllib.request.urlopen(str(payload), timeout=self.timeout_seconds) as response:
            return str(response.status)


class FetchCache(DeferredResultActor[BaseConfig, BaseState, str, str]):
    def worker_class(self) -> type[DeferredWorker[Any, Any]]:
        return FetchWorker


def test_worker_timeout_reaches_its_io(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SlowHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        orch = actor_system.proxy_ask(orchestrator, Orchestrator)
        cache = actor_system.proxy_ask(
            orch.getChildrenOrCreate(FetchCache, BaseConfig(name="#FetchCache")), FetchCache
        )
        started = time.monotonic()
        cache.request("page", f"http://127.0.0.1:{server.server_address[1]}/")
        error = eventually(lambda: cache.failure("page"), timeout=2.5)
        assert time.monotonic() - started < 2.0
        assert "timed out" in error
    finally:
        server.shutdown()


def test_finished_workers_do_not_accumulate(cache: UpperCache) -> None:
    for index in range(12):
        cache.request(f"key-{index}", "v")
        eventually(lambda index=index: cache.get(f"key-{index}") or cache.failure(f"key-{index}"))
    eventually(lambda: cache.stats()["in_flight"] == 0)
    cache.request("last", "v")
    eventually(lambda: cache.get("last"))
    # Only workers still alive when the last request was made can remain referenced.
    assert cache.stats()["children"] <= 2
