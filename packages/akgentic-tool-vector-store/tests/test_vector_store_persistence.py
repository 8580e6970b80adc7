"""State survives a team stop and resume: the store's snapshot travels through
akgentic-core's real messages (serialised to JSON as a persistence layer would store
them), is replayed into a fresh orchestrator and handed back with ``init_state``."""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any, ClassVar

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.messages.message import Message
from akgentic.core.messages.orchestrator import StartMessage, StateChangedMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.core.utils.deserializer import deserialize_object
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import (
    ToolTestAgent,
    eventually,
    orchestrator_events,
    spawn_tool_agent,
)
from akgentic.tool.core.vector_store import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    VectorDocument,
    VectorQuery,
    VectorStore,
    lookup_vector_store,
    search_text,
)
from akgentic.tool.vector_store.actor import VectorStoreActor, VectorStoreState
from akgentic.tool.vector_store.inmemory import FILE_SUFFIX
from akgentic.tool.vector_store.tool import VectorStoreTool

DIM = 64
DOCS = [
    VectorDocument(ref="db", text="database migration plan for postgres"),
    VectorDocument(ref="ui", text="redesign the login page colours", metadata={"n": 2}),
    VectorDocument(ref="ops", text="rotate the production certificates"),
]


class Recorder:
    """An event-store stand-in: keeps every message as the JSON a database would hold."""

    def __init__(self) -> None:
        self.rows: list[str] = []
        self.lock = threading.Lock()

    def on_message(self, msg: Message) -> None:
        with self.lock:
            self.rows.append(json.dumps(msg.model_dump()))

    def messages(self) -> list[Message]:
        with self.lock:
            return [deserialize_object(json.loads(row)) for row in self.rows]


class SlowFlushStore(VectorStoreActor):
    flush_delay_seconds: ClassVar[float] = 30.0  # only stop() can persist in time


def start_team(system: ActorSystem, team_id: uuid.UUID) -> tuple[ActorAddress, Recorder]:
    orchestrator = system.createActor(
        Orchestrator,
        config=BaseConfig(name="@Orchestrator", role="Orchestrator"),
        team_id=team_id,
    )
    recorder = Recorder()
    system.proxy_ask(orchestrator, Orchestrator).subscribe(recorder)
    return orchestrator, recorder


def bind(system: ActorSystem, orchestrator: ActorAddress, name: str) -> VectorStore:
    agent = spawn_tool_agent(system, orchestrator, name)
    ToolFactory([VectorStoreTool()], observer=agent)
    store = lookup_vector_store(agent, VECTOR_STORE_NAME)
    assert store is not None
    return store


def stop_team(system: ActorSystem, orchestrator: ActorAddress) -> None:
    assert system.proxy_ask(orchestrator, Orchestrator).stop().wait(15)


def vector_doc(ref: str, text: str) -> VectorDocument:
    """A document with a vector of its own, so no embedding service is asked."""
    return VectorDocument(ref=ref, text=text, vector=[1.0] * DIM)


def store_seqs(system: ActorSystem, orchestrator: ActorAddress) -> list[int]:
    """The seq of every state event the store has sent the team, in order."""
    events = orchestrator_events(system, orchestrator, ToolStateEvent)
    return [e.seq for e in events if e.tool_id == VECTOR_STORE_NAME]


def last_published(recorder: Recorder, store_name: str = VECTOR_STORE_NAME) -> list[str] | None:
    """The collections of the last state the store published to the team, if any."""
    states = [
        m.state
        for m in recorder.messages()
        if isinstance(m, StateChangedMessage)
        and m.sender is not None
        and m.sender.name == store_name
        and isinstance(m.state, VectorStoreState)
    ]
    return sorted(states[-1].collections) if states else None


def resume_team(
    system: ActorSystem, team_id: uuid.UUID, history: list[Message], store_class: type
) -> ActorAddress:
    """What a team layer does on resume, with akgentic-core's own calls: replay the
    history into a new orchestrator, recreate every member that was running under its
    old id, and hand each its last state snapshot."""
    orchestrator, _ = start_team(system, team_id)
    orch = system.proxy_ask(orchestrator, Orchestrator)
    for message in history:
        orch.restore_message(message)
    orch.end_restoration()
    running = {str(member.agent_id) for member in orch.get_team()}
    snapshots = {
        str(m.sender.agent_id): m.state
        for m in history
        if isinstance(m, StateChangedMessage) and m.sender is not None
    }
    for start in history:
        if not isinstance(start, StartMessage) or start.sender is None:
            continue
        agent_id = start.sender.agent_id
        if str(agent_id) not in running:
            continue
        is_store = start.config.name == VECTOR_STORE_NAME
        address = orch.createActor(
            store_class if is_store else ToolTestAgent, agent_id=agent_id, config=start.config
        )
        if is_store:
            snapshot = snapshots[str(agent_id)]
            assert isinstance(snapshot, VectorStoreState)
            system.proxy_ask(address, VectorStoreActor).init_state(snapshot)
    return orchestrator


