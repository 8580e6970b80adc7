"""The kit's local vector store and card-binding helpers behave as documented."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import (
    LocalVectorStore,
    ToolRetry,
    ToolTestAgent,
    bind_card,
    concept_embedding,
    expect_retry,
    spawn_local_vector_store,
)
from akgentic.tool.core.vector_store import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    UnknownCollectionError,
    VectorDocument,
    VectorQuery,
    lookup_vector_store,
)
from akgentic.tool.errors import RetriableError

SMALL = CollectionConfig(dimension=64)


def test_concept_embedding_is_deterministic_normalised_and_folds_synonyms() -> None:
    dog = concept_embedding("dog", 64)
    assert dog == concept_embedding("DOG!", 64)
    assert math.isclose(sum(v * v for v in dog), 1.0)
    assert concept_embedding("puppy", 64) == dog
    assert concept_embedding("automobile", 64) != dog
    assert concept_embedding("", 8) == [0.0] * 8


@pytest.fixture
def store(actor_system: ActorSystem, orchestrator: ActorAddress) -> LocalVectorStore:
    return spawn_local_vector_store(actor_system, orchestrator)


def test_store_is_found_by_name_like_the_real_one(
    store: LocalVectorStore, tool_agent: ToolTestAgent
) -> None:
    found = lookup_vector_store(tool_agent, VECTOR_STORE_NAME)
    assert found is not None
    assert found.create_collection("c", SMALL).documents == 0
    assert store.list_collections() == ["c"]


def test_collections_are_idempotent_and_guard_their_config(store: LocalVectorStore) -> None:
    store.create_collection("c", SMALL)
    store.upsert("c", [VectorDocument(ref="a", text="dog")])
    assert store.create_collection("c", SMALL).documents == 1  # kept on a second create
    with pytest.raises(ValueError, match="another config"):
        store.create_collection("c", CollectionConfig(dimension=8))
    with pytest.raises(ValueError, match="invalid collection name"):
        store.create_collection("bad name", SMALL)
    assert store.drop_collection("c") is True
    assert store.drop_collection("c") is False
    with pytest.raises(UnknownCollectionError):
        store.refs("c")


def test_search_ranks_by_cosine_with_threshold_and_top_k(store: LocalVectorStore) -> None:
    store.create_collection("c", SMALL)
    store.upsert(
        "c",
        [
            VectorDocument(ref="pet", text="puppy"),
            VectorDocument(ref="mixed", text="dog and car"),
            VectorDocument(ref="car", text="automobile"),
        ],
    )
    result = store.search("c", VectorQuery(text="hound", top_k=5, score_threshold=0.1))
    assert result.status == "ok"
    assert [hit.ref for hit in result.hits] == ["pet", "mixed"]
    assert result.hits[0].score > result.hits[1].score
    assert all(hit.match == "vector" for hit in result.hits)
    top = store.search("c", VectorQuery(text="dog car", top_k=1))
    assert [hit.ref for hit in top.hits] == ["mixed"]
    assert store.delete("c", ["pet", "nothing"]) == 1
    assert store.refs("c") == ["car", "mixed"]
    stats = store.collection_stats("c")
    assert (stats.documents, stats.embedded, stats.pending) == (2, 2, 0)


def test_degraded_store_answers_without_hits_until_restored(store: LocalVectorStore) -> None:
    store.create_collection("c", SMALL)
    store.upsert("c", [VectorDocument(ref="a", text="dog")])
    store.set_degraded("provider down")
    result = store.search("c", VectorQuery(text="dog"))
    assert (result.status, result.hits, result.reason) == ("degraded", [], "provider down")
    store.set_degraded(None)
    assert [hit.ref for hit in store.search("c", VectorQuery(text="dog")).hits] == ["a"]


class EchoTool(ToolCard):
    def get_tools(self) -> list[Callable[..., Any]]:
        def echo(text: str) -> str:
            """Echo a non-empty text."""
            if not text:
                raise RetriableError("text must not be empty")
            return text

        return [echo]

    def get_system_prompts(self) -> list[Callable[..., Any]]:
        def echo_prompt() -> str:
            return "You can echo."

        return [echo_prompt]


def test_bind_card_gives_tools_and_prompts_by_name(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, EchoTool())
    assert sorted(tools) == ["echo", "echo_prompt"]
    assert tools["echo"]("hi") == "hi"
    assert tools["echo_prompt"]() == "You can echo."
    with pytest.raises(ToolRetry):
        tools["echo"]("")


def test_expect_retry_returns_the_message_and_fails_on_success(tool_agent: ToolTestAgent) -> None:
    echo = bind_card(tool_agent, EchoTool())["echo"]
    assert expect_retry(echo, "") == "text must not be empty"
    with pytest.raises(pytest.fail.Exception):
        expect_retry(echo, "fine")
