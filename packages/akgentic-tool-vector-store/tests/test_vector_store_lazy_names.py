"""The package's lazily loaded names: each is the class of its module, loaded on first
access and kept afterwards; a module that cannot be imported gives an ``ImportError``
saying which extra to install; an unknown name is an ``AttributeError``.

A name already loaded is dropped from the package first (monkeypatch puts it back), so
the first access really goes through the lazy loader."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

import pytest

import akgentic.tool.vector_store as package

LAZY_NAMES = {
    "VectorStoreActor": "akgentic.tool.vector_store.actor",
    "VectorStoreState": "akgentic.tool.vector_store.actor",
    "EmbeddingActor": "akgentic.tool.vector_store.embedding_actor",
    "EmbeddingError": "akgentic.tool.vector_store.embedding_actor",
    "EmbeddingRequest": "akgentic.tool.vector_store.embedding_actor",
    "EmbeddingResult": "akgentic.tool.vector_store.embedding_actor",
    "EmbeddingService": "akgentic.tool.vector_store.vector",
    "EmbeddingServiceError": "akgentic.tool.vector_store.vector",
    "VectorEntry": "akgentic.tool.vector_store.vector",
    "VectorIndex": "akgentic.tool.vector_store.vector",
    "InMemoryBackend": "akgentic.tool.vector_store.inmemory",
    "WeaviateBackend": "akgentic.tool.vector_store.weaviate",
    "QdrantBackend": "akgentic.tool.vector_store.qdrant",
}


def not_loaded_yet(monkeypatch: pytest.MonkeyPatch, name: str) -> ModuleType:
    monkeypatch.delattr(package, name, raising=False)
    assert name not in vars(package)
    return package


@pytest.mark.parametrize(("name", "module"), sorted(LAZY_NAMES.items()))
def test_a_lazy_name_is_its_modules_object(
    name: str, module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = not_loaded_yet(monkeypatch, name)
    assert getattr(pkg, name) is getattr(importlib.import_module(module), name)


def test_a_lazy_name_is_kept_after_its_first_access(monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = not_loaded_yet(monkeypatch, "VectorIndex")
    from akgentic.tool.vector_store.vector import VectorIndex

    assert pkg.VectorIndex is VectorIndex
    assert vars(pkg)["VectorIndex"] is VectorIndex
    assert pkg.VectorIndex is VectorIndex  # the second access reads the kept value


def test_a_lazy_name_whose_module_cannot_load_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pkg = not_loaded_yet(monkeypatch, "WeaviateBackend")
    monkeypatch.setitem(sys.modules, "akgentic.tool.vector_store.weaviate", None)
    with pytest.raises(ImportError) as caught:
        _ = pkg.WeaviateBackend
    message = str(caught.value)
    assert message.startswith("WeaviateBackend needs the vector-search extra")
    assert 'openai): pip install "akgentic-tool-vector-store[vector-search]" (' in message
    assert isinstance(caught.value.__cause__, ImportError)
    assert "WeaviateBackend" not in vars(pkg)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchThing'"):
        _ = package.NoSuchThing  # type: ignore[attr-defined]
    assert not hasattr(package, "AlsoMissing")
