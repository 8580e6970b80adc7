"""How a consumer tool binds to the team's vector store, on both of its sides.

A consumer (planning, the knowledge graph, a third-party tool) has two halves that use the
store differently, and this module gives each one its binding:

* the **card** declares a dependency on ``VectorStoreTool`` only where that card class
  exists (:func:`vector_store_dependencies`), and queries the store from the calling
  agent's thread with :class:`VectorSearchClient`, so a slow query embedding never holds
  the consumer's actor. Any failure becomes a note in the tool's answer: search carries on
  by keyword. :class:`ConsumerBinding` holds both runtime handles of such a card once it is
  bound (the team's shared actor and the search client), and :class:`VectorConsumerCard`
  is the base of such a card (planning and the knowledge graph).
* the consumer's **tool actor** keeps its collection in the store in step with its state
  through :class:`CollectionMirror`: it looks the store up on first need (and again at most
  every ``retry_seconds`` while there is none), creates the collection (idempotent, so a
  resumed team keeps its vectors), re-sends every document when the store's count
  disagrees with the actor's (a store that came later or lost its data), and then mirrors
  each change. A store that fails never fails the actor.

Both build on the contract in :mod:`akgentic.tool.core.vector_store`; neither imports the
package that implements the store.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

import pykka
from pydantic import Field, PrivateAttr

from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.dependencies import known_card_names
from akgentic.tool.core.observer import ActorToolObserver, ToolObserver
from akgentic.tool.core.shared_actor import ask_shared_actor, bind_shared_actor
from akgentic.tool.core.vector_store import (
    CollectionConfig,
    UnknownCollectionError,
    VectorDocument,
    VectorQuery,
    VectorStore,
    lookup_vector_store,
    resolve_vector_store_name,
    search_text,
)

__all__ = [
    "UNAVAILABLE_NOTE",
    "UPSERT_CHUNK",
    "VECTOR_STORE_CARD",
    "CollectionMirror",
    "ConsumerBinding",
    "VectorConsumerCard",
    "VectorConsumerConfig",
    "VectorHits",
    "VectorSearchClient",
    "consumer_settings",
    "vector_store_dependencies",
]

logger = logging.getLogger(__name__)

VECTOR_STORE_CARD: Final = "VectorStoreTool"
"""Class name of the card that creates the team's store (the ``depends_on`` entry)."""

UPSERT_CHUNK: Final = 500
"""Documents per ``upsert`` call when a whole collection is (re-)sent to the store."""

UNAVAILABLE_NOTE: Final = "semantic search unavailable (no usable vector store in this team)"
"""The note a search carries when semantic search is on but no store can answer."""

VectorHits = tuple[list[tuple[str, float]], str | None]
"""What a semantic search gives a consumer: ``(ref, cosine)`` pairs of vector hits, and a
note for the tool's answer when semantic search was degraded or off (else ``None``)."""


def vector_store_dependencies(vector_store: bool | str, depends_on: Sequence[str]) -> list[str]:
    """A consumer card's ``depends_on`` with the store's card added where it should be.

    ``vector_store`` is the card's field (``True``, a ``#``-name, or ``False``); a malformed
    name raises ``ValueError``. The dependency is declared when semantic search is wanted
    and the ``VectorStoreTool`` class is installed: where it is not, naming it would be a
    configuration error, and the consumer searches by keyword instead. Other entries keep
    their order.
    """
    resolve_vector_store_name(vector_store)  # rejects a malformed store name
    wanted = vector_store is not False and VECTOR_STORE_CARD in known_card_names()
    deps = [name for name in depends_on if name != VECTOR_STORE_CARD]
    return [*deps, VECTOR_STORE_CARD] if wanted else deps


