"""VectorIndex against a brute-force reference computed here with plain numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from akgentic.tool.vector_store.vector import VectorIndex


def _reference(matrix: np.ndarray, refs: list[str], query: np.ndarray, k: int) -> list[str]:
    normed = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    scores = normed @ (query / np.linalg.norm(query))
    order = np.argsort(-scores, kind="stable")[:k]
    return [refs[i] for i in order]


def _random(n: int, dim: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def test_search_matches_brute_force_and_scores_are_cosines() -> None:
    matrix = _random(500, 32)
    refs = [f"doc-{i}" for i in range(500)]
    index = VectorIndex.from_arrays(refs, matrix)
    query = _random(1, 32, seed=1)[0]

    hits = index.search(query, top_k=10)

    assert [ref for ref, _ in hits] == _reference(matrix, refs, query, 10)
    first = refs.index(hits[0][0])
    expected = float(
        matrix[first] @ query / (np.linalg.norm(matrix[first]) * np.linalg.norm(query))
    )
    assert hits[0][1] == pytest.approx(expected, abs=1e-5)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=60),
    k=st.integers(min_value=1, max_value=80),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_single_and_batched_search_agree_with_reference(n: int, k: int, seed: int) -> None:
    matrix = _random(n, 8, seed)
    refs = [f"r{i}" for i in range(n)]
    index = VectorIndex.from_arrays(refs, matrix)
    queries = _random(3, 8, seed + 1)

    batched = index.search_batch(queries, top_k=k)

    for query, batch_hits in zip(queries, batched, strict=True):
        single = index.search(query, top_k=k)
        assert len(single) == min(k, n)
        assert [r for r, _ in single] == [r for r, _ in batch_hits]
        assert np.allclose([s for _, s in single], [s for _, s in batch_hits], atol=1e-5)
        reference = _reference(matrix, refs, query, k)
        # Equal scores may tie in any order: compare the score sequences instead.
        assert np.allclose(
            sorted((s for _, s in single), reverse=True),
            [
                float(matrix[refs.index(r)] @ query)
                / float(np.linalg.norm(matrix[refs.index(r)]) * np.linalg.norm(query))
                for r in reference
            ],
            atol=1e-5,
        )


def test_replace_remove_and_contiguity() -> None:
    index = VectorIndex(3)
    index.add(["a", "b", "c"], [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    index.add(["b"], [[1, 0, 0]])  # replace in place
    assert len(index) == 3
    assert index.search([1, 0, 0], top_k=2)[1][0] in {"a", "b"}
    assert index.search([0, 1, 0], top_k=1)[0][1] < 0.5  # nothing points at y any more

    assert index.remove(["a", "missing"]) == 1
    assert "a" not in index
    assert len(index) == 2
    assert sorted(index.refs) == ["b", "c"]
    assert index.search([0, 0, 1], top_k=1)[0][0] == "c"
    np.testing.assert_allclose(index.get("b"), [1, 0, 0])
    assert index.matrix().shape == (2, 3)


def test_duplicate_refs_in_one_add_keep_the_last_vector() -> None:
    index = VectorIndex(2)
    index.add(["x", "x", "y"], [[1, 0], [0, 1], [1, 1]])
    assert len(index) == 2
    np.testing.assert_allclose(index.get("x"), [0, 1])


def test_threshold_and_allowed_filter() -> None:
    index = VectorIndex.from_arrays(["a", "b", "c"], [[1, 0], [0.9, 0.1], [0, 1]])
    above = index.search([1, 0], top_k=3, score_threshold=0.5)
    assert [r for r, _ in above] == ["a", "b"]
    only_c = index.search([1, 0], top_k=3, allowed=["c", "ghost"])
    assert [r for r, _ in only_c] == ["c"]
    assert index.search([1, 0], top_k=3, allowed=["ghost"]) == []


def test_growth_beyond_initial_capacity_keeps_every_vector() -> None:
    index = VectorIndex(4, capacity=2)
    matrix = _random(300, 4)
    for start in range(0, 300, 7):
        chunk = matrix[start : start + 7]
        index.add([f"v{i}" for i in range(start, start + len(chunk))], chunk)
    assert len(index) == 300
    for probe in (0, 150, 299):
        assert index.search(matrix[probe], top_k=1)[0][0] == f"v{probe}"


def test_invalid_shapes_and_values_are_rejected_with_a_reason() -> None:
    index = VectorIndex(3)
    with pytest.raises(ValueError, match="dimension 2"):
        index.add(["a"], [[1, 0]])
    with pytest.raises(ValueError, match="2 refs"):
        index.add(["a", "b"], [[1, 0, 0]])
    with pytest.raises(ValueError, match="NaN"):
        index.add(["a"], [[np.nan, 0, 0]])
    index.add(["a"], [[1, 0, 0]])
    with pytest.raises(ValueError, match="query has dimension 2"):
        index.search([1, 0])
    with pytest.raises(ValueError, match="zero"):
        index.search([0, 0, 0])
    with pytest.raises(ValueError, match=r"shape \(n, 3\)"):
        index.search_batch([[1, 0]])
    assert len(index) == 1


def test_empty_index_answers_nothing() -> None:
    index = VectorIndex(2)
    assert index.search([1, 0]) == []
    assert index.search_batch([[1, 0], [0, 1]]) == [[], []]


# -- the predecessor's calls ----------------------------------------------------------------


def test_a_default_index_takes_its_dimension_from_the_first_entry() -> None:
    from akgentic.tool.vector_store.vector import VectorEntry

    index = VectorIndex()
    assert index.dimension is None
    assert index.search_cosine([1.0, 0.0, 0.0], 5) == []  # empty: nothing to compare with

    index.add(VectorEntry(ref_id="a", ref_type="task", text="alpha", vector=[1.0, 0.0, 0.0]))
    index.add(entry=VectorEntry(ref_id="b", ref_type="task", text="beta", vector=[0.6, 0.8, 0.0]))
    index.add(VectorEntry(ref_id="c", ref_type="task", text="gamma", vector=[0.0, 0.0, 2.0]))

    assert index.dimension == 3
    hits = index.search_cosine(query_vector=[1.0, 0.1, 0.0], top_k=2)
    assert [ref for ref, _ in hits] == ["a", "b"]
    assert hits[0][1] == pytest.approx(1.0 / np.sqrt(1.01), abs=1e-6)
    assert index.search_cosine([1.0, 0.1, 0.0], 5) == index.search([1.0, 0.1, 0.0], 5)
    with pytest.raises(ValueError, match="dimension 2, the index holds 3"):
        index.add(VectorEntry(ref_id="d", ref_type="task", text="delta", vector=[1.0, 0.0]))
    with pytest.raises(ValueError, match="has no vector"):
        index.add(VectorEntry(ref_id="e", ref_type="task", text="no vector yet"))

    assert index.remove(ref_ids=["a", "missing"]) == 1
    assert index.remove(["c"]) == 1
    assert index.refs == ["b"]
    assert [ref for ref, _ in index.search_cosine([1.0, 0.0, 0.0], 3)] == ["b"]
    with pytest.raises(TypeError):
        index.remove(["b"], ref_ids=["b"])


def test_a_default_index_filled_from_arrays_then_searched_in_batch() -> None:
    index = VectorIndex()
    assert index.search_batch(np.eye(2), top_k=1) == [[], []]
    index.add(["x", "y"], np.eye(2, dtype=np.float32))
    assert [hits[0][0] for hits in index.search_batch(np.eye(2), top_k=1)] == ["x", "y"]
