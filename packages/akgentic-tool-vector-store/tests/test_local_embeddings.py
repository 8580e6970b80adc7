"""Local embeddings (model2vec) on a tiny model each test writes itself: the real loading,
tokenising and encoding code, the provider choice without a key, and the store using it
in a real actor system. Nothing is downloaded (conftest sets ``HF_HUB_OFFLINE=1``)."""

from __future__ import annotations

import logging
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import eventually
from akgentic.tool.core.vector_store import (
    CollectionConfig,
    VectorDocument,
    VectorQuery,
    VectorStore,
    lookup_vector_store,
    search_text,
)
from akgentic.tool.vector_store.actor import VectorStoreActor
from akgentic.tool.vector_store.embedding_choice import choose_embedding
from akgentic.tool.vector_store.local_embeddings import (
    DEFAULT_LOCAL_MODEL,
    LOCAL_MODEL_ENV,
    LocalEmbedder,
    load_local_model,
    local_model_name,
)
from akgentic.tool.vector_store.testing import write_static_model
from akgentic.tool.vector_store.tool import VectorStoreTool
from akgentic.tool.vector_store.vector import EmbeddingService, EmbeddingServiceError

_KEYS = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN")
TASKS = [
    VectorDocument(ref="car", text="repair the automobile"),
    VectorDocument(ref="bread", text="bake the bread"),
    VectorDocument(ref="fence", text="paint the fence"),
]


@pytest.fixture
def tiny_model(tmp_path: Path) -> Path:
    return write_static_model(tmp_path / "tiny-model")


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _KEYS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def without_model2vec(monkeypatch: pytest.MonkeyPatch) -> None:
    """model2vec as if not installed (``find_spec`` answers None for a None entry)."""
    monkeypatch.setitem(sys.modules, "model2vec", None)


def bind(agent: Any, **card: Any) -> VectorStore:
    tool = VectorStoreTool(**card)
    ToolFactory([tool], observer=agent)
    store = lookup_vector_store(agent, tool.vector_store_name)
    assert store is not None
    return store


def description(system: ActorSystem, orchestrator: Any, name: str = "#VectorStore") -> str:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = next(member for member in orch.get_team() if member.name == name)
    return str(system.proxy_ask(address, VectorStoreActor).embedding_description())


# -- the model: loading and encoding ------------------------------------------------------


def test_synonyms_embed_close_and_unrelated_texts_apart(tiny_model: Path) -> None:
    service = EmbeddingService(str(tiny_model), "local")
    matrix = service.embed(["repair the automobile", "car", "bake the bread"])
    normalised = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    scores = normalised @ normalised[1]
    assert scores[0] == pytest.approx(1 / np.sqrt(2), abs=1e-5)
    assert scores[2] == pytest.approx(0.0, abs=1e-6)


def test_vectors_are_padded_to_the_collection_dimension_without_changing_cosine(
    tiny_model: Path,
) -> None:
    service = EmbeddingService(str(tiny_model), "local")
    native = service.embed(["car", "repair the automobile"])
    padded = service.embed(["car", "repair the automobile"], dimension=1536)
    assert padded.shape == (2, 1536)
    assert not padded[:, native.shape[1] :].any()
    assert float(padded[0] @ padded[1]) == pytest.approx(float(native[0] @ native[1]))


def test_a_collection_shorter_than_the_model_is_refused_with_the_fix(tiny_model: Path) -> None:
    service = EmbeddingService(str(tiny_model), "local")
    with pytest.raises(EmbeddingServiceError, match=r"CollectionConfig\(dimension=\d+\)"):
        service.embed(["car"], dimension=2)


def test_a_model_is_loaded_once_per_process(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="akgentic.tool.vector_store.local_embeddings")
    folder = write_static_model(tmp_path / "once")
    errors: list[BaseException] = []

    def embed() -> None:
        try:
            LocalEmbedder(str(folder))(["car"])
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=embed) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    shutil.rmtree(folder)  # a second load would fail now: the first one is reused
    assert LocalEmbedder(str(folder))(["automobile"]).shape == (1, 13)
    assert load_local_model(str(folder)) is load_local_model(str(folder))
    loaded = f"local embedding model {folder} loaded from {folder} (dimension 13)"
    assert [m for m in caplog.messages if "loaded from" in m] == [loaded]  # said once


def test_a_name_missing_from_the_cache_with_downloads_off_says_to_point_at_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    service = EmbeddingService("example-owner/not-cached-model", "local")
    with pytest.raises(EmbeddingServiceError) as caught:
        service.embed(["car"])
    message = str(caught.value)
    assert "'example-owner/not-cached-model' is not in the cache" in message
    assert "downloads are off" in message
    assert "point model at a folder" in message


def test_a_cached_model_name_is_read_from_the_cache_without_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "hub"
    repo = cache / "models--example-owner--tiny"
    write_static_model(repo / "snapshots" / "abc123")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    vectors = EmbeddingService("example-owner/tiny", "local").embed(["car", "automobile"])
    assert float(vectors[0] @ vectors[1]) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda tmp: tmp / "absent", "does not exist"),
        (lambda tmp: (tmp / "file.bin").write_bytes(b"x") and tmp / "file.bin", "is a file"),
        (lambda tmp: (tmp / "empty").mkdir() or tmp / "empty", "lacks config.json"),
    ],
)
def test_a_bad_model_folder_is_named_in_a_clear_error(
    tmp_path: Path, make: Any, expected: str
) -> None:
    path = make(tmp_path)
    with pytest.raises(EmbeddingServiceError, match=expected) as caught:
        EmbeddingService(str(path), "local").embed(["car"])
    assert str(path) in str(caught.value)
    assert not caught.value.rejected_input  # every text would fail: not one text's fault


