"""The Qdrant backend beyond the shared storage contract: where the engine is (embedded
in memory, on disk, or a server by url), the shared client and its lock, tenants, and a
team that stops and resumes on an on-disk Qdrant without embedding anything again.

The storage contract itself (upsert, delete, search, filters, counts) runs against
Qdrant in ``test_vector_store_contract.py``. No Qdrant server runs here: server mode is
tested for what the client is built with and what it sends first, against a recording
HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError
from qdrant_client import QdrantClient

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.messages.orchestrator import StateChangedMessage
from akgentic.tool.core.testing import eventually
from akgentic.tool.core.vector_store import (
    CollectionConfig,
    VectorDocument,
    VectorQuery,
    VectorStoreConfig,
    search_text,
)
from akgentic.tool.vector_store.actor import VectorStoreActor, VectorStoreState
from akgentic.tool.vector_store.backend import CollectionRecord
from akgentic.tool.vector_store.qdrant import (
    QDRANT_INSTALL_HINT,
    QdrantBackend,
    QdrantSettings,
    qdrant_name,
)

from .loopback_http import JsonHandler, serve, url_of

DIM = 64
DOCS = [
    VectorDocument(ref="db", text="database migration plan for postgres", metadata={"n": 1}),
    VectorDocument(ref="ui", text="redesign the login page colours", metadata={"n": 2}),
    VectorDocument(ref="ops", text="rotate the production certificates"),
]


def _persistence() -> Any:
    """The team stop/resume helpers of ``test_vector_store_persistence.py``."""
    path = Path(__file__).with_name("test_vector_store_persistence.py")
    spec = importlib.util.spec_from_file_location("_qdrant_persistence_helpers", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _unused_default() -> Path:
    raise AssertionError("the default place was built although another one was configured")


def _open(settings: QdrantSettings, name: str = "notes", dimension: int = 3, **kw: Any) -> Any:
    team = kw.pop("team", None)
    config = CollectionConfig(dimension=dimension, backend="qdrant", **kw)
    return QdrantBackend.connect(
        name, CollectionRecord(config=config), team_id=team, settings=settings
    )


# -- a team stops and resumes on an on-disk Qdrant ------------------------------------------


def test_a_resumed_team_finds_its_qdrant_vectors_without_re_embedding(
    actor_system: ActorSystem, openai_env: Any, workspaces: Path
) -> None:
    helpers = _persistence()
    team_id = uuid.uuid4()
    orchestrator, recorder = helpers.start_team(actor_system, team_id)
    store = helpers.bind(actor_system, orchestrator, "@Writer")  # no Qdrant setting at all
    store.create_collection("notes", CollectionConfig(dimension=DIM, backend="qdrant"))
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").embedded == 3)
    helpers.stop_team(actor_system, orchestrator)
    embedded_before = len(openai_env.requests)

    # The data is on disk under the team's workspace, and the stop released the lock.
    place = workspaces / str(team_id) / ".vector_store" / "qdrant"
    direct = QdrantClient(path=str(place))
    try:
        assert direct.count(qdrant_name("notes", CollectionConfig(), team_id)).count == 3
    finally:
        direct.close()
    history = recorder.messages()
    last = [
        m.state
        for m in history
        if isinstance(m, StateChangedMessage) and isinstance(m.state, VectorStoreState)
    ][-1]
    assert last.collections["notes"].refs == []  # nothing of the documents in the state
    assert last.collections["notes"].unembedded == {}

    resumed = helpers.resume_team(actor_system, team_id, history, VectorStoreActor)
    store = helpers.bind(actor_system, resumed, "@Reader")
    stats = store.collection_stats("notes")
    assert (stats.documents, stats.embedded, stats.pending) == (3, 3, 0)
    result = search_text(store, "notes", VectorQuery(text="login page colours"), delay=0.05)
    assert result.status == "ok"
    assert result.hits[0].ref == "ui"
    assert result.hits[0].metadata == {"n": 2}
    # One embedding call after the resume: the query. No document was embedded again.
    assert openai_env.inputs()[embedded_before:] == [["login page colours"]]


def test_documents_waiting_for_an_embedding_at_stop_are_embedded_after_resume(
    actor_system: ActorSystem, openai_env: Any, workspaces: Path
) -> None:
    helpers = _persistence()
    team_id = uuid.uuid4()
    orchestrator, recorder = helpers.start_team(actor_system, team_id)
    store = helpers.bind(actor_system, orchestrator, "@Writer")
    store.create_collection("notes", CollectionConfig(dimension=DIM, backend="qdrant"))
    openai_env.fail_status = 500
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").failed == 3)
    helpers.stop_team(actor_system, orchestrator)

    openai_env.fail_status = None
    resumed = helpers.resume_team(actor_system, team_id, recorder.messages(), VectorStoreActor)
    store = helpers.bind(actor_system, resumed, "@Reader")
    store.search("notes", VectorQuery(text="certificates"))  # a search retries the waiting
    eventually(lambda: store.collection_stats("notes").embedded == 3)
    assert store.collection_stats("notes").documents == 3


# -- where the engine is --------------------------------------------------------------------


def test_the_store_config_places_qdrant_over_the_environment(
    monkeypatch: pytest.MonkeyPatch, workspaces: Path, tmp_path: Path
) -> None:
    monkeypatch.setenv("QDRANT_URL", "http://env-qdrant:6333")
    monkeypatch.setenv("QDRANT_API_KEY", "env-key")
    base = {"name": "#VectorStore"}

    memory = QdrantSettings.for_store(
        VectorStoreConfig(**base, qdrant_location=":memory:"), _unused_default
    )
    on_disk = QdrantSettings.for_store(
        VectorStoreConfig(**base, qdrant_path="stores/q"), _unused_default
    )
    server = QdrantSettings.for_store(
        VectorStoreConfig(**base, qdrant_url="https://cluster:6333", qdrant_api_key="k"),
        _unused_default,
    )
    from_env = QdrantSettings.for_store(VectorStoreConfig(**base), _unused_default)

    assert memory.client_arguments() == {"location": ":memory:"}
    assert on_disk.client_arguments() == {"path": str((workspaces / "stores" / "q").resolve())}
    assert server.client_arguments() == {
        "url": "https://cluster:6333",
        "api_key": "k",
        "check_compatibility": False,
    }
    assert from_env.client_arguments()["api_key"] == "env-key"
    assert from_env.url == "http://env-qdrant:6333"
    assert "k" not in repr(server)

    monkeypatch.delenv("QDRANT_URL")
    monkeypatch.setenv("QDRANT_PATH", str(tmp_path / "env-path"))
    assert QdrantSettings.for_store(VectorStoreConfig(**base), _unused_default).path == str(
        tmp_path / "env-path"
    )
    monkeypatch.delenv("QDRANT_PATH")
    fallback = QdrantSettings.for_store(VectorStoreConfig(**base), lambda: tmp_path / "team")
    assert fallback.path == str(tmp_path / "team")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "exactly one of location, path, url"),
        ({"location": ":memory:", "url": "http://q:6333"}, "exactly one"),
        ({"location": "http://q:6333"}, "only ':memory:'"),
        ({"path": "/tmp/q", "api_key": "k"}, "api_key is only sent to a server"),
    ],
)
def test_bad_qdrant_settings_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        QdrantSettings(**kwargs)


def test_a_store_config_names_at_most_one_qdrant_place() -> None:
    with pytest.raises(ValidationError, match="at most one of qdrant_url, qdrant_path"):
        VectorStoreConfig(name="#S", qdrant_url="http://q:6333", qdrant_path="/tmp/q")
    with pytest.raises(ValidationError, match="qdrant_location"):
        VectorStoreConfig(name="#S", qdrant_location="/tmp/q")  # type: ignore[arg-type]
    assert "secret" not in repr(VectorStoreConfig(name="#S", qdrant_api_key="secret"))


class _Recording:
    """A real HTTP server on 127.0.0.1 that logs every request and answers 503."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, str | None]] = []
        recording = self

        class Handler(JsonHandler):
            def _answer(self) -> None:
                recording.requests.append((self.command, self.path, self.headers.get("api-key")))
                self.send_json(503, {"status": {"error": "stand-in: no Qdrant here"}})

            do_GET = do_PUT = do_POST = do_DELETE = _answer

        self.httpd = serve(Handler)
        self.url = url_of(self.httpd)


