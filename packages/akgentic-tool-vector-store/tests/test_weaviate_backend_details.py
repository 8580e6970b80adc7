"""Details of the Weaviate backend beyond the end-to-end tests of ``test_weaviate_backend.py``.

Covered: how the endpoint is read from a url or the ``WEAVIATE_*`` environment (flags,
defaults, default ports, refused urls), what the client is built with (timeouts, gRPC
place, API key), collection names, both constructor forms and who closes the client,
waiting documents handed over by a saved record, the predecessor's connection API and
its error messages, the schema a new collection gets, partially rejected writes, and
what searches and counts ask the server for.

The server is the wire-protocol stand-in of ``test_weaviate_backend.py`` (REST + gRPC on
127.0.0.1), loaded by path, with a thin recording layer that, like a real Weaviate,
returns distances and counts only when asked for them.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
import numpy as np
import pytest
from weaviate.proto.v1 import aggregate_pb2, batch_delete_pb2, batch_pb2, weaviate_pb2_grpc

from akgentic.tool.core.vector_store import (
    CollectionConfig,
    UnknownCollectionError,
    VectorDocument,
)
from akgentic.tool.vector_store.backend import CollectionRecord
from akgentic.tool.vector_store.vector import VectorEntry
from akgentic.tool.vector_store.weaviate import (
    WEAVIATE_INSTALL_HINT,
    WeaviateBackend,
    _endpoint,
    connect_from_env,
    weaviate_name,
)

from . import test_weaviate_backend as weaviate_standin
from .loopback_http import serve

_ENV = (
    "WEAVIATE_HTTP_HOST",
    "WEAVIATE_HTTP_PORT",
    "WEAVIATE_HTTP_SECURE",
    "WEAVIATE_GRPC_HOST",
    "WEAVIATE_GRPC_PORT",
    "WEAVIATE_GRPC_SECURE",
    "WEAVIATE_API_KEY",
    "WEAVIATE_TIMEOUT",
)


class _Recording(weaviate_standin.Servicer):
    """The stand-in's gRPC service, recording requests and answering like Weaviate: a
    distance only when asked for, a count only when asked for. Objects whose text holds
    ``REJECT`` are refused; ``loose_bm25`` makes bm25 return every object; the objects
    whose ref is in ``stuck`` are reported as not deleted (and stay)."""

    def __init__(self, db: Any) -> None:
        super().__init__(db)
        self.searches: list[Any] = []
        self.aggregates: list[Any] = []
        self.loose_bm25 = False
        self.stuck: set[str] = set()

    def Search(self, request: Any, context: Any) -> Any:
        self.searches.append(request)
        if self.loose_bm25 and request.HasField("bm25_search"):
            everything = type(request)()
            everything.CopyFrom(request)
            everything.ClearField("bm25_search")
            request = everything
        reply = super().Search(request, context)
        if not request.metadata.distance:
            for result in reply.results:
                result.metadata.ClearField("distance")
                result.metadata.distance_present = False
        return reply

    def BatchObjects(self, request: Any, context: Any) -> Any:
        kept = type(request)()
        kept.CopyFrom(request)
        del kept.objects[:]
        refused: list[int] = []
        positions: list[int] = []
        for index, obj in enumerate(request.objects):
            text = obj.properties.non_ref_properties.fields["text"].string_value
            if "REJECT" in text:
                refused.append(index)
            else:
                kept.objects.append(obj)
                positions.append(index)
        reply = super().BatchObjects(kept, context)
        errors = [
            batch_pb2.BatchObjectsReply.BatchError(index=positions[e.index], error=e.error)
            for e in reply.errors
        ]
        errors += [
            batch_pb2.BatchObjectsReply.BatchError(index=i, error="stand-in refuses REJECT")
            for i in refused
        ]
        return batch_pb2.BatchObjectsReply(took=0.0, errors=errors)

    def BatchDelete(self, request: Any, context: Any) -> Any:
        with self.db.lock:
            bucket = self.db.bucket(request.collection, request.tenant)
            objects = []
            for oid in [o for o, obj in bucket.items() if self.db.matches(obj, request.filters)]:
                deleted = bucket[oid]["props"].get("ref") not in self.stuck
                if deleted:
                    del bucket[oid]
                objects.append(
                    batch_delete_pb2.BatchDeleteObject(
                        uuid=uuid.UUID(oid).bytes, successful=deleted
                    )
                )
        done = sum(1 for obj in objects if obj.successful)
        return batch_delete_pb2.BatchDeleteReply(
            took=0.0,
            failed=len(objects) - done,
            matches=len(objects),
            successful=done,
            objects=objects,
        )

    def Aggregate(self, request: Any, context: Any) -> Any:
        self.aggregates.append(request)
        if request.objects_count:
            return super().Aggregate(request, context)
        return aggregate_pb2.AggregateReply(
            took=0.0, single_result=aggregate_pb2.AggregateReply.Single()
        )


@dataclass
class Server:
    db: Any
    service: _Recording
    url: str
    grpc_port: int
    extra: dict[str, Any] = field(default_factory=dict)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """The stand-in, with only the HTTP/gRPC place in the environment."""
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    db = weaviate_standin.FakeWeaviate()
    httpd = serve(weaviate_standin._rest_handler(db))
    service = _Recording(db)
    rpc = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    weaviate_pb2_grpc.add_WeaviateServicer_to_server(service, rpc)
    grpc_port = rpc.add_insecure_port("127.0.0.1:0")
    rpc.start()
    monkeypatch.setenv("WEAVIATE_HTTP_HOST", "127.0.0.1")
    monkeypatch.setenv("WEAVIATE_HTTP_PORT", str(httpd.server_address[1]))
    monkeypatch.setenv("WEAVIATE_GRPC_PORT", str(grpc_port))
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield Server(db=db, service=service, url=url, grpc_port=grpc_port)
    finally:
        rpc.stop(grace=None)
        httpd.shutdown()
        httpd.server_close()


def _misdirect(monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the HTTP settings nowhere, so only an explicit url reaches the stand-in."""
    monkeypatch.setenv("WEAVIATE_HTTP_HOST", "127.0.0.1")
    monkeypatch.setenv("WEAVIATE_HTTP_PORT", "9")
    monkeypatch.setenv("WEAVIATE_TIMEOUT", "2")


