"""Deferred results: slow work off a tool actor's thread, with a bounded caller-side poll.

There is one tool actor per team and it runs on a single thread. If it performed an LLM
call or any other slow I/O inside a method that callers ``proxy_ask``, every team member
queued behind it would wait. The shape here avoids that:

- a cache actor (:class:`DeferredResultActor`) that only does dict work: ``get`` answers
  from the cache, ``request`` records the key as in flight and hands it to a worker;
- one short-lived worker per key (:class:`DeferredWorker`), named with a ``#`` prefix so
  the orchestrator tears it down with the tool actors, which does the slow call under its
  own timeout, reports back with ``deliver`` or ``fail``, and stops itself;
- the caller polls with :func:`poll_deferred` for a bounded number of attempts and falls
  back to a degraded answer when nothing arrives in time.

Failures are cached negatively for ``negative_ttl_seconds`` so a broken key does not spawn
a worker on every poll, and the cache is an LRU capped at ``cache_size`` entries.

Import this module directly; it is not re-exported from ``akgentic.tool.core``.
"""

from __future__ import annotations

import inspect
import logging
import re
import time
from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, ClassVar, Generic, TypeVar

from pykka import ActorDeadError

from akgentic.core.actor_address import ActorAddress
from akgentic.core.agent import Akgent, ConfigType, StateType
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.utils.serializer import SerializableBaseModel

__all__ = [
    "DEFAULT_CACHE_CAPACITY",
    "DEFAULT_NEGATIVE_TTL_S",
    "DEFAULT_WORKER_TIMEOUT_S",
    "WORKER_NAME_PREFIX",
    "WORKER_ROLE",
    "DeferredPayload",
    "DeferredResultActor",
    "DeferredWorker",
    "poll_deferred",
]

DEFAULT_CACHE_CAPACITY = 128
"""Default LRU capacity of a cache actor (``DeferredResultActor.cache_size``)."""
DEFAULT_NEGATIVE_TTL_S = 60.0
"""Default lifetime of a cached failure (``DeferredResultActor.negative_ttl_seconds``)."""
DEFAULT_WORKER_TIMEOUT_S = 20.0
"""Default bound of a worker's external call (``DeferredWorker.timeout_seconds``)."""
WORKER_NAME_PREFIX = "#defer-"
"""Start of every worker's actor name: ``#`` makes it a tool actor for the teardown."""
WORKER_ROLE = "ToolActor"
"""Role every worker is started with."""

logger = logging.getLogger(__name__)

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


class DeferredPayload(SerializableBaseModel):
    """A work order for a worker: the key to produce, plus the subclass's own fields.

    The message form of a request (the predecessor's protocol): a worker told a
    ``DeferredPayload`` produces ``deferred_key`` and reports to the cache actor that
    started it. Passed to :meth:`DeferredResultActor.request` as the payload, it reaches
    :meth:`DeferredWorker.produce` with ``deferred_key`` set to the requested key.
    """

    deferred_key: Any = None


class DeferredWorker(Akgent[BaseConfig, BaseState], Generic[K, V]):
    """A one-shot actor that produces the value of one key, reports it and stops.

    Subclasses implement :meth:`produce` and must pass ``timeout_seconds`` to whatever
    client does the I/O: a Python thread cannot be cancelled, so a bound that does not
    reach the client does not bound anything. Keep it below the orchestrator's stop
    backstop, because the cache actor's stop waits for its workers.

    A subclass written for the predecessor overrides ``produce(self, payload)`` with the
    payload alone; it is called that way, with a :class:`DeferredPayload` whose
    ``deferred_key`` is the key.
    """

    timeout_seconds: ClassVar[float] = DEFAULT_WORKER_TIMEOUT_S

    @abstractmethod
    def produce(self, key: K, payload: Any) -> V:
        """Do the slow work for ``key``. Runs on this worker's own thread."""

    def receiveMsg_DeferredPayload(self, msg: DeferredPayload) -> None:
        """Produce ``msg.deferred_key`` and report to the cache actor that started this worker."""
        if self._parent is None:
            logger.warning("deferred worker %s has no cache actor to report to", self.config.name)
            self.stop()
            return
        self.run(msg.deferred_key, msg, self._parent)

    def _produce(self, key: K, payload: Any) -> V:
        if _takes_payload_only(type(self).produce):
            if not isinstance(payload, DeferredPayload):
                raise TypeError(
                    f"{type(self).__name__}.produce(payload) expects a DeferredPayload, "
                    f"got {type(payload).__name__}"
                )
            if payload.deferred_key != key:
                payload = payload.model_copy(update={"deferred_key": key})
            produce_one: Callable[[Any], V] = self.produce  # type: ignore[assignment]
            return produce_one(payload)
        return self.produce(key, payload)

    def run(self, key: K, payload: Any, cache: ActorAddress) -> None:
        """Produce the value, tell ``cache`` the outcome, then stop. Called with a tell."""
        try:
            value = self._produce(key, payload)
        except Exception as exc:
            logger.warning("deferred worker %s failed for %r: %s", self.config.name, key, exc)
            self.proxy_tell(cache, DeferredResultActor).fail(key, f"{type(exc).__name__}: {exc}")
        else:
            self.proxy_tell(cache, DeferredResultActor).deliver(key, value)
        finally:
            self.stop()


