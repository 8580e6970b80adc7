"""Deferred results, more: the negative cache's edges on a controlled clock, its cap,
worker names and count, stopping busy workers, the failure text and log line a failed
worker leaves, an orphan worker, and poll_deferred's default budget.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.orchestrator import StartMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.deferred import (
    DeferredPayload,
    DeferredResultActor,
    DeferredWorker,
    poll_deferred,
)
from akgentic.tool.core.testing import eventually

LOGGER = "akgentic.tool.core.deferred"
GATE = threading.Event()
FINISHED: list[str] = []
CLOCK = [1000.0]


class EchoWorker(DeferredWorker[str, str]):
    def produce(self, key: str, payload: Any) -> str:
        GATE.wait(timeout=5)
        if payload == "boom":
            raise ValueError("provider refused")
        FINISHED.append(key)
        return f"{key}={payload}"


class ClockedCache(DeferredResultActor[BaseConfig, BaseState, str, str]):
    """A cache of two entries whose failures live 10 s on a clock the test moves."""

    cache_size: ClassVar[int] = 2
    negative_ttl_seconds: ClassVar[float] = 10.0

    def worker_class(self) -> type[DeferredWorker[Any, Any]]:
        return EchoWorker

    def _now(self) -> float:
        return CLOCK[0]


class OldWorker(DeferredWorker[str, str]):
    """The predecessor's one-argument produce."""

    def produce(self, payload: DeferredPayload) -> str:  # type: ignore[override]
        return str(payload.deferred_key)


class OldCache(DeferredResultActor[BaseConfig, BaseState, str, str]):
    def worker_class(self) -> type[DeferredWorker[Any, Any]]:
        return OldWorker


@pytest.fixture
def cache(actor_system: ActorSystem, orchestrator: ActorAddress) -> Iterator[ClockedCache]:
    GATE.set()
    FINISHED.clear()
    CLOCK[0] = 1000.0
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(ClockedCache, BaseConfig(name="#ClockedCache"))
    yield actor_system.proxy_ask(address, ClockedCache)
    GATE.set()


def _worker_names(system: ActorSystem, orchestrator: ActorAddress) -> list[str]:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    started = [m.sender.name for m in orch.get_messages(message_type=StartMessage) if m.sender]
    return [name for name in started if name.startswith("#defer-")]


def test_a_failure_expires_exactly_at_its_ttl(cache: ClockedCache) -> None:
    cache.fail("k", "ValueError: nope")
    CLOCK[0] = 1009.5
    assert cache.failure("k") == "ValueError: nope"
    CLOCK[0] = 1010.0  # recorded at 1000 with a 10 s TTL: gone at 1010 itself
    assert cache.failure("k") is None


def test_a_new_request_after_expiry_forgets_the_old_failure(cache: ClockedCache) -> None:
    cache.request("k", "boom")
    assert eventually(lambda: cache.failure("k")) is not None
    assert cache.stats()["failed"] == 1
    CLOCK[0] = 1011.0
    GATE.clear()
    cache.request("k", "fine")  # the worker is held: the key is in flight
    assert cache.is_pending("k")
    assert cache.stats()["failed"] == 0
    GATE.set()
    assert eventually(lambda: cache.get("k")) == "k=fine"


def test_a_delivered_value_clears_a_recorded_failure(cache: ClockedCache) -> None:
    cache.fail("k", "TimeoutError: slow")
    cache.deliver("k", "late but fine")  # a worker reporting after all
    assert cache.failure("k") is None
    assert cache.get("k") == "late but fine"
    assert cache.stats()["failed"] == 0


def test_the_negative_cache_keeps_the_newest_failures_up_to_the_cap(cache: ClockedCache) -> None:
    cache.fail("a", "A")
    cache.fail("b", "B")
    assert (cache.failure("a"), cache.failure("b")) == ("A", "B")
    assert cache.stats()["failed"] == 2
    cache.fail("c", "C")
    assert cache.failure("a") is None
    assert (cache.failure("b"), cache.failure("c")) == ("B", "C")
    assert cache.stats() == {
        "cached": 0,
        "in_flight": 0,
        "failed": 2,
        "spawned": 0,
        "children": 0,
    }


def test_each_worker_is_counted_and_numbered(
    cache: ClockedCache, actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    long_key = "x" * 100
    for key in ("one", long_key):
        cache.request(key, "v")
        eventually(lambda key=key: cache.get(key))
    assert cache.stats()["spawned"] == 2
    # A long key is cut to 64 characters in the worker's name.
    assert _worker_names(actor_system, orchestrator) == ["#defer-one-1", f"#defer-{'x' * 64}-2"]


def test_stop_children_waits_for_a_busy_worker_by_default(cache: ClockedCache) -> None:
    GATE.clear()
    cache.request("slow", "v")
    assert eventually(lambda: cache.stats()["children"] == 1)
    opener = threading.Timer(0.3, GATE.set)
    opener.start()
    cache.stop_children()  # returns once the worker has finished and stopped
    assert FINISHED == ["slow"]
    assert cache.stats()["children"] == 0
    opener.join()


def test_a_failed_worker_reports_the_error_type_and_logs_its_name_and_key(
    cache: ClockedCache,
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        cache.request("bad-key", "boom")
        error = eventually(lambda: cache.failure("bad-key"))
    assert error == "ValueError: provider refused"
    worker = _worker_names(actor_system, orchestrator)[0]
    lines = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert any(
        worker in line and "'bad-key'" in line and "provider refused" in line for line in lines
    ), lines


def test_a_one_argument_worker_names_its_class_when_refusing_a_payload(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    cache = actor_system.proxy_ask(
        orch.getChildrenOrCreate(OldCache, BaseConfig(name="#OldCache")), OldCache
    )
    cache.request("k", "not a payload")
    error = eventually(lambda: cache.failure("k"))
    assert "OldWorker.produce(payload) expects a DeferredPayload, got str" in error


def test_a_worker_without_a_cache_actor_logs_its_name_and_stops(
    actor_system: ActorSystem, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        address = actor_system.createActor(
            OldWorker, config=BaseConfig(name="#defer-orphan", role="ToolActor")
        )
        address.tell(DeferredPayload(deferred_key="k"))
        eventually(lambda: not address.is_alive())
    lines = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert any("#defer-orphan" in line for line in lines), lines


def test_poll_defaults_to_five_attempts_0_4_s_apart() -> None:
    sleeps: list[float] = []
    assert poll_deferred(lambda: None, sleep=sleeps.append) is None
    assert sleeps == [0.4] * 5


def test_a_single_attempt_is_allowed() -> None:
    sleeps: list[float] = []
    assert poll_deferred(lambda: "now", attempts=1, delay=0.0, sleep=sleeps.append) == "now"
    assert sleeps == [0.0]
    started = time.monotonic()
    assert poll_deferred(lambda: None, attempts=1, delay=0.01) is None
    assert time.monotonic() - started < 2.0