def _config(dimension: int = 3, **kw: Any) -> CollectionConfig:
    return CollectionConfig(dimension=dimension, backend="weaviate", **kw)


def _open(name: str = "notes", team: uuid.UUID | None = None, **kw: Any) -> WeaviateBackend:
    return WeaviateBackend.connect(
        name, CollectionRecord(config=_config(**kw)), team_id=team or uuid.uuid4()
    )


def _vec(*values: float) -> Any:
    return np.asarray(values, dtype=np.float32)


# -- the endpoint, from the environment or a url ------------------------------------------


def test_the_endpoint_defaults_to_localhost_8080_over_plain_http(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    host, port, secure, where = _endpoint(None)
    assert (host, port, secure) == ("localhost", 8080, False)
    assert "localhost:8080" in where


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1", True),
        ("true", True),
        (" Yes ", True),
        ("ON", True),
        ("on", True),
        ("TRUE", True),
        ("yes", True),
        ("0", False),
        ("no", False),
        ("", False),
    ],
)
def test_the_environment_names_host_port_and_https(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: bool
) -> None:
    monkeypatch.setenv("WEAVIATE_HTTP_HOST", "weaviate.internal")
    monkeypatch.setenv("WEAVIATE_HTTP_PORT", "1234")
    monkeypatch.setenv("WEAVIATE_HTTP_SECURE", raw)
    host, port, secure, where = _endpoint(None)
    assert (host, port, secure) == ("weaviate.internal", 1234, expected)
    assert "weaviate.internal:1234" in where


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://w.example", ("w.example", 443, True)),
        ("http://w.example", ("w.example", 80, False)),
        ("https://w.example:8443", ("w.example", 8443, True)),
        ("w.example:9000", ("w.example", 9000, False)),
        ("w.example", ("w.example", 80, False)),
    ],
)
def test_a_url_gives_host_port_and_https_with_default_ports(
    url: str, expected: tuple[str, int, bool]
) -> None:
    assert _endpoint(url) == (*expected, url)


