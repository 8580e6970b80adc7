"""Score merging and graph context for ``search_graph``.

Keyword matching is :mod:`akgentic.tool.knowledge_graph._keywords` (the module name the
plan uses for the same job); ``KeywordIndex`` is imported here too, where it was before.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from akgentic.tool.knowledge_graph._keywords import KeywordIndex as KeywordIndex
from akgentic.tool.knowledge_graph.models import (
    DEFAULT_PATH_MAX_HOPS,
    GetGraphQuery,
    GraphPath,
    GraphSearchHit,
    GraphSearchResult,
    GraphView,
    MatchKind,
    Relation,
    SearchQuery,
)
from akgentic.tool.knowledge_graph.state import KnowledgeGraphState

# Vector-store ids: the item kind, then the entity name or relation key.
ENTITY_PREFIX = "entity:"
RELATION_PREFIX = "relation:"
# A hit found by both keyword and vector search scores its cosine plus this bonus.
BOTH_BONUS = 0.5
KEYWORD_SCORE = 1.0
PATH_SOURCES = 5
MAX_PATH_PAIRS = 10
# Bound on neighbours/edges returned, so one hub entity cannot flood the model's context.
CONTEXT_LIMIT = 100


def merge_hits(
    state: KnowledgeGraphState,
    keyword: Iterable[tuple[str, str]],
    vector: Iterable[tuple[str, str, float]],
    top_k: int,
) -> list[GraphSearchHit]:
    """Combine keyword hits (score 1.0) and vector hits (cosine; +0.5 when both).

    Items that no longer exist (a vector index lagging behind a deletion) are dropped.
    Ties keep keyword order, entities before relations.
    """
    scores: dict[tuple[str, str], tuple[float, MatchKind]] = {}
    for item in keyword:
        scores[item] = (KEYWORD_SCORE, "keyword")
    for kind, key, cosine in vector:
        item = (kind, key)
        if item in scores:
            scores[item] = (cosine + BOTH_BONUS, "both")
        else:
            scores[item] = (cosine, "vector")
    ranked = sorted(scores.items(), key=lambda pair: -pair[1][0])
    hits: list[GraphSearchHit] = []
    for (kind, key), (score, how) in ranked:
        if kind == "entity" and (entity := state.entities.get(key)) is not None:
            hits.append(GraphSearchHit(kind="entity", score=score, matched_by=how, entity=entity))
        elif kind == "relation" and (relation := state.relations.get(key)) is not None:
            hits.append(
                GraphSearchHit(kind="relation", score=score, matched_by=how, relation=relation)
            )
        if len(hits) >= top_k:
            break
    return hits


def add_context(
    state: KnowledgeGraphState,
    query: SearchQuery,
    result: GraphSearchResult,
    max_hops: int = DEFAULT_PATH_MAX_HOPS,
) -> None:
    """Fill neighbours, edges and paths (of at most ``max_hops`` relations) around the
    entity hits, as ``query`` asks."""
    names = [hit.entity.name for hit in result.hits if hit.entity is not None]
    truncated = False
    if query.include_neighbors:
        hit_set = set(names)
        seen: dict[str, None] = {}
        for name in names:
            for other in state.neighbors_of(name):
                if other not in hit_set and other in state.entities:
                    seen[other] = None
        truncated |= len(seen) > CONTEXT_LIMIT
        result.neighbors = [state.entities[n] for n in list(seen)[:CONTEXT_LIMIT]]
    if query.include_edges:
        edges: dict[str, Relation] = {}
        for name in names:
            for relation in state.relations_of(name):
                edges[relation.key] = relation
        truncated |= len(edges) > CONTEXT_LIMIT
        result.edges = list(edges.values())[:CONTEXT_LIMIT]
    notes = [f"neighbours/edges cut to the first {CONTEXT_LIMIT}"] if truncated else []
    if query.find_paths:
        sources = list(dict.fromkeys(names[:PATH_SOURCES]))
        result.paths = shortest_paths(state, sources, max_hops)
        pairs = min(len(sources) * (len(sources) - 1) // 2, MAX_PATH_PAIRS)
        if len(result.paths) < pairs:
            notes.append(
                f"{pairs - len(result.paths)} of {pairs} pairs of hits have no path of at "
                f"most {max_hops} relations (longer paths are not looked for)"
            )
    if notes:
        result.note = "; ".join([result.note, *notes] if result.note else notes)


def shortest_paths(
    state: KnowledgeGraphState, names: list[str], max_hops: int = DEFAULT_PATH_MAX_HOPS
) -> list[GraphPath]:
    """Shortest undirected paths between each pair of ``names`` (at most 10 pairs).

    One breadth-first search per source finds the paths to all later names at once, going
    at most ``max_hops`` relations out (so a long chain costs neither time nor an answer of
    its whole length). Pairs with no path that short are left out.
    """
    paths: list[GraphPath] = []
    for i, source in enumerate(names):
        targets = [t for t in names[i + 1 :] if t != source]
        if not targets:
            continue
        parents = _bfs(state, source, set(targets), max_hops)
        for target in targets:
            if target in parents:
                paths.append(_walk_back(parents, source, target))
            if len(paths) >= MAX_PATH_PAIRS:
                return paths
    return paths


def _bfs(
    state: KnowledgeGraphState, source: str, targets: set[str], max_hops: int
) -> dict[str, tuple[str, Relation] | None]:
    parents: dict[str, tuple[str, Relation] | None] = {source: None}
    queue = deque([(source, 0)])
    remaining = set(targets)
    while queue and remaining:
        current, hops = queue.popleft()
        if hops >= max_hops:
            continue  # entities further out would need a longer path
        for relation in state.relations_of(current):
            other = relation.to_entity if relation.from_entity == current else relation.from_entity
            if other not in parents:
                parents[other] = (current, relation)
                remaining.discard(other)
                queue.append((other, hops + 1))
    return parents


def _walk_back(
    parents: dict[str, tuple[str, Relation] | None], source: str, target: str
) -> GraphPath:
    entities = [target]
    relations: list[Relation] = []
    node = target
    while node != source:
        step = parents[node]
        assert step is not None  # only the source has no parent
        node, relation = step
        entities.append(node)
        relations.append(relation)
    entities.reverse()
    relations.reverse()
    return GraphPath(entities=entities, relations=relations)


# -- get_graph -------------------------------------------------------------------------------


def graph_view(state: KnowledgeGraphState, query: GetGraphQuery | None) -> GraphView:
    """The part of the graph ``query`` selects (all of it without a query); see
    :class:`~akgentic.tool.knowledge_graph.models.GetGraphQuery`."""
    if query is None:
        return GraphView(
            entities=list(state.entities.values()), relations=list(state.relations.values())
        )
    types = set(query.relation_types)

    def wanted(relation: Relation) -> bool:
        return not types or relation.relation_type in types

    if query.entity_names:
        start = [name for name in dict.fromkeys(query.entity_names) if name in state.entities]
    elif query.roots_only:
        start = [name for name, entity in state.entities.items() if entity.is_root]
    else:
        start = list(state.entities)
    names: dict[str, None] = dict.fromkeys(start)
    if query.path:
        followed: dict[str, Relation] = {}
        frontier = list(start)
        for step in query.path:
            reached: dict[str, None] = {}
            for name in frontier:
                for relation in state.relations_of(name):
                    target = state.entities.get(relation.to_entity)
                    if (
                        relation.from_entity == name
                        and relation.relation_type == step.relation_type
                        and target is not None
                        and step.to_entity in ("*", "", target.name, target.entity_type)
                    ):
                        followed[relation.key] = relation
                        reached[target.name] = None
            names.update(reached)
            frontier = list(reached)
        relations = list(followed.values())
    else:
        frontier = list(start)
        for _ in range(query.depth or 0):
            reached = {}
            for name in frontier:
                for relation in state.relations_of(name):
                    if not wanted(relation):
                        continue
                    other = (
                        relation.to_entity if relation.from_entity == name else relation.from_entity
                    )
                    if other not in names and other in state.entities:
                        reached[other] = None
            names.update(reached)
            frontier = list(reached)
        between: dict[str, Relation] = {}
        for name in names:
            for relation in state.relations_of(name):
                if (
                    wanted(relation)
                    and relation.from_entity in names
                    and relation.to_entity in names
                ):
                    between[relation.key] = relation
        relations = list(between.values())
    return GraphView(entities=[state.entities[name] for name in names], relations=relations)
