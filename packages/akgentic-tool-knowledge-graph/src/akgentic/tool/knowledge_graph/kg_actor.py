"""``KnowledgeGraphActor``: the team's single knowledge graph, ``#KnowledgeGraphTool``.

Every agent carrying a ``KnowledgeGraphTool`` talks to this one actor, so all of them see
the same graph and their updates are serialised by its mailbox (no locks needed).

Persistence (core's ``DeltaToolActor``): each update that changes something emits one
``ToolStateEvent`` with the net delta (``seq`` numbered per actor, without gaps). Full
snapshots of the state are published on a schedule proportional to the amount of change
(core's ``SnapshotSchedule``), plus on stop. A restored actor (``init_state`` from its
last snapshot, or a fresh one in a resumed team) replays from the team history the deltas
newer than the snapshot before it serves its first call, so an abrupt end right after a
burst of updates loses nothing that reached the event stream.

Semantic search: when the team has the vector store this actor is configured for, the actor
creates its collection on its first call (syncing it when the store's document count
disagrees with the graph) and mirrors entity and relation texts into it on each change.
Query embedding and vector search run on the *caller's* thread (see ``kg_tool``), so a
slow embedding never holds this actor. The exception is code written for the predecessor
calling ``search(query)`` alone: the actor then embeds the query itself, on its own thread.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from akgentic.tool.core.delta_actor import DeltaToolActor, DeltaToolConfig
from akgentic.tool.core.vector_binding import (
    CollectionMirror,
    VectorConsumerConfig,
    VectorSearchClient,
)
from akgentic.tool.core.vector_store import VECTOR_STORE_NAME, VectorDocument, VectorStore
from akgentic.tool.knowledge_graph._bounds import fit_graph_view, fit_search_result
from akgentic.tool.knowledge_graph._keywords import KeywordIndex
from akgentic.tool.knowledge_graph._search import (
    ENTITY_PREFIX,
    RELATION_PREFIX,
    add_context,
    graph_view,
    merge_hits,
)
from akgentic.tool.knowledge_graph._texts import entity_text, relation_text
from akgentic.tool.knowledge_graph._update import apply_update, plural
from akgentic.tool.knowledge_graph.event import KnowledgeGraphStateEvent
from akgentic.tool.knowledge_graph.models import (
    DEFAULT_KG_SCORE_THRESHOLD,
    DEFAULT_KG_TOP_K,
    DEFAULT_OBSERVATIONS_PER_HIT,
    DEFAULT_PATH_MAX_HOPS,
    DEFAULT_RESULT_MAX_CHARS,
    Entity,
    GetGraphQuery,
    GraphSearchResult,
    GraphView,
    ManageGraph,
    ReadLimits,
    Relation,
    SearchQuery,
    SearchResult,
)
from akgentic.tool.knowledge_graph.state import KnowledgeGraphState

__all__ = [
    "KG_ACTOR_NAME",
    "KG_ACTOR_ROLE",
    "KG_COLLECTION",
    "VS_ACTOR_NAME",
    "GraphUpdateReport",
    "KnowledgeGraphActor",
    "KnowledgeGraphConfig",
]

KG_ACTOR_NAME = "#KnowledgeGraphTool"
KG_ACTOR_ROLE = "ToolActor"
"""The graph actor's role, as persisted teams record it (the predecessor's value)."""
KG_COLLECTION = "knowledge_graph"
"""The graph's collection in the vector store (the predecessor's name, so a resumed team
finds its vectors)."""
VS_ACTOR_NAME = VECTOR_STORE_NAME
"""The team's default vector store (``#VectorStore``), under the predecessor's name."""
# How many root entities the overview lists before summarising the rest.
_OVERVIEW_ROOTS = 50
# How many entity (and relation) types the overview names, most frequent first.
_OVERVIEW_TYPES = 30
# Characters of a root entity's description shown in the overview (the rest via search):
# the overview is in every teammate's prompt, so 50 full descriptions would weigh 50 kB.
_OVERVIEW_DESCRIPTION_CHARS = 150


class KnowledgeGraphConfig(DeltaToolConfig, VectorConsumerConfig):
    """Configuration of the graph actor (built by ``KnowledgeGraphTool``); the snapshot
    schedule fields come from ``DeltaToolConfig``, the vector-store ones from
    ``VectorConsumerConfig``."""

    name: str = KG_ACTOR_NAME
    role: str = KG_ACTOR_ROLE
    search_top_k: int = Field(
        default=DEFAULT_KG_TOP_K, ge=1, le=100, description="Hits of a search by default."
    )
    search_score_threshold: float = Field(
        default=DEFAULT_KG_SCORE_THRESHOLD,
        ge=0.0,
        le=1.0,
        description="Minimum cosine of a semantic hit by default.",
    )
    snapshot_min_changes: int = Field(
        default=256, ge=1, description="Changes before the first snapshot is due."
    )
    path_max_hops: int = Field(
        default=DEFAULT_PATH_MAX_HOPS, ge=1, le=1000, description="Longest path looked for."
    )
    result_max_chars: int = Field(
        default=DEFAULT_RESULT_MAX_CHARS, ge=500, description="Size of one read's answer."
    )
    observations_per_hit: int = Field(
        default=DEFAULT_OBSERVATIONS_PER_HIT, ge=0, description="Observations per entity shown."
    )

    def read_limits(self) -> ReadLimits:
        """The three read bounds above, as one value."""
        return ReadLimits(
            path_max_hops=self.path_max_hops,
            result_max_chars=self.result_max_chars,
            observations_per_hit=self.observations_per_hit,
        )


class GraphUpdateReport(BaseModel):
    """What an update did: a summary, the rejected items, and the event's ``seq``."""

    summary: str
    errors: list[str] = Field(default_factory=list)
    seq: int | None = Field(default=None, description="seq of the emitted delta, if any.")


