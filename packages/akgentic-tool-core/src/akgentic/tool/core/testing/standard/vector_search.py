"""The contract of a tool whose search uses the team's vector store when there is one.

A consumer mirrors what it holds into a collection of the store, answers a query with
keyword matches first and meaning matches after, and degrades to keywords, saying why,
whenever the store cannot answer. These tests run it against the kit's
:class:`~akgentic.tool.core.testing.vectors.LocalVectorStore`, whose embedding folds
"puppy" and "hound" onto "dog" and "automobile" onto "car".
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing.actors import ToolTestAgent
from akgentic.tool.core.testing.binding import Tools, bind_card
from akgentic.tool.core.testing.vectors import LocalVectorStore, spawn_local_vector_store
from akgentic.tool.core.vector_store import VECTOR_STORE_NAME, CollectionConfig

__all__ = ["VectorSearchTests"]


SMALL = CollectionConfig(dimension=64)
"""The collection the tests configure (the local store embeds into any dimension)."""


class VectorSearchTests(ABC):
    """Mirroring into the store, keyword-then-meaning answers, and every degraded case.

    Supply :meth:`make_card` (keyword fields such as ``vector_store``, ``collection`` and
    ``search_score_threshold`` are passed through), :meth:`seed` writing items of which
    :attr:`keyword_hits` match the word "dog" and :attr:`meaning_only` only means it,
    :meth:`search` returning the names found and the note, :meth:`delete_one`, and
    :meth:`late_store_config` (the actor's configuration looking for a store on every call).
    """

    collection: ClassVar[str]
    keyword_hits: ClassVar[list[str]]
    meaning_only: ClassVar[str]
    seeded_refs: ClassVar[int]
    actor_class: ClassVar[type[Akgent[Any, Any]]]

    @abstractmethod
    def make_card(self, **fields: Any) -> ToolCard:
        """The card with ``fields`` set."""

    @abstractmethod
    def seed(self, tools: Tools) -> None:
        """Write the items the searches below look for."""

    @abstractmethod
    def search(self, tools: Tools, query: str, **options: Any) -> tuple[list[str], str | None]:
        """Names of what ``query`` finds, best first, and the answer's note."""

    @abstractmethod
    def delete_one(self, tools: Tools) -> str:
        """Delete one seeded item; return a text its refs contain."""

    @abstractmethod
    def late_store_config(self) -> BaseConfig:
        """The actor's configuration with ``collection=SMALL`` and no wait between looks
        for a store (``store_retry_seconds=0``)."""

    def _seeded(self, agent: ToolTestAgent, **fields: Any) -> Tools:
        tools = bind_card(agent, self.make_card(**fields))
        self.seed(tools)
        return tools

    def _assert_keyword_only(self, tools: Tools) -> str | None:
        found, note = self.search(tools, "dog")
        assert found == self.keyword_hits
        return note

    def test_changes_are_mirrored_into_the_store(
        self, actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
    ) -> None:
        store = spawn_local_vector_store(actor_system, orchestrator)
        tools = self._seeded(tool_agent, collection=SMALL)
        assert len(store.refs(self.collection)) == self.seeded_refs
        gone = self.delete_one(tools)
        assert not any(gone in ref for ref in store.refs(self.collection))

    def test_a_query_finds_words_first_then_meaning(
        self, actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
    ) -> None:
        spawn_local_vector_store(actor_system, orchestrator)
        tools = self._seeded(tool_agent, collection=SMALL)
        found, note = self.search(tools, "dog")
        assert set(found[: len(self.keyword_hits)]) == set(self.keyword_hits)
        assert self.meaning_only in found
        assert note is None
        keyword, _ = self.search(tools, "dog", mode="keyword")
        assert keyword == self.keyword_hits  # the meaning-only item needs the store

    def test_the_cards_threshold_bounds_meaning_matches(
        self, actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
    ) -> None:
        spawn_local_vector_store(actor_system, orchestrator)
        tools = self._seeded(tool_agent, collection=SMALL, search_score_threshold=0.99)
        assert self.meaning_only not in self.search(tools, "dog")[0]

    def test_a_degraded_store_keeps_keyword_results_and_says_why(
        self, actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
    ) -> None:
        store = spawn_local_vector_store(actor_system, orchestrator)
        tools = self._seeded(tool_agent, collection=SMALL)
        store.set_degraded("embedding provider unreachable")
        note = self._assert_keyword_only(tools)
        assert note is not None
        assert "embedding provider unreachable" in note

    def test_without_a_store_search_is_keyword_only_and_says_so(
        self, tool_agent: ToolTestAgent
    ) -> None:
        note = self._assert_keyword_only(self._seeded(tool_agent))
        assert note is not None
        assert "no usable vector store" in note

    def test_a_disabled_store_is_never_touched(
        self, actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
    ) -> None:
        store = spawn_local_vector_store(actor_system, orchestrator)
        tools = self._seeded(tool_agent, vector_store=False, collection=SMALL)
        self._assert_keyword_only(tools)
        assert store.list_collections() == []

    def test_a_named_store_is_used(
        self, actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
    ) -> None:
        store = spawn_local_vector_store(actor_system, orchestrator, "#VectorStore-RAG")
        tools = self._seeded(tool_agent, vector_store="#VectorStore-RAG", collection=SMALL)
        assert len(store.refs(self.collection)) == self.seeded_refs
        assert self.meaning_only in self.search(tools, "dog")[0]

    def test_a_store_joining_later_receives_everything(
        self, actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
    ) -> None:
        orch = actor_system.proxy_ask(orchestrator, Orchestrator)
        orch.getChildrenOrCreate(self.actor_class, self.late_store_config())
        tools = self._seeded(tool_agent, collection=SMALL)
        assert self.meaning_only not in self.search(tools, "dog")[0]
        store = spawn_local_vector_store(actor_system, orchestrator, VECTOR_STORE_NAME)
        found, note = self.search(tools, "dog")
        assert self.meaning_only in found
        assert note is None
        assert len(store.refs(self.collection)) == self.seeded_refs

    def test_a_conflicting_collection_keeps_search_keyword_only(
        self, actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
    ) -> None:
        store: LocalVectorStore = spawn_local_vector_store(actor_system, orchestrator)
        store.create_collection(self.collection, CollectionConfig(dimension=32))
        note = self._assert_keyword_only(self._seeded(tool_agent, collection=SMALL))
        assert note is not None
        assert "no usable vector store" in note
        assert store.refs(self.collection) == []
