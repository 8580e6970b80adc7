"""Workspace persistence never goes through a planted symlink, keeps unreadable data aside
instead of overwriting it, and cleans its own stale temporary files.

Every test drives the real store actor in a real akgentic-core team; a "resume" is a new
orchestrator of the same team whose store gets the previous store's state snapshot after
a JSON round trip (what a persistence layer stores and hands back)."""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.core.utils.deserializer import deserialize_object
from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument, VectorQuery
from akgentic.tool.vector_store.actor import VectorStoreActor, VectorStoreState
from akgentic.tool.vector_store.backend import CollectionRecord
from akgentic.tool.vector_store.inmemory import FILE_SUFFIX, InMemoryBackend
from akgentic.tool.vector_store.tool import VectorStoreTool

DIM = 4
WS = CollectionConfig(dimension=DIM, persistence="workspace")
FILE = f"notes{FILE_SUFFIX}"


def doc(ref: str, text: str, hot: int) -> VectorDocument:
    vector = [0.0] * DIM
    vector[hot] = 1.0
    return VectorDocument(ref=ref, text=text, vector=vector)


DOCS = [doc("a", "alpha database", 0), doc("b", "beta login page", 1)]


def start_store(
    system: ActorSystem, team_id: uuid.UUID, state: VectorStoreState | None = None
) -> tuple[ActorAddress, Any]:
    """A team (orchestrator) with its store; ``state`` is handed to it as on a resume."""
    orchestrator = system.createActor(
        Orchestrator,
        config=BaseConfig(name="@Orchestrator", role="Orchestrator"),
        team_id=team_id,
    )
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(VectorStoreActor, VectorStoreTool().store_config())
    store = system.proxy_ask(address, VectorStoreActor)
    if state is not None:
        store.init_state(state)
    return orchestrator, store


def snapshot(store: Any) -> VectorStoreState:
    """The store's state after a flush, through JSON as a persistence layer keeps it."""
    store.flush_state()
    state = store.state
    again = deserialize_object(json.loads(json.dumps(state.model_dump())))
    assert isinstance(again, VectorStoreState)
    return again


def stop(system: ActorSystem, orchestrator: ActorAddress) -> None:
    assert system.proxy_ask(orchestrator, Orchestrator).stop().wait(15)


def other_teams_file(directory: Path) -> Path:
    """A valid collection file with another team's data, written by the real backend."""
    other = InMemoryBackend("notes", WS, directory)
    other.put([doc("secret", "another team's secret plan", 2)])
    other.flush()
    path = directory / FILE
    assert path.is_file()
    return path


@pytest.fixture
def team(workspaces: Path) -> tuple[uuid.UUID, Path]:
    team_id = uuid.uuid4()
    directory = workspaces / str(team_id)
    directory.mkdir(parents=True)
    return team_id, directory


def test_a_symlinked_store_directory_is_never_written_read_or_deleted_through(
    actor_system: ActorSystem,
    openai_env: Any,
    team: tuple[uuid.UUID, Path],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    team_id, workspace = team
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / ".vector_store").symlink_to(outside)  # what a sandboxed shell can do
    orchestrator, store = start_store(actor_system, team_id)

    with caplog.at_level(logging.WARNING):
        store.create_collection("notes", WS)
        store.upsert("notes", DOCS)
        store.flush_state()
        store.upsert("notes", DOCS[:1])
        store.flush_state()

    assert list(outside.iterdir()) == []  # nothing written outside
    refusals = [r.getMessage() for r in caplog.records if "symlink" in r.getMessage()]
    assert len(refusals) == 1, refusals  # one warning, not one per flush
    assert "in memory" in refusals[0]
    # The store keeps working in memory.
    hits = store.search("notes", VectorQuery(vector=(1.0, 0.0, 0.0, 0.0), top_k=1)).hits
    assert [hit.ref for hit in hits] == ["a"]

    planted = other_teams_file(outside)
    state = snapshot(store)
    stop(actor_system, orchestrator)

    # Resume: the other team's file behind the link is not read.
    orchestrator, store = start_store(actor_system, team_id, state)
    assert store.collection_stats("notes").documents == 0
    store.upsert("notes", DOCS[:1])
    store.flush_state()
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert store.drop_collection("notes") is True

    assert caplog.messages == [
        "#VectorStore: collection 'notes' dropped, its file was not removed: vector store "
        f"directory {workspace / '.vector_store'} is a symlink"
    ]
    assert planted.is_file()  # not deleted through the link
    assert sorted(p.name for p in outside.iterdir()) == [FILE]
    assert (workspace / ".vector_store").is_symlink()
    assert store.list_collections() == []


