"""Which embedding provider a store uses, from its configuration and the environment.

The configured ``embedding_provider`` is one of:

* ``"openai"`` (the default) or ``"azure"``: that hosted provider when its key is set, as
  always. Without the key the store would only fail, so it embeds locally instead when
  the ``local-embeddings`` extra is installed.
* ``"local"``: a model2vec model in this process (``embedding_model`` names it; the hosted
  default name means the local default model).
* ``"auto"``: OpenAI when ``OPENAI_API_KEY`` is set, else Azure when its key and endpoint
  are, else local.

When nothing can embed (no key and no local extra) the choice says so and why; the store
then answers by keyword only, and warns once with what to install or set. Choosing reads
environment variables and checks that a module exists: nothing is imported or loaded.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from akgentic.tool.vector_store.local_embeddings import local_embeddings_installed, local_model_name

__all__ = ["LOCAL_INSTALL_HINT", "EmbeddingChoice", "ProviderSetting", "choose_embedding"]

ProviderSetting = Literal["openai", "azure", "local", "auto"]
"""The values of ``embedding_provider``."""

LOCAL_INSTALL_HINT: Final = 'pip install "akgentic-tool-vector-store[local-embeddings]"'

_AZURE_KEYS = ("AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN")


@dataclass(frozen=True)
class EmbeddingChoice:
    """The outcome: ``provider`` and ``model`` to embed with, or ``provider=None`` when
    nothing can embed (``note`` then says what to install or set). ``note`` also explains
    a local provider chosen for want of a key."""

    provider: Literal["openai", "azure", "local"] | None
    model: str
    note: str | None = None

    def describe(self) -> str:
        """One line for people: ``"local (minishlab/potion-base-8M)"``, ``"none: ..."``."""
        if self.provider is None:
            return f"none, keyword search only: {self.note}"
        suffix = f"; {self.note}" if self.note else ""
        return f"{self.provider} ({self.model}){suffix}"


def choose_embedding(
    provider: ProviderSetting, model: str, environ: Mapping[str, str] | None = None
) -> EmbeddingChoice:
    """The provider a store configured with ``provider`` and ``model`` embeds with."""
    env = os.environ if environ is None else environ
    if provider == "local":
        if local_embeddings_installed():
            return EmbeddingChoice("local", local_model_name(model))
        return EmbeddingChoice(
            None,
            model,
            f"embedding_provider='local' needs model2vec: {LOCAL_INSTALL_HINT}",
        )
    if provider in ("openai", "auto") and _set(env, "OPENAI_API_KEY"):
        return EmbeddingChoice("openai", model)
    if provider == "azure" and any(_set(env, name) for name in _AZURE_KEYS):
        return EmbeddingChoice("azure", model)
    if (
        provider == "auto"
        and any(_set(env, name) for name in _AZURE_KEYS)
        and _set(env, "AZURE_OPENAI_ENDPOINT")
    ):
        return EmbeddingChoice("azure", model)
    return _without_key(provider, model)


def _without_key(provider: ProviderSetting, model: str) -> EmbeddingChoice:
    """No usable key: local when installed, else nothing (keyword search)."""
    key = "AZURE_OPENAI_API_KEY" if provider == "azure" else "OPENAI_API_KEY"
    if local_embeddings_installed():
        # A hosted model or deployment name means nothing locally; "auto" may name a
        # local model itself.
        local = local_model_name(model if provider == "auto" else None)
        return EmbeddingChoice("local", local, f"no {key} set, so embedding locally")
    return EmbeddingChoice(
        None,
        model,
        f"no {key} is set and local embeddings are not installed; set {key}, or "
        f"{LOCAL_INSTALL_HINT}",
    )


def _set(env: Mapping[str, str], name: str) -> bool:
    return bool(env.get(name, "").strip())
