"""Core's vector-store contract (models, name rules, lookup) and the VectorStoreTool card."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic import ValidationError

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import assert_card_conformance
from akgentic.tool.core.vector_store import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    VectorQuery,
    embed_worker_name,
    lookup_vector_store,
    resolve_vector_store_name,
    validate_collection_name,
)
from akgentic.tool.vector_store.tool import VectorStoreTool


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
    assert "reaches no orchestrator" in caplog.text


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
    assert "text-embedding-3-large is ignored" in caplog.text
