"""Core's vector-store contract (models, name rules, lookup) and the VectorStoreTool card."""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from pydantic import ValidationError

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import assert_card_conformance
from akgentic.tool.core.vector_store import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    VectorDocument,
    VectorQuery,
    embed_worker_name,
    lookup_vector_store,
    resolve_vector_store_name,
    validate_collection_name,
)
from akgentic.tool.vector_store.backend import CollectionBackend, CollectionRecord
from akgentic.tool.vector_store.inmemory import InMemoryBackend
from akgentic.tool.vector_store.qdrant import QdrantBackend, QdrantSettings
from akgentic.tool.vector_store.tool import VectorStoreTool

from .loopback_http import serve


def test_collection_config_defaults_follow_the_spec() -> None:
    config = CollectionConfig()
    assert config.dimension == 1536
    assert config.backend == "inmemory"
    assert config.persistence == "actor_state"
    assert config.workspace_path is None
    assert config.tenant is None
    assert CollectionConfig.model_validate_json(config.model_dump_json()) == config


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dimension": 0}, "dimension"),
        ({"backend": "faiss"}, "backend"),
        ({"backend": "weaviate", "persistence": "workspace"}, "backend='inmemory' only"),
        ({"backend": "qdrant", "persistence": "workspace"}, "Qdrant stores the vectors"),
        ({"workspace_path": "x"}, "workspace_path is only read"),
        ({"tenant": "t", "colour": "red"}, "colour"),
    ],
)
def test_collection_config_rejects_bad_combinations(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        CollectionConfig(**kwargs)


def test_a_query_needs_text_or_a_vector() -> None:
    with pytest.raises(ValidationError, match="non-empty text or a vector"):
        VectorQuery(text="   ")
    assert VectorQuery(vector=(1.0, 0.0)).top_k == 10
    with pytest.raises(ValidationError, match="top_k"):
        VectorQuery(text="x", top_k=0)


def test_store_names_and_worker_names() -> None:
    assert resolve_vector_store_name(True) == VECTOR_STORE_NAME
    assert resolve_vector_store_name(False) is None
    assert resolve_vector_store_name("#VectorStore-RAG") == "#VectorStore-RAG"
    with pytest.raises(ValueError, match="starts with '#'"):
        resolve_vector_store_name("VectorStore")
    assert embed_worker_name("planning", "ab12") == "#embed-planning-ab12"
    assert validate_collection_name("knowledge_graph.v2") == "knowledge_graph.v2"
    for bad in ("", "-lead", "with space", "x" * 64):
        with pytest.raises(ValueError, match="invalid collection name"):
            validate_collection_name(bad)


def test_the_card_round_trips_and_exposes_nothing(tool_agent: Any, openai_env: Any) -> None:
    card = VectorStoreTool(vector_store_name="#VectorStore-RAG", embedding_provider="azure")
    assert_card_conformance(card, observer=tool_agent)
    factory = ToolFactory([card], observer=tool_agent)
    assert factory.get_tools() == []
    assert factory.get_system_prompts() == []
    assert factory.get_commands() == {}
    assert factory.get_toolsets() == []
    config = card.store_config()
    assert (config.name, config.embedding_provider) == ("#VectorStore-RAG", "azure")
    assert config.embedding_model == "text-embedding-3-small"


def test_the_card_refuses_a_name_without_the_tool_prefix() -> None:
    with pytest.raises(ValidationError, match="start with '#'"):
        VectorStoreTool(vector_store_name="VectorStore")


def test_lookup_is_none_for_a_store_that_does_not_exist(tool_agent: Any) -> None:
    assert lookup_vector_store(tool_agent, "#Nobody") is None


class _EventsOnly:
    """An observer that can only emit events (no orchestrator to reach)."""

    def notify_event(self, event: object) -> None:
        return None


def test_without_an_orchestrator_the_card_creates_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="akgentic.tool.vector_store")
    observer = _EventsOnly()
    card = VectorStoreTool()
    ToolFactory([card], observer=observer)
    assert card.store_address is None
    assert caplog.messages == [
        f"VectorStoreTool on {observer!r}: the observer reaches no orchestrator, "
        "so no store #VectorStore is created"
    ]


