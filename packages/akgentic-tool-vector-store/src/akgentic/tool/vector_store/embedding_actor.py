"""The embedding worker: one short-lived actor per embedding request.

The store actor never calls the embedding provider. For each request (a batch of
documents to index, or one query text) it spawns an :class:`EmbeddingActor` named
``#embed-<collection>-<request_id>`` and tells it the job; the worker makes the blocking
HTTP call(s) on its own thread under a bounded time budget, tells the store
``deliver(key, vectors)`` or ``fail(key, error)``, and stops. The ``#`` prefix makes it a
tool actor for the orchestrator's teardown (see core's deferred-results rules).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
import pykka

from akgentic.core.actor_address import ActorAddress
from akgentic.tool.core.deferred import DeferredResultActor, DeferredWorker
from akgentic.tool.vector_store.vector import EmbeddingService

__all__ = ["EmbedJob", "EmbedKey", "EmbeddingActor"]

logger = logging.getLogger(__name__)


class EmbedKey(NamedTuple):
    """Identifies one embedding request to the store: which collection, which request,
    and whether it embeds documents (to index) or a query text (to cache)."""

    collection: str
    request_id: str
    kind: Literal["documents", "query"]


@dataclass(frozen=True)
class EmbedJob:
    """What a worker needs: the texts, in order, the service to embed them with, and the
    vector length the collection expects (another length counts as a failure)."""

    texts: tuple[str, ...]
    service: EmbeddingService
    dimension: int


class EmbeddingActor(DeferredWorker[EmbedKey, npt.NDArray[np.float32]]):
    """Embeds one job's texts, reports to the store, stops.

    ``timeout_seconds`` is the whole job's budget: every HTTP request gets at most the
    time left (and at most the service's own per-request timeout), so a worker cannot
    outlive the orchestrator's 30 s stop backstop because of a hung provider.
    """

    timeout_seconds: ClassVar[float] = 25.0

    def produce(self, key: EmbedKey, payload: Any) -> npt.NDArray[np.float32]:
        job: EmbedJob = payload
        deadline = time.monotonic() + self.timeout_seconds
        return job.service.embed(job.texts, deadline=deadline, dimension=job.dimension)

    def run(self, key: EmbedKey, payload: Any, cache: ActorAddress) -> None:
        """Produce, tell the store the outcome, stop.

        Overrides the core worker only to keep failures at debug level here: the store
        logs one warning per failure episode, however many workers fail in it.
        """
        try:
            try:
                value = self.produce(key, payload)
            except Exception as exc:
                logger.debug("embedding worker %s failed: %s", self.config.name, exc)
                self.proxy_tell(cache, DeferredResultActor).fail(key, f"{exc}")
            else:
                self.proxy_tell(cache, DeferredResultActor).deliver(key, value)
        except pykka.ActorDeadError:
            # The store stopped while this worker was busy (team teardown): nobody is left
            # to take the result, and the store's state already lists these texts as
            # unembedded, so a resumed team embeds them again.
            logger.debug("embedding worker %s: the store is gone", self.config.name)
        finally:
            self.stop()
