"""The store's small bookkeeping parts on their own: failure episodes (their deadline,
recovery, and forgetting a dropped collection), the bounded LRUs of query vectors and of
refused query texts, a replay plan that forgets what happened to a collection before it
was dropped, what an event reports, and how the actor names itself."""

from __future__ import annotations

from typing import Any

import numpy as np

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.vector_store import VectorStoreConfig
from akgentic.tool.vector_store._episodes import FailureEpisodes
from akgentic.tool.vector_store._queries import QueryEmbeddings
from akgentic.tool.vector_store._replay import plan_replay
from akgentic.tool.vector_store.actor import VectorStoreActor
from akgentic.tool.vector_store.event import VectorStoreStateEvent


def test_a_forgotten_collection_has_no_episode_and_starts_failing_anew() -> None:
    episodes = FailureEpisodes()
    assert episodes.open("notes", until=100.0, error="provider down")
    episodes.open("other", until=100.0, error="quota")

    episodes.forget("notes")

    assert episodes.error("notes", now=1.0) is None
    assert episodes.error("other", now=1.0) == "quota"
    assert not episodes.close("notes")  # it was not failing any more: no recovery to tell
    assert episodes.open("notes", until=100.0, error="down again")  # a new start


def test_a_forgotten_failing_collection_does_not_count_as_failing() -> None:
    episodes = FailureEpisodes()
    episodes.open("notes", until=100.0, error="provider down")
    assert episodes.error("notes", now=200.0) is None  # the episode is over, still failing

    episodes.forget("notes")

    assert episodes.open("notes", until=300.0, error="down again")


def test_refused_query_texts_are_kept_up_to_the_size_least_recent_out() -> None:
    queries = QueryEmbeddings(2)
    for text in ("first", "second", "third"):
        queries.refuse(("notes", text))

    assert queries.refusal(("notes", "first")) is None
    assert queries.refusal(("notes", "second")) is not None
    assert queries.refusal(("notes", "third")) is not None


def test_a_refused_query_text_says_why() -> None:
    queries = QueryEmbeddings(1)
    queries.refuse(("notes", "a very long text"))

    assert "too long" in str(queries.refusal(("notes", "a very long text")))


def test_removals_and_writes_before_a_drop_are_not_redone_or_reported() -> None:
    plan = plan_replay(
        [
            VectorStoreStateEvent(collection="gone", upserted=["x"]),
            VectorStoreStateEvent(collection="gone", removed=["y"]),
            VectorStoreStateEvent(collection="kept", removed=["z"], upserted=["w"]),
            VectorStoreStateEvent(collection="gone", dropped=True),
        ]
    )

    assert plan.dropped == ["gone"]
    assert plan.removed == {"kept": ["z"]}
    assert plan.missing == {"kept": ["w"]}
    assert plan.missing_collections == []


def test_the_store_actor_names_itself_by_its_store_name(
    actor_system: ActorSystem, orchestrator: Any
) -> None:
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(VectorStoreActor, VectorStoreConfig(name="#NamedStore"))
    proxy: Any = actor_system.proxy_ask(address, VectorStoreActor)

    assert repr(proxy._actor) == "<VectorStoreActor #NamedStore>"


def test_a_store_actor_without_a_config_yet_is_named_with_a_question_mark() -> None:
    actor = VectorStoreActor.__new__(VectorStoreActor)
    actor.config = None  # type: ignore[assignment]

    assert repr(actor) == "<VectorStoreActor ?>"


def test_an_episode_lasts_until_its_deadline_and_then_closes_by_itself() -> None:
    episodes = FailureEpisodes()
    episodes.open("notes", until=10.0, error="provider down")

    assert episodes.error("notes", now=9.5) == "provider down"
    assert episodes.error("other", now=9.5) is None
    assert episodes.error("notes", now=10.0) is None  # over at the deadline itself
    assert episodes.error("notes", now=5.0) is None  # closed for good, not just expired


def test_a_success_ends_the_episode_and_reports_a_recovery_once() -> None:
    episodes = FailureEpisodes()
    episodes.open("notes", until=10.0, error="provider down")
    episodes.open("other", until=10.0, error="quota")

    assert episodes.close("notes")
    assert episodes.error("notes", now=1.0) is None
    assert not episodes.close("notes")
    assert not episodes.close("never-failed")
    assert episodes.error("other", now=1.0) == "quota"
    assert not episodes.open("other", until=20.0, error="quota again")  # still failing


def test_cached_query_vectors_are_kept_up_to_the_size_least_recently_used_out() -> None:
    queries = QueryEmbeddings(2)
    first, second, third = (np.full(2, n, dtype=np.float32) for n in (1.0, 2.0, 3.0))
    queries.keep(("notes", "first"), first)
    queries.keep(("notes", "second"), second)
    assert queries.vector(("notes", "first")) is first  # now the most recently used
    queries.keep(("notes", "third"), third)

    assert queries.vector(("notes", "second")) is None
    assert queries.vector(("notes", "first")) is first
    assert queries.vector(("notes", "third")) is third
    assert queries.vector(("other", "first")) is None
    assert queries.refusal(("notes", "first")) is None


def test_an_event_is_empty_only_when_it_reports_nothing() -> None:
    assert VectorStoreStateEvent(collection="a").is_empty()
    changes: list[dict[str, Any]] = [
        {"created": True},
        {"dropped": True},
        {"upserted": ["x"]},
        {"embedded": ["x"]},
        {"removed": ["x"]},
    ]
    for change in changes:
        assert not VectorStoreStateEvent(collection="a", **change).is_empty(), change


def test_an_event_counts_every_ref_and_life_event_it_reports() -> None:
    event = VectorStoreStateEvent(
        collection="a",
        created=True,
        dropped=True,
        upserted=["u1", "u2"],
        embedded=["e1", "e2", "e3"],
        removed=["r1", "r2", "r3", "r4"],
    )
    assert event.change_count() == 11
    assert VectorStoreStateEvent(collection="a", dropped=True).change_count() == 1