class KnowledgeGraphActor(DeltaToolActor[KnowledgeGraphConfig, KnowledgeGraphState]):
    """Holds the graph; every public method is called through an ask proxy."""

    delta_type = KnowledgeGraphStateEvent
    subject = "graph"

    def on_start(self) -> None:
        self.state = KnowledgeGraphState().observer(self)
        super().on_start()
        self._keywords = KeywordIndex()
        self._overviews: dict[tuple[bool, bool, bool], tuple[int, str]] = {}
        self._collection = CollectionMirror.for_actor(self.config, KG_COLLECTION)

    # -- akgentic-core state hooks ------------------------------------------------------

    def init_state(self, state: KnowledgeGraphState) -> None:
        """Adopt a restored snapshot; newer deltas are replayed before the next call."""
        super().init_state(state)
        self._overviews.clear()  # cached for the previous state object

    # -- public API (ask proxy) ---------------------------------------------------------

    def update_graph(
        self, update: ManageGraph, observations_per_entity: int | None = None
    ) -> GraphUpdateReport:
        """Apply a batch; emit its net delta (if any) before returning.

        ``observations_per_entity`` (the calling card's bound; by default the schema's
        ceiling) is the most observations an updated entity may end up holding.
        """
        if observations_per_entity is None:
            outcome = apply_update(self.state, update)
        else:
            outcome = apply_update(self.state, update, observations_per_entity)
        seq = self._emit(outcome.delta)
        return GraphUpdateReport(summary=outcome.summary, errors=outcome.errors, seq=seq)

    def search(
        self,
        query: SearchQuery,
        vector_hits: list[tuple[str, float]] | None = None,
        top_k: int | None = None,
        note: str | None = None,
        limits: ReadLimits | None = None,
    ) -> GraphSearchResult:
        """Rank keyword hits (unless ``mode='vector'``) with the vector hits.

        ``vector_hits`` are ``(vector-store ref, cosine)`` pairs found by the caller (the
        card's way). Left out (the predecessor's call, ``search(query)``), the actor asks
        the vector store itself, on its own thread, unless ``mode='keyword'``. ``top_k``
        defaults to the query's, then to the configuration's, and so do ``limits`` (what
        the answer may hold, see :class:`ReadLimits`).
        """
        top_k = top_k or query.top_k or self.config.search_top_k
        if vector_hits is None:
            vector_hits, note = self._own_vector_hits(query, top_k)
            if note is not None and query.mode == "vector":
                query = query.model_copy(update={"mode": "keyword"})
                note += "; keyword matches shown instead"
        keyword = self._keywords.search(self.state, query.query) if query.mode != "vector" else []
        vector: list[tuple[str, str, float]] = []
        for ref, score in vector_hits:
            if ref.startswith(ENTITY_PREFIX):
                vector.append(("entity", ref[len(ENTITY_PREFIX) :], score))
            elif ref.startswith(RELATION_PREFIX):
                vector.append(("relation", ref[len(RELATION_PREFIX) :], score))
        result = GraphSearchResult(hits=merge_hits(self.state, keyword, vector, top_k), note=note)
        limits = limits or self.config.read_limits()
        add_context(self.state, query, result, limits.path_max_hops)
        fit_search_result(result, limits, query.query)
        return result

    def search_result(self, query: SearchQuery) -> SearchResult:
        """:meth:`search` answered in the predecessor's result shape."""
        return self.search(query).as_search_result(self.state.entities)

    def overview(
        self, include_schema: bool = True, include_roots: bool = True, read_only: bool = False
    ) -> str:
        """The graph's type schema and root entities, as shown in the system prompt.

        ``include_schema`` / ``include_roots`` leave the type lines / the root entities
        out when false; ``read_only`` leaves out the hint to change the graph.
        """
        version = self.state.version
        key = (include_schema, include_roots, read_only)
        cached = self._overviews.get(key)
        if cached is None or cached[0] != version:
            cached = (version, _render_overview(self.state, *key))
            self._overviews[key] = cached
        return cached[1]

    def get_graph(self, query: GetGraphQuery | None = None) -> GraphView:
        """The graph, or the part ``query`` selects (see :class:`GetGraphQuery`), as lists.

        A selected part is bounded like a search answer (the configuration's
        :class:`ReadLimits`, cuts in its ``note``); the whole graph, asked without a
        query, is an export for code and comes complete (:meth:`graph` is its state form).
        """
        view = graph_view(self.state, query)
        if query is None:
            return view
        return fit_graph_view(view, self.config.read_limits())

    def graph(self) -> KnowledgeGraphState:
        """An independent copy of the current graph (without observer)."""
        return self.state.serializable_copy()

    def semantic_enabled(self) -> bool:
        """Whether the graph is mirrored into a vector store (looking for one if due)."""
        return self._vector_store() is not None

    # -- internals ----------------------------------------------------------------------

    def _own_vector_hits(
        self, query: SearchQuery, top_k: int
    ) -> tuple[list[tuple[str, float]], str | None]:
        if query.mode == "keyword":
            return [], None
        threshold = (
            self.config.search_score_threshold
            if query.score_threshold is None
            else query.score_threshold
        )
        client = VectorSearchClient(self.config.name, KG_COLLECTION)
        return client.vector_hits(
            self,
            self.config.vector_store,
            lambda: self._vector_store() is not None,
            query.query,
            top_k=min(2 * top_k, 1000),
            threshold=threshold,
            disabled_note="semantic search is disabled for this tool",
        )

    def on_ready(self) -> None:
        """Bind the vector store once the graph caught up with the history."""
        self._vector_store()

    def _vector_store(self) -> VectorStore | None:
        """The store this graph is mirrored into, bound on first need (see
        ``CollectionMirror.store``: every item is sent when the store's count differs)."""
        return self._collection.store(
            self,
            self.state.size(),
            lambda: (
                [_entity_document(e) for e in self.state.entities.values()]
                + [_relation_document(r) for r in self.state.relations.values()]
            ),
        )

    def on_delta(self, delta: KnowledgeGraphStateEvent) -> None:
        """Send the texts that changed to the vector store (embedding happens there)."""
        if self._vector_store() is None:
            return
        documents: dict[str, VectorDocument] = {}
        for entity in (*delta.entities_added, *delta.entities_modified):
            document = _entity_document(entity)
            documents[document.ref] = document
        for relation in (*delta.relations_added, *delta.relations_modified):
            document = _relation_document(relation)
            documents[document.ref] = document
        gone = [ENTITY_PREFIX + name for name in delta.entities_removed]
        gone += [
            RELATION_PREFIX + r.key for r in delta.relations_removed if isinstance(r, Relation)
        ]
        self._collection.apply(
            upserts=list(documents.values()), deletes=[ref for ref in gone if ref not in documents]
        )


