"""The kit's VectorSearchTests, on a small vector-store consumer written here.

``ShelfTool`` is the least a consumer needs: a :class:`VectorConsumerCard` whose team
actor keeps named texts, mirrors them into the store through a :class:`CollectionMirror`,
and a search that puts keyword matches first and meaning matches after, through the
card's :class:`ConsumerBinding`. ``TestShelfVectorSearch`` is what a consumer package
writes; the ``test_*`` functions after it show that a consumer skipping a rule fails.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal, Self

import pytest
from pydantic import Field

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.dependencies import known_card_names
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.core.testing import (
    Tools,
    ToolTestAgent,
    VectorSearchTests,
    bind_card,
    spawn_local_vector_store,
)
from akgentic.tool.core.vector_binding import (
    CollectionMirror,
    ConsumerBinding,
    VectorConsumerCard,
    VectorConsumerConfig,
    consumer_settings,
)
from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument

SHELF = "#KitShelf"
COLLECTION = "kit_shelf"
OFF_NOTE = "semantic search is off for this shelf"
SMALL = CollectionConfig(dimension=64)
ITEMS = {
    "walk": "Walk the dog",
    "report": "Write the dog report",
    "feed": "Feed the puppy",
    "bread": "Bake the bread",
}


def _ref(name: str) -> str:
    return f"item:{name}"


class ShelfConfig(VectorConsumerConfig):
    name: str = SHELF
    role: str = "ToolActor"


class ShelfActor(Akgent[ShelfConfig, BaseState]):
    """Named texts for the whole team, mirrored into the team's store when there is one."""

    def on_start(self) -> None:
        self.items: dict[str, str] = {}
        self.mirror = CollectionMirror.for_actor(self.config, COLLECTION)

    def _documents(self) -> list[VectorDocument]:
        return [VectorDocument(ref=_ref(name), text=text) for name, text in self.items.items()]

    def semantic_enabled(self) -> bool:
        return self.mirror.store(self, len(self.items), self._documents) is not None

    def put(self, name: str, text: str) -> None:
        self.items[name] = text
        # Bound on first need: a store found now receives everything, this item included.
        if self.semantic_enabled():
            self.mirror.apply([VectorDocument(ref=_ref(name), text=text)], [])

    def drop(self, name: str) -> None:
        self.items.pop(name, None)
        if self.semantic_enabled():
            self.mirror.apply([], [_ref(name)])

    def words(self, query: str) -> list[str]:
        return [name for name, text in self.items.items() if query.lower() in text.lower()]

    def text(self, name: str) -> str:
        return self.items[name]


class ShelfTool(VectorConsumerCard):
    vector_store: bool | str = True
    collection: CollectionConfig = Field(default_factory=CollectionConfig)
    search_top_k: int = 10
    search_score_threshold: float = 0.3
    # A consumer that forgets the store: its search is keyword-only whatever the team has.
    ignore_store: bool = False

    def observer(self, observer: ToolObserver) -> Self:
        super().observer(observer)
        binding = ConsumerBinding(
            "ShelfTool", ShelfActor, what="The shelf", collection=COLLECTION, disabled_note=OFF_NOTE
        )
        self._bind_shared(observer, binding, ShelfConfig(**consumer_settings(self)))
        return self

    def _shelf(self) -> ConsumerBinding[ShelfActor]:
        binding: ConsumerBinding[ShelfActor] = self._shared_binding()
        return binding

    def get_tools(self) -> list[Callable[..., Any]]:
        card = self

        def shelf_put(name: str, text: str) -> None:
            """Keep ``text`` under ``name``."""
            card._shelf().ask(lambda shelf: shelf.put(name, text))

        def shelf_drop(name: str) -> None:
            """Forget ``name``."""
            card._shelf().ask(lambda shelf: shelf.drop(name))

        def shelf_find(
            query: str, mode: Literal["hybrid", "keyword", "vector"] = "hybrid"
        ) -> dict[str, Any]:
            """Texts holding the query's words, then texts meaning it."""
            shelf = card._shelf()
            names = [] if mode == "vector" else shelf.ask(lambda actor: actor.words(query))
            note = None
            if mode != "keyword" and not card.ignore_store:
                hits, note = card._vector_hits(
                    query, top_k=card.search_top_k, threshold=card.search_score_threshold
                )
                meant = [ref.removeprefix("item:") for ref, _ in hits]
                names += [name for name in meant if name not in names]
            texts = [shelf.ask(lambda actor, n=name: actor.text(n)) for name in names]
            return {"found": texts, "note": note}

        return [shelf_put, shelf_drop, shelf_find]


