"""VectorStoreTool: the card that makes sure a team has its vector store actor.

It offers no tools, system prompts or commands. When the factory attaches it to an agent
it creates the named store (``#VectorStore`` by default) as a child of the team's
orchestrator with core's ``bind_team_actor`` (one ``getChildrenOrCreate``), which
returns the existing one when another agent got there first, so a team never ends up
with two stores of one name. Consumer cards (planning, knowledge graph) find the store
by that name and declare ``depends_on=["VectorStoreTool"]`` so this card is wired
before them.

The numpy-based actor is imported only at that moment: without the ``vector-search``
extra the card logs one warning and creates nothing, and consumers, finding no store,
fall back to keyword search.
"""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import Field, PrivateAttr, field_validator

from akgentic.core.actor_address import ActorAddress
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.observer import ActorToolObserver, ToolObserver
from akgentic.tool.core.team_actor import bind_team_actor
from akgentic.tool.core.vector_store import VECTOR_STORE_NAME, VectorStoreConfig

__all__ = ["VS_ACTOR_NAME", "VS_ACTOR_ROLE", "VectorStoreTool"]

logger = logging.getLogger(__name__)

VS_ACTOR_NAME = VECTOR_STORE_NAME
"""Default name of the store actor (``#VectorStore``), under the predecessor's name."""
VS_ACTOR_ROLE = "ToolActor"
"""Role of the store actor, as persisted teams record it (the predecessor's value)."""

_INSTALL_HINT = 'pip install "akgentic-framework[vector-store]"'


class VectorStoreTool(ToolCard):
    """Configuration of a team vector store; binding it creates the store actor.

    Collections are configured by the consumers (their ``collection`` field), not here.
    Provider endpoints and keys come from the environment (``OPENAI_API_KEY``,
    ``OPENAI_BASE_URL``, ``AZURE_OPENAI_ENDPOINT``, ...), never from the card.
    """

    vector_store_name: str = Field(
        default=VECTOR_STORE_NAME,
        description="Actor name of the store; several named stores can live in one team.",
    )
    embedding_model: str = Field(
        default="text-embedding-3-small",
        description=(
            "Embedding model (OpenAI), deployment name (Azure), or, for the local "
            "provider, a model2vec model folder or name (the default name means "
            "minishlab/potion-base-8M)."
        ),
    )
    embedding_provider: Literal["openai", "azure", "local", "auto"] = Field(
        default="openai",
        description=(
            "Who computes the embeddings. openai/azure use their key from the environment "
            "and, without it, the local model when installed; local always embeds in "
            "this process (no key); auto picks a hosted provider whose key is set, else "
            "local."
        ),
    )

    _store_address: ActorAddress | None = PrivateAttr(default=None)

    @field_validator("vector_store_name")
    @classmethod
    def _tool_actor_name(cls, value: str) -> str:
        if not value.startswith("#") or len(value) < 2:
            raise ValueError(
                f"vector_store_name={value!r}: tool actor names start with '#', "
                f"e.g. {VECTOR_STORE_NAME!r}"
            )
        return value

    @property
    def store_address(self) -> ActorAddress | None:
        """Address of the store bound by :meth:`observer` (``None`` before, or when the
        store could not be created)."""
        return self._store_address

    def store_config(self) -> VectorStoreConfig:
        """The actor configuration this card creates its store with."""
        return VectorStoreConfig(
            name=self.vector_store_name,
            role=VS_ACTOR_ROLE,
            embedding_model=self.embedding_model,
            embedding_provider=self.embedding_provider,
        )

    def observer(self, observer: ToolObserver) -> VectorStoreTool:
        """Attach the carrying agent and make sure the team's store exists."""
        super().observer(observer)
        if not isinstance(observer, ActorToolObserver) or observer.orchestrator is None:
            logger.warning(
                "VectorStoreTool on %r: the observer reaches no orchestrator, "
                "so no store %s is created",
                observer,
                self.vector_store_name,
            )
            return self
        try:
            from akgentic.tool.vector_store.actor import VectorStoreActor
        except ImportError as exc:
            logger.warning(
                "VectorStoreTool: vector search is unavailable (%s); install it with %s. "
                "Consumers fall back to keyword search.",
                exc,
                _INSTALL_HINT,
            )
            return self
        store = bind_team_actor(
            observer, VectorStoreActor, self.store_config(), card="VectorStoreTool"
        )
        self._store_address = store.myAddress
        self._warn_on_config_mismatch(store.config)
        return self

    def _warn_on_config_mismatch(self, config: VectorStoreConfig) -> None:
        """Two cards naming one store with different embedding settings: the first wins."""
        if (config.embedding_model, config.embedding_provider) != (
            self.embedding_model,
            self.embedding_provider,
        ):
            logger.warning(
                "%s already runs with %s/%s; this card's %s/%s is ignored",
                self.vector_store_name,
                config.embedding_provider,
                config.embedding_model,
                self.embedding_provider,
                self.embedding_model,
            )
