"""CollectionMirror, more: a bound store stays bound, the retry interval's edge, and the
log lines an operator gets when the store is missing, unusable or fails an update.

Everything runs against the kit's real LocalVectorStore in a real team, with the mirror's
injectable clock.
"""

from __future__ import annotations

import logging

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import LocalVectorStore, ToolTestAgent, spawn_local_vector_store
from akgentic.tool.core.vector_binding import CollectionMirror
from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument

SMALL = CollectionConfig(dimension=32)
LOGGER = "akgentic.tool.core.vector_binding"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _docs(*texts: str) -> list[VectorDocument]:
    return [VectorDocument(ref=f"doc:{i}", text=text) for i, text in enumerate(texts)]


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == LOGGER]


@pytest.fixture
def store(actor_system: ActorSystem, orchestrator: ActorAddress) -> LocalVectorStore:
    return spawn_local_vector_store(actor_system, orchestrator)


def test_a_bound_store_is_returned_on_every_later_call(
    tool_agent: ToolTestAgent, store: LocalVectorStore
) -> None:
    mirror = CollectionMirror("#Notes", True, "notes", SMALL, retry_seconds=10, clock=Clock())
    bound = mirror.store(tool_agent, 1, lambda: _docs("a"))
    assert bound is not None
    assert mirror.store(tool_agent, 1, lambda: _docs("a")) is bound
    assert mirror.store(tool_agent, 1, lambda: _docs("a")) is bound
    assert store.refs("notes") == ["doc:0"]


def test_a_missing_store_is_logged_with_the_owner_and_the_store_name(
    tool_agent: ToolTestAgent, caplog: pytest.LogCaptureFixture
) -> None:
    mirror = CollectionMirror("#Notes", True, "notes", SMALL, retry_seconds=10)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert mirror.store(tool_agent, 1, lambda: _docs("x")) is None
    lines = _lines(caplog)
    assert any("#Notes" in line and "#VectorStore" in line for line in lines), lines


def test_a_disabled_mirror_stays_silent(
    tool_agent: ToolTestAgent, store: LocalVectorStore, caplog: pytest.LogCaptureFixture
) -> None:
    mirror = CollectionMirror("#Notes", False, "notes", SMALL, retry_seconds=0)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        assert mirror.store(tool_agent, 1, lambda: _docs("x")) is None
    assert _lines(caplog) == []
    assert store.list_collections() == []


def test_an_unusable_store_is_logged_with_the_reason(
    tool_agent: ToolTestAgent, store: LocalVectorStore, caplog: pytest.LogCaptureFixture
) -> None:
    store.create_collection("notes", CollectionConfig(dimension=8))  # another config
    with pytest.raises(Exception) as refused:
        store.create_collection("notes", SMALL)
    mirror = CollectionMirror("#Notes", True, "notes", SMALL, retry_seconds=10)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert mirror.store(tool_agent, 1, lambda: _docs("x")) is None
    lines = _lines(caplog)
    assert any("#Notes" in line and str(refused.value) in line for line in lines), lines


def test_a_failed_update_is_logged_with_the_owner_and_the_error(
    tool_agent: ToolTestAgent, store: LocalVectorStore, caplog: pytest.LogCaptureFixture
) -> None:
    mirror = CollectionMirror("#Notes", True, "notes", SMALL, retry_seconds=10)
    assert mirror.store(tool_agent, 0, list) is not None
    store.drop_collection("notes")  # the store lost the collection under the mirror
    with pytest.raises(Exception) as refused:
        store.upsert("notes", _docs("a"))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        mirror.apply(upserts=_docs("a"), deletes=[])  # never raises to the caller
    lines = _lines(caplog)
    assert any("#Notes" in line and str(refused.value) in line for line in lines), lines