# -- the choice ---------------------------------------------------------------------------


def test_a_key_keeps_the_hosted_provider_even_with_local_installed() -> None:
    env = {"OPENAI_API_KEY": "sk-x", "AZURE_OPENAI_API_KEY": "az"}
    assert choose_embedding("openai", "text-embedding-3-small", env).provider == "openai"
    assert choose_embedding("azure", "deployment", env).provider == "azure"
    assert choose_embedding("auto", "text-embedding-3-small", env).provider == "openai"
    only_azure = {"AZURE_OPENAI_API_KEY": "az", "AZURE_OPENAI_ENDPOINT": "https://x"}
    assert choose_embedding("auto", "deployment", only_azure).provider == "azure"


def test_without_a_key_the_default_model_is_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LOCAL_MODEL_ENV, raising=False)
    choice = choose_embedding("openai", "text-embedding-3-small", {})
    assert (choice.provider, choice.model) == ("local", DEFAULT_LOCAL_MODEL)
    assert choice.note is not None
    assert "OPENAI_API_KEY" in choice.note
    azure = choose_embedding("azure", "my-deployment", {})
    assert (azure.provider, azure.model) == ("local", DEFAULT_LOCAL_MODEL)
    monkeypatch.setenv(LOCAL_MODEL_ENV, "/models/potion")
    assert choose_embedding("openai", "text-embedding-3-small", {}).model == "/models/potion"
    assert local_model_name("/elsewhere/model") == "/elsewhere/model"


def test_without_key_nor_local_extra_the_choice_says_what_to_do(without_model2vec: None) -> None:
    choice = choose_embedding("openai", "text-embedding-3-small", {})
    assert choice.provider is None
    assert choice.note is not None
    assert "OPENAI_API_KEY" in choice.note
    assert "[local-embeddings]" in choice.note
    local = choose_embedding("local", "text-embedding-3-small", {})
    assert local.provider is None
    assert "model2vec" in (local.note or "")


# -- the store ----------------------------------------------------------------------------


def test_without_a_key_the_store_searches_by_meaning_with_the_local_model(
    actor_system: ActorSystem,
    orchestrator: Any,
    tool_agent: Any,
    tiny_model: Path,
    no_key: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(LOCAL_MODEL_ENV, str(tiny_model))
    store = bind(tool_agent)  # the default card: provider "openai", no key set
    store.create_collection("tasks", CollectionConfig())  # default dimension 1536
    store.upsert("tasks", TASKS)
    eventually(lambda: store.collection_stats("tasks").embedded == 3)

    result = search_text(store, "tasks", VectorQuery(text="car", score_threshold=0.5))
    assert result.status == "ok"
    assert [(hit.ref, hit.match) for hit in result.hits] == [("car", "vector")]
    assert result.hits[0].score == pytest.approx(1 / np.sqrt(2), abs=1e-4)
    assert description(actor_system, orchestrator).startswith(f"local ({tiny_model})")


def test_a_query_of_unknown_words_finds_nothing_without_error(
    tool_agent: Any, tiny_model: Path, no_key: None
) -> None:
    store = bind(tool_agent, embedding_provider="local", embedding_model=str(tiny_model))
    store.create_collection("tasks", CollectionConfig(dimension=13))
    store.upsert("tasks", TASKS)
    eventually(lambda: store.collection_stats("tasks").embedded == 3)
    result = search_text(store, "tasks", VectorQuery(text="xyzzy plugh"))
    assert (result.status, result.hits) == ("ok", [])


def test_with_a_key_the_store_keeps_the_hosted_provider(
    actor_system: ActorSystem,
    orchestrator: Any,
    tool_agent: Any,
    openai_env: Any,
    tiny_model: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(LOCAL_MODEL_ENV, str(tiny_model))
    store = bind(tool_agent)
    store.create_collection("tasks", CollectionConfig(dimension=64))
    store.upsert("tasks", TASKS[:1])
    eventually(lambda: store.collection_stats("tasks").embedded == 1)
    assert openai_env.inputs() == [["repair the automobile"]]
    assert description(actor_system, orchestrator).startswith("openai (text-embedding-3-small)")


def test_without_key_nor_local_extra_one_warning_and_keyword_answers(
    tool_agent: Any,
    no_key: None,
    without_model2vec: None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.vector_store"):
        store = bind(tool_agent)
        for name in ("tasks", "graph"):
            store.create_collection(name, CollectionConfig())
            store.upsert(name, TASKS)
            result = store.search(name, VectorQuery(text="bread"))
            assert result.status == "degraded"
            assert [hit.ref for hit in result.hits] == ["bread"]
            assert "[local-embeddings]" in (result.reason or "")
            assert store.collection_stats(name).pending == 0  # no worker was sent
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, warnings
    assert "OPENAI_API_KEY" in warnings[0]
    assert "[local-embeddings]" in warnings[0]