def _entity_document(entity: Entity) -> VectorDocument:
    return VectorDocument(
        ref=ENTITY_PREFIX + entity.name, text=entity_text(entity), metadata={"kind": "entity"}
    )


def _relation_document(relation: Relation) -> VectorDocument:
    return VectorDocument(
        ref=RELATION_PREFIX + relation.key,
        text=relation_text(relation),
        metadata={"kind": "relation"},
    )


def _render_overview(
    state: KnowledgeGraphState, include_schema: bool, include_roots: bool, read_only: bool
) -> str:
    if not state.entities:
        if read_only:
            return "**Knowledge graph:** empty."
        return "**Knowledge graph:** empty. Record entities and relations with update_graph(...)."
    lines = [
        f"**Knowledge graph:** {plural(len(state.entities), 'entity')}, "
        f"{plural(len(state.relations), 'relation')}",
    ]
    if include_schema:
        entity_types = Counter(e.entity_type for e in state.entities.values())
        relation_types = Counter(r.relation_type for r in state.relations.values())
        lines.append("Entity types: " + _counts(entity_types))
        if relation_types:
            lines.append("Relation types: " + _counts(relation_types))
    roots = [e for e in state.entities.values() if e.is_root] if include_roots else []
    if roots:
        lines.append("")
        lines.append("**Root entities:**")
        for entity in roots[:_OVERVIEW_ROOTS]:
            text = f"- {entity.name} ({entity.entity_type})"
            if entity.description:
                text += f": {_clip(entity.description, _OVERVIEW_DESCRIPTION_CHARS)}"
            lines.append(text)
        if len(roots) > _OVERVIEW_ROOTS:
            lines.append(f"- ... and {len(roots) - _OVERVIEW_ROOTS} more root entities")
    lines.append("")
    if read_only:
        lines.append("Use search_graph(query=...) to find entities and relations.")
    else:
        lines.append(
            "Use search_graph(query=...) to find entities and relations, "
            "update_graph(...) to change them."
        )
    return "\n".join(lines)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _counts(counter: Counter[str]) -> str:
    shown = [f"{name} ({count})" for name, count in counter.most_common(_OVERVIEW_TYPES)]
    if len(counter) > _OVERVIEW_TYPES:
        shown.append(f"... {len(counter) - _OVERVIEW_TYPES} more")
    return ", ".join(shown)
