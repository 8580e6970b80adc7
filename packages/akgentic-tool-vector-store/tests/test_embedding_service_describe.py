"""The embedding service's one-line description, empty inputs, a single text's deadline,
the dtype of padded local vectors, and texts refused one by one when the provider gives
no dimension (refused rows are NaN across the full width of the others)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from akgentic.tool.vector_store.testing import write_static_model
from akgentic.tool.vector_store.vector import EmbeddingService, EmbeddingServiceError

EmbedFn = Callable[[list[str]], npt.NDArray[np.float32]]
DIM = 64  # conftest's hash_embed width


def refusing(embed: EmbedFn) -> EmbedFn:
    """``embed``, refusing (``ValueError``) any batch holding a text starting "bad"."""

    def embed_or_refuse(texts: list[str]) -> npt.NDArray[np.float32]:
        if any(text.startswith("bad") for text in texts):
            raise ValueError("text too long for the model")
        return embed(texts)

    return embed_or_refuse


# -- describe -----------------------------------------------------------------------------


def test_a_hosted_provider_is_described_with_its_model() -> None:
    service = EmbeddingService("text-embedding-3-small", "openai")
    assert service.describe() == "openai (text-embedding-3-small)"


def test_a_local_function_is_described_as_embed_fn(hash_embed: EmbedFn) -> None:
    service = EmbeddingService("my-model", "openai", embed_fn=hash_embed)
    assert service.describe() == "embed_fn (my-model)"


def test_a_local_model_is_described_as_local(tmp_path: Path) -> None:
    service = EmbeddingService(str(tmp_path / "model"), "local")
    assert service.describe() == f"local ({tmp_path / 'model'})"


def test_the_reason_for_a_provider_follows_its_description() -> None:
    service = EmbeddingService("owner/model", "local")
    service.note = "no OPENAI_API_KEY set, so embedding locally"
    assert service.describe() == "local (owner/model); no OPENAI_API_KEY set, so embedding locally"


def test_an_unavailable_service_is_described_as_keyword_search() -> None:
    service = EmbeddingService(unavailable="install the extra")
    assert service.describe() == "none, keyword search only: install the extra"


# -- embed / embed_one --------------------------------------------------------------------


def test_no_texts_give_an_empty_float32_matrix_of_the_expected_width(hash_embed: EmbedFn) -> None:
    service = EmbeddingService(embed_fn=hash_embed, dimension=DIM)
    empty = service.embed([])
    assert empty.shape == (0, DIM)
    assert empty.dtype == np.float32
    assert service.embed([], dimension=8).shape == (0, 8)


def test_many_batches_come_back_in_order(hash_embed: EmbedFn) -> None:
    service = EmbeddingService(embed_fn=hash_embed, batch_size=2)
    texts = [f"text number {index}" for index in range(5)]
    matrix = service.embed(texts)
    assert matrix.shape == (5, DIM)
    np.testing.assert_array_equal(matrix, hash_embed(texts))


def test_a_single_text_past_its_deadline_is_not_sent(openai_env: Any) -> None:
    service = EmbeddingService("text-embedding-3-small", "openai")
    with pytest.raises(EmbeddingServiceError, match="time budget exhausted"):
        service.embed_one("hello", deadline=time.monotonic() - 1.0)
    assert openai_env.inputs() == []


def test_a_single_text_within_its_deadline_is_embedded(openai_env: Any) -> None:
    service = EmbeddingService("text-embedding-3-small", "openai")
    vector = service.embed_one("hello world", deadline=time.monotonic() + 30.0)
    assert vector.shape == (DIM,)
    assert openai_env.inputs() == [["hello world"]]


def test_padded_local_vectors_stay_float32(tmp_path: Path) -> None:
    folder = write_static_model(tmp_path / "model")
    padded = EmbeddingService(str(folder), "local").embed(["car", "dog"], dimension=100)
    assert padded.shape == (2, 100)
    assert padded.dtype == np.float32


# -- embed_partial: refused texts without a known dimension --------------------------------


def test_refused_texts_are_nan_rows_as_wide_as_the_embedded_ones(hash_embed: EmbedFn) -> None:
    service = EmbeddingService(embed_fn=refusing(hash_embed))
    texts = ["bad one", "bad two", "good one", "good two"]
    matrix, refused = service.embed_partial(texts)
    assert matrix.shape == (4, DIM)
    assert matrix.dtype == np.float32
    assert np.isnan(matrix[:2]).all()
    np.testing.assert_array_equal(matrix[2:], hash_embed(texts[2:]))
    assert sorted(refused) == [0, 1]
    assert all("text too long" in reason for reason in refused.values())


def test_a_refused_text_after_embedded_ones_is_a_nan_row(hash_embed: EmbedFn) -> None:
    service = EmbeddingService(embed_fn=refusing(hash_embed))
    texts = ["good one", "good two", "good three", "bad one"]
    matrix, refused = service.embed_partial(texts)
    assert matrix.shape == (4, DIM)
    np.testing.assert_array_equal(matrix[:3], hash_embed(texts[:3]))
    assert np.isnan(matrix[3]).all()
    assert list(refused) == [3]


def test_rows_of_later_batches_land_at_their_texts_positions(hash_embed: EmbedFn) -> None:
    service = EmbeddingService(embed_fn=refusing(hash_embed), batch_size=3)
    texts = [f"good {n}" for n in range(7)]
    texts[4] = "bad four"  # in the second batch of three

    matrix, refused = service.embed_partial(texts)

    assert matrix.shape == (7, DIM)
    fine = [n for n in range(7) if n != 4]
    np.testing.assert_array_equal(matrix[fine], hash_embed([texts[n] for n in fine]))
    assert np.isnan(matrix[4]).all()
    assert list(refused) == [4]
