"""``KnowledgeGraphTool``: the card that gives an agent the team's knowledge graph.

Binding (``observer``) gets or creates the team's ``#KnowledgeGraphActor`` through the
orchestrator in one idempotent step, and finds the vector store by name when semantic
search is enabled. The callables capture the card, never the agent, so a stopped agent is
not kept alive by its tools.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Self, cast

from pydantic import AliasChoices, BaseModel, Field, ValidationError

from akgentic.tool.core.batch_update import joined_lists, raise_rejected
from akgentic.tool.core.capability import insert_before_args
from akgentic.tool.core.channels import COMMAND, SYSTEM_PROMPT, TOOL_CALL, Channels
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.core.params import BaseToolParam
from akgentic.tool.core.vector_binding import (
    ConsumerBinding,
    VectorConsumerCard,
    consumer_settings,
)
from akgentic.tool.core.vector_store import CollectionConfig
from akgentic.tool.errors import RetriableError
from akgentic.tool.knowledge_graph.input_limits import InputLimits, check_query, check_update
from akgentic.tool.knowledge_graph.kg_actor import (
    KG_ACTOR_NAME,
    KG_ACTOR_ROLE,
    KG_COLLECTION,
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
)
from akgentic.tool.knowledge_graph.models import (
    DEFAULT_KG_SCORE_THRESHOLD,
    DEFAULT_KG_TOP_K,
    DEFAULT_OBSERVATIONS_PER_HIT,
    DEFAULT_PATH_MAX_HOPS,
    DEFAULT_RESULT_MAX_CHARS,
    OBSERVATIONS_PER_CALL_MAX,
    OBSERVATIONS_PER_ENTITY_MAX,
    EntityCreate,
    EntityUpdate,
    GraphSearchResult,
    ManageGraph,
    ReadLimits,
    RelationCreate,
    RelationDelete,
    SearchMode,
    SearchQuery,
)

__all__ = [
    "KG_ACTOR_NAME",
    "KG_ACTOR_ROLE",
    "GetGraph",
    "KnowledgeGraphTool",
    "SearchGraph",
    "UpdateGraph",
]


class GetGraph(BaseToolParam):
    """The graph overview (types and root entities): system prompt and command.

    ``prompt_include_schema``: list the entity and relation types with their counts.
    ``prompt_include_roots``: list the root entities.
    """

    expose: set[Channels] = {SYSTEM_PROMPT, COMMAND}
    prompt_include_roots: bool = True
    prompt_include_schema: bool = True


class UpdateGraph(BaseToolParam):
    """Batch changes to the graph: a tool call."""

    expose: set[Channels] = {TOOL_CALL}


class SearchGraph(BaseToolParam):
    """Keyword / semantic search over the graph: tool call and command."""

    expose: set[Channels] = {TOOL_CALL, COMMAND}


class KnowledgeGraphTool(VectorConsumerCard):
    """A shared knowledge graph of entities and typed relations, with hybrid search.

    ``vector_store``: ``True`` uses the team's ``#VectorStore``, a ``#``-name selects another
    store, ``False`` keeps search keyword-only. Without a store in the team, search is
    keyword-only as well, and says so in its result.

    ``search`` configures the ``search_graph`` capability (``search_graph`` is accepted as
    its input name too). ``read_only=True`` leaves ``update_graph`` out on every channel,
    whatever ``update_graph`` says: the agent reads the team's graph but cannot change it.
    """

    writing_capabilities: ClassVar[frozenset[str]] = frozenset({"update_graph"})

    get_graph: bool | GetGraph = True
    update_graph: bool | UpdateGraph = True
    search: bool | SearchGraph = Field(
        default=True, validation_alias=AliasChoices("search", "search_graph")
    )
    read_only: bool = False
    vector_store: bool | str = True
    collection: CollectionConfig = Field(default_factory=CollectionConfig)
    search_top_k: int = Field(default=DEFAULT_KG_TOP_K, ge=1, le=100)
    search_score_threshold: float = Field(default=DEFAULT_KG_SCORE_THRESHOLD, ge=0.0, le=1.0)
    path_max_hops: int = Field(default=DEFAULT_PATH_MAX_HOPS, ge=1, le=1000)
    result_max_chars: int = Field(default=DEFAULT_RESULT_MAX_CHARS, ge=500)
    observations_per_hit: int = Field(
        default=DEFAULT_OBSERVATIONS_PER_HIT, ge=0, le=OBSERVATIONS_PER_ENTITY_MAX
    )
    input_limits: InputLimits = Field(default_factory=InputLimits)

    def observer(self, observer: ToolObserver) -> Self:
        super().observer(observer)
        config = KnowledgeGraphConfig(
            **consumer_settings(self),
            path_max_hops=self.path_max_hops,
            result_max_chars=self.result_max_chars,
            observations_per_hit=self.observations_per_hit,
        )
        shared = ConsumerBinding(
            "KnowledgeGraphTool",
            KnowledgeGraphActor,
            what="The team knowledge graph",
            collection=KG_COLLECTION,
            disabled_note="semantic search is disabled for this tool",
        )
        self._bind_shared(observer, shared, config)
        return self

    def _graph(self) -> ConsumerBinding[KnowledgeGraphActor]:
        return cast(ConsumerBinding[KnowledgeGraphActor], self._shared_binding())

    # -- callables: one _build_<field> per capability field -----------------------------

    def _build_get_graph(self, param: GetGraph) -> Callable[[], str]:
        card = self
        schema, roots = param.prompt_include_schema, param.prompt_include_roots
        read_only = self.capability_param("update_graph") is None  # read_only, or switched off

        def get_graph() -> str:
            """The team knowledge graph: entity and relation types, and root entities."""
            return card._graph().ask(lambda graph: graph.overview(schema, roots, read_only))

        return get_graph

    def _build_update_graph(self, param: UpdateGraph) -> Callable[..., str]:
        card = self

        def update_graph(
            create_entities: list[EntityCreate] | None = None,
            update_entities: list[EntityUpdate] | None = None,
            delete_entities: list[str] | None = None,
            create_relations: list[RelationCreate] | None = None,
            delete_relations: list[RelationDelete] | None = None,
            update: ManageGraph | None = None,
        ) -> str:
            """Change the team knowledge graph in one batch.

            Entities are identified by their unique name. Order of application: entity
            creations, entity updates, relation creations, relation deletions, entity
            deletions (an entity's relations go with it). A relation may use entities
            created in the same call. Valid changes are applied even if others are
            rejected; rejected ones are listed in the error.

            Limits: names 200 characters, types 100, entity descriptions 1000, relation
            descriptions 500, observations 500 each and 1000 per entity; at most 500
            items per list and 2000 observations per call.

            Args:
                create_entities: New entities (name, entity_type, description,
                    observations, is_root).
                update_entities: Changes to existing entities, by name.
                delete_entities: Names of entities to delete.
                create_relations: New relations (from_entity, to_entity, relation_type).
                delete_relations: Relations to delete.
                update: The same five lists in one object, the earlier form of this call;
                    its items are added to the lists above.
            """
            lists = joined_lists(
                {
                    "create_entities": create_entities,
                    "update_entities": update_entities,
                    "delete_entities": delete_entities,
                    "create_relations": create_relations,
                    "delete_relations": delete_relations,
                },
                update,
            )
            batch = _validate(ManageGraph, lists)
            if batch.item_count() == 0:
                raise RetriableError(
                    "update_graph got no change: pass create_entities, update_entities, "
                    "delete_entities, create_relations or delete_relations"
                )
            _check_observation_total(batch)
            limits = card.input_limits
            check_update(batch, limits)
            report = card._graph().ask(
                lambda graph: graph.update_graph(batch, limits.observations_per_entity)
            )
            raise_rejected(report.errors, batch.item_count(), report.summary)
            return f"Knowledge graph updated: {report.summary}."

        return insert_before_args(update_graph, card.input_limits.describe_update())

    def _build_search(self, param: SearchGraph) -> Callable[..., GraphSearchResult]:
        card = self

        def search_graph(
            query: str | SearchQuery,
            mode: SearchMode = "hybrid",
            top_k: int | None = None,
            score_threshold: float | None = None,
            include_neighbors: bool = False,
            include_edges: bool = False,
            find_paths: bool = False,
        ) -> GraphSearchResult:
            """Search the team knowledge graph's entities and relations.

            Results come best first: a keyword match scores 1.0, a semantic match its
            cosine similarity, a match found both ways cosine + 0.5.

            Args:
                query: Words to look for, or a question (at most 500 characters). The
                    earlier form of this call, a whole search object (query, mode,
                    top_k, ...), is accepted too; its settings then apply.
                mode: 'hybrid' (keyword and semantic), 'keyword' (substring match) or
                    'vector' (semantic only).
                top_k: Maximum number of hits (default from the tool configuration).
                score_threshold: Minimum cosine similarity of a semantic hit.
                include_neighbors: Add the entities one hop from each entity hit.
                include_edges: Add every relation touching an entity hit.
                find_paths: Add shortest paths between the five best entity hits.

            The answer is bounded: an entity shows its first observations (those with a
            word of the query first) and counts the rest, paths longer than the tool's
            hop limit are not looked for, and an answer over the tool's size limit keeps
            its best items; its note then says what was left out.
            """
            if isinstance(query, (SearchQuery, dict)):
                return card._search(_validate(SearchQuery, _plain(query)))
            search = _validate(
                SearchQuery,
                {
                    "query": query,
                    "mode": mode,
                    "top_k": top_k,
                    "score_threshold": score_threshold,
                    "include_neighbors": include_neighbors,
                    "include_edges": include_edges,
                    "find_paths": find_paths,
                },
            )
            return card._search(search)

        return insert_before_args(search_graph, card.input_limits.describe_query())

    def _search(self, search: SearchQuery) -> GraphSearchResult:
        check_query(search.query, self.input_limits)
        top_k = search.top_k or self.search_top_k
        threshold = (
            self.search_score_threshold
            if search.score_threshold is None
            else search.score_threshold
        )
        vector_hits: list[tuple[str, float]] = []
        note: str | None = None
        if search.mode != "keyword":
            # Ask for more than top_k: some refs may point at items deleted since.
            vector_hits, note = self._vector_hits(
                search.query, top_k=min(2 * top_k, 1000), threshold=threshold
            )
            if note is not None and search.mode == "vector":
                # No semantic answer at all: fall back to keyword matching, and say so.
                search = search.model_copy(update={"mode": "keyword"})
                note += "; keyword matches shown instead"
        # This card's read bounds, whichever card's configuration created the team's actor.
        limits = ReadLimits(
            path_max_hops=self.path_max_hops,
            result_max_chars=self.result_max_chars,
            observations_per_hit=self.observations_per_hit,
        )
        return self._graph().ask(
            lambda graph: graph.search(search, vector_hits, top_k, note, limits)
        )


def _validate[M: BaseModel](model: type[M], data: dict[str, Any]) -> M:
    """Build ``model`` from tool arguments; a bad argument becomes a RetriableError."""
    try:
        return model.model_validate({k: _plain(v) for k, v in data.items()})
    except ValidationError as exc:
        problems = "; ".join(
            f"{_location(err['loc'])}: {err['msg']}" for err in exc.errors(include_url=False)
        )
        raise RetriableError(f"Invalid arguments: {problems}") from exc


def _check_observation_total(batch: ManageGraph) -> None:
    count = batch.observation_count()
    if count > OBSERVATIONS_PER_CALL_MAX:
        raise RetriableError(
            f"Invalid arguments: observations: at most {OBSERVATIONS_PER_CALL_MAX} per "
            f"update_graph call (created, added and removed together), got {count}; "
            "nothing was changed, split the batch over several calls"
        )


def _plain(value: Any) -> Any:
    """Models given by a caller are re-validated from their data (their own class may differ)."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _location(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "arguments"