@pytest.fixture
def recording() -> Iterator[_Recording]:
    server = _Recording()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


def test_server_mode_builds_a_client_for_the_url_and_key_without_connecting(
    recording: _Recording,
) -> None:
    settings = QdrantSettings.for_store(
        VectorStoreConfig(name="#S", qdrant_url=recording.url, qdrant_api_key="cluster-key"),
        _unused_default,
    )
    with pytest.warns(UserWarning, match="insecure"):  # http + a key: the client says so
        client = QdrantClient(**settings.client_arguments())
    try:
        remote: Any = client._client
        assert type(remote).__name__ == "QdrantRemote"
        assert remote.rest_uri == recording.url
        assert remote._rest_headers["api-key"] == "cluster-key"
        threading.Event().wait(0.2)  # room for any background request to arrive
        assert recording.requests == []  # built lazily: nothing sent, now or later
    finally:
        client.close()


def test_server_mode_sends_its_first_request_with_the_key_and_fails_cleanly(
    recording: _Recording,
) -> None:
    settings = QdrantSettings(url=recording.url, api_key="cluster-key")
    team = uuid.uuid4()
    with pytest.warns(UserWarning, match="insecure"), pytest.raises(Exception, match="503"):
        _open(settings, team=team)
    method, path, key = recording.requests[0]
    assert (method, key) == ("GET", "cluster-key")
    assert path.startswith(f"/collections/akgentic_notes_{team.hex}")
    from akgentic.tool.vector_store import qdrant

    assert settings.key not in qdrant._LEASES  # the failed open gave its client back


