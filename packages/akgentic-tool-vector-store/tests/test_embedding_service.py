"""EmbeddingService against a real HTTP server on 127.0.0.1 speaking the OpenAI API."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest

from akgentic.tool.vector_store.vector import EmbeddingError, EmbeddingService

DIM = 64  # the dimension the local server answers with (conftest's default)


def test_openai_provider_batches_and_keeps_input_order(openai_env: Any, hash_embed: Any) -> None:
    service = EmbeddingService("text-embedding-3-small", batch_size=2, max_retries=0)
    texts = ["alpha beta", "gamma", "delta epsilon", "zeta", "eta theta"]

    matrix = service.embed(texts)

    assert matrix.dtype == np.float32
    assert matrix.shape == (5, DIM)
    np.testing.assert_allclose(matrix, hash_embed(texts), atol=1e-6)
    assert openai_env.inputs() == [texts[0:2], texts[2:4], texts[4:5]]
    first = openai_env.requests[0]
    assert first["path"] == "/v1/embeddings"
    assert first["body"]["model"] == "text-embedding-3-small"
    assert first["headers"]["Authorization"] == "Bearer sk-local-test"
    service.close()


def test_azure_provider_uses_the_deployment_route_and_api_key(
    embedding_server: Any, hash_embed: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", embedding_server.base_url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-local-key")
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    service = EmbeddingService("my-embedding-deployment", provider="azure", max_retries=0)

    vector = service.embed_one("hello azure")

    np.testing.assert_allclose(vector, hash_embed(["hello azure"])[0], atol=1e-6)
    request = embedding_server.requests[0]
    assert request["path"].startswith("/openai/deployments/my-embedding-deployment/embeddings")
    assert "api-version=2024-10-21" in request["path"]
    assert request["headers"]["api-key"] == "azure-local-key"


def test_the_timeout_reaches_the_http_call(openai_env: Any, hash_embed: Any) -> None:
    openai_env.gate = threading.Event()  # the server holds the request until released
    service = EmbeddingService(timeout_seconds=0.3, max_retries=0)

    started = time.monotonic()
    with pytest.raises(EmbeddingError, match="Timeout"):
        service.embed(["slow"])
    elapsed = time.monotonic() - started

    assert elapsed < 2.0, f"the call took {elapsed:.2f} s despite a 0.3 s timeout"
    openai_env.gate.set()


def test_a_deadline_shortens_the_request_timeout(openai_env: Any, hash_embed: Any) -> None:
    openai_env.gate = threading.Event()
    service = EmbeddingService(timeout_seconds=20.0, max_retries=0)

    started = time.monotonic()
    with pytest.raises(EmbeddingError):
        service.embed(["slow"], deadline=time.monotonic() + 0.3)
    assert time.monotonic() - started < 2.0
    with pytest.raises(EmbeddingError, match="budget exhausted"):
        service.embed(["late"], deadline=time.monotonic() - 1)
    openai_env.gate.set()


def test_each_attempt_gets_an_equal_share_of_the_time_left(
    openai_env: Any, hash_embed: Any
) -> None:
    # Three attempts (one call and two retries) share the 3 s left: 1 s each at most.
    service = EmbeddingService(timeout_seconds=20.0, max_retries=2)
    share = service._request_timeout(time.monotonic() + 3.0)
    assert 0.9 < share <= 1.0
    assert service._request_timeout(None) == 20.0  # no deadline: the configured timeout
    assert EmbeddingService(timeout_seconds=0.5)._request_timeout(time.monotonic() + 60) == 0.5


def test_http_errors_become_embedding_errors(openai_env: Any, hash_embed: Any) -> None:
    openai_env.fail_status = 503
    service = EmbeddingService(max_retries=0)
    with pytest.raises(EmbeddingError, match="provider unavailable"):
        service.embed(["x"])


def test_unexpected_dimension_is_an_error(openai_env: Any, hash_embed: Any) -> None:
    service = EmbeddingService(max_retries=0, dimension=DIM + 1)
    with pytest.raises(EmbeddingError, match=f"dimension {DIM}, expected {DIM + 1}"):
        service.embed(["x"])
    assert service.embed(["x"], dimension=DIM).shape == (1, DIM)


def test_missing_credentials_surface_as_embedding_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EmbeddingError, match="api_key"):
        EmbeddingService(max_retries=0).embed(["x"])


def test_local_function_replaces_the_provider(hash_embed: Any) -> None:
    calls: list[list[str]] = []

    def local(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return hash_embed(texts, 16)

    service = EmbeddingService(embed_fn=local, batch_size=3)
    assert service.embed(["a", "b", "c", "d"]).shape == (4, 16)
    assert calls == [["a", "b", "c"], ["d"]]

    broken = EmbeddingService(embed_fn=lambda texts: [[1.0, 2.0]])
    with pytest.raises(EmbeddingError, match="1 vectors for 2 texts"):
        broken.embed(["a", "b"])
    with pytest.raises(EmbeddingError, match="non-finite"):
        EmbeddingService(embed_fn=lambda texts: [[float("nan")]]).embed(["a"])


def test_invalid_settings_are_rejected() -> None:
    with pytest.raises(ValueError, match="provider"):
        EmbeddingService(provider="cohere")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size"):
        EmbeddingService(batch_size=0)
    with pytest.raises(ValueError, match="timeout"):
        EmbeddingService(timeout_seconds=0)
    assert EmbeddingService().embed([]).shape == (0, 0)


def test_by_default_256_texts_go_in_one_request_and_the_budget_is_ten_seconds(
    openai_env: Any,
) -> None:
    service = EmbeddingService("text-embedding-3-small", max_retries=0)
    texts = [f"text {n}" for n in range(257)]

    service.embed(texts)

    assert [len(batch) for batch in openai_env.inputs()] == [256, 1]
    assert service.timeout_seconds == 10.0
    service.close()


def test_a_batch_of_one_text_is_allowed(openai_env: Any) -> None:
    service = EmbeddingService("text-embedding-3-small", batch_size=1, max_retries=0)

    service.embed(["alpha", "beta"])

    assert openai_env.inputs() == [["alpha"], ["beta"]]
    service.close()