class DeferredResultActor(Akgent[ConfigType, StateType], Generic[ConfigType, StateType, K, V]):
    """Cache actor for values produced by :class:`DeferredWorker`s.

    Its methods are all O(1): a caller's ask never waits on external work.
    """

    cache_size: ClassVar[int] = DEFAULT_CACHE_CAPACITY
    negative_ttl_seconds: ClassVar[float] = DEFAULT_NEGATIVE_TTL_S
    worker_prefix: ClassVar[str] = WORKER_NAME_PREFIX

    @abstractmethod
    def worker_class(self) -> type[DeferredWorker[Any, Any]]:
        """The worker class spawned for each requested key."""

    def on_start(self) -> None:
        self._cache: OrderedDict[K, V] = OrderedDict()
        self._failures: dict[K, tuple[float, str]] = {}
        self._in_flight: set[K] = set()
        self._spawned = 0

    def _now(self) -> float:
        return time.monotonic()

    def stop_children(self, blocking: bool = True) -> None:
        """Stop the workers still running.

        A worker stops itself once it has reported, so one can end between the base class's
        liveness check and its stop request; that worker is gone, which is what the stop
        wanted, and the next pass drops it from the children.
        """
        for _ in range(len(self._children) + 1):
            try:
                super().stop_children(blocking=blocking)
                return
            except ActorDeadError:
                continue

    def get(self, key: K) -> V | None:
        """The cached value of ``key``, or ``None`` (not produced yet, failed, or evicted)."""
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        return None

    def is_pending(self, key: K) -> bool:
        """Whether a worker is currently producing ``key``."""
        return key in self._in_flight

    def failure(self, key: K) -> str | None:
        """The error of a recent failure of ``key`` still inside its negative TTL."""
        entry = self._failures.get(key)
        if entry is None or entry[0] <= self._now():
            return None
        return entry[1]

    def request(self, key: K, payload: Any) -> None:
        """Start producing ``key`` unless it is cached, in flight, or failed recently."""
        if key in self._cache or key in self._in_flight:
            return
        if self.failure(key) is not None:
            return
        self._failures.pop(key, None)
        self._in_flight.add(key)
        self._forget_stopped_workers()
        self._spawned += 1
        name = f"{self.worker_prefix}{_UNSAFE_NAME.sub('_', str(key))[:64]}-{self._spawned}"
        worker = self.createActor(
            self.worker_class(), config=BaseConfig(name=name, role=WORKER_ROLE)
        )
        self.proxy_tell(worker, DeferredWorker).run(key, payload, self.myAddress)

    def _forget_stopped_workers(self) -> None:
        # akgentic-core prunes a parent's children only when the parent itself stops; a
        # long-lived cache would otherwise keep one dead address per request it ever made.
        self._children = [child for child in self._children if child.is_alive()]

    def deliver(self, key: K, value: V) -> None:
        """Store a produced value (called by the worker)."""
        self._in_flight.discard(key)
        self._failures.pop(key, None)
        self._cache[key] = value
        self._cache.move_to_end(key)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def fail(self, key: K, error: str) -> None:
        """Record a failure of ``key`` for ``negative_ttl_seconds`` (called by the worker)."""
        self._in_flight.discard(key)
        self._failures[key] = (self._now() + self.negative_ttl_seconds, error)
        while len(self._failures) > self.cache_size:
            self._failures.pop(next(iter(self._failures)))

    def stats(self) -> dict[str, int]:
        """Sizes of the cache, in-flight set and negative cache; workers spawned and held."""
        return {
            "cached": len(self._cache),
            "in_flight": len(self._in_flight),
            "failed": len(self._failures),
            "spawned": self._spawned,
            "children": len(self._children),
        }


def _takes_payload_only(produce: Callable[..., Any]) -> bool:
    """Whether a ``produce`` override has the predecessor's one-argument shape."""
    params = [
        p
        for p in list(inspect.signature(produce).parameters.values())[1:]  # drop self
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return len(params) == 1


def poll_deferred(
    fetch: Callable[[], T | None],
    attempts: int = 5,
    delay: float = 0.4,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> T | None:
    """Call ``fetch`` up to ``attempts`` times, ``delay`` s apart; ``None`` if it never answers.

    The budget is bounded on purpose: the caller must always have a degraded answer ready.
    """
    if attempts < 1:
        raise ValueError(f"attempts must be at least 1, got {attempts}")
    for _ in range(attempts):
        sleep(delay)
        value = fetch()
        if value is not None:
            return value
    return None