# -- the shared client, its lock, and the collection's shape ------------------------------------


def test_collections_on_one_path_share_its_client_and_the_last_close_unlocks_it(
    tmp_path: Path,
) -> None:
    place = tmp_path / "q"
    first = _open(QdrantSettings(path=str(place)), "first")
    second = _open(QdrantSettings(path=str(tmp_path / "." / "q")), "second")  # same place
    first.put([VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0, 0.0])])
    second.put([VectorDocument(ref="b", text="beta", vector=[0.0, 1.0, 0.0])])
    first.close()
    first.close()  # idempotent: the second collection keeps the client
    assert second.counts() == (1, 1)
    with pytest.raises(RuntimeError, match="already accessed"):
        QdrantClient(path=str(place))
    second.close()

    reopened = QdrantClient(path=str(place))
    try:
        assert reopened.count("akgentic_first").count == 1
        assert reopened.count("akgentic_second").count == 1
    finally:
        reopened.close()


def test_reopening_a_collection_with_another_dimension_is_refused(tmp_path: Path) -> None:
    settings = QdrantSettings(path=str(tmp_path / "q"))
    _open(settings, dimension=3).close()
    with pytest.raises(ValueError, match=r"vectors of size 3.*dimension 4"):
        _open(settings, dimension=4)
    again = _open(settings, dimension=3)  # the refused open left the client usable
    assert again.counts() == (0, 0)
    again.close()


def test_tenants_share_one_qdrant_collection_and_stay_apart() -> None:
    settings = QdrantSettings(location=":memory:")
    a = _open(settings, "shared", tenant="team-a", team=uuid.uuid4())
    b = _open(settings, "shared", tenant="team-b", team=uuid.uuid4())
    try:
        assert a.qdrant_name == b.qdrant_name == "akgentic_shared"
        a.put([VectorDocument(ref="same", text="alpha notes", vector=[1.0, 0.0, 0.0])])
        b.put([VectorDocument(ref="same", text="beta notes", vector=[0.0, 1.0, 0.0])])
        b.put([VectorDocument(ref="other", text="gamma notes")])

        assert a.counts() == (1, 1)
        assert b.counts() == (2, 1)
        query = np.asarray([1.0, 0.0, 0.0], dtype=np.float32)
        assert [h.text for h in a.vector_search(query, 5, -1.0, {})] == ["alpha notes"]
        # Equal scores: the smaller ref first, whatever order Qdrant scrolls in.
        assert [h.ref for h in b.keyword_search("notes", 5, {})] == ["other", "same"]
        assert a.delete(["other"]) == []  # b's document is not a's to delete

        a.drop()
        assert a.counts() == (0, 0)
        assert b.counts() == (2, 1)
    finally:
        a.close()
        b.close()


def test_without_the_extra_the_error_names_the_install_command() -> None:
    script = (
        "import sys, uuid; sys.modules['qdrant_client'] = None\n"
        "from akgentic.tool.core.vector_store import CollectionConfig\n"
        "from akgentic.tool.vector_store.backend import CollectionRecord\n"
        "from akgentic.tool.vector_store.qdrant import QdrantBackend, QdrantSettings\n"
        "try:\n"
        "    QdrantBackend.connect('x', CollectionRecord(config=CollectionConfig("
        "backend='qdrant')), team_id=uuid.uuid4(), settings=QdrantSettings(location=':memory:'))\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert QDRANT_INSTALL_HINT in out.stdout
