"""The vector-store contract: what planning, the knowledge graph and any other consumer
may assume about a team's vector store actor.

The store itself (its actor, index, embedding workers and backends) ships in the
``akgentic-tool-vector-store`` distribution. Consumers must not import that package:
they find the store **by actor name** at run time and talk to it through the
:class:`VectorStore` protocol defined here, so the two sides meet only in core.

How a consumer uses it
======================

1. Decide which store to use from its card's ``vector_store`` field with
   :func:`resolve_vector_store_name` (``True`` -> :data:`VECTOR_STORE_NAME`, a string ->
   that store, ``False`` -> none).
2. Find the store with :func:`lookup_vector_store`. ``None`` means no such actor in
   the team (package not installed, ``VectorStoreTool`` not on any agent, or disabled):
   the consumer carries on with keyword search only.
3. When the consumer's own actor starts, call :meth:`VectorStore.create_collection`
   with the consumer's :class:`CollectionConfig`. It is idempotent: a resumed team calls
   it again and keeps its data.
4. On writes, call :meth:`VectorStore.upsert` / :meth:`VectorStore.delete`.
5. On a natural-language query, call :func:`search_text`, which performs the bounded
   poll described below and never raises for an embedding problem.

Never blocking the store
========================

The store is a team singleton with a single thread, so it never calls an embedding
provider itself:

* ``upsert`` of documents without a precomputed vector returns an
  :class:`UpsertReceipt` at once. The texts are handed to a short-lived worker named
  ``#embed-<collection>-<request_id>`` (see :func:`embed_worker_name`) whose result
  comes back to the store as a message. Until then the documents are stored and
  found by keyword, just not by vector (even by a search that answers ``ok``). A
  later upsert or delete of the same ``ref`` wins over a late embedding result.
* ``search`` with a query *text* looks the text up in the store's query-embedding
  cache (a dictionary lookup). On a miss it starts one worker for that text (at most
  one per text, however many callers ask) and answers immediately with status
  ``"pending"`` plus the keyword-only hits it can compute from stored texts. The caller
  asks again a bounded number of times (:func:`search_text` does this with
  ``akgentic.tool.core.deferred.poll_deferred``); when the budget runs out it keeps the
  keyword-only answer, marked ``"degraded"``.
* When the provider fails, the failure is cached for a while (no new worker on every
  poll), searches answer ``"degraded"`` with keyword hits and a ``reason``, and the
  store logs one warning per failure episode. A consumer's tool call never fails
  because embeddings are unavailable.

Scores
======

Vector hits carry the cosine similarity of the query and the stored vector (in
``[-1, 1]``; ``score_threshold`` is compared with it). Keyword hits carry ``1.0`` when the
whole query occurs in the text (case-insensitively) and otherwise the fraction of the
query's words found in it. :attr:`VectorHit.match` says which kind a hit is, so a consumer
can apply its own scoring rules (the knowledge graph adds 0.5 to an item found both
ways, for example).

This module depends only on pydantic, the standard library, akgentic-core and the rest of
akgentic-tool-core (never on a domain package, numpy or openai).
"""

from __future__ import annotations

import re
from typing import Annotated, Final, Literal, Protocol, Self, cast, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_address_impl import ActorAddressImpl
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.deferred import poll_deferred
from akgentic.tool.core.observer import ActorToolObserver

__all__ = [
    "DEFAULT_POLL_ATTEMPTS",
    "DEFAULT_POLL_DELAY",
    "EMBED_WORKER_PREFIX",
    "VECTOR_STORE_NAME",
    "CollectionConfig",
    "CollectionStats",
    "MetadataValue",
    "SearchStatus",
    "UnknownCollectionError",
    "UpsertReceipt",
    "VectorDocument",
    "VectorHit",
    "VectorQuery",
    "VectorSearchResult",
    "VectorStore",
    "VectorStoreConfig",
    "embed_worker_name",
    "lookup_vector_store",
    "resolve_vector_store_name",
    "search_text",
    "validate_collection_name",
]

VECTOR_STORE_NAME: Final = "#VectorStore"
"""Actor name of the team's default vector store (``VectorStoreTool()`` creates it)."""

EMBED_WORKER_PREFIX: Final = "#embed-"
"""Name prefix of the store's embedding workers. The ``#`` marks them as tool actors so
the orchestrator's two-phase teardown does not wait on them as if they were members."""

DEFAULT_POLL_ATTEMPTS: Final = 5
"""How many times :func:`search_text` asks again while a query is being embedded."""

DEFAULT_POLL_DELAY: Final = 0.2
"""Seconds between two asks of :func:`search_text` (1 s of budget with the default)."""