def test_a_resumed_team_finds_its_vectors_without_re_embedding(
    actor_system: ActorSystem, openai_env: Any
) -> None:
    team_id = uuid.uuid4()
    orchestrator, recorder = start_team(actor_system, team_id)
    store = bind(actor_system, orchestrator, "@Writer")
    store.create_collection("notes", CollectionConfig(dimension=DIM))
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").embedded == 3)
    stop_team(actor_system, orchestrator)
    requests_before = len(openai_env.requests)

    resumed = resume_team(actor_system, team_id, recorder.messages(), VectorStoreActor)
    store = bind(actor_system, resumed, "@Reader")

    assert store.list_collections() == ["notes"]
    stats = store.collection_stats("notes")
    assert (stats.documents, stats.embedded, stats.pending) == (3, 3, 0)
    result = search_text(store, "notes", VectorQuery(text="postgres database"), delay=0.05)
    assert result.status == "ok"
    assert result.hits[0].ref == "db"
    ui = search_text(store, "notes", VectorQuery(text="login page colours"), delay=0.05)
    assert ui.hits[0].metadata == {"n": 2}
    assert openai_env.inputs()[requests_before:] == [
        ["postgres database"],
        ["login page colours"],
    ]
    # Event numbering continues where the stopped store left off (1 created, 2 upserted,
    # 3 embedded), without a gap or a restart.
    store.delete("notes", ["ops"])
    events = eventually(
        lambda: [
            e
            for e in orchestrator_events(actor_system, resumed, ToolStateEvent)
            if e.tool_id == VECTOR_STORE_NAME and e.seq > 3
        ]
    )
    assert [e.seq for e in events] == [4]


def test_stop_persists_a_burst_the_debounce_had_not_written_yet(
    actor_system: ActorSystem, openai_env: Any
) -> None:
    team_id = uuid.uuid4()
    orchestrator, recorder = start_team(actor_system, team_id)
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    store_address = orch.getChildrenOrCreate(SlowFlushStore, VectorStoreTool().store_config())
    store = bind(actor_system, orchestrator, "@Writer")  # the card finds the existing store
    store.create_collection("notes", CollectionConfig(dimension=DIM))
    for n in range(40):
        store.upsert("notes", [VectorDocument(ref=f"t{n}", text=f"task number {n}")])
    eventually(lambda: store.collection_stats("notes").embedded == 40)
    snapshots_before_stop = [
        m
        for m in recorder.messages()
        if isinstance(m, StateChangedMessage)
        and m.sender is not None
        and m.sender.agent_id == store_address.agent_id
    ]
    stop_team(actor_system, orchestrator)

    history = recorder.messages()
    resumed = resume_team(actor_system, team_id, history, VectorStoreActor)
    store = bind(actor_system, resumed, "@Reader")

    # 40 writes, yet only the start-up snapshot was published before the stop.
    assert len(snapshots_before_stop) == 1
    assert store.collection_stats("notes").embedded == 40
    hits = search_text(store, "notes", VectorQuery(text="task number 17"), delay=0.05).hits
    assert hits[0].ref == "t17"


def test_documents_left_unembedded_at_stop_are_embedded_after_resume(
    actor_system: ActorSystem, openai_env: Any
) -> None:
    team_id = uuid.uuid4()
    orchestrator, recorder = start_team(actor_system, team_id)
    store = bind(actor_system, orchestrator, "@Writer")
    store.create_collection("notes", CollectionConfig(dimension=DIM))
    openai_env.fail_status = 503
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").failed == 3)
    stop_team(actor_system, orchestrator)

    openai_env.fail_status = None
    resumed = resume_team(actor_system, team_id, recorder.messages(), VectorStoreActor)
    store = bind(actor_system, resumed, "@Reader")
    assert store.collection_stats("notes").failed == 3
    first = store.search("notes", VectorQuery(text="certificates"))

    assert first.status == "pending"
    eventually(lambda: store.collection_stats("notes").embedded == 3)
    result = search_text(store, "notes", VectorQuery(text="certificates"), delay=0.05)
    assert result.status == "ok"
    assert result.hits[0].ref == "ops"