@pytest.mark.parametrize("url", ["ftp://w.example", "http://", "https://:8080"])
def test_a_url_that_is_not_http_with_a_host_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match=r"expected http\[s\]://host\[:port\]"):
        _endpoint(url)


# -- what the client is built with ---------------------------------------------------------


def test_the_client_takes_timeouts_and_grpc_place_from_the_environment(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEAVIATE_TIMEOUT", "7")
    monkeypatch.setenv("WEAVIATE_GRPC_HOST", "localhost")
    monkeypatch.setenv("WEAVIATE_GRPC_SECURE", "true")
    client = connect_from_env()
    try:
        timeouts = client._connection.timeout_config
        grpc_params = client._connection._connection_params.grpc
    finally:
        client.close()
    assert (timeouts.init, timeouts.query, timeouts.insert) == (7, 7, 7)
    assert (grpc_params.host, grpc_params.port, grpc_params.secure) == (
        "localhost",
        server.grpc_port,
        True,
    )


def test_grpc_defaults_follow_the_http_endpoint(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WEAVIATE_GRPC_PORT")
    client = connect_from_env()  # readiness is asked over HTTP only
    try:
        timeouts = client._connection.timeout_config
        grpc_params = client._connection._connection_params.grpc
    finally:
        client.close()
    assert (timeouts.init, timeouts.query, timeouts.insert) == (10, 10, 10)
    assert (grpc_params.host, grpc_params.port, grpc_params.secure) == ("127.0.0.1", 50051, False)


def test_the_api_key_comes_from_the_environment_unless_given(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEAVIATE_API_KEY", "env-key")
    connect_from_env().close()
    assert server.db.auth[-1] == "Bearer env-key"
    connect_from_env(api_key="own-key").close()
    assert server.db.auth[-1] == "Bearer own-key"


def test_without_the_weaviate_package_connecting_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "weaviate", None)
    record = CollectionRecord(config=_config())
    with pytest.raises(ImportError) as caught:
        WeaviateBackend.connect("notes", record, team_id=uuid.uuid4())
    assert WEAVIATE_INSTALL_HINT in str(caught.value)


# -- names ---------------------------------------------------------------------------------


def test_unsafe_characters_of_a_collection_name_become_underscores() -> None:
    team = uuid.uuid4()
    assert weaviate_name("my-notes.v2", CollectionConfig(), None) == "Akgentic_my_notes_v2"
    assert weaviate_name("a b", CollectionConfig(), team) == f"Akgentic_a_b_{team.hex}"
    assert weaviate_name("a/b", CollectionConfig(tenant="t"), team) == "Akgentic_a_b"


# -- the two constructor forms and who closes the client ----------------------------------


def test_the_collection_form_by_keywords_owns_and_closes_its_client(server: Server) -> None:
    client = connect_from_env()
    backend = WeaviateBackend(name="notes", config=_config(), client=client, team_id=None)
    assert backend.name == "notes"
    assert backend.weaviate_name == "Akgentic_notes"
    assert backend.collection("notes") is backend
    backend.put([VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0, 0.0])])
    assert backend.counts() == (1, 1)
    backend.close()
    assert not client.is_connected()


def test_the_collection_form_with_two_positionals_and_keywords(server: Server) -> None:
    client = connect_from_env()
    team = uuid.uuid4()
    backend = WeaviateBackend("notes", _config(tenant="acme"), client=client, team_id=team)
    try:
        assert backend.tenant == "acme"
        assert backend.weaviate_name == "Akgentic_notes"
        backend.put([VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0, 0.0])])
        assert list(server.db.objects) == [("Akgentic_notes", "acme")]
    finally:
        backend.close()