MetadataValue = str | int | float | bool
"""Values a document's metadata may hold; they can be filtered on with equality."""

SearchStatus = Literal["ok", "pending", "degraded"]
"""``ok``: vector search ran (for a query with text, documents still waiting for their
vector join it with their keyword matches). ``pending``: the query text is being embedded
and the hits are keyword-only for now. ``degraded``: no vector search is possible for this
query (the provider failed, or the caller's poll budget ran out); the hits are
keyword-only."""

# Matched with fullmatch: "$" would also accept a name ending in a newline ("notes\n"),
# which then reaches file names and actor names.
_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")


class UnknownCollectionError(KeyError):
    """Raised by the store for an operation on a collection it was never asked to create."""


class VectorStoreConfig(BaseConfig):
    """Configuration of a vector store actor (its ``name`` is the actor name).

    Built by ``VectorStoreTool`` from its card fields; consumers never create one. The
    embedding provider's endpoint and credentials come from the deployment's
    environment, never from here. Weaviate's connection comes from the environment too
    (``WEAVIATE_*``); ``weaviate_url`` and ``weaviate_api_key``, the predecessor's fields,
    override it for this store when code that creates the actor itself sets them (no
    card sets them). Qdrant is placed the same way: ``qdrant_url`` / ``qdrant_path`` /
    ``qdrant_location`` (at most one) over the ``QDRANT_*`` environment.
    """

    embedding_model: str = "text-embedding-3-small"
    embedding_provider: Literal["openai", "azure", "local", "auto"] = "openai"
    """``openai``/``azure``: that provider when its key is set, else the local model when
    the store's ``local-embeddings`` extra is installed. ``local``: a model2vec model in
    the store's process (``embedding_model`` is its folder or name). ``auto``: a hosted
    provider whose key is set, else local."""
    embedding_batch_size: Annotated[int, Field(ge=1, le=2048)] = 256
    embedding_timeout_seconds: Annotated[float, Field(gt=0, le=25)] = 10.0
    """Per-request budget handed to the HTTP client. Kept under the orchestrator's 30 s
    stop backstop: a worker blocked in a call holds its parent's stop open."""
    embedding_max_chars: Annotated[int, Field(ge=1, le=1_000_000)] = 8000
    """Longest text sent to the embedding provider. A longer document is stored whole
    (and found by keyword on all of it) but embedded from its first ``embedding_max_chars``
    characters; a longer query text is not embedded at all: that one search answers
    ``degraded`` with a reason saying to shorten it (nobody else's searches are affected).
    8,000 characters stay under the 8,191-token input limit of OpenAI's embedding models
    for ordinary text."""
    weaviate_url: str | None = None
    """Weaviate REST endpoint (``http[s]://host[:port]``) of this store's
    ``backend="weaviate"`` collections. Replaces ``WEAVIATE_HTTP_HOST`` / ``_PORT`` /
    ``_SECURE`` and is the gRPC host unless ``WEAVIATE_GRPC_HOST`` is set; ``None``: the
    environment decides."""
    weaviate_api_key: str | None = Field(default=None, repr=False)
    """Weaviate API key of this store, replacing ``WEAVIATE_API_KEY``; ``None``: the
    environment decides. Kept out of ``repr`` (it is still part of the config's dump,
    as it was in the predecessor's)."""
    qdrant_url: str | None = None
    """Qdrant server (or cluster) endpoint of this store's ``backend="qdrant"``
    collections, e.g. ``http://qdrant:6333``; replaces ``QDRANT_URL``."""
    qdrant_api_key: str | None = Field(default=None, repr=False)
    """Qdrant API key sent with ``qdrant_url``; replaces ``QDRANT_API_KEY``. Kept out of
    ``repr``."""
    qdrant_path: str | None = None
    """Directory of an embedded Qdrant kept on disk (replaces ``QDRANT_PATH``); a relative
    path is resolved against the workspaces root. With none of ``qdrant_url``,
    ``qdrant_path``, ``qdrant_location`` nor their variables set, the store keeps its
    embedded Qdrant under the team's workspace."""
    qdrant_location: Literal[":memory:"] | None = None
    """``":memory:"``: an embedded Qdrant held in this process only (gone when the last
    store using it stops)."""

    @model_validator(mode="after")
    def _one_qdrant_place(self) -> Self:
        given = [
            name
            for name in ("qdrant_url", "qdrant_path", "qdrant_location")
            if getattr(self, name) is not None
        ]
        if len(given) > 1:
            raise ValueError(
                f"set at most one of qdrant_url, qdrant_path, qdrant_location "
                f"(got {', '.join(given)})"
            )
        return self


