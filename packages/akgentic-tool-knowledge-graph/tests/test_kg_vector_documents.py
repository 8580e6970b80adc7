"""What the graph stores in the team's vector store: one document per entity and relation,
its text, and a ``kind`` in its metadata that other readers of the store can filter on."""

from __future__ import annotations

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.testing import LocalVectorStore, ToolTestAgent, bind_card, team_tool_actor
from akgentic.tool.core.vector_store import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    UpsertReceipt,
    VectorDocument,
)
from akgentic.tool.knowledge_graph import KG_COLLECTION, KnowledgeGraphTool


class RecordingVectorStore(LocalVectorStore):
    """The local test store, keeping every document it was given (metadata included)."""

    def on_start(self) -> None:
        super().on_start()
        self._received: dict[str, VectorDocument] = {}

    def upsert(self, collection: str, documents: list[VectorDocument]) -> UpsertReceipt:
        self._received.update((doc.ref, doc) for doc in documents)
        return super().upsert(collection, documents)

    def received(self) -> dict[str, VectorDocument]:
        return dict(self._received)


def test_documents_carry_their_kind_and_text(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    store = team_tool_actor(
        actor_system,
        orchestrator,
        RecordingVectorStore,
        BaseConfig(name=VECTOR_STORE_NAME, role="VectorStore"),
    )
    tools = bind_card(tool_agent, KnowledgeGraphTool(collection=CollectionConfig(dimension=64)))
    tools["update_graph"](
        create_entities=[
            {"name": "Ann", "entity_type": "Person", "observations": ["likes tea"]},
            {"name": "Acme", "entity_type": "Company"},
        ],
        create_relations=[
            {
                "from_entity": "Ann",
                "to_entity": "Acme",
                "relation_type": "works_at",
                "description": "since 2020",
            }
        ],
    )
    documents = store.received()
    assert set(store.refs(KG_COLLECTION)) == set(documents)
    # Each document's metadata names the kind its ref starts with.
    kinds = sorted((ref.split(":", 1)[0], doc.metadata) for ref, doc in documents.items())
    assert kinds == [
        ("entity", {"kind": "entity"}),
        ("entity", {"kind": "entity"}),
        ("relation", {"kind": "relation"}),
    ]
    (relation,) = [doc for doc in documents.values() if doc.ref.startswith("relation:")]
    assert relation.text == "Ann -[works_at]-> Acme | since 2020"
    # An entity's text: its name, type, description and observations, the empty ones left out.
    assert documents["entity:Ann"].text == "Ann | Person | likes tea"