def test_a_symlinked_collection_file_is_replaced_not_followed(
    actor_system: ActorSystem,
    openai_env: Any,
    team: tuple[uuid.UUID, Path],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    team_id, workspace = team
    outside = tmp_path / "outside"
    outside.mkdir()
    planted = other_teams_file(outside)
    before = planted.read_bytes()
    store_dir = workspace / ".vector_store"
    store_dir.mkdir()
    (store_dir / FILE).symlink_to(planted)
    orchestrator, store = start_store(actor_system, team_id)

    with caplog.at_level(logging.WARNING):
        store.create_collection("notes", WS)
    assert store.collection_stats("notes").documents == 0  # the other team's file unread
    assert any("not loaded from its file" in r.getMessage() for r in caplog.records)

    store.upsert("notes", DOCS)
    store.flush_state()
    assert planted.read_bytes() == before  # not written through the link
    assert not (store_dir / FILE).is_symlink()  # the link was replaced by our own file
    ours = InMemoryBackend("notes", WS, store_dir)
    ours.load()
    assert ours.counts() == (2, 2)
    stop(actor_system, orchestrator)

    (store_dir / FILE).unlink()
    (store_dir / FILE).symlink_to(planted)
    orchestrator, store = start_store(actor_system, team_id)
    store.create_collection("notes", WS)
    assert store.drop_collection("notes") is True
    assert not (store_dir / FILE).exists()
    assert not (store_dir / FILE).is_symlink()
    assert planted.read_bytes() == before  # only the link went


def test_a_link_inside_the_workspaces_root_is_refused_too(
    actor_system: ActorSystem, openai_env: Any, workspaces: Path
) -> None:
    (workspaces / "real").mkdir(parents=True)
    (workspaces / "shared").symlink_to(workspaces / "real")
    _orchestrator, store = start_store(actor_system, uuid.uuid4())
    config = CollectionConfig(dimension=DIM, persistence="workspace", workspace_path="shared/rag")

    store.create_collection("notes", config)
    store.upsert("notes", DOCS)
    store.flush_state()

    assert list((workspaces / "real").iterdir()) == []
    assert store.collection_stats("notes").documents == 2


def test_an_unreadable_workspace_file_is_kept_aside_not_overwritten(
    actor_system: ActorSystem,
    openai_env: Any,
    team: tuple[uuid.UUID, Path],
    caplog: pytest.LogCaptureFixture,
) -> None:
    team_id, workspace = team
    orchestrator, store = start_store(actor_system, team_id)
    store.create_collection("notes", WS)
    store.upsert("notes", DOCS)
    state = snapshot(store)
    stop(actor_system, orchestrator)
    path = workspace / ".vector_store" / FILE
    damaged = path.read_bytes()[:-40]  # a truncated file
    path.write_bytes(damaged)

    with caplog.at_level(logging.WARNING):
        orchestrator, store = start_store(actor_system, team_id, state)
    assert store.collection_stats("notes").documents == 0
    store.upsert("notes", DOCS[:1])
    store.flush_state()

    aside = [p for p in path.parent.iterdir() if p.name.startswith(f"{FILE}.corrupt-")]
    assert len(aside) == 1
    assert aside[0].read_bytes() == damaged  # the only copy of the data is kept
    assert any(aside[0].name in r.getMessage() for r in caplog.records)
    reread = InMemoryBackend("notes", WS, path.parent)
    reread.load()
    assert reread.counts() == (1, 1)


def test_truncated_vector_bytes_in_the_state_keep_the_documents(
    actor_system: ActorSystem, openai_env: Any
) -> None:
    team_id = uuid.uuid4()
    orchestrator, store = start_store(actor_system, team_id)
    store.create_collection("notes", CollectionConfig(dimension=DIM))
    store.upsert("notes", DOCS)
    state = snapshot(store)
    stop(actor_system, orchestrator)
    record = state.collections["notes"]
    state.collections["notes"] = record.model_copy(update={"vectors": record.vectors[:-3]})

    orchestrator, store = start_store(actor_system, team_id, state)

    stats = store.collection_stats("notes")
    assert stats.documents == 2  # kept (before: skipped, then overwritten empty)
    hits = store.search("notes", VectorQuery(text="login page")).hits
    assert [hit.ref for hit in hits] == ["b"]  # found by keyword while re-embedded
    later = snapshot(store)
    assert later.collections["notes"].refs == ["a", "b"]


def test_an_inconsistent_state_record_is_kept_aside(
    actor_system: ActorSystem, openai_env: Any
) -> None:
    team_id = uuid.uuid4()
    orchestrator, store = start_store(actor_system, team_id)
    store.create_collection("notes", CollectionConfig(dimension=DIM))
    stop(actor_system, orchestrator)
    broken = CollectionRecord(
        config=CollectionConfig(dimension=DIM), refs=["a", "b"], texts=["x"], metadata=[{}]
    )
    state = VectorStoreState(collections={"notes": broken})

    orchestrator, store = start_store(actor_system, team_id, state)
    store.upsert("notes", DOCS)
    later = snapshot(store)

    assert store.collection_stats("notes").documents == 2  # the collection works
    kept = list(later.set_aside_records.values())
    assert [key.startswith("notes.corrupt-") for key in later.set_aside_records] == [True]
    assert kept[0].refs == ["a", "b"]
    assert kept[0].texts == ["x"]


def test_stale_temporary_files_of_the_store_are_removed_on_resume(
    actor_system: ActorSystem, openai_env: Any, team: tuple[uuid.UUID, Path]
) -> None:
    team_id, workspace = team
    orchestrator, store = start_store(actor_system, team_id)
    store.create_collection("notes", WS)
    store.upsert("notes", DOCS)
    state = snapshot(store)
    stop(actor_system, orchestrator)
    store_dir = workspace / ".vector_store"
    stale = store_dir / f".{FILE}.k1ll3d_x.tmp"  # the name a killed flush leaves
    fresh = store_dir / f".{FILE}.wr1t1ng.tmp"
    unrelated = [store_dir / ".notes.tmp", store_dir / f"{FILE}.tmp", workspace / f".{FILE}.a.tmp"]
    for path in [stale, fresh, *unrelated]:
        path.write_bytes(b"partial")
    old = time.time() - 3600
    for path in [stale, *unrelated]:
        os.utime(path, (old, old))

    orchestrator, store = start_store(actor_system, team_id, state)

    assert store.collection_stats("notes").documents == 2
    assert not stale.exists()
    assert fresh.exists()  # may be a flush running right now elsewhere
    assert all(path.exists() for path in unrelated)


def test_a_store_directory_turned_into_a_link_later_is_warned_about_once_per_episode(
    actor_system: ActorSystem,
    openai_env: Any,
    team: tuple[uuid.UUID, Path],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    team_id, workspace = team
    orchestrator, store = start_store(actor_system, team_id)
    store.create_collection("notes", WS)
    store.upsert("notes", DOCS[:1])
    store.flush_state()
    store_dir = workspace / ".vector_store"
    outside = tmp_path / "outside"
    outside.mkdir()
    kept = tmp_path / "kept"

    def link_store_dir() -> None:
        store_dir.rename(kept)
        store_dir.symlink_to(outside)

    def restore_store_dir() -> None:
        store_dir.unlink()
        kept.rename(store_dir)

    warning = (
        "#VectorStore: collection 'notes' is not written: vector store directory "
        f"{store_dir} is a symlink; it is kept in memory only"
    )
    link_store_dir()
    with caplog.at_level(logging.WARNING):
        for text in ("two", "three"):
            store.upsert("notes", [doc(text, text, 1)])
            store.flush_state()
        assert caplog.messages == [warning]  # once, not once per snapshot
        restore_store_dir()
        store.flush_state()  # nothing new: the refused write is tried again
        link_store_dir()
        store.upsert("notes", [doc("four", "four", 2)])
        store.flush_state()
    assert caplog.messages == [warning, warning]  # a new episode is warned about again
    assert list(outside.iterdir()) == []
    restore_store_dir()
    written = InMemoryBackend("notes", WS, store_dir)
    written.load()
    assert written.counts() == (3, 3)  # a, two, three: written once the directory was back
    stop(actor_system, orchestrator)


def test_a_collection_that_cannot_be_written_is_logged_and_written_at_the_next_snapshot(
    actor_system: ActorSystem,
    openai_env: Any,
    team: tuple[uuid.UUID, Path],
    caplog: pytest.LogCaptureFixture,
) -> None:
    team_id, workspace = team
    orchestrator, store = start_store(actor_system, team_id)
    store.create_collection("notes", WS)
    store.create_collection("zeta", WS)
    store.flush_state()
    blocker = workspace / ".vector_store" / FILE
    blocker.unlink()
    blocker.mkdir()  # a directory where the file goes: the rename onto it fails
    store.upsert("notes", DOCS)
    store.upsert("zeta", DOCS[:1])
    with caplog.at_level(logging.ERROR):
        store.flush_state()
    assert caplog.messages == ["#VectorStore: could not persist collection 'notes'"]
    assert caplog.records[0].exc_info is not None
    later = InMemoryBackend("zeta", WS, workspace / ".vector_store")
    later.load()
    assert later.counts() == (1, 1)  # the failure of one did not stop the next
    blocker.rmdir()
    store.flush_state()
    written = InMemoryBackend("notes", WS, workspace / ".vector_store")
    written.load()
    assert written.counts() == (2, 2)
    stop(actor_system, orchestrator)
