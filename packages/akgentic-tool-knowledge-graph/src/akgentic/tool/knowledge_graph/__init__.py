"""The team knowledge graph tool: entities, typed relations, hybrid keyword/semantic search.

``KnowledgeGraphTool`` is the card agents carry; ``KnowledgeGraphActor`` (``#KnowledgeGraphTool``)
holds the one graph of the team; ``KnowledgeGraphStateEvent`` is the delta each change emits.
"""

from akgentic.tool.knowledge_graph.event import KnowledgeGraphStateEvent
from akgentic.tool.knowledge_graph.kg_actor import (
    KG_ACTOR_NAME,
    KG_COLLECTION,
    GraphUpdateReport,
    KnowledgeGraphActor,
    KnowledgeGraphConfig,
)
from akgentic.tool.knowledge_graph.kg_tool import (
    GetGraph,
    KnowledgeGraphTool,
    SearchGraph,
    UpdateGraph,
)
from akgentic.tool.knowledge_graph.models import (
    BATCH_MAX_ITEMS,
    DEFAULT_KG_SCORE_THRESHOLD,
    DEFAULT_KG_TOP_K,
    ENTITY_DESCRIPTION_MAX_CHARS,
    ENTITY_NAME_MAX_CHARS,
    ENTITY_TYPE_MAX_CHARS,
    OBSERVATION_MAX_CHARS,
    OBSERVATIONS_PER_CALL_MAX,
    OBSERVATIONS_PER_ENTITY_MAX,
    QUERY_MAX_CHARS,
    RELATION_DESCRIPTION_MAX_CHARS,
    RELATION_TYPE_MAX_CHARS,
    Entity,
    EntityCreate,
    EntityUpdate,
    GraphPath,
    GraphSearchHit,
    GraphSearchResult,
    ManageGraph,
    MatchKind,
    Relation,
    RelationCreate,
    RelationDelete,
    SearchMode,
    SearchQuery,
    relation_key,
)
from akgentic.tool.knowledge_graph.state import KnowledgeGraphState

__all__ = [
    "BATCH_MAX_ITEMS",
    "DEFAULT_KG_SCORE_THRESHOLD",
    "DEFAULT_KG_TOP_K",
    "ENTITY_DESCRIPTION_MAX_CHARS",
    "ENTITY_NAME_MAX_CHARS",
    "ENTITY_TYPE_MAX_CHARS",
    "KG_ACTOR_NAME",
    "KG_COLLECTION",
    "OBSERVATIONS_PER_CALL_MAX",
    "OBSERVATIONS_PER_ENTITY_MAX",
    "OBSERVATION_MAX_CHARS",
    "QUERY_MAX_CHARS",
    "RELATION_DESCRIPTION_MAX_CHARS",
    "RELATION_TYPE_MAX_CHARS",
    "Entity",
    "EntityCreate",
    "EntityUpdate",
    "GetGraph",
    "GraphPath",
    "GraphSearchHit",
    "GraphSearchResult",
    "GraphUpdateReport",
    "KnowledgeGraphActor",
    "KnowledgeGraphConfig",
    "KnowledgeGraphState",
    "KnowledgeGraphStateEvent",
    "KnowledgeGraphTool",
    "ManageGraph",
    "MatchKind",
    "Relation",
    "RelationCreate",
    "RelationDelete",
    "SearchGraph",
    "SearchMode",
    "SearchQuery",
    "UpdateGraph",
    "relation_key",
]
