"""VectorStoreActor: the team's vector store, one actor per store name (``#VectorStore``).

It implements core's :class:`~akgentic.tool.core.vector_store.VectorStore` protocol and
never waits on an embedding provider: every embedding (documents to index, query texts)
is computed by an :class:`EmbeddingActor` worker it spawns, which reports back with
``deliver`` or ``fail``. The bookkeeping that keeps this correct:

* ``_pending[collection][ref] = request_id`` marks the latest request that may set a
  document's vector; a result for an older request (the document was rewritten or
  deleted meanwhile) is ignored.
* Query embeddings are cached in an LRU keyed by ``(collection, text)``; a text being
  embedded is in flight once, however many callers ask for it.
* A failure opens a *failure episode* for the collection for ``negative_ttl_seconds``:
  searches answer keyword-only (``degraded``), new documents are stored unembedded, and
  no worker is spawned. One warning is logged when a collection starts failing, one info
  line when it recovers. After the episode, the next upsert or search re-embeds the
  documents that missed out.

Persistence is core's :class:`~akgentic.tool.core.delta_actor.DeltaToolActor`, as for
the plan and the knowledge graph: each change emits one ``ToolStateEvent`` (gap-free
``seq``), the state is published on stop, and a restored store replays the newer events
of the team history before it serves a call. What differs is the size of the payloads:
collections are written to the state (or to their workspace file) in
:meth:`VectorStoreActor.on_snapshot`, shortly after they change and paced by the bytes
written (core's ``PacedSnapshots``: ``flush_delay_seconds``,
``snapshot_bytes_per_second``), and the replay redoes drops and removals only (the events
carry refs, not texts; see :mod:`akgentic.tool.vector_store.state`). ``init_state``
rebuilds everything from a restored state when the team resumes.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from typing import TYPE_CHECKING, ClassVar, overload

import numpy as np
import numpy.typing as npt
import pykka

from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.delta_actor import DeltaToolActor, unguarded
from akgentic.tool.core.snapshots import PacedSnapshots, SnapshotCadence
from akgentic.tool.core.vector_store import (
    CollectionConfig,
    CollectionStats,
    UnknownCollectionError,
    UpsertReceipt,
    VectorDocument,
    VectorHit,
    VectorQuery,
    VectorSearchResult,
    VectorStoreConfig,
    embed_worker_name,
    validate_collection_name,
)
from akgentic.tool.vector_store._episodes import FailureEpisodes
from akgentic.tool.vector_store._opening import WORKSPACE_SUBDIR as WORKSPACE_SUBDIR  # its old home
from akgentic.tool.vector_store._opening import CollectionOpener
from akgentic.tool.vector_store._queries import QueryEmbeddings, QueryKey
from akgentic.tool.vector_store._replay import ReplayPlan, plan_replay
from akgentic.tool.vector_store._store_dir import StorePathError
from akgentic.tool.vector_store.backend import (
    CollectionBackend,
    CollectionRecord,
)
from akgentic.tool.vector_store.embedding_actor import (
    EmbeddingActor,
    EmbeddingError,
    EmbeddingResult,
    EmbedJob,
    EmbedKey,
)
from akgentic.tool.vector_store.event import VectorStoreStateEvent
from akgentic.tool.vector_store.inmemory import InMemoryBackend
from akgentic.tool.vector_store.protocol import CollectionStatus, SearchHit, SearchResult
from akgentic.tool.vector_store.state import VectorStoreState
from akgentic.tool.vector_store.tool import VS_ACTOR_NAME, VS_ACTOR_ROLE
from akgentic.tool.vector_store.vector import EmbeddingService, VectorEntry

if TYPE_CHECKING:  # annotations only (postponed by ``from __future__ import annotations``)
    from collections.abc import Sequence

__all__ = ["VS_ACTOR_NAME", "VS_ACTOR_ROLE", "VectorStoreActor", "VectorStoreState"]

logger = logging.getLogger(__name__)


_QUEUED = "queued"
"""Pending mark of a document waiting for a free worker (no request id yet)."""


class VectorStoreActor(DeltaToolActor[VectorStoreConfig, VectorStoreState]):
    """The team's vector store. Create it with ``VectorStoreTool`` (or
    ``getChildrenOrCreate(VectorStoreActor, VectorStoreConfig(name="#VectorStore"))``).

    Class attributes tune it; a subclass may override them:
    """

    delta_type = VectorStoreStateEvent
    subject = "vector store"

    negative_ttl_seconds: ClassVar[float] = 60.0
    """How long a failure keeps a collection keyword-only before embedding is retried."""
    query_cache_size: ClassVar[int] = 1024
    """Query embeddings kept (LRU)."""
    flush_delay_seconds: ClassVar[float] = 1.0
    """Shortest delay between a change and the state snapshot that records it."""
    snapshot_bytes_per_second: ClassVar[float] = 10e6
    """Pace of snapshots of large stores: after writing ``n`` bytes of vectors, the next
    snapshot waits at least ``n / snapshot_bytes_per_second`` seconds, so serialising
    snapshots (here and wherever the team persists them) stays a small share of the
    time however large the collections grow."""
    retry_batch_limit: ClassVar[int] = 2048
    """Most documents re-embedded by one retry worker."""
    worker_class: ClassVar[type[EmbeddingActor]] = EmbeddingActor
    """The worker spawned per embedding request (its ``timeout_seconds`` is the budget)."""
    max_document_workers: ClassVar[int] = 4
    """Document embedding requests in flight at once; more documents wait in a queue and
    go out together when a worker is free (fewer, larger requests to the provider)."""
    worker_report_margin_seconds: ClassVar[float] = 5.0
    """Grace after a worker's budget before its silent job is counted as failed."""

    # -- life cycle ---------------------------------------------------------------------

    def on_start(self) -> None:
        self._queries = QueryEmbeddings(self.query_cache_size)
        self._failures = FailureEpisodes()
        self._dirty: set[str] = set()
        self._service: EmbeddingService | None = None
        self._empty_bookkeeping()
        # Build the embedding client off this thread now: its first use costs seconds of
        # imports, which would otherwise delay the first embedding of the team.
        threading.Thread(
            target=self._service_instance().warm_up, name="embedding-warm-up", daemon=True
        ).start()
        # The actor observes its own state: every publication becomes a
        # StateChangedMessage, which is what the team persists and restores.
        self.state = VectorStoreState()
        self.state.observer(self)
        super().on_start()
        self._rebuild()

    def init_state(self, state: VectorStoreState) -> None:
        """Adopt ``state`` (at start, or the snapshot restored when a team resumes) and
        rebuild every collection from it; newer events are replayed before the next call."""
        super().init_state(state)
        self._rebuild()

    def on_stop(self) -> None:
        self._checkpoint()
        self._schedule.cancel()
        for backend in self._backends.values():
            try:
                backend.close()
            except Exception:
                logger.exception("closing collection %r failed", backend.name)
        if self._service is not None:
            self._service.close()
        super().on_stop()

    @unguarded  # built while the actor starts, before any catch-up
    def embedding_service(self) -> EmbeddingService:
        """Build the service the workers embed with (from the config and environment).

        The configured provider when its key is set; without one, the local model2vec
        model when installed; else a service that cannot embed, and the store answers by
        keyword (see ``embedding_choice``). Override to embed with something else, e.g. a
        function via ``embed_fn``.
        """
        return EmbeddingService.from_setting(
            self.config.embedding_model,
            self.config.embedding_provider,
            batch_size=self.config.embedding_batch_size,
            timeout_seconds=self.config.embedding_timeout_seconds,
        )

    def embedding_description(self) -> str:
        """What this store embeds with, in one line (provider and model, or why none)."""
        return self._service_instance().describe()

    # -- the protocol -------------------------------------------------------------------

    def create_collection(self, name: str, config: CollectionConfig) -> CollectionStats:
        """See :meth:`akgentic.tool.core.vector_store.VectorStore.create_collection`."""
        validate_collection_name(name)
        existing = self._backends.get(name)
        if existing is not None:
            if existing.config != config:
                differing = [
                    field
                    for field in CollectionConfig.model_fields
                    if getattr(existing.config, field) != getattr(config, field)
                ]
                raise ValueError(
                    f"collection {name!r} already exists with different "
                    f"{', '.join(differing)}; drop it first to change them"
                )
            return self.collection_stats(name)
        backend = self._open(name, CollectionRecord(config=config), fresh=True)
        self._backends[name] = backend
        self._pending[name] = {}
        if backend.unembedded():
            self._needs_retry.add(name)
        self._mark_dirty(name)
        self._emit(VectorStoreStateEvent(collection=name, created=True))
        return self.collection_stats(name)

    def drop_collection(self, name: str) -> bool:
        """See :meth:`akgentic.tool.core.vector_store.VectorStore.drop_collection`."""
        backend = self._backends.pop(name, None)
        if backend is None:
            return False
        try:
            backend.drop()
        except (StorePathError, OSError) as exc:
            # Dropped from the store all the same; whatever the path leads to is left alone.
            logger.warning(
                "%s: collection %r dropped, its file was not removed: %s",
                self.config.name,
                name,
                exc,
            )
        finally:
            backend.close()
        self._unsafe_paths.discard(name)
        self._forget(name)
        self.state.drop_record(name)
        self._dirty.discard(name)
        self._emit(VectorStoreStateEvent(collection=name, dropped=True))
        self._publish_snapshot()  # at once: a resumed team must not find it again
        return True

    def list_collections(self) -> list[str]:
        """See :meth:`akgentic.tool.core.vector_store.VectorStore.list_collections`."""
        return sorted(self._backends)

    def collection_stats(self, name: str) -> CollectionStats:
        """See :meth:`akgentic.tool.core.vector_store.VectorStore.collection_stats`."""
        backend = self._backend(name)
        documents, embedded = backend.counts()
        pending = len(self._pending.get(name, {}))
        return CollectionStats(
            name=name,
            config=backend.config,
            documents=documents,
            embedded=embedded,
            pending=pending,
            failed=max(documents - embedded - pending, 0),
        )

    def upsert(self, collection: str, documents: list[VectorDocument]) -> UpsertReceipt:
        """See :meth:`akgentic.tool.core.vector_store.VectorStore.upsert`."""
        backend = self._backend(collection)
        self._expire_jobs()
        latest = list({doc.ref: doc for doc in documents}.values())
        dimension = backend.config.dimension
        for doc in latest:
            if doc.vector is None:
                continue
            if len(doc.vector) != dimension:
                raise ValueError(
                    f"document {doc.ref!r}: vector has {len(doc.vector)} values, "
                    f"collection {collection!r} expects {dimension}"
                )
            if not _usable(doc.vector):
                raise ValueError(
                    f"document {doc.ref!r}: vector contains NaN or infinity, or values too "
                    "large for float32; nothing was changed"
                )
        if not latest:
            return UpsertReceipt(collection=collection, accepted=0, pending=0)
        self._maybe_retry(collection)
        backend.put(latest)
        pending = self._pending.setdefault(collection, {})
        quarantined = self._quarantined.get(collection, set())
        to_embed = [doc for doc in latest if doc.vector is None]
        for doc in latest:
            pending.pop(doc.ref, None)
            quarantined.discard(doc.ref)  # a new text gets a new chance
        request_id: str | None = None
        waiting = 0
        if to_embed:
            if self._episode_error(collection) is None:
                request_id = self._submit_documents(
                    collection, [doc.ref for doc in to_embed], [doc.text for doc in to_embed]
                )
                waiting = len(to_embed)
            else:
                self._needs_retry.add(collection)
        self._mark_dirty(collection)
        self._emit(
            VectorStoreStateEvent(
                collection=collection,
                upserted=[doc.ref for doc in latest],
                embedded=[doc.ref for doc in latest if doc.vector is not None],
            )
        )
        return UpsertReceipt(
            collection=collection,
            accepted=len(latest),
            pending=waiting,
            request_id=request_id,
        )

    def delete(self, collection: str, refs: list[str]) -> int:
        """See :meth:`akgentic.tool.core.vector_store.VectorStore.delete`."""
        backend = self._backend(collection)
        removed = backend.delete(refs)
        pending = self._pending.get(collection, {})
        queued = self._queued.get(collection, {})
        quarantined = self._quarantined.get(collection, set())
        for ref in refs:
            pending.pop(ref, None)
            queued.pop(ref, None)
            quarantined.discard(ref)
        if removed:
            self._mark_dirty(collection)
            self._emit(VectorStoreStateEvent(collection=collection, removed=removed))
        return len(removed)

    @overload
    def search(self, collection: str, query: VectorQuery) -> VectorSearchResult: ...

    @overload
    def search(
        self,
        collection: str,
        query: Sequence[float] | None = None,
        top_k: int | None = None,
        *,
        query_vector: Sequence[float] | None = None,
    ) -> SearchResult: ...

    def search(
        self,
        collection: str,
        query: VectorQuery | Sequence[float] | None = None,
        top_k: int | None = None,
        *,
        query_vector: Sequence[float] | None = None,
    ) -> VectorSearchResult | SearchResult:
        """See :meth:`akgentic.tool.core.vector_store.VectorStore.search`.

        Called the predecessor's way, with a ready vector (``query_vector=`` or in the
        place of ``query``) and ``top_k`` (default 10), it answers a :class:`SearchResult`
        instead: the nearest documents by cosine similarity, the collection's status and
        how many of its documents still wait for a vector.
        """
        if isinstance(query, VectorQuery):
            if query_vector is not None or top_k is not None:
                raise TypeError("pass either a VectorQuery or query_vector/top_k, not both")
            return self._search(collection, query)
        vector = query_vector if query_vector is not None else query
        if vector is None:
            raise TypeError("search needs a VectorQuery, or a query_vector")
        return self._search_vector(collection, vector, 10 if top_k is None else top_k)

    def _search_vector(self, collection: str, vector: Sequence[float], top_k: int) -> SearchResult:
        self._backend(collection)
        # The predecessor's callers only ever search by vector: documents that lost their
        # embedding (or were restored without one) are sent to embed again from here too.
        self._maybe_retry(collection)
        result = self._search(collection, VectorQuery(vector=tuple(vector), top_k=top_k))
        documents, embedded = self._backend(collection).counts()
        waiting = documents - embedded
        status = CollectionStatus.INDEXING if waiting else CollectionStatus.READY
        if self._episode_error(collection) is not None:
            status = CollectionStatus.ERROR
        hits = [
            SearchHit(
                ref_id=hit.ref,
                ref_type=str(hit.metadata.get("ref_type", "")),
                text=hit.text,
                score=hit.score,
            )
            for hit in result.hits
        ]
        return SearchResult(hits=hits, status=status, indexing_pending=waiting)

    def _search(self, collection: str, query: VectorQuery) -> VectorSearchResult:
        backend = self._backend(collection)
        self._expire_jobs()
        if query.vector is not None:
            vector = np.asarray(query.vector, dtype=np.float32)
            if vector.shape[0] != backend.config.dimension:
                raise ValueError(
                    f"query vector has {vector.shape[0]} values, collection "
                    f"{collection!r} expects {backend.config.dimension}"
                )
            return self._vector_result(backend, vector, query)

        text = query.text or ""
        limit = self.config.embedding_max_chars
        if len(text) > limit:
            # This caller's query, not the provider: answered here, no episode for anyone.
            return VectorSearchResult(
                status="degraded",
                hits=backend.keyword_search(text[:limit], query.top_k, query.where),
                reason=(
                    f"query text is {len(text)} characters, over this store's limit of "
                    f"{limit} (embedding_max_chars); keyword matches only. Search with a "
                    "shorter text (a few key phrases) for semantic matches"
                ),
            )
        self._maybe_retry(collection)
        key: QueryKey = (collection, text)
        cached = self._queries.vector(key)
        if cached is not None:
            if not np.any(cached):
                # A text made only of words a (local) model does not know embeds to
                # zeros: it is similar to nothing, which is no error.
                return VectorSearchResult(status="ok", hits=[])
            return self._vector_result(backend, cached, query)
        refused = self._queries.refusal(key)
        if refused is not None:
            return VectorSearchResult(
                status="degraded",
                hits=backend.keyword_search(text, query.top_k, query.where),
                reason=(
                    "the embedding provider refused this query text "
                    f"({refused}); keyword matches only. Rephrase it, shorter"
                ),
            )

        keyword = backend.keyword_search(text, query.top_k, query.where)
        error = self._episode_error(collection)
        if error is not None:
            return VectorSearchResult(
                status="degraded",
                hits=keyword,
                reason=f"embeddings unavailable, keyword matches only: {error}",
            )
        if not self._queries.in_flight(key):
            self._spawn_query(key)
        return VectorSearchResult(
            status="pending", hits=keyword, reason="the query text is being embedded"
        )

    # -- the predecessor's calls ---------------------------------------------------------

    def add(self, collection: str, entries: list[VectorEntry]) -> UpsertReceipt:
        """Store ``entries`` (``VectorEntry`` objects or their dicts, with ``ref_id`` and
        ``ref_type`` as the predecessor named them): :meth:`upsert` under another name.
        Entries with a ``vector`` keep it; the others are embedded by the store."""
        documents = [
            VectorDocument(
                ref=entry.ref, text=entry.text, metadata=entry.metadata, vector=entry.vector
            )
            for entry in (VectorEntry.model_validate(item) for item in entries)
        ]
        return self.upsert(collection, documents)

    def remove(self, collection: str, ref_ids: list[str]) -> int:
        """:meth:`delete` under the predecessor's name: how many documents were removed."""
        return self.delete(collection, list(ref_ids))

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Embed ``texts`` now and return one vector per text (normalised as the provider
        returns them). Blocking, on the actor's thread, bounded by the embedding worker's
        budget: the store itself never calls this; it is for callers that need vectors."""
        deadline = time.monotonic() + self.worker_class.timeout_seconds
        matrix = self._service_instance().embed(list(texts), deadline=deadline)
        rows: list[list[float]] = matrix.tolist()
        return rows

    # -- extras beyond the protocol -----------------------------------------------------

    def entries(self, collection: str) -> list[VectorEntry]:
        """Every document of an in-memory collection, with its (normalised) vector."""
        backend = self._backend(collection)
        if not isinstance(backend, InMemoryBackend):
            raise ValueError(f"collection {collection!r} is not held in memory")
        return backend.entries()

    def flush_state(self) -> None:
        """Write pending changes to the state snapshot (and workspace files) now."""
        self._checkpoint()

    # -- worker callbacks (told by EmbeddingActor) -----------------------------------------

    def deliver(self, key: EmbedKey, value: npt.NDArray[np.float32]) -> None:
        """A worker's vectors, one row per text of its job."""
        self._deadlines.pop(key.request_id, None)
        if key.kind == "query":
            query_key = self._queries.finish(key.request_id)
            if query_key is None or key.collection not in self._backends:
                return
            row = np.asarray(value[0], dtype=np.float32)
            if _usable(row):
                self._queries.keep(query_key, row)
            else:
                self._queries.refuse(query_key)
        else:
            job = self._jobs.pop(key.request_id, None)
            backend = self._backends.get(key.collection)
            if job is None or backend is None:
                return
            _, refs = job
            pending = self._pending.get(key.collection, {})
            current = [i for i, ref in enumerate(refs) if pending.get(ref) == key.request_id]
            for i in current:
                pending.pop(refs[i], None)
            current = self._set_apart(key.collection, refs, current, value)
            if current:
                embedded = [refs[i] for i in current]
                backend.set_vectors(embedded, value[current])
                self._mark_dirty(key.collection)
                self._emit(VectorStoreStateEvent(collection=key.collection, embedded=embedded))
            self._drain_queue()
        if self._failures.close(key.collection):
            logger.info("embeddings for collection %r work again", key.collection)

    # -- the predecessor's worker messages ----------------------------------------------

    def receiveMsg_EmbeddingResult(self, msg: EmbeddingResult) -> None:
        """Vectors for one of this store's embedding requests (``msg.request_id``, as in
        the :class:`UpsertReceipt`), handled exactly as a worker's :meth:`deliver`: they
        are attached to the documents still waiting for that request; a result for a
        request the store does not wait for (unknown, or superseded) is ignored. A
        result that lacks a vector for one of the request's documents, or carries one of
        the wrong length, counts as a failed request (:meth:`fail`)."""
        request_id = msg.request_id
        query = self._queries.request(request_id)
        job = self._jobs.get(request_id)
        vectors: list[list[float] | None]
        if query is not None and query[0] == msg.collection:
            key = EmbedKey(msg.collection, request_id, "query")
            vectors = [msg.entries[0].vector if msg.entries else None]
        elif job is not None and job[0] == msg.collection:
            key = EmbedKey(msg.collection, request_id, "documents")
            by_ref = {entry.ref: entry.vector for entry in msg.entries}
            vectors = [by_ref.get(ref) for ref in job[1]]
        else:
            logger.debug("%s: ignored a result for request %s", self.config.name, request_id)
            return
        dimension = self._backends[msg.collection].config.dimension
        rows: list[list[float]] = []
        for vector in vectors:
            if vector is None or len(vector) != dimension:
                self.fail(
                    key,
                    f"the result of request {request_id} lacks a vector of dimension "
                    f"{dimension} for one of its {len(vectors)} text(s)",
                )
                return
            # A non-finite or overflowing vector is that text's problem: deliver sets it
            # apart (a NaN row) and keeps the others.
            rows.append(vector if _usable(vector) else [float("nan")] * dimension)
        self.deliver(key, np.asarray(rows, dtype=np.float32))

    def receiveMsg_EmbeddingError(self, msg: EmbeddingError) -> None:
        """A failure report for one of this store's embedding requests, handled exactly
        as a worker's :meth:`fail` (the collection answers keyword-only for
        ``negative_ttl_seconds`` and the documents are embedded again afterwards). A
        report for a request the store does not wait for is ignored."""
        request_id = msg.request_id
        query = self._queries.request(request_id)
        job = self._jobs.get(request_id)
        if query is not None and query[0] == msg.collection:
            self.fail(EmbedKey(msg.collection, request_id, "query"), msg.error)
        elif job is not None and job[0] == msg.collection:
            self.fail(EmbedKey(msg.collection, request_id, "documents"), msg.error)
        else:
            logger.debug("%s: ignored a failure of request %s", self.config.name, request_id)

    def fail(self, key: EmbedKey, error: str) -> None:
        """A worker could not embed its job."""
        self._deadlines.pop(key.request_id, None)
        awaited = (
            self._queries.request(key.request_id) is not None
            if key.kind == "query"
            else key.request_id in self._jobs
        )
        if not awaited:
            # A late report of a request already answered or of a dropped collection: it
            # must not open a failure episode on a collection created since under the name.
            logger.debug("%s: ignored a failure of request %s", self.config.name, key.request_id)
            return
        # Opened first, so that queued documents of this collection are not sent out by
        # the drain below while the provider is failing.
        starting = key.collection in self._backends and self._failures.open(
            key.collection, self._now() + self.negative_ttl_seconds, error
        )
        if key.kind == "query":
            self._queries.finish(key.request_id)
        else:
            _, refs = self._jobs.pop(key.request_id)  # awaited, checked above
            pending = self._pending.get(key.collection, {})
            for ref in refs:
                if pending.get(ref) == key.request_id:
                    del pending[ref]
            self._needs_retry.add(key.collection)
            self._drain_queue()
        if starting:
            logger.warning(
                "%s: embedding failed for collection %r (%s); searches are keyword-only "
                "and new documents stay unembedded; retrying in %g s",
                self.config.name,
                key.collection,
                error,
                self.negative_ttl_seconds,
            )

    # -- internals ----------------------------------------------------------------------

    def _set_apart(
        self,
        collection: str,
        refs: list[str],
        current: list[int],
        value: npt.NDArray[np.float32],
    ) -> list[int]:
        """Quarantine the documents whose row the provider refused (NaN, infinity,
        overflow); returns the positions that are fine. Quarantined documents keep their
        text (keyword search finds them) and are not sent again until rewritten."""
        with np.errstate(over="ignore", invalid="ignore"):
            norms = np.linalg.norm(np.asarray(value, dtype=np.float32), axis=1)
        bad = [i for i in current if not np.isfinite(norms[i])]
        if not bad:
            return current
        refused = [refs[i] for i in bad]
        self._quarantined.setdefault(collection, set()).update(refused)
        shown = ", ".join(repr(ref) for ref in refused[:10])
        more = f" and {len(refused) - 10} more" if len(refused) > 10 else ""
        logger.warning(
            "%s: %d document(s) of collection %r could not be embedded (the provider "
            "refused them or returned unusable vectors) and are kept for keyword search "
            "only until rewritten: %s%s",
            self.config.name,
            len(refused),
            collection,
            shown,
            more,
        )
        return [i for i in current if i not in set(bad)]

    def _now(self) -> float:
        return time.monotonic()

    def _backend(self, name: str) -> CollectionBackend:
        backend = self._backends.get(name)
        if backend is None:
            raise UnknownCollectionError(
                f"no collection {name!r} in {self.config.name}; "
                f"create_collection() it first (existing: {sorted(self._backends)})"
            )
        return backend

    def _vector_result(
        self, backend: CollectionBackend, vector: npt.NDArray[np.float32], query: VectorQuery
    ) -> VectorSearchResult:
        hits: list[VectorHit] = backend.vector_search(
            vector, query.top_k, query.score_threshold, query.where
        )
        if query.text:
            # Documents still waiting for their vector (a provider outage, a refusal, a
            # result not back yet) are invisible to the vector search: their keyword
            # matches join it, so "ok" never hides a stored document that matches.
            waiting = backend.waiting_keyword_search(query.text, query.top_k, query.where)
            if waiting:
                hits = sorted(hits + waiting, key=lambda hit: -hit.score)[: query.top_k]
        return VectorSearchResult(status="ok", hits=hits)

    def _episode_error(self, collection: str) -> str | None:
        unavailable = self._service_instance().unavailable
        if unavailable is not None:  # nothing can embed: keyword-only for good
            return unavailable
        return self._failures.error(collection, self._now())

    def _service_instance(self) -> EmbeddingService:
        if self._service is None:
            self._service = self.embedding_service()
            self._announce(self._service)
        return self._service

    def _announce(self, service: EmbeddingService) -> None:
        """Say once, when the store picks its provider, what it embeds with."""
        if service.unavailable is not None:
            logger.warning(
                "%s: semantic search is off, searches match keywords only: %s",
                self.config.name,
                service.unavailable,
            )
        elif service.note is not None:
            logger.info("%s: embeddings by %s", self.config.name, service.describe())

    def _spawn(self, key: EmbedKey, texts: list[str]) -> None:
        # Dead workers stay in _children until pruned; keep the list short.
        if len(self._children) > 32:
            self._children = [child for child in self._children if child.is_alive()]
        dimension = self._backends[key.collection].config.dimension
        # Past the bound a document is embedded from its beginning (queries never get
        # here that long): one long text must not fail its batch at the provider.
        limit = self.config.embedding_max_chars
        job = EmbedJob(tuple(text[:limit] for text in texts), self._service_instance(), dimension)
        # A worker that never reports (killed mid-call) must not leave its documents
        # pending forever: past its budget plus a margin, the job counts as failed.
        self._deadlines[key.request_id] = (
            self._now() + self.worker_class.timeout_seconds + self.worker_report_margin_seconds,
            key,
        )
        worker = self.createActor(
            self.worker_class,
            config=BaseConfig(
                name=embed_worker_name(key.collection, key.request_id), role="EmbeddingActor"
            ),
        )
        self.proxy_tell(worker, EmbeddingActor).run(key, job, self.myAddress)

    def _submit_documents(self, collection: str, refs: list[str], texts: list[str]) -> str | None:
        """Embed now if a worker is free, else queue; returns the request id if spawned."""
        if len(self._jobs) < self.max_document_workers and not self._queued.get(collection):
            return self._spawn_documents(collection, refs, texts)
        queue = self._queued.setdefault(collection, {})
        pending = self._pending.setdefault(collection, {})
        for ref, text in zip(refs, texts, strict=True):
            queue.pop(ref, None)  # re-queued at the end with its newest text
            queue[ref] = text
            pending[ref] = _QUEUED
        return None

    def _drain_queue(self) -> None:
        """Hand queued documents to workers while there is room (oldest collection first)."""
        for collection in list(self._queued):
            if len(self._jobs) >= self.max_document_workers:
                return
            queue = self._queued.pop(collection)
            pending = self._pending.get(collection, {})
            live = {ref: text for ref, text in queue.items() if pending.get(ref) == _QUEUED}
            if not live or collection not in self._backends:
                continue
            if self._episode_error(collection) is not None:
                for ref in live:  # failing now: they wait for the retry after the episode
                    del pending[ref]
                self._needs_retry.add(collection)
                continue
            refs = list(live)[: self.retry_batch_limit]
            rest = {ref: live[ref] for ref in list(live)[len(refs) :]}
            if rest:
                self._queued[collection] = rest
            self._spawn_documents(collection, refs, [live[ref] for ref in refs])

    def _spawn_documents(self, collection: str, refs: list[str], texts: list[str]) -> str:
        request_id = uuid.uuid4().hex[:12]
        pending = self._pending.setdefault(collection, {})
        for ref in refs:
            pending[ref] = request_id
        self._jobs[request_id] = (collection, refs)
        self._spawn(EmbedKey(collection, request_id, "documents"), texts)
        return request_id

    def _spawn_query(self, key: QueryKey) -> None:
        request_id = uuid.uuid4().hex[:12]
        self._queries.start(request_id, key)
        self._spawn(EmbedKey(key[0], request_id, "query"), [key[1]])

    def _expire_jobs(self) -> None:
        """Fail the jobs whose worker is overdue (see :meth:`_spawn`)."""
        if not self._deadlines:
            return
        now = self._now()
        overdue = [key for expiry, key in self._deadlines.values() if expiry <= now]
        for key in overdue:
            self.fail(key, f"the embedding worker of request {key.request_id} never reported")

    def _maybe_retry(self, collection: str) -> None:
        """Re-embed documents whose embedding failed, once the failure episode is over."""
        if collection not in self._needs_retry or self._episode_error(collection) is not None:
            return
        pending = self._pending.get(collection, {})
        quarantined = self._quarantined.get(collection, set())
        missing = {
            ref: text
            for ref, text in self._backends[collection].unembedded().items()
            if ref not in pending and ref not in quarantined
        }
        self._needs_retry.discard(collection)
        if not missing:
            return
        refs = list(missing)[: self.retry_batch_limit]
        if len(missing) > len(refs):
            self._needs_retry.add(collection)  # the rest goes with the next retry
        self._submit_documents(collection, refs, [missing[ref] for ref in refs])

    def _forget(self, name: str) -> None:
        self._pending.pop(name, None)
        self._quarantined.pop(name, None)
        self._queued.pop(name, None)
        self._needs_retry.discard(name)
        self._failures.forget(name)
        for request_id in [rid for rid, job in self._jobs.items() if job[0] == name]:
            del self._jobs[request_id]
            self._deadlines.pop(request_id, None)
        for request_id in self._queries.forget(name):
            self._deadlines.pop(request_id, None)

    def _open(self, name: str, record: CollectionRecord, *, fresh: bool) -> CollectionBackend:
        opener = CollectionOpener(self.config.name, self.team_id, self.config)
        opened = opener.open(name, record, fresh=fresh)
        if opened.unsafe_path:
            self._unsafe_paths.add(name)
        if opened.set_aside is not None:
            self.state.set_aside(*opened.set_aside)
        if opened.rewrite:
            self._mark_dirty(name)  # the damaged record is replaced at the next snapshot
        return opened.backend

    def _empty_bookkeeping(self) -> None:
        """No open collection, and nothing waiting, queued or set apart for any."""
        self._backends: dict[str, CollectionBackend] = {}
        self._pending: dict[str, dict[str, str]] = {}
        self._jobs: dict[str, tuple[str, list[str]]] = {}
        self._queued: dict[str, dict[str, str]] = {}
        self._deadlines: dict[str, tuple[float, EmbedKey]] = {}
        self._quarantined: dict[str, set[str]] = {}
        self._needs_retry: set[str] = set()
        self._unsafe_paths: set[str] = set()

    def _rebuild(self) -> None:
        for backend in self._backends.values():
            backend.close()
        self._empty_bookkeeping()
        self._queries.clear()
        self._failures.clear()
        for name, record in list(self.state.collections.items()):
            try:
                backend = self._open(name, record, fresh=False)
            except Exception:
                # Keep the record (it stays in the state) but leave the collection out, so
                # one unreadable collection does not stop the team from resuming.
                logger.exception("%s: could not restore collection %r", self.config.name, name)
                continue
            self._backends[name] = backend
            self._pending[name] = {}
            if backend.unembedded():
                self._needs_retry.add(name)

    # -- persistence (core's DeltaToolActor hooks) -------------------------------------

    def _snapshot_cadence(self) -> SnapshotCadence:
        """Snapshots a delay after a change, paced by the bytes of vectors they write."""
        self._snapshots = PacedSnapshots(
            self.flush_delay_seconds, self.snapshot_bytes_per_second, self._request_flush
        )
        return self._snapshots

    def _mark_dirty(self, collection: str) -> None:
        self._dirty.add(collection)
        self._snapshots.arm()

    def _request_flush(self) -> None:
        """Runs on the timer thread: ask the actor (a message, not a direct call)."""
        with contextlib.suppress(pykka.ActorDeadError):
            self.actor_ref.proxy().flush_state()

    def on_snapshot(self) -> None:
        """Write the collections changed since the last snapshot into the state (and
        their workspace files); one that cannot be written is tried again next time."""
        if not self._dirty:
            return
        dirty, self._dirty = self._dirty, set()
        for name in sorted(dirty):
            backend = self._backends.get(name)
            if backend is None:
                continue
            try:
                backend.flush()
                self.state.put_record(name, backend.record())
                self._unsafe_paths.discard(name)
            except StorePathError as exc:
                # Kept in memory; tried again at the next flush, warned about once. The
                # state still remembers the collection (its config), so a resume has it.
                self.state.put_record(name, backend.record())
                if name not in self._unsafe_paths:
                    self._unsafe_paths.add(name)
                    logger.warning(
                        "%s: collection %r is not written: %s; it is kept in memory only",
                        self.config.name,
                        name,
                        exc,
                    )
                self._dirty.add(name)
            except Exception:
                logger.exception("%s: could not persist collection %r", self.config.name, name)
                self._dirty.add(name)

    def on_ready(self) -> None:
        """Redo what the events replayed from the history can tell (see ``state``)."""
        replayed = self.state.take_replayed()
        if replayed:
            self._redo(plan_replay(replayed))

    def _redo(self, plan: ReplayPlan) -> None:
        for name in plan.dropped:
            backend = self._backends.pop(name, None)
            if backend is not None:  # its data went with the drop; only forget it here
                backend.close()
                self._forget(name)
            self.state.drop_record(name)
            self._dirty.discard(name)
        for name, refs in plan.removed.items():
            backend = self._backends.get(name)
            if backend is not None and backend.delete(refs):
                self._mark_dirty(name)
        for name in plan.missing_collections:
            logger.warning(
                "%s: collection %r was created after the last snapshot and is missing; "
                "its writer creates it again",
                self.config.name,
                name,
            )
        for name, refs in plan.missing.items():
            if name in plan.missing_collections:
                continue
            logger.warning(
                "%s: %d document(s) of collection %r written after the last snapshot may "
                "be missing or old (events carry no texts): %s; their writer sends them again",
                self.config.name,
                len(refs),
                name,
                ", ".join(repr(ref) for ref in refs[:10]) + (" ..." if len(refs) > 10 else ""),
            )

    def __repr__(self) -> str:
        return f"<VectorStoreActor {getattr(self.config, 'name', '?')}>"


def _usable(vector: Sequence[float] | npt.NDArray[np.float32]) -> bool:
    """Whether ``vector`` is finite as float32 with a finite norm (so it can be
    normalised and stored): 1e39 overflows float32, 3e38 in every slot its norm."""
    with np.errstate(over="ignore", invalid="ignore"):
        row = np.asarray(vector, dtype=np.float32)
        return bool(np.isfinite(np.linalg.norm(row)))
