"""The store's query embeddings and failure episodes, each on its own."""

from __future__ import annotations

import numpy as np

from akgentic.tool.vector_store._episodes import FailureEpisodes
from akgentic.tool.vector_store._queries import QueryEmbeddings


def test_query_vectors_are_an_lru_and_a_collection_is_forgotten_whole() -> None:
    queries = QueryEmbeddings(size=2)
    row = np.ones(3, dtype=np.float32)
    for text in ("a", "b", "c"):
        queries.keep(("notes", text), row)
    assert queries.vector(("notes", "a")) is None  # the least recently used went out
    assert queries.vector(("notes", "b")) is not None
    queries.start("r1", ("notes", "d"))
    queries.start("r2", ("other", "d"))
    queries.refuse(("notes", "e"))
    assert queries.in_flight(("notes", "d"))
    assert queries.forget("notes") == ["r1"]  # the store drops those requests' deadlines
    assert not queries.in_flight(("notes", "d"))
    assert queries.refusal(("notes", "e")) is None
    assert queries.request("r2") == ("other", "d")
    assert queries.finish("r2") == ("other", "d")
    assert queries.finish("r2") is None  # a second report is ignored


def test_a_collection_warns_once_per_failing_stretch_and_recovers_once() -> None:
    failures = FailureEpisodes()
    assert failures.open("notes", until=10.0, error="503")
    assert not failures.open("notes", until=20.0, error="503 again")  # still failing
    assert failures.error("notes", now=15.0) == "503 again"
    assert failures.error("notes", now=20.0) is None  # the episode is over ...
    assert failures.close("notes")  # ... but only a success says it recovered
    assert not failures.close("notes")
    assert failures.error("other", now=0.0) is None