def test_the_connection_form_takes_url_key_and_tenant_positionally(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    _misdirect(monkeypatch)
    backend = WeaviateBackend(server.url, "pos-key", "team-9")
    try:
        assert backend.name == ""
        assert backend.weaviate_name == ""
        assert backend.config == CollectionConfig(backend="weaviate", tenant="team-9")
        assert backend.unembedded() == {}
        backend.create_collection("tasks", CollectionConfig(dimension=3))
        assert server.db.tenants["Akgentic_tasks"] == {"team-9"}
    finally:
        backend.close()
    assert "Bearer pos-key" in server.db.auth
    with pytest.raises(Exception, match="(?i)closed"):
        backend.add("tasks", [VectorEntry(ref_id="a", ref_type="t", text="a", vector=[1, 0, 0])])


def test_a_connection_form_collection_shares_and_leaves_the_connection_open(
    server: Server,
) -> None:
    backend = WeaviateBackend(server.url)
    try:
        backend.create_collection("tasks", CollectionConfig(dimension=3))
        backend.collection("tasks").close()  # not the child's client to close
        added = backend.add("tasks", [{"ref_id": "a", "ref_type": "t", "text": "alpha"}])
        assert added == 1
    finally:
        backend.close()


def test_the_predecessor_api_errors_name_what_is_wrong(server: Server) -> None:
    backend = WeaviateBackend(server.url, tenant="team-7")
    try:
        backend.create_collection("tasks", CollectionConfig(dimension=3))
        with pytest.raises(UnknownCollectionError, match="no collection 'nope'"):
            backend.search("nope", [1, 0, 0])
        with pytest.raises(ValueError, match="collection 'tasks' is open with another config"):
            backend.create_collection("tasks", CollectionConfig(dimension=4))
        with pytest.raises(ValueError, match="collection 'tasks' expects 3"):
            backend.add("tasks", [VectorEntry(ref_id="x", ref_type="t", text="x", vector=[1.0])])
        with pytest.raises(ValueError, match="query vector has 2 values, collection 'tasks'"):
            backend.search("tasks", [1.0, 0.0])
        with pytest.raises(TypeError) as caught:
            backend.counts()
        message = str(caught.value)
        assert message.startswith("this WeaviateBackend is a connection")
        assert "the predecessor's WeaviateBackend(url) form): create_collection(" in message
    finally:
        backend.close()


def test_a_collection_config_tenant_wins_over_the_connection_tenant(server: Server) -> None:
    backend = WeaviateBackend(server.url, tenant="team-7")
    try:
        backend.create_collection("own", CollectionConfig(dimension=3, tenant="mine"))
        backend.create_collection("inherited", CollectionConfig(dimension=3))
    finally:
        backend.close()
    assert server.db.tenants["Akgentic_own"] == {"mine"}
    assert server.db.tenants["Akgentic_inherited"] == {"team-7"}


def test_the_predecessor_search_returns_ten_hits_by_default(server: Server) -> None:
    backend = WeaviateBackend(server.url)
    try:
        backend.create_collection("c", CollectionConfig(dimension=2))
        backend.add(
            "c",
            [
                {"ref_id": f"e{i}", "ref_type": "t", "text": "x", "vector": [1.0, i / 10]}
                for i in range(12)
            ],
        )
        assert len(backend.search("c", [1.0, 0.0])) == 10
    finally:
        backend.close()


# -- a saved record's waiting documents ---------------------------------------------------


def test_connect_restores_the_waiting_documents_of_a_saved_record(server: Server) -> None:
    record = CollectionRecord(
        config=_config(),
        unembedded={"a": "alpha page", "b": "beta page"},
        unembedded_metadata={"a": {"kind": "x"}},
    )
    backend = WeaviateBackend.connect("notes", record, team_id=uuid.uuid4())
    try:
        assert backend.unembedded() == {"a": "alpha page", "b": "beta page"}
        kinds = backend.waiting_keyword_search("page", 5, {"kind": "x"})
        assert [hit.ref for hit in kinds] == ["a"]
        assert {h.ref: h.metadata for h in backend.waiting_keyword_search("page", 5, {})} == {
            "a": {"kind": "x"},
            "b": {},
        }
        assert backend.record().unembedded_metadata == {"a": {"kind": "x"}, "b": {}}
    finally:
        backend.close()


# -- the schema of a new collection ---------------------------------------------------------


def test_a_new_collection_has_the_four_text_properties_and_no_vectorizer(
    server: Server,
) -> None:
    backend = _open(team=None)
    backend.close()
    (body,) = server.db.classes.values()
    assert [(p["name"], p["dataType"]) for p in body["properties"]] == [
        ("ref", ["text"]),
        ("text", ["text"]),
        ("metadata_json", ["text"]),
        ("metadata_pairs", ["text[]"]),
    ]
    assert body["vectorConfig"]["default"]["vectorizer"] == {"none": {}}


# -- writes ---------------------------------------------------------------------------------


def test_a_partly_rejected_write_says_how_many_and_why(server: Server) -> None:
    backend = _open()
    try:
        with pytest.raises(RuntimeError) as caught:
            backend.put(
                [
                    VectorDocument(ref="ok", text="fine", vector=[1.0, 0.0, 0.0]),
                    VectorDocument(ref="bad", text="REJECT me", vector=[0.0, 1.0, 0.0]),
                ]
            )
    finally:
        backend.close()
    message = str(caught.value)
    assert f"Weaviate rejected 1 of 2 objects in {backend.weaviate_name}" in message
    assert "stand-in refuses REJECT" in message


# -- what reads ask the server for ----------------------------------------------------------


def test_vector_search_asks_for_distances_within_the_threshold(server: Server) -> None:
    backend = _open()
    try:
        backend.put(
            [
                VectorDocument(ref="x", text="x", vector=[1.0, 0.0, 0.0]),
                VectorDocument(ref="y", text="y", vector=[0.6, 0.8, 0.0]),
            ]
        )
        hits = backend.vector_search(_vec(1, 0, 0), 5, 0.25, {})
    finally:
        backend.close()
    assert [(h.ref, round(h.score, 4)) for h in hits] == [("x", 1.0), ("y", 0.6)]
    request = server.service.searches[-1]
    assert request.metadata.distance
    assert request.near_vector.distance == pytest.approx(0.75)
    assert request.limit == 5


def test_keyword_search_fetches_four_times_top_k_and_keeps_only_matches(
    server: Server,
) -> None:
    backend = _open()
    try:
        backend.put(
            [
                VectorDocument(ref="a", text="alpha notes", vector=[1.0, 0.0, 0.0]),
                VectorDocument(ref="b", text="beta notes", vector=[0.0, 1.0, 0.0]),
                VectorDocument(ref="c", text="alpha beta", vector=[0.0, 0.0, 1.0]),
            ]
        )
        assert [h.ref for h in backend.keyword_search("alpha", 5, {})] == ["a", "c"]
        request = server.service.searches[-1]
        server.service.loose_bm25 = True  # bm25 hands back everything, as fuzzier ones do
        loose = backend.keyword_search("beta", 5, {})
    finally:
        backend.close()
    assert (request.bm25_search.query, request.limit) == ("alpha", 20)
    assert server.service.searches[-1].limit == 20
    assert sorted((h.ref, h.score) for h in loose) == [("b", 1.0), ("c", 1.0)]


def test_counts_ask_for_the_total(server: Server) -> None:
    backend = _open()
    try:
        backend.put(
            [
                VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0, 0.0]),
                VectorDocument(ref="b", text="beta"),
            ]
        )
        assert backend.counts() == (2, 1)
    finally:
        backend.close()
    assert server.service.aggregates[-1].objects_count


