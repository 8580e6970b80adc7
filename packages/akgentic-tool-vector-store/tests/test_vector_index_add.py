"""``VectorIndex.add`` and ``search`` at their edges: wrong call shapes answered with the
message saying how to call, a flat vector for one ref, one-dimensional vectors, float32
storage whatever the input type, zero vectors kept as zeros, new refs added to an index
already holding some or replacing some in the same call, ``top_k=0``, and ``remove``
called wrongly."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from akgentic.tool.vector_store.vector import VectorEntry, VectorIndex


def test_an_entry_together_with_refs_is_refused_with_how_to_call() -> None:
    entry = VectorEntry(ref="a", text="a", vector=[1.0, 0.0])
    with pytest.raises(TypeError, match=r"^pass either an entry or refs and vectors, not both$"):
        VectorIndex(2).add(["b"], entry=entry)


@pytest.mark.parametrize(
    "arguments",
    [{"refs": ["a"]}, {"vectors": [[1.0, 0.0]]}, {}],
    ids=["refs only", "vectors only", "nothing"],
)
def test_refs_without_vectors_or_the_reverse_is_refused_with_how_to_call(
    arguments: dict[str, Any],
) -> None:
    index = VectorIndex(2)
    with pytest.raises(TypeError, match=r"^add needs refs and vectors, or a VectorEntry$"):
        index.add(**arguments)
    assert len(index) == 0


def test_a_flat_vector_is_one_row_for_one_ref() -> None:
    index = VectorIndex()
    index.add(["a"], [3.0, 4.0])
    assert index.dimension == 2
    np.testing.assert_allclose(index.get("a"), [0.6, 0.8], rtol=1e-6)


def test_one_dimensional_vectors_fix_a_dimension_of_one() -> None:
    index = VectorIndex()
    index.add(["up", "down"], [[2.0], [-1.0]])
    assert index.dimension == 1
    assert index.search([5.0], top_k=2) == [("up", 1.0), ("down", -1.0)]


def test_vectors_without_any_value_are_refused() -> None:
    with pytest.raises(ValueError, match=r"^vectors must have at least one value$"):
        VectorIndex().add([], np.zeros((0, 0)))


def test_vectors_are_stored_as_float32_whatever_their_input_type() -> None:
    index = VectorIndex()
    index.add(["a", "b"], np.array([[1.0, 2.0], [3.0, 1.0]], dtype=np.float64))
    vector = index.get("a")
    assert vector is not None
    assert vector.dtype == np.float32
    assert index.matrix().dtype == np.float32


def test_a_zero_vector_stays_zero_and_scores_zero() -> None:
    index = VectorIndex()
    index.add(["zero", "x"], [[0.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(index.get("zero"), [0.0, 0.0])
    assert index.search([1.0, 0.0], top_k=2) == [("x", 1.0), ("zero", 0.0)]


def test_new_refs_added_to_a_full_index_keep_the_earlier_rows() -> None:
    index = VectorIndex.from_arrays(["first"], [[1.0, 0.0, 0.0]])
    index.add(["second", "third"], [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert index.refs == ["first", "second", "third"]
    np.testing.assert_array_equal(index.matrix(), np.eye(3, dtype=np.float32))


def test_search_with_top_k_zero_finds_nothing() -> None:
    index = VectorIndex.from_arrays(["a", "b"], [[1.0, 0.0], [0.0, 1.0]])
    assert index.search([1.0, 1.0], top_k=0) == []


def test_replacing_and_adding_in_one_call_puts_each_new_ref_on_its_own_row() -> None:
    index = VectorIndex.from_arrays(["a", "b"], [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    index.add(
        ["a", "c", "d", "c"],
        [[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0]],
    )
    assert index.refs == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(index.get("b"), [0.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(index.get("c"), [0.0, 0.0, 1.0, 0.0])  # its last row wins
    np.testing.assert_array_equal(index.get("d"), [0.0, 0.0, 0.0, 1.0])
    assert index.search([0.0, 0.0, 0.0, 1.0], top_k=1) == [("d", 1.0)]


def test_remove_with_both_names_for_the_refs_is_refused_with_how_to_call() -> None:
    index = VectorIndex.from_arrays(["a"], [[1.0]])
    with pytest.raises(TypeError, match=r"^pass refs or ref_ids, not both$"):
        index.remove(refs=["a"], ref_ids=["a"])
    assert index.refs == ["a"]


def test_remove_without_refs_is_refused_with_how_to_call() -> None:
    with pytest.raises(TypeError, match=r"^remove needs the refs to remove$"):
        VectorIndex.from_arrays(["a"], [[1.0]]).remove()
