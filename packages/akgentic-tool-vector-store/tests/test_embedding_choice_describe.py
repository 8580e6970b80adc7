"""The embedding choice without a key: which key the note names (Azure's for "azure",
OpenAI's otherwise), which local model is used ("auto" may name one itself, a hosted
provider's model name means nothing locally), the configured model kept when nothing can
embed, and the one line ``EmbeddingChoice.describe`` gives people."""

from __future__ import annotations

import sys
from types import ModuleType

import pytest

from akgentic.tool.vector_store.embedding_choice import (
    LOCAL_INSTALL_HINT,
    EmbeddingChoice,
    choose_embedding,
)
from akgentic.tool.vector_store.local_embeddings import DEFAULT_LOCAL_MODEL, LOCAL_MODEL_ENV


@pytest.fixture(autouse=True)
def no_local_model_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LOCAL_MODEL_ENV, raising=False)


@pytest.fixture
def without_model2vec(monkeypatch: pytest.MonkeyPatch) -> None:
    """model2vec as if not installed (``find_spec`` answers None for a None entry)."""
    monkeypatch.setitem(sys.modules, "model2vec", None)


def test_a_broken_model2vec_installation_counts_as_not_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A module object without an import spec: ``find_spec`` raises ValueError for it.
    monkeypatch.setitem(sys.modules, "model2vec", ModuleType("model2vec"))
    choice = choose_embedding("local", "owner/model", {})
    assert choice.provider is None
    assert "needs model2vec" in (choice.note or "")


# -- local embeddings installed -----------------------------------------------------------


def test_azure_without_its_key_names_the_azure_key() -> None:
    choice = choose_embedding("azure", "my-deployment", {})
    assert (choice.provider, choice.model) == ("local", DEFAULT_LOCAL_MODEL)
    assert choice.note == "no AZURE_OPENAI_API_KEY set, so embedding locally"


@pytest.mark.parametrize("provider", ["openai", "auto"])
def test_openai_or_auto_without_a_key_names_the_openai_key(provider: str) -> None:
    choice = choose_embedding(provider, "text-embedding-3-small", {})  # type: ignore[arg-type]
    assert choice.provider == "local"
    assert choice.note == "no OPENAI_API_KEY set, so embedding locally"


def test_auto_without_a_key_embeds_with_the_local_model_it_names() -> None:
    choice = choose_embedding("auto", "some-owner/some-model", {})
    assert (choice.provider, choice.model) == ("local", "some-owner/some-model")


@pytest.mark.parametrize("provider", ["openai", "azure"])
def test_a_hosted_provider_without_a_key_ignores_its_model_name_locally(provider: str) -> None:
    choice = choose_embedding(provider, "some-owner/deployment", {})  # type: ignore[arg-type]
    assert (choice.provider, choice.model) == ("local", DEFAULT_LOCAL_MODEL)


# -- nothing can embed --------------------------------------------------------------------


def test_azure_without_key_nor_local_extra_says_to_set_the_azure_key(
    without_model2vec: None,
) -> None:
    choice = choose_embedding("azure", "my-deployment", {})
    assert (choice.provider, choice.model) == (None, "my-deployment")
    assert choice.note == (
        "no AZURE_OPENAI_API_KEY is set and local embeddings are not installed; "
        f"set AZURE_OPENAI_API_KEY, or {LOCAL_INSTALL_HINT}"
    )


def test_openai_without_key_nor_local_extra_keeps_the_configured_model(
    without_model2vec: None,
) -> None:
    choice = choose_embedding("openai", "text-embedding-3-large", {})
    assert (choice.provider, choice.model) == (None, "text-embedding-3-large")
    assert choice.note is not None
    assert choice.note.startswith("no OPENAI_API_KEY is set")
    assert "set OPENAI_API_KEY, or" in choice.note


# -- describe -----------------------------------------------------------------------------


def test_a_provider_is_described_with_its_model() -> None:
    assert EmbeddingChoice("local", DEFAULT_LOCAL_MODEL).describe() == (
        f"local ({DEFAULT_LOCAL_MODEL})"
    )
    assert EmbeddingChoice("openai", "text-embedding-3-small", "").describe() == (
        "openai (text-embedding-3-small)"
    )


def test_a_provider_chosen_for_want_of_a_key_is_described_with_why() -> None:
    choice = EmbeddingChoice("local", "owner/model", "no OPENAI_API_KEY set")
    assert choice.describe() == "local (owner/model); no OPENAI_API_KEY set"


def test_no_provider_is_described_as_keyword_search_with_the_reason() -> None:
    choice = EmbeddingChoice(None, "text-embedding-3-small", "install something")
    assert choice.describe() == "none, keyword search only: install something"


def test_a_real_choice_without_key_nor_extra_describes_what_to_do(
    without_model2vec: None,
) -> None:
    line = choose_embedding("openai", "text-embedding-3-small", {}).describe()
    assert line.startswith("none, keyword search only: no OPENAI_API_KEY is set")
    assert line.endswith(LOCAL_INSTALL_HINT)