def test_objects_written_by_others_without_properties_read_as_empty(server: Server) -> None:
    backend = _open()
    try:
        backend.put([VectorDocument(ref="own", text="own", vector=[0.0, 1.0, 0.0])])
        with server.db.lock:
            bucket = server.db.objects[(backend.weaviate_name, "")]
            oid = str(uuid.uuid4())
            bucket[oid] = {"id": oid, "props": {}, "vector": np.asarray([1.0, 0.0, 0.0])}
        hits = backend.vector_search(_vec(1, 0, 0), 1, 0.5, {})
        server.service.loose_bm25 = True  # the object without text is a bm25 candidate
        assert backend.keyword_search("none", 5, {}) == []
        assert backend.keyword_search("xxxx", 5, {}) == []
    finally:
        backend.close()
    assert [(h.ref, h.text, h.metadata) for h in hits] == [("", "", {})]


def test_delete_answers_only_the_refs_weaviate_deleted(server: Server) -> None:
    backend = _open()
    try:
        backend.put(
            [
                VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0, 0.0]),
                VectorDocument(ref="b", text="beta", vector=[0.0, 1.0, 0.0]),
            ]
        )
        server.service.stuck = {"b"}
        assert backend.delete(["a", "b", "nope"]) == ["a"]
        assert backend.counts() == (1, 1)
    finally:
        backend.close()