class TestShelfVectorSearch(VectorSearchTests):
    collection = COLLECTION
    keyword_hits: ClassVar[list[str]] = ["Walk the dog", "Write the dog report"]
    meaning_only = "Feed the puppy"
    seeded_refs = len(ITEMS)
    actor_class = ShelfActor

    def make_card(self, **fields: Any) -> ToolCard:
        return ShelfTool(**fields)

    def seed(self, tools: Tools) -> None:
        for name, text in ITEMS.items():
            tools["shelf_put"](name=name, text=text)

    def search(self, tools: Tools, query: str, **options: Any) -> tuple[list[str], str | None]:
        answer = tools["shelf_find"](query=query, **options)
        return answer["found"], answer["note"]

    def delete_one(self, tools: Tools) -> str:
        tools["shelf_drop"](name="bread")
        return "bread"

    def late_store_config(self) -> BaseConfig:
        return ShelfConfig(collection=SMALL, store_retry_seconds=0)


# -- the consumer's own answers, and the kit catching a consumer that breaks a rule ------


def test_a_disabled_store_answers_with_the_cards_note(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, ShelfTool(vector_store=False))
    tools["shelf_put"](name="walk", text="Walk the dog")
    assert tools["shelf_find"](query="dog") == {"found": ["Walk the dog"], "note": OFF_NOTE}


def test_an_unbound_card_says_how_to_build_it() -> None:
    with pytest.raises(RuntimeError, match="ShelfTool is not bound: build it through ToolFactory"):
        ShelfTool().get_tools()[0]("walk", "Walk the dog")


def test_the_consumer_depends_on_the_store_card_only_when_it_wants_the_store() -> None:
    assert "VectorStoreTool" not in ShelfTool(vector_store=False).depends_on
    wanted = ShelfTool().depends_on
    # Declared only where the store's card class is installed (a configuration error else).
    assert ("VectorStoreTool" in wanted) == ("VectorStoreTool" in known_card_names())


def test_the_kit_catches_a_consumer_that_ignores_the_store(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    class Forgetful(TestShelfVectorSearch):
        def make_card(self, **fields: Any) -> ToolCard:
            return ShelfTool(ignore_store=True, **fields)

    with pytest.raises(AssertionError):
        Forgetful().test_a_query_finds_words_first_then_meaning(
            actor_system, orchestrator, tool_agent
        )


def test_the_kit_catches_a_consumer_that_does_not_mirror_deletes(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    class Hoarding(TestShelfVectorSearch):
        def delete_one(self, tools: Tools) -> str:
            return "bread"  # nothing deleted: the store still holds it

    with pytest.raises(AssertionError):
        Hoarding().test_changes_are_mirrored_into_the_store(actor_system, orchestrator, tool_agent)


def test_the_store_sees_every_item_once_bound(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    store = spawn_local_vector_store(actor_system, orchestrator)
    tools = bind_card(tool_agent, ShelfTool(collection=SMALL))
    for name, text in ITEMS.items():
        tools["shelf_put"](name=name, text=text)
    tools["shelf_find"](query="dog")
    assert sorted(store.refs(COLLECTION)) == sorted(_ref(name) for name in ITEMS)