class CollectionConfig(BaseModel):
    """How one consumer's collection is stored. Each consumer card carries one.

    ``dimension`` must match what the embedding model returns: an embedding of another
    size is treated as a provider failure (keyword-only answers and a warning).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    dimension: Annotated[int, Field(gt=0, le=65536)] = 1536
    backend: Literal["inmemory", "weaviate", "qdrant"] = "inmemory"
    persistence: Literal["actor_state", "workspace"] = "actor_state"
    """``actor_state``: vectors live in the store actor's state and come back when the
    team resumes. ``workspace``: they are written to a file under ``workspace_path``
    (atomically) and read back from it; the actor state then only remembers the
    collection. Only the ``inmemory`` backend persists itself; Weaviate and Qdrant are
    their own storage."""
    workspace_path: str | None = None
    """Directory for ``persistence="workspace"``. A relative path is resolved against the
    workspaces root (``AKGENTIC_WORKSPACES_ROOT``); ``None`` means the team's workspace
    directory."""
    tenant: str | None = None
    """Tenant of this collection: a Weaviate tenant, or in Qdrant a payload partition of
    one collection shared by the teams naming it; the in-memory backend, which is per
    team already, ignores it."""

    @model_validator(mode="after")
    def _check_combination(self) -> Self:
        if self.backend != "inmemory" and self.persistence == "workspace":
            raise ValueError(
                "persistence='workspace' applies to backend='inmemory' only; "
                f"{self.backend.capitalize()} stores the vectors itself"
            )
        if self.workspace_path is not None and self.persistence != "workspace":
            raise ValueError("workspace_path is only read when persistence='workspace'")
        return self


class VectorDocument(BaseModel):
    """One item to store: a consumer-chosen ``ref`` (unique within the collection), the
    text to embed and to match keywords against, optional metadata, and optionally a
    vector computed elsewhere (then no embedding happens for it)."""

    model_config = ConfigDict(extra="forbid")

    ref: Annotated[str, Field(min_length=1, max_length=512)]
    text: str
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    vector: list[float] | None = None


class UpsertReceipt(BaseModel):
    """What ``upsert`` answers, at once.

    ``pending`` of the ``accepted`` documents wait for their embedding, done by the worker
    ``#embed-<collection>-<request_id>``. ``request_id`` is ``None`` when no document
    needed an embedding, or when the store already has as many embedding requests in
    flight as it allows: the documents then wait in its queue and go out together.
    """

    collection: str
    accepted: int
    pending: int
    request_id: str | None = None


class VectorQuery(BaseModel):
    """A search: by ``text`` (embedded by the store's workers), by a ready ``vector``, or
    both (the vector is used for similarity, the text for the keyword fallback).

    ``score_threshold`` is the minimum cosine similarity of a vector hit. ``where`` keeps
    only documents whose metadata equals every given value.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str | None = None
    vector: tuple[float, ...] | None = None
    top_k: Annotated[int, Field(ge=1, le=1000)] = 10
    score_threshold: Annotated[float, Field(ge=-1.0, le=1.0)] = 0.0
    where: dict[str, MetadataValue] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _needs_something(self) -> Self:
        if self.vector is None and not (self.text and self.text.strip()):
            raise ValueError("a VectorQuery needs a non-empty text or a vector")
        return self


class VectorHit(BaseModel):
    """One result. ``match`` tells a cosine hit (``"vector"``) from a keyword one."""

    ref: str
    score: float
    text: str
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    match: Literal["vector", "keyword"] = "vector"


class VectorSearchResult(BaseModel):
    """The answer to ``search``: hits sorted by score (highest first), the status (see
    :data:`SearchStatus`), and, unless ``ok``, a human-readable ``reason``."""

    status: SearchStatus
    hits: list[VectorHit] = Field(default_factory=list)
    reason: str | None = None


class CollectionStats(BaseModel):
    """What the store knows about a collection: its configuration, how many documents it
    holds, how many of those have a vector, and how many wait for or lost their
    embedding."""

    name: str
    config: CollectionConfig
    documents: int
    embedded: int
    pending: int
    failed: int


@runtime_checkable
class VectorStore(Protocol):
    """The methods of the vector store actor that consumers call, through an ask proxy.

    Every method answers without waiting for an embedding provider (see the module
    documentation). Collection names are 1 to 63 characters from letters, digits, ``_``,
    ``.`` and ``-``, starting with a letter or digit. An unknown collection raises
    :class:`UnknownCollectionError`; invalid arguments raise ``ValueError``.
    """

    def create_collection(self, name: str, config: CollectionConfig) -> CollectionStats:
        """Create ``name`` or, when it exists with the same config, return it untouched.

        A different config for an existing collection raises ``ValueError`` naming the
        fields that differ: changing the dimension or backend means dropping it first.
        """
        ...

    def drop_collection(self, name: str) -> bool:
        """Delete a collection and everything in it; ``False`` if there was none."""
        ...

    def list_collections(self) -> list[str]:
        """Names of the existing collections, sorted."""
        ...

    def collection_stats(self, name: str) -> CollectionStats:
        """Counts and configuration of one collection."""
        ...

    def upsert(self, collection: str, documents: list[VectorDocument]) -> UpsertReceipt:
        """Insert or replace documents by ``ref``; embedding happens in a worker.

        Documents carrying a ``vector`` are indexed immediately (its length must equal the
        collection's dimension, else ``ValueError`` naming the ref). A ``ref`` repeated in
        one call keeps its last occurrence.
        """
        ...

    def delete(self, collection: str, refs: list[str]) -> int:
        """Remove documents by ``ref``; unknown refs are ignored. Returns how many went."""
        ...

    def search(self, collection: str, query: VectorQuery) -> VectorSearchResult:
        """One non-blocking search attempt; see :func:`search_text` for the full loop."""
        ...


def embed_worker_name(collection: str, request_id: str) -> str:
    """Actor name of the worker embedding ``request_id``'s texts for ``collection``."""
    return f"{EMBED_WORKER_PREFIX}{collection}-{request_id}"


def validate_collection_name(name: str) -> str:
    """Return ``name`` if it is a valid collection name, else raise ``ValueError``."""
    if not isinstance(name, str) or _NAME_PATTERN.fullmatch(name) is None:
        raise ValueError(
            f"invalid collection name {name!r}: use 1-63 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return name


def resolve_vector_store_name(value: bool | str) -> str | None:
    """Turn a consumer card's ``vector_store`` field into a store actor name.

    ``True`` selects :data:`VECTOR_STORE_NAME`, ``False`` disables semantic search
    (``None``), and a string names a store created by
    ``VectorStoreTool(vector_store_name=...)``; it must start with ``#`` like every tool
    actor name.
    """
    if value is True:
        return VECTOR_STORE_NAME
    if value is False:
        return None
    if not value.startswith("#") or len(value) < 2:
        raise ValueError(
            f"vector_store={value!r}: a store name is a tool actor name and starts with '#', "
            f"e.g. {VECTOR_STORE_NAME!r}"
        )
    return value


def lookup_vector_store(observer: ActorToolObserver, name: str) -> VectorStore | None:
    """Find the team's store called ``name`` and return an ask proxy typed as
    :class:`VectorStore`, or ``None`` when the team has no live actor of that name.

    It asks the orchestrator for the team member, so call it after the store was created
    (``ToolFactory`` wires ``VectorStoreTool`` first when a consumer declares
    ``depends_on=["VectorStoreTool"]``). Works from a card (with its observer) and from an
    actor (an ``Akgent`` satisfies :class:`ActorToolObserver`).
    """
    if observer.orchestrator is None:
        return None
    orchestrator = observer.proxy_ask(observer.orchestrator, Orchestrator)
    # After a resume the roster also lists addresses replayed from history: snapshots
    # that claim to be alive but cannot carry a call. Only a running actor will do.
    live = [
        member
        for member in cast(list[ActorAddress], orchestrator.get_team())
        if member.name == name and isinstance(member, ActorAddressImpl) and member.is_alive()
    ]
    if not live:
        return None
    return cast(VectorStore, observer.proxy_ask(live[-1]))


def search_text(
    store: VectorStore,
    collection: str,
    query: VectorQuery,
    *,
    attempts: int = DEFAULT_POLL_ATTEMPTS,
    delay: float = DEFAULT_POLL_DELAY,
) -> VectorSearchResult:
    """Search ``collection`` and wait a bounded time for the query's embedding.

    Asks the store once; while it answers ``pending``, asks again up to ``attempts`` times,
    ``delay`` seconds apart (on the caller's thread, so the store stays free). If the
    budget runs out, returns the latest keyword-only hits with status ``degraded``. An
    unknown collection still raises :class:`UnknownCollectionError`: that is a wiring bug,
    not an embedding problem.
    """
    latest: list[VectorSearchResult] = [store.search(collection, query)]
    if latest[0].status != "pending":
        return latest[0]

    def _settled() -> VectorSearchResult | None:
        result = store.search(collection, query)
        latest[0] = result
        return None if result.status == "pending" else result

    settled = poll_deferred(_settled, attempts, delay)
    if settled is not None:
        return settled
    return VectorSearchResult(
        status="degraded",
        hits=latest[0].hits,
        reason=f"the query embedding was not ready within {attempts} x {delay:g} s",
    )
