"""``write_static_model``, the test helper writing a tiny model2vec model: the files it
writes (a float32 one-hot matrix, a model2vec config asking for normalised vectors), a
case-insensitive vocabulary, unit-length vectors, and writing into a folder that exists."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

from akgentic.tool.vector_store.local_embeddings import LocalEmbedder
from akgentic.tool.vector_store.testing import TINY_CONCEPTS, write_static_model

_CONCEPTS = {"car": "vehicle", "automobile": "vehicle", "dog": "canine", "bread": "bread"}


def fresh_folder(tmp_path: Path) -> Path:
    """A folder no model was loaded from in this process (loads are kept per folder)."""
    return tmp_path / f"model-{uuid.uuid4().hex}"


def test_the_matrix_is_float32_with_one_unit_entry_per_known_word(tmp_path: Path) -> None:
    folder = write_static_model(fresh_folder(tmp_path), _CONCEPTS)
    matrix = load_file(str(folder / "model.safetensors"))["embeddings"]
    assert matrix.dtype == np.float32
    assert matrix.shape == (len(_CONCEPTS) + 1, 3)  # [UNK] plus each word; 3 concepts
    assert not matrix[0].any()  # the unknown token embeds as nothing
    np.testing.assert_array_equal(matrix[1:].sum(axis=1), np.ones(len(_CONCEPTS)))
    assert set(np.unique(matrix).tolist()) == {0.0, 1.0}


def test_the_config_describes_a_normalising_model2vec_model(tmp_path: Path) -> None:
    folder = write_static_model(fresh_folder(tmp_path), _CONCEPTS)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config["model_type"] == "model2vec"
    assert config["normalize"] is True
    assert config["hidden_dim"] == 3


def test_the_default_vocabulary_has_one_dimension_per_concept(tmp_path: Path) -> None:
    folder = write_static_model(fresh_folder(tmp_path))
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config["hidden_dim"] == len(set(TINY_CONCEPTS.values()))


def test_vectors_are_unit_length_even_for_texts_of_two_concepts(tmp_path: Path) -> None:
    folder = write_static_model(fresh_folder(tmp_path), _CONCEPTS)
    vectors = LocalEmbedder(str(folder))(["car", "car and dog", "dog bread automobile"])
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)


def test_words_are_known_whatever_their_case(tmp_path: Path) -> None:
    folder = write_static_model(fresh_folder(tmp_path), _CONCEPTS)
    vectors = LocalEmbedder(str(folder))(["car", "CAR", "Automobile", "Dog"])
    np.testing.assert_array_equal(vectors[0], vectors[1])
    np.testing.assert_array_equal(vectors[0], vectors[2])
    assert float(vectors[0] @ vectors[3]) == 0.0
    assert vectors[3].any()


def test_a_model_can_be_written_into_a_folder_that_exists(tmp_path: Path) -> None:
    folder = fresh_folder(tmp_path)
    folder.mkdir()
    assert write_static_model(folder, _CONCEPTS) == folder
    assert write_static_model(folder, _CONCEPTS) == folder  # and rewritten in place
    assert sorted(path.name for path in folder.iterdir()) == [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
    ]
