"""``VectorIndex`` beyond single queries: ``search_batch`` (default ``top_k``, chunks of
many queries, zero queries, thresholds met exactly, float32 scores, empty and emptied
indexes), ``search_cosine``'s default, ``from_arrays`` errors, and an index that grows by
more than double its size at once."""

from __future__ import annotations

import numpy as np
import pytest

from akgentic.tool.vector_store.vector import VectorIndex


def identity_index(size: int) -> VectorIndex:
    """``size`` refs ``r0``.. on the axes of a ``size``-dimensional space."""
    return VectorIndex.from_arrays([f"r{i}" for i in range(size)], np.eye(size))


def test_search_batch_returns_ten_hits_per_query_by_default() -> None:
    rng = np.random.default_rng(7)
    index = VectorIndex.from_arrays([f"r{i}" for i in range(15)], rng.normal(size=(15, 4)))
    results = index.search_batch(rng.normal(size=(2, 4)))
    assert [len(hits) for hits in results] == [10, 10]


def test_search_cosine_returns_ten_hits_by_default() -> None:
    rng = np.random.default_rng(8)
    index = VectorIndex.from_arrays([f"r{i}" for i in range(15)], rng.normal(size=(15, 4)))
    assert len(index.search_cosine(rng.normal(size=4))) == 10


def test_search_batch_answers_every_query_past_the_first_chunk() -> None:
    index = identity_index(3)
    queries = np.tile(np.eye(3), (101, 1))  # 303 queries, more than one chunk of 256
    results = index.search_batch(queries, top_k=1)
    assert len(results) == 303
    assert [hits[0][0] for hits in results] == ["r0", "r1", "r2"] * 101


def test_search_batch_ranks_best_first_and_agrees_with_search() -> None:
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(30, 8))
    index = VectorIndex.from_arrays([f"r{i}" for i in range(30)], vectors)
    queries = rng.normal(size=(4, 8)).astype(np.float32)
    for query, hits in zip(queries, index.search_batch(queries, top_k=5), strict=True):
        single = index.search(query, top_k=5)
        assert [ref for ref, _ in hits] == [ref for ref, _ in single]
        assert [score for _, score in hits] == pytest.approx([score for _, score in single])
        scores = [score for _, score in hits]
        assert scores == sorted(scores, reverse=True)


def test_search_batch_scores_are_float32_values_whatever_the_query_type() -> None:
    rng = np.random.default_rng(5)
    index = VectorIndex.from_arrays([f"r{i}" for i in range(6)], rng.normal(size=(6, 5)))
    queries = rng.normal(size=(3, 5))  # float64
    for hits in index.search_batch(queries, top_k=6):
        assert hits
        assert all(float(np.float32(score)) == score for _, score in hits)


def test_a_zero_query_scores_zero_against_everything() -> None:
    index = identity_index(3)
    results = index.search_batch(np.zeros((1, 3)), top_k=3)
    assert len(results[0]) == 3
    assert [score for _, score in results[0]] == [0.0, 0.0, 0.0]


def test_a_score_equal_to_the_threshold_is_kept() -> None:
    index = identity_index(3)
    results = index.search_batch(np.array([[1.0, 0.0, 0.0]]), top_k=3, score_threshold=1.0)
    assert results == [[("r0", 1.0)]]


def test_top_k_zero_gives_one_empty_answer_per_query() -> None:
    index = identity_index(3)
    assert index.search_batch(np.ones((2, 3)), top_k=0) == [[], []]


def test_an_emptied_index_gives_one_empty_answer_per_query() -> None:
    index = identity_index(3)
    index.remove(["r0", "r1", "r2"])
    assert index.search_batch(np.ones((2, 3)), top_k=5) == [[], []]


def test_an_index_never_filled_gives_one_empty_answer_per_query() -> None:
    assert VectorIndex().search_batch(np.ones((2, 5))) == [[], []]


def test_queries_of_the_wrong_width_are_refused() -> None:
    with pytest.raises(ValueError, match=r"shape \(n, 3\)"):
        identity_index(3).search_batch(np.ones((2, 4)))


def test_from_arrays_refuses_a_flat_vector_naming_its_shape() -> None:
    with pytest.raises(ValueError, match=r"2-D matrix, got shape \(3,\)"):
        VectorIndex.from_arrays(["a"], [1.0, 2.0, 3.0])


def test_from_arrays_of_zero_width_is_refused_as_a_dimension() -> None:
    with pytest.raises(ValueError, match="dimension must be at least 1"):
        VectorIndex.from_arrays([], np.zeros((0, 0)))


def test_from_arrays_fixes_the_dimension_even_without_rows() -> None:
    index = VectorIndex.from_arrays([], np.zeros((0, 4)))
    assert index.dimension == 4
    assert len(index) == 0


def test_an_index_grows_by_more_than_double_at_once() -> None:
    index = VectorIndex.from_arrays(["first"], [[1.0, 0.0]])
    refs = [f"r{i}" for i in range(200)]
    index.add(refs, np.tile([0.0, 1.0], (200, 1)))
    assert len(index) == 201
    assert index.refs == ["first", *refs]
    np.testing.assert_array_equal(index.get("r199"), [0.0, 1.0])
    np.testing.assert_array_equal(index.get("first"), [1.0, 0.0])