def test_workspace_persistence_writes_a_file_and_reads_it_back(
    actor_system: ActorSystem, openai_env: Any, workspaces: Path
) -> None:
    team_id = uuid.uuid4()
    orchestrator, recorder = start_team(actor_system, team_id)
    store = bind(actor_system, orchestrator, "@Writer")
    config = CollectionConfig(dimension=DIM, persistence="workspace")
    store.create_collection("notes", config)
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").embedded == 3)
    stop_team(actor_system, orchestrator)

    path = workspaces / str(team_id) / ".vector_store" / f"notes{FILE_SUFFIX}"
    assert path.is_file()
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left
    history = recorder.messages()
    last = [
        m.state
        for m in history
        if isinstance(m, StateChangedMessage) and isinstance(m.state, VectorStoreState)
    ][-1]
    assert last.collections["notes"].refs == []  # the vectors are in the file, not the state

    resumed = resume_team(actor_system, team_id, history, VectorStoreActor)
    store = bind(actor_system, resumed, "@Reader")
    assert store.collection_stats("notes").embedded == 3
    result = search_text(store, "notes", VectorQuery(text="login page"), delay=0.05)
    assert result.hits[0].ref == "ui"


def test_an_explicit_workspace_path_is_resolved_under_the_root(
    actor_system: ActorSystem, orchestrator: ActorAddress, openai_env: Any, workspaces: Path
) -> None:
    store = bind(actor_system, orchestrator, "@Writer")
    config = CollectionConfig(dimension=DIM, persistence="workspace", workspace_path="shared/rag")
    store.create_collection("docs", config)
    store.upsert("docs", [DOCS[0].model_copy(update={"vector": [1.0] * DIM})])
    actor_system.proxy_ask(
        lookup_vector_store_address(actor_system, orchestrator), VectorStoreActor
    ).flush_state()
    assert (workspaces / "shared" / "rag" / f"docs{FILE_SUFFIX}").is_file()


def lookup_vector_store_address(system: ActorSystem, orchestrator: ActorAddress) -> ActorAddress:
    member = system.proxy_ask(orchestrator, Orchestrator).get_team_member(VECTOR_STORE_NAME)
    assert member is not None
    return member


@pytest.mark.parametrize("persistence", ["actor_state", "workspace"])
def test_a_snapshot_survives_the_json_round_trip(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    openai_env: Any,
    workspaces: Path,
    persistence: str,
) -> None:
    store = bind(actor_system, orchestrator, "@Writer")
    store.create_collection("notes", CollectionConfig(dimension=DIM, persistence=persistence))  # type: ignore[arg-type]
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").embedded == 3)
    actor = actor_system.proxy_ask(
        lookup_vector_store_address(actor_system, orchestrator), VectorStoreActor
    )
    actor.flush_state()
    state = actor.state
    again = deserialize_object(json.loads(json.dumps(state.model_dump())))

    assert isinstance(again, VectorStoreState)
    assert again.collections["notes"].config == state.collections["notes"].config
    assert again.collections["notes"].vectors == state.collections["notes"].vectors
    assert again.collections["notes"].refs == state.collections["notes"].refs


def test_published_snapshots_are_not_changed_by_later_writes(
    actor_system: ActorSystem, orchestrator: ActorAddress, openai_env: Any
) -> None:
    store = bind(actor_system, orchestrator, "@Writer")
    store.create_collection("notes", CollectionConfig(dimension=DIM))
    store.upsert("notes", [DOCS[0].model_copy(update={"vector": [1.0] * DIM})])
    address = lookup_vector_store_address(actor_system, orchestrator)
    actor = actor_system.proxy_ask(address, VectorStoreActor)
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    actor.flush_state()
    first = eventually(lambda: orch.get_states().get(str(address.agent_id)))
    first_refs = list(first.collections["notes"].refs)

    store.upsert("notes", [DOCS[1].model_copy(update={"vector": [0.5] * DIM})])
    store.delete("notes", ["db"])
    actor.flush_state()
    eventually(lambda: orch.get_states()[str(address.agent_id)] is not first)
    latest = orch.get_states()[str(address.agent_id)]

    assert first_refs == ["db"]
    assert first.collections["notes"].refs == ["db"]
    assert latest.collections["notes"].refs == ["ui"]
    assert latest.event_seq > first.event_seq


def test_nothing_is_published_when_nothing_changed(
    actor_system: ActorSystem, orchestrator: ActorAddress, openai_env: Any
) -> None:
    recorder = Recorder()
    actor_system.proxy_ask(orchestrator, Orchestrator).subscribe(recorder)
    store = bind(actor_system, orchestrator, "@Writer")
    store.create_collection("notes", CollectionConfig(dimension=DIM))
    actor = actor_system.proxy_ask(
        lookup_vector_store_address(actor_system, orchestrator), VectorStoreActor
    )
    actor.flush_state()

    def published() -> int:
        return sum(isinstance(m, StateChangedMessage) for m in recorder.messages())

    eventually(lambda: published() == 2)  # the start-up state, then the new collection
    actor.flush_state()
    store.search("notes", VectorQuery(vector=tuple([1.0] * DIM)))  # reads change nothing
    actor.flush_state()
    actor.state.notify_if_changed()
    time.sleep(0.2)  # room for a stray publication to arrive, were there one
    assert published() == 2
