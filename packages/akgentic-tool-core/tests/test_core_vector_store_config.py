"""VectorStoreConfig keeps the predecessor's Weaviate fields (optional overrides)."""

from __future__ import annotations

from akgentic.tool.core.vector_store import VectorStoreConfig


def test_weaviate_fields_default_to_the_environment() -> None:
    config = VectorStoreConfig(name="#VectorStore")
    assert config.weaviate_url is None
    assert config.weaviate_api_key is None


def test_a_stored_predecessor_config_round_trips_and_hides_the_key() -> None:
    stored = {
        "name": "#VectorStore",
        "role": "ToolActor",
        "embedding_model": "text-embedding-3-large",
        "embedding_provider": "azure",
        "weaviate_url": "https://weaviate.internal:8443",
        "weaviate_api_key": "wv-secret",
    }
    config = VectorStoreConfig.model_validate(stored)
    again = VectorStoreConfig.model_validate(config.model_dump())

    assert again == config
    assert again.weaviate_url == "https://weaviate.internal:8443"
    assert again.weaviate_api_key == "wv-secret"
    assert "wv-secret" not in repr(config)