class VectorSearchClient:
    """The card side: queries the consumer's collection from the calling agent's thread.

    ``tool`` names the consumer in log lines; ``collection`` is the collection its actor
    mirrors into. The store proxy is looked up once and kept; :meth:`reset` forgets it
    (call it when the card is bound again), and so does a search that finds the store or
    the collection gone.
    """

    def __init__(self, tool: str, collection: str) -> None:
        self.tool = tool
        self.collection = collection
        self._store: VectorStore | None = None

    def reset(self) -> None:
        """Forget the store proxy: the next search looks the store up again."""
        self._store = None

    def lookup(
        self,
        observer: ToolObserver | None,
        vector_store: bool | str,
        mirrored: Callable[[], bool],
    ) -> VectorStore | None:
        """An ask proxy to the store, or ``None`` when semantic search is off.

        ``mirrored`` asks the consumer's actor whether it keeps the collection in a store:
        the actor decides (it binds the store and keeps the collection in step), the card
        only queries. ``observer`` is the carrying agent (``None`` once it is gone).
        """
        name = resolve_vector_store_name(vector_store)
        if name is None or not mirrored():
            return None
        if self._store is None and observer is not None:
            self._store = lookup_vector_store(cast(ActorToolObserver, observer), name)
        return self._store

    def vector_hits(
        self,
        observer: ToolObserver | None,
        vector_store: bool | str,
        mirrored: Callable[[], bool],
        text: str,
        *,
        top_k: int,
        threshold: float,
        disabled_note: str | None = None,
    ) -> VectorHits:
        """Vector hits for ``text`` scoring at least ``threshold``, and a note.

        Never raises: without a store the hits are empty and the note is ``disabled_note``
        when the card turned semantic search off (``vector_store=False``), else
        :data:`UNAVAILABLE_NOTE`; a failed or degraded search says so in the note. Keyword
        hits the store returns are left out: the consumer matches keywords itself.
        """
        try:
            store = self.lookup(observer, vector_store, mirrored)
        except Exception as exc:
            logger.warning("%s: vector store lookup failed: %s", self.tool, exc)
            store = None
        if store is None:
            return [], (disabled_note if vector_store is False else UNAVAILABLE_NOTE)
        try:
            result = search_text(
                store,
                self.collection,
                VectorQuery(text=text, top_k=top_k, score_threshold=threshold),
            )
        except (UnknownCollectionError, pykka.ActorDeadError) as exc:
            self._store = None
            return [], f"semantic search unavailable ({type(exc).__name__})"
        except Exception as exc:
            logger.warning("%s: vector search failed: %s", self.tool, exc)
            return [], f"semantic search failed ({type(exc).__name__})"
        hits = [
            (hit.ref, hit.score)
            for hit in result.hits
            if hit.match == "vector" and hit.score >= threshold
        ]
        note = None if result.status == "ok" else f"semantic search degraded: {result.reason}"
        return hits, note


class _MirroringActor(Protocol):
    def semantic_enabled(self) -> bool: ...


class ConsumerBinding[A: Akgent[Any, Any]]:
    """The card side of a consumer once bound: its team's shared actor, and semantic search
    over the collection that actor mirrors.

    ``card`` names the consumer in errors and logs; ``what`` names its state in the message
    the model gets while the team stops (``"The team plan"``); ``disabled_note`` is the
    note of a search when the card turned semantic search off. Make one in the card's
    ``observer()`` (a card holding one compares unequal to its reloaded dump, so a fresh
    card holds none) and :meth:`bind` it there.
    """

    def __init__(
        self,
        card: str,
        actor_class: type[A],
        *,
        what: str,
        collection: str,
        disabled_note: str | None = None,
    ) -> None:
        self.card = card
        self.actor_class = actor_class
        self.what = what
        self.disabled_note = disabled_note
        self._actor: A | None = None
        self._vectors = VectorSearchClient(card, collection)

    def bind(self, observer: ToolObserver, config: BaseConfig) -> None:
        """Get or create the team's actor configured by ``config`` (see ``bind_shared_actor``)."""
        self._actor = bind_shared_actor(observer, self.actor_class, config, card=self.card)
        self._vectors.reset()  # look the store up again on the next search

    def ask[T](self, call: Callable[[A], T]) -> T:
        """``call(actor)`` through the ask proxy; a stopped actor is a ``RetriableError``."""
        actor = self._actor
        if actor is None:
            raise RuntimeError(f"{self.card} is not bound: build it through ToolFactory")
        return ask_shared_actor(lambda: call(actor), what=self.what)

    def vector_hits(
        self,
        observer: ToolObserver | None,
        vector_store: bool | str,
        text: str,
        *,
        top_k: int,
        threshold: float,
    ) -> VectorHits:
        """Vector hits for ``text``, searched on the caller's thread (never raises)."""
        return self._vectors.vector_hits(
            observer,
            vector_store,
            lambda: self.ask(lambda actor: cast(_MirroringActor, actor).semantic_enabled()),
            text,
            top_k=top_k,
            threshold=threshold,
            disabled_note=self.disabled_note,
        )


def consumer_settings(card: Any) -> dict[str, Any]:
    """The search settings a consumer card hands its actor's configuration: its
    ``vector_store``, ``collection``, ``search_top_k`` and ``search_score_threshold``."""
    names = ("vector_store", "collection", "search_top_k", "search_score_threshold")
    return {name: getattr(card, name) for name in names}


