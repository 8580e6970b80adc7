"""The embedding worker: one short-lived actor per embedding request.

The store actor never calls the embedding provider. For each request (a batch of
documents to index, or one query text) it spawns an :class:`EmbeddingActor` named
``#embed-<collection>-<request_id>`` and tells it the job; the worker makes the blocking
provider call(s) on its own thread under a bounded time budget (HTTP requests, or a local
model2vec model, which the first worker that needs it loads), tells the store
``deliver(key, vectors)`` or ``fail(key, error)``, and stops. The ``#`` prefix makes it a
tool actor for the orchestrator's teardown (see core's deferred-results rules).

The predecessor's message protocol works as well: a worker told an
:class:`EmbeddingRequest` embeds its entries and sends an :class:`EmbeddingResult` (or an
:class:`EmbeddingError`) to the actor that created it, which for a store worker is the
:class:`~akgentic.tool.vector_store.actor.VectorStoreActor`; the store takes both.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
import pykka
from pydantic import Field

from akgentic.core.utils.serializer import SerializableBaseModel
from akgentic.tool.core.deferred import DeferredResultActor, DeferredWorker
from akgentic.tool.vector_store.vector import EmbeddingService, VectorEntry

if TYPE_CHECKING:
    from akgentic.core.actor_address import ActorAddress

__all__ = [
    "EmbedJob",
    "EmbedKey",
    "EmbeddingActor",
    "EmbeddingError",
    "EmbeddingRequest",
    "EmbeddingResult",
]

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


class EmbeddingRequest(SerializableBaseModel):
    """The predecessor's request to a worker: embed ``entries`` (dicts with ``ref_id``,
    ``ref_type`` and ``text``) of ``collection`` with the named model and provider."""

    collection: str
    entries: list[dict[str, str]]
    embedding_model: str = "text-embedding-3-small"
    embedding_provider: Literal["openai", "azure", "local", "auto"] = "openai"
    request_id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])


class EmbeddingResult(SerializableBaseModel):
    """A worker's answer to an :class:`EmbeddingRequest`: its entries, in order, each
    with its ``vector``."""

    collection: str
    entries: list[VectorEntry]
    request_id: str


class EmbeddingError(SerializableBaseModel):
    """A worker's report that an :class:`EmbeddingRequest` could not be embedded, with
    the reason in ``error``. A message, not an exception: the exception the embedding
    client raises is :class:`~akgentic.tool.vector_store.vector.EmbeddingServiceError`."""

    collection: str
    error: str
    request_id: str


class EmbeddingActor(DeferredWorker[EmbedKey, npt.NDArray[np.float32]]):
    """Embeds one job's texts, reports to the store, stops.

    ``timeout_seconds`` is the whole job's budget: every HTTP request gets at most the
    time left (and at most the service's own per-request timeout), so a worker cannot
    outlive the orchestrator's 30 s stop backstop because of a hung provider.
    """

    timeout_seconds: ClassVar[float] = 25.0

    def produce(self, key: EmbedKey, payload: Any) -> npt.NDArray[np.float32]:
        """The job's vectors. A text the provider refuses (too long, non-finite vector)
        gets a row of NaN: the store sets that document (or query) apart, and the other
        texts of the job are embedded all the same."""
        job: EmbedJob = payload
        deadline = time.monotonic() + self.timeout_seconds
        matrix, refused = job.service.embed_partial(
            job.texts, deadline=deadline, dimension=job.dimension
        )
        for position, reason in refused.items():
            logger.info(
                "embedding worker %s: text %d of %d refused: %s",
                self.config.name,
                position,
                len(job.texts),
                reason,
            )
        return matrix

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

    # -- the predecessor's message protocol ---------------------------------------------

    def request_service(self, msg: EmbeddingRequest) -> EmbeddingService:
        """The service an :class:`EmbeddingRequest` is embedded with: its model and
        provider, endpoint and key from the environment, chosen as a store chooses
        (:meth:`EmbeddingService.from_setting`: without a key, the local model when
        installed). Override to embed with something else."""
        return EmbeddingService.from_setting(msg.embedding_model, msg.embedding_provider)

    def receiveMsg_EmbeddingRequest(self, msg: EmbeddingRequest) -> None:
        """Embed ``msg.entries`` within ``timeout_seconds``, send the creator of this
        worker an :class:`EmbeddingResult` (entries in order, with their vectors) or an
        :class:`EmbeddingError`, then stop."""
        reply: EmbeddingResult | EmbeddingError
        service: EmbeddingService | None = None
        try:
            entries = [VectorEntry.model_validate(entry) for entry in msg.entries]
            service = self.request_service(msg)
            deadline = time.monotonic() + self.timeout_seconds
            matrix = service.embed([entry.text for entry in entries], deadline=deadline)
            reply = EmbeddingResult(
                collection=msg.collection,
                request_id=msg.request_id,
                entries=[
                    entry.model_copy(update={"vector": row})
                    for entry, row in zip(entries, matrix.tolist(), strict=True)
                ],
            )
        except Exception as exc:
            logger.debug("embedding worker %s failed: %s", self.config.name, exc)
            reply = EmbeddingError(
                collection=msg.collection, request_id=msg.request_id, error=f"{exc}"
            )
        finally:
            if service is not None:
                service.close()
        try:
            if self._parent is None:
                logger.warning(
                    "embedding worker %s has nobody to report request %s to",
                    self.config.name,
                    msg.request_id,
                )
            else:
                self.send(self._parent, reply)
        except pykka.ActorDeadError:
            logger.debug("embedding worker %s: its creator is gone", self.config.name)
        finally:
            self.stop()