def test_without_the_store_installed_the_card_says_how_to_install_it_and_creates_nothing(
    tool_agent: Any, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # None in sys.modules makes the import fail, as when numpy is missing.
    monkeypatch.setitem(sys.modules, "akgentic.tool.vector_store.actor", None)
    caplog.set_level(logging.WARNING, logger="akgentic.tool.vector_store")
    card = VectorStoreTool()
    ToolFactory([card], observer=tool_agent)

    assert card.store_address is None
    assert lookup_vector_store(tool_agent, "#VectorStore") is None
    [message] = caplog.messages
    assert message.startswith("VectorStoreTool: vector search is unavailable (import of ")
    assert message.endswith(
        '); install it with pip install "akgentic-framework[vector-store]". '
        "Consumers fall back to keyword search."
    )


def test_a_second_card_with_other_settings_does_not_reconfigure_the_store(
    actor_system: ActorSystem,
    orchestrator: Any,
    tool_agent: Any,
    openai_env: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from akgentic.tool.core.testing import spawn_tool_agent

    caplog.set_level(logging.WARNING, logger="akgentic.tool.vector_store")
    first = VectorStoreTool()
    ToolFactory([first], observer=tool_agent)
    second = VectorStoreTool(embedding_model="text-embedding-3-large")
    ToolFactory([second], observer=spawn_tool_agent(actor_system, orchestrator, "@B"))

    assert second.store_address == first.store_address
    assert caplog.messages == [
        "#VectorStore already runs with openai/text-embedding-3-small; this card's "
        "openai/text-embedding-3-large is ignored"
    ]


# -- the storage contract, one suite over every backend ------------------------------------
#
# Each test below runs against the in-memory backend, Qdrant embedded in memory, Qdrant
# embedded on disk, and the Weaviate backend talking to its local wire-protocol stand-in
# (``test_weaviate_backend.py``). A backend is only correct if it passes them all.

BACKENDS = ["inmemory", "qdrant-memory", "qdrant-path", "weaviate"]
DIM3 = 3


@pytest.fixture
def weaviate_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The Weaviate stand-in (REST + gRPC on 127.0.0.1), as the Weaviate tests run it."""
    import grpc
    from weaviate.proto.v1 import weaviate_pb2_grpc

    from . import test_weaviate_backend as standin

    db = standin.FakeWeaviate()
    httpd = serve(standin._rest_handler(db))
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    weaviate_pb2_grpc.add_WeaviateServicer_to_server(standin.Servicer(db), server)
    monkeypatch.setenv("WEAVIATE_GRPC_PORT", str(server.add_insecure_port("127.0.0.1:0")))
    server.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        server.stop(grace=None)
        httpd.shutdown()
        httpd.server_close()


OpenBackend = Callable[[str], CollectionBackend]


@pytest.fixture(params=BACKENDS)
def open_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenBackend]:
    """``open_backend(name)``: collection ``name`` (dimension 3) on the backend under test.
    Every backend opened is closed at the end of the test."""
    kind: str = request.param
    team = uuid.uuid4()
    opened: list[CollectionBackend] = []

    def open_one(name: str) -> CollectionBackend:
        config = CollectionConfig.model_validate({"dimension": DIM3, "backend": kind.split("-")[0]})
        record = CollectionRecord(config=config)
        backend: CollectionBackend
        if kind == "inmemory":
            backend = InMemoryBackend(name, config)
        elif kind == "weaviate":
            from akgentic.tool.vector_store.weaviate import WeaviateBackend

            url = request.getfixturevalue("weaviate_url")
            backend = WeaviateBackend.connect(name, record, team_id=team, url=url)
        else:
            settings = (
                QdrantSettings(location=":memory:")
                if kind == "qdrant-memory"
                else QdrantSettings(path=str(tmp_path / "qdrant"))
            )
            backend = QdrantBackend.connect(name, record, team_id=team, settings=settings)
        opened.append(backend)
        return backend

    yield open_one
    for backend in opened:
        backend.close()


def _vec(*values: float) -> npt.NDArray[np.float32]:
    return np.asarray(values, dtype=np.float32)


def _doc(ref: str, text: str, vector: list[float] | None = None, **meta: Any) -> VectorDocument:
    return VectorDocument(ref=ref, text=text, vector=vector, metadata=meta)


def _three(backend: CollectionBackend) -> None:
    backend.put(
        [
            _doc("x", "alpha release notes", [1, 0, 0], team="red", n=1),
            _doc("y", "beta login page", [0.6, 0.8, 0], team="blue", n=2),
            _doc("z", "gamma pending page", team="red", n=3),
        ]
    )


def test_contract_documents_with_and_without_vectors_are_counted(
    open_backend: OpenBackend,
) -> None:
    backend = open_backend("notes")
    assert backend.counts() == (0, 0)
    _three(backend)
    assert backend.counts() == (3, 2)
    assert backend.unembedded() == {"z": "gamma pending page"}
    assert backend.record().config.dimension == DIM3


def test_contract_set_vectors_reaches_present_documents_only(open_backend: OpenBackend) -> None:
    backend = open_backend("notes")
    _three(backend)
    backend.set_vectors(["z", "gone"], np.asarray([[0, 0, 1], [1, 1, 1]], dtype=np.float32))
    assert backend.counts() == (3, 3)
    assert backend.unembedded() == {}
    hits = backend.vector_search(_vec(0, 0, 1), 1, 0.5, {})
    assert [(hit.ref, hit.text, hit.metadata) for hit in hits] == [
        ("z", "gamma pending page", {"team": "red", "n": 3})
    ]


def test_contract_vector_search_ranks_by_cosine_and_honours_threshold_and_top_k(
    open_backend: OpenBackend,
) -> None:
    backend = open_backend("notes")
    _three(backend)
    hits = backend.vector_search(_vec(1, 0, 0), 10, 0.0, {})
    assert [hit.ref for hit in hits] == ["x", "y"]  # z has no vector yet
    assert [hit.score for hit in hits] == pytest.approx([1.0, 0.6], abs=1e-5)
    assert {hit.match for hit in hits} == {"vector"}
    assert hits[0].metadata == {"team": "red", "n": 1}
    assert [hit.ref for hit in backend.vector_search(_vec(1, 0, 0), 1, 0.0, {})] == ["x"]
    assert [hit.ref for hit in backend.vector_search(_vec(1, 0, 0), 10, 0.7, {})] == ["x"]
    assert backend.vector_search(_vec(0, 0, -1), 10, 0.1, {}) == []
    every = backend.vector_search(_vec(0, 0, -1), 10, -1.0, {})
    assert {hit.ref for hit in every} == {"x", "y"}


def test_contract_where_keeps_documents_whose_metadata_equals_every_value(
    open_backend: OpenBackend,
) -> None:
    backend = open_backend("notes")
    _three(backend)
    blue = backend.vector_search(_vec(1, 0, 0), 10, -1.0, {"team": "blue"})
    assert [hit.ref for hit in blue] == ["y"]
    assert backend.vector_search(_vec(1, 0, 0), 10, -1.0, {"team": "red", "n": 2}) == []
    red = backend.vector_search(_vec(1, 0, 0), 10, -1.0, {"team": "red", "n": 1})
    assert [hit.ref for hit in red] == ["x"]
    pages = backend.keyword_search("page", 10, {"team": "red"})
    assert [hit.ref for hit in pages] == ["z"]


def test_contract_keyword_search_scores_phrase_then_share_of_words(
    open_backend: OpenBackend,
) -> None:
    backend = open_backend("notes")
    _three(backend)
    hits = backend.keyword_search("Login Page", 10, {})
    assert [(hit.ref, hit.score, hit.match) for hit in hits] == [
        ("y", 1.0, "keyword"),
        ("z", 0.5, "keyword"),
    ]
    assert hits[0].text == "beta login page"
    assert hits[0].metadata == {"team": "blue", "n": 2}
    assert [hit.ref for hit in backend.keyword_search("login page", 1, {})] == ["y"]
    assert backend.keyword_search("kubernetes", 10, {}) == []


def test_contract_waiting_keyword_search_sees_only_documents_without_a_vector(
    open_backend: OpenBackend,
) -> None:
    backend = open_backend("notes")
    _three(backend)
    backend.put([_doc("w", "page two draft", team="blue", n=4)])

    hits = backend.waiting_keyword_search("page", 10, {})
    # "y" holds "page" too, but has its vector. (Backends order ties differently.)
    assert sorted((hit.ref, hit.score, hit.match) for hit in hits) == [
        ("w", 1.0, "keyword"),
        ("z", 1.0, "keyword"),
    ]
    assert [hit.ref for hit in backend.waiting_keyword_search("two draft", 10, {})] == ["w"]
    assert {hit.text for hit in hits} == {"gamma pending page", "page two draft"}
    assert len(backend.waiting_keyword_search("page", 1, {})) == 1
    assert [hit.ref for hit in backend.waiting_keyword_search("page", 10, {"team": "blue"})] == [
        "w"
    ]
    backend.set_vectors(["z", "w"], np.asarray([[0, 0, 1], [0, 1, 0]], dtype=np.float32))
    assert backend.waiting_keyword_search("page", 10, {}) == []

    # Once nothing waits, a backend may remember it (Qdrant's embedded engine does): a
    # document stored afterwards without a vector, or rewritten so that its vector is
    # stale, must still be found.
    backend.put([_doc("v", "a late page")])
    assert [hit.ref for hit in backend.waiting_keyword_search("page", 10, {})] == ["v"]
    backend.set_vectors(["v"], np.asarray([[0, 1, 0]], dtype=np.float32))
    assert backend.waiting_keyword_search("page", 10, {}) == []
    backend.put([_doc("y", "beta login page rewritten", team="blue", n=2)])
    assert [hit.ref for hit in backend.waiting_keyword_search("rewritten", 10, {})] == ["y"]


class _PlainBackend(InMemoryBackend):
    """A backend that keeps the base class's generic ``waiting_keyword_search``."""

    waiting_keyword_search = CollectionBackend.waiting_keyword_search


def test_the_generic_waiting_keyword_search_ranks_past_embedded_matches() -> None:
    backend = _PlainBackend("notes", CollectionConfig(dimension=DIM3))
    backend.put([_doc(f"e{i}", "page", [1, 0, 0]) for i in range(3)])
    backend.put([_doc("w", "a page draft")])

    # The embedded documents score higher and fill any top_k: the waiting one still comes.
    assert [(hit.ref, hit.score) for hit in backend.waiting_keyword_search("page", 1, {})] == [
        ("w", 1.0)
    ]
    assert backend.waiting_keyword_search("draft", 5, {"team": "red"}) == []
    backend.set_vectors(["w"], np.asarray([[0, 1, 0]], dtype=np.float32))
    assert backend.waiting_keyword_search("page", 5, {}) == []


def test_contract_rewriting_a_ref_replaces_it_and_drops_a_stale_vector(
    open_backend: OpenBackend,
) -> None:
    backend = open_backend("notes")
    _three(backend)
    backend.put([_doc("x", "alpha rewritten", team="green")])
    assert backend.counts() == (3, 1)
    assert backend.unembedded() == {"x": "alpha rewritten", "z": "gamma pending page"}
    assert [hit.ref for hit in backend.vector_search(_vec(1, 0, 0), 10, -1.0, {})] == ["y"]
    assert [hit.ref for hit in backend.keyword_search("rewritten", 5, {"team": "green"})] == ["x"]
    backend.put([_doc("x", "alpha again", [0, 1, 0], team="green")])
    assert backend.counts() == (3, 2)


def test_contract_delete_answers_the_refs_that_existed(open_backend: OpenBackend) -> None:
    backend = open_backend("notes")
    _three(backend)
    assert backend.delete(["x", "x", "nope", "z"]) == ["x", "z"]
    assert backend.delete(["x"]) == []
    assert backend.delete([]) == []
    assert backend.counts() == (1, 1)
    assert backend.keyword_search("alpha", 5, {}) == []
    assert backend.unembedded() == {}


def test_contract_collections_are_apart_and_drop_empties_one(open_backend: OpenBackend) -> None:
    notes, other = open_backend("notes"), open_backend("other")
    _three(notes)
    other.put([_doc("x", "other alpha", [0, 0, 1])])
    assert other.counts() == (1, 1)
    assert [hit.text for hit in other.keyword_search("alpha", 5, {})] == ["other alpha"]

    notes.drop()
    notes.close()
    again = open_backend("notes")
    assert again.counts() == (0, 0)
    assert other.counts() == (1, 1)