class VectorConsumerCard(ToolCard):
    """Base of a card whose team actor mirrors a collection into the vector store.

    It declares no field, so a subclass keeps its fields in its own order: the subclass
    has ``vector_store`` and the settings :func:`consumer_settings` reads. The base wires
    the card after the store's card where that class is installed (keyword search only
    otherwise), keeps the :class:`ConsumerBinding` its ``observer()`` hands to
    :meth:`_bind_shared`, and searches through it.
    """

    if TYPE_CHECKING:
        vector_store: bool | str

    # Made by observer(): a fresh card holds none, so it equals its reloaded dump.
    _shared: ConsumerBinding[Any] | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self.depends_on = vector_store_dependencies(self.vector_store, self.depends_on)

    def _bind_shared(
        self, observer: ToolObserver, binding: ConsumerBinding[Any], config: BaseConfig
    ) -> None:
        """Bind ``binding`` to the team's actor configured by ``config``, and keep it."""
        binding.bind(observer, config)
        self._shared = binding

    def _shared_binding(self) -> ConsumerBinding[Any]:
        if self._shared is None:
            raise RuntimeError(f"{type(self).__name__} is not bound: build it through ToolFactory")
        return self._shared

    def _vector_hits(self, text: str, *, top_k: int, threshold: float) -> VectorHits:
        """Vector hits for ``text``, searched on this (the caller's) thread."""
        return self._shared_binding().vector_hits(
            self.get_observer_or_none(), self.vector_store, text, top_k=top_k, threshold=threshold
        )


class VectorConsumerConfig(BaseConfig):
    """The vector-store part of a consumer actor's configuration (a base of its config).

    ``vector_store`` and ``collection`` come from the consumer's card; see
    :class:`CollectionMirror` for ``store_retry_seconds``.
    """

    vector_store: bool | str = True
    collection: CollectionConfig = Field(default_factory=CollectionConfig)
    store_retry_seconds: float = Field(
        default=10.0,
        ge=0,
        description="While no vector store is found, how often to look for one again.",
    )


class CollectionMirror:
    """The actor side: the consumer's collection in the team store, kept in step.

    ``owner`` names the actor in log lines. ``vector_store`` is the card's field (``False``
    turns mirroring off), ``collection`` and ``config`` the collection to create, and
    ``retry_seconds`` how long to wait before looking again for a store that was not
    there. ``clock`` is injectable for tests.
    """

    def __init__(
        self,
        owner: str,
        vector_store: bool | str,
        collection: str,
        config: CollectionConfig,
        retry_seconds: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.owner = owner
        self.name = resolve_vector_store_name(vector_store)
        self.collection = collection
        self.config = config
        self.retry_seconds = retry_seconds
        self._clock = clock
        self._store: VectorStore | None = None
        self._checked_at: float | None = None

    @classmethod
    def for_actor(cls, config: VectorConsumerConfig, collection: str) -> CollectionMirror:
        """The mirror of the actor configured by ``config`` (its ``name`` is the owner)."""
        return cls(
            config.name,
            config.vector_store,
            collection,
            config.collection,
            config.store_retry_seconds,
        )

    def store(
        self,
        actor: ActorToolObserver,
        size: int,
        documents: Callable[[], Iterable[VectorDocument]],
    ) -> VectorStore | None:
        """The bound store, binding it if due; ``None`` while there is none to use.

        ``actor`` is the consumer's actor (an ``Akgent`` is an ``ActorToolObserver``),
        ``size`` the number of documents its state holds, and ``documents`` produces them
        all: they are sent only when the store's count differs from ``size``.
        """
        if self._store is not None or self.name is None or actor.orchestrator is None:
            return self._store
        now = self._clock()
        last = self._checked_at
        if last is not None and now - last < self.retry_seconds:
            return None
        self._checked_at = now
        try:
            store = lookup_vector_store(actor, self.name)
            if store is None:
                logger.info("%s: no %s in the team; keyword search only", self.owner, self.name)
                return None
            stats = store.create_collection(self.collection, self.config)
            if stats.documents != size:
                self._upsert(store, list(documents()))
        except Exception as exc:  # a store we cannot use must not break the actor
            logger.warning(
                "%s: vector store %s unusable (%s); keyword search only",
                self.owner,
                self.name,
                exc,
            )
            return None
        self._store = store
        return store

    def apply(self, upserts: Sequence[VectorDocument], deletes: Sequence[str]) -> None:
        """Mirror one change into the bound store: remove ``deletes`` (refs), then store
        ``upserts``. Does nothing while no store is bound (check :meth:`store` first, so
        the documents are only built when they have somewhere to go). A failure is logged
        and never reaches the actor's caller.
        """
        store = self._store
        if store is None:
            return
        try:
            if deletes:
                store.delete(self.collection, list(deletes))
            if upserts:
                self._upsert(store, list(upserts))
        except Exception as exc:
            logger.warning("%s: vector store update failed: %s", self.owner, exc)

    def _upsert(self, store: VectorStore, documents: list[VectorDocument]) -> None:
        for start in range(0, len(documents), UPSERT_CHUNK):
            store.upsert(self.collection, documents[start : start + UPSERT_CHUNK])
