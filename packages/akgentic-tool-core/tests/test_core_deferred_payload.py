"""The predecessor's deferred protocol: constants, DeferredPayload, one-argument produce."""

from __future__ import annotations

from typing import Any, ClassVar

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.orchestrator import StartMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import deferred
from akgentic.tool.core.deferred import (
    DeferredPayload,
    DeferredResultActor,
    DeferredWorker,
)
from akgentic.tool.core.testing import eventually


class GreetPayload(DeferredPayload):
    greeting: str


class GreetWorker(DeferredWorker[str, str]):
    """Written the predecessor's way: the payload alone, the key inside it."""

    def produce(self, payload: GreetPayload) -> str:  # type: ignore[override]
        return f"{payload.greeting}, {payload.deferred_key}"


class GreetCache(DeferredResultActor[BaseConfig, BaseState, str, str]):
    started_workers: ClassVar[list[str]] = []

    def worker_class(self) -> type[DeferredWorker[Any, Any]]:
        return GreetWorker

    def spawn_direct(self, key: str, greeting: str) -> None:
        """Start a worker and tell it a DeferredPayload message (the message protocol)."""
        self._in_flight.add(key)
        worker = self.createActor(
            GreetWorker, config=BaseConfig(name=f"#defer-direct-{key}", role="ToolActor")
        )
        worker.tell(GreetPayload(deferred_key=key, greeting=greeting))


def _cache(system: ActorSystem, orchestrator: ActorAddress) -> GreetCache:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(GreetCache, BaseConfig(name="#GreetCache"))
    cache: GreetCache = system.proxy_ask(address, GreetCache)
    return cache


def test_constants_are_the_defaults_in_force() -> None:
    assert deferred.DEFAULT_CACHE_CAPACITY == DeferredResultActor.cache_size == 128
    assert deferred.DEFAULT_NEGATIVE_TTL_S == DeferredResultActor.negative_ttl_seconds == 60.0
    assert deferred.DEFAULT_WORKER_TIMEOUT_S == DeferredWorker.timeout_seconds == 20.0
    assert deferred.WORKER_NAME_PREFIX == DeferredResultActor.worker_prefix == "#defer-"
    assert deferred.WORKER_ROLE == "ToolActor"


def test_one_argument_worker_gets_the_key_in_its_payload(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    cache = _cache(actor_system, orchestrator)
    cache.request("Ada", GreetPayload(greeting="Hello"))
    assert eventually(lambda: cache.get("Ada")) == "Hello, Ada"
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    starts = list(orch.get_messages(message_type=StartMessage))
    roles = {m.config.name: m.config.role for m in starts if m.config.name.startswith("#defer-")}
    assert roles == {"#defer-Ada-1": "ToolActor"}


def test_a_told_deferred_payload_is_produced_and_reported_to_the_parent(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    cache = _cache(actor_system, orchestrator)
    cache.spawn_direct("Grace", "Hi")
    assert eventually(lambda: cache.get("Grace")) == "Hi, Grace"
    assert not cache.is_pending("Grace")


def test_a_one_argument_worker_refuses_a_payload_of_another_kind(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    cache = _cache(actor_system, orchestrator)
    cache.request("Linus", {"greeting": "Hey"})
    error = eventually(lambda: cache.failure("Linus"))
    assert "expects a DeferredPayload, got dict" in error
    assert (
        DeferredPayload.model_validate(DeferredPayload(deferred_key="k").model_dump()).deferred_key
        == "k"
    )
