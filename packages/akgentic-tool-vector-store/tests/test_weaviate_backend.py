"""The Weaviate backend against a local stand-in that speaks Weaviate's wire protocols.

There is no Weaviate server here. The stand-in below answers the requests the real
``weaviate-client`` sends: the REST schema/tenant endpoints on an HTTP server, and the
gRPC ``weaviate.v1.Weaviate`` service (BatchObjects, Search, BatchDelete, Aggregate,
TenantsGet) on a real gRPC server, using the client's own protobuf definitions. Its
search is exact (cosine distance, a word-count bm25), which is all these tests need.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from concurrent import futures
from http.server import BaseHTTPRequestHandler
from typing import Any

import grpc
import numpy as np
import pytest
from google.protobuf.json_format import MessageToDict
from weaviate.proto.v1 import (
    aggregate_pb2,
    base_pb2,
    batch_delete_pb2,
    batch_pb2,
    properties_pb2,
    search_get_pb2,
    tenants_pb2,
    weaviate_pb2_grpc,
)

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import eventually
from akgentic.tool.core.vector_store import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    VectorDocument,
    VectorQuery,
    VectorStore,
    lookup_vector_store,
    search_text,
)
from akgentic.tool.vector_store.actor import VectorStoreActor
from akgentic.tool.vector_store.tool import VectorStoreTool
from akgentic.tool.vector_store.weaviate import WEAVIATE_INSTALL_HINT

from .loopback_http import JsonHandler, serve

DIM = 64
DOCS = [
    VectorDocument(ref="db", text="database migration plan for postgres", metadata={"kind": "a"}),
    VectorDocument(ref="ui", text="redesign the login page colours", metadata={"kind": "b"}),
    VectorDocument(ref="ops", text="rotate the production certificates", metadata={"kind": "a"}),
]
_WORD = re.compile(r"\w+")


class FakeWeaviate:
    """In-memory Weaviate: classes, tenants and objects, plus a log of the wire calls."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.classes: dict[str, dict[str, Any]] = {}
        self.tenants: dict[str, set[str]] = {}
        self.objects: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self.rest: list[tuple[str, str]] = []
        self.grpc: list[str] = []
        self.auth: list[str | None] = []
        self.url = ""
        self.ready = True

    def bucket(self, collection: str, tenant: str) -> dict[str, dict[str, Any]]:
        if collection not in self.classes:
            raise KeyError(f"class {collection} does not exist")
        if self.classes[collection].get("multiTenancyConfig", {}).get("enabled"):
            if tenant not in self.tenants.get(collection, set()):
                raise KeyError(f"tenant {tenant!r} not found in {collection}")
        elif tenant:
            raise KeyError(f"class {collection} has multi-tenancy disabled")
        return self.objects.setdefault((collection, tenant), {})

    # -- filters --------------------------------------------------------------------

    def matches(self, obj: dict[str, Any], flt: base_pb2.Filters) -> bool:
        op = flt.operator
        if op == base_pb2.Filters.OPERATOR_AND:
            return all(self.matches(obj, sub) for sub in flt.filters)
        if op == base_pb2.Filters.OPERATOR_OR:
            return any(self.matches(obj, sub) for sub in flt.filters)
        prop = flt.target.property if flt.HasField("target") else flt.on[0]
        if prop == "_id":
            value: Any = [obj["id"]]
        else:
            value = obj["props"].get(prop)
            value = value if isinstance(value, list) else [value]
        wanted = list(flt.value_text_array.values) or [flt.value_text]
        if op == base_pb2.Filters.OPERATOR_CONTAINS_ANY:
            return any(item in value for item in wanted)
        if op == base_pb2.Filters.OPERATOR_CONTAINS_ALL:
            return all(item in value for item in wanted)
        if op == base_pb2.Filters.OPERATOR_EQUAL:
            return value == wanted
        raise NotImplementedError(f"stand-in does not implement filter operator {op}")


def _vector_of(obj: batch_pb2.BatchObject) -> np.ndarray | None:
    if obj.vector_bytes:
        return np.frombuffer(obj.vector_bytes, dtype="<f4").copy()
    if obj.vectors:
        return np.frombuffer(obj.vectors[0].vector_bytes, dtype="<f4").copy()
    if obj.vector:
        return np.asarray(obj.vector, dtype=np.float32)
    return None


def _query_vector(near: Any) -> np.ndarray:
    if near.vector_bytes:
        return np.frombuffer(near.vector_bytes, dtype="<f4")
    if near.vectors:
        return np.frombuffer(near.vectors[0].vector_bytes, dtype="<f4")
    if near.vector_for_targets:
        target = near.vector_for_targets[0]
        if target.vectors:
            return np.frombuffer(target.vectors[0].vector_bytes, dtype="<f4")
        return np.frombuffer(target.vector_bytes, dtype="<f4")
    return np.asarray(near.vector, dtype=np.float32)


def _value(item: Any) -> properties_pb2.Value:
    if isinstance(item, list):
        return properties_pb2.Value(
            list_value=properties_pb2.ListValue(
                text_values=properties_pb2.TextValues(values=[str(v) for v in item])
            )
        )
    return properties_pb2.Value(text_value=str(item))


class Servicer(weaviate_pb2_grpc.WeaviateServicer):
    def __init__(self, db: FakeWeaviate) -> None:
        self.db = db

    def BatchObjects(self, request: Any, context: Any) -> Any:
        errors = []
        with self.db.lock:
            self.db.grpc.append("BatchObjects")
            for index, obj in enumerate(request.objects):
                try:
                    bucket = self.db.bucket(obj.collection, obj.tenant)
                except KeyError as exc:
                    errors.append(
                        batch_pb2.BatchObjectsReply.BatchError(index=index, error=str(exc))
                    )
                    continue
                props = MessageToDict(obj.properties.non_ref_properties)
                for array in obj.properties.text_array_properties:
                    props[array.prop_name] = list(array.values)
                bucket[obj.uuid] = {"id": obj.uuid, "props": props, "vector": _vector_of(obj)}
        return batch_pb2.BatchObjectsReply(took=0.0, errors=errors)

    def Search(self, request: Any, context: Any) -> Any:
        with self.db.lock:
            self.db.grpc.append("Search")
            try:
                objects = list(self.db.bucket(request.collection, request.tenant).values())
            except KeyError as exc:
                context.abort(grpc.StatusCode.NOT_FOUND, str(exc))
            if request.HasField("filters"):
                objects = [o for o in objects if self.db.matches(o, request.filters)]
            scored: list[tuple[float, dict[str, Any], float | None]] = []
            if request.HasField("near_vector"):
                query = _query_vector(request.near_vector)
                query = query / np.linalg.norm(query)
                for obj in objects:
                    if obj["vector"] is None:
                        continue
                    vector = obj["vector"] / np.linalg.norm(obj["vector"])
                    distance = float(1.0 - vector @ query)
                    if request.near_vector.HasField("distance") and (
                        distance > request.near_vector.distance + 1e-6
                    ):
                        continue
                    scored.append((-distance, obj, distance))
            elif request.HasField("bm25_search"):
                words = set(_WORD.findall(request.bm25_search.query.casefold()))
                for obj in objects:
                    text_words = set(_WORD.findall(str(obj["props"].get("text", "")).casefold()))
                    overlap = len(words & text_words)
                    if overlap:
                        scored.append((float(overlap), obj, None))
            else:
                scored = [(0.0, obj, None) for obj in objects]
            scored.sort(key=lambda item: -item[0])
            results = []
            for _, obj, distance in scored[: request.limit or 10]:
                metadata = search_get_pb2.MetadataResult(id=obj["id"])
                if distance is not None:
                    metadata.distance = distance
                    metadata.distance_present = True
                results.append(
                    search_get_pb2.SearchResult(
                        properties=search_get_pb2.PropertiesResult(
                            non_ref_props=properties_pb2.Properties(
                                fields={k: _value(v) for k, v in obj["props"].items()}
                            ),
                            target_collection=request.collection,
                        ),
                        metadata=metadata,
                    )
                )
        return search_get_pb2.SearchReply(took=0.0, results=results)

    def BatchDelete(self, request: Any, context: Any) -> Any:
        with self.db.lock:
            self.db.grpc.append("BatchDelete")
            bucket = self.db.bucket(request.collection, request.tenant)
            doomed = [oid for oid, obj in bucket.items() if self.db.matches(obj, request.filters)]
            if not request.dry_run:
                for oid in doomed:
                    del bucket[oid]
        objects = (
            [
                batch_delete_pb2.BatchDeleteObject(uuid=uuid.UUID(oid).bytes, successful=True)
                for oid in doomed
            ]
            if request.verbose
            else []
        )
        return batch_delete_pb2.BatchDeleteReply(
            took=0.0, failed=0, matches=len(doomed), successful=len(doomed), objects=objects
        )

    def Aggregate(self, request: Any, context: Any) -> Any:
        with self.db.lock:
            self.db.grpc.append("Aggregate")
            count = len(self.db.bucket(request.collection, request.tenant))
        return aggregate_pb2.AggregateReply(
            took=0.0, single_result=aggregate_pb2.AggregateReply.Single(objects_count=count)
        )

    def TenantsGet(self, request: Any, context: Any) -> Any:
        with self.db.lock:
            self.db.grpc.append("TenantsGet")
            names = sorted(self.db.tenants.get(request.collection, set()))
        return tenants_pb2.TenantsGetReply(
            took=0.0,
            tenants=[
                tenants_pb2.Tenant(
                    name=name, activity_status=tenants_pb2.TENANT_ACTIVITY_STATUS_HOT
                )
                for name in names
            ],
        )


def _rest_handler(db: FakeWeaviate) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonHandler):
        def _route(self, method: str) -> None:
            path = self.path.split("?")[0]
            with db.lock:
                db.rest.append((method, path))
                db.auth.append(self.headers.get("Authorization"))
            parts = path.strip("/").split("/")
            if path == "/v1/meta":
                self.send_json(200, {"version": "1.30.0", "modules": {}, "hostname": "stand-in"})
            elif path == "/v1/.well-known/ready":
                self.send_json(200 if db.ready else 503)
            elif parts[:2] == ["v1", "schema"] and len(parts) == 2 and method == "POST":
                body = self.read_json()
                with db.lock:
                    db.classes[body["class"]] = body
                self.send_json(200, body)
            elif parts[:2] == ["v1", "schema"] and len(parts) == 3:
                name = parts[2]
                with db.lock:
                    if method == "GET":
                        found = db.classes.get(name)
                        self.send_json(200, found) if found else self.send_json(404, {"error": []})
                    elif method == "DELETE":
                        db.classes.pop(name, None)
                        for key in [k for k in db.objects if k[0] == name]:
                            del db.objects[key]
                        self.send_json(200)
            elif parts[:2] == ["v1", "schema"] and len(parts) == 4 and parts[3] == "tenants":
                name = parts[2]
                body = self.read_json() if method in ("POST", "DELETE") else None
                with db.lock:
                    tenants = db.tenants.setdefault(name, set())
                    if method == "POST":
                        tenants.update(t["name"] for t in body)
                        self.send_json(200, body)
                    elif method == "DELETE":
                        for tenant in body:
                            tenants.discard(tenant)
                            db.objects.pop((name, tenant), None)
                        self.send_json(200)
                    else:
                        self.send_json(200, [{"name": t, "activityStatus": "HOT"} for t in tenants])
            else:
                self.send_json(404, {"error": [{"message": f"stand-in: no route {method} {path}"}]})

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def do_DELETE(self) -> None:
            self._route("DELETE")

        def do_PUT(self) -> None:
            self._route("PUT")

    return Handler


@pytest.fixture
def weaviate_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeWeaviate]:
    """The stand-in, with the WEAVIATE_* deployment variables pointing at it."""
    db = FakeWeaviate()
    httpd = serve(_rest_handler(db))
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    weaviate_pb2_grpc.add_WeaviateServicer_to_server(Servicer(db), server)
    grpc_port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    monkeypatch.setenv("WEAVIATE_HTTP_HOST", "127.0.0.1")
    monkeypatch.setenv("WEAVIATE_HTTP_PORT", str(httpd.server_address[1]))
    monkeypatch.setenv("WEAVIATE_GRPC_PORT", str(grpc_port))
    db.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield db
    finally:
        server.stop(grace=None)
        httpd.shutdown()
        httpd.server_close()


def bind(agent: Any) -> VectorStore:
    ToolFactory([VectorStoreTool()], observer=agent)
    store = lookup_vector_store(agent, VECTOR_STORE_NAME)
    assert store is not None
    return store


def test_a_weaviate_collection_stores_embeds_searches_and_deletes(
    tool_agent: Any, openai_env: Any, weaviate_server: FakeWeaviate
) -> None:
    store = bind(tool_agent)
    store.create_collection("notes", CollectionConfig(dimension=DIM, backend="weaviate"))
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").embedded == 3)

    result = search_text(store, "notes", VectorQuery(text="postgres database migration"))
    filtered = search_text(
        store, "notes", VectorQuery(text="postgres database migration", where={"kind": "b"})
    )
    removed = store.delete("notes", ["ops", "missing"])

    class_name = f"Akgentic_notes_{tool_agent.team_id.hex}"
    assert ("POST", "/v1/schema") in weaviate_server.rest
    assert class_name in weaviate_server.classes
    stored = weaviate_server.objects[(class_name, "")]
    assert {obj["props"]["ref"] for obj in stored.values()} == {"db", "ui"}
    assert all(obj["vector"] is not None for obj in stored.values())
    assert result.status == "ok"
    assert result.hits[0].ref == "db"
    assert result.hits[0].metadata == {"kind": "a"}
    assert result.hits[0].score > 0.5
    assert [hit.ref for hit in filtered.hits] == ["ui"]
    assert removed == 1
    assert store.collection_stats("notes").documents == 2
    assert {"BatchObjects", "Search", "BatchDelete", "Aggregate"} <= set(weaviate_server.grpc)


def test_keyword_fallback_uses_bm25_when_embeddings_fail(
    tool_agent: Any, openai_env: Any, weaviate_server: FakeWeaviate
) -> None:
    openai_env.fail_status = 500
    store = bind(tool_agent)
    store.create_collection("notes", CollectionConfig(dimension=DIM, backend="weaviate"))
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").failed == 3)

    result = search_text(store, "notes", VectorQuery(text="production certificates"), delay=0.02)

    assert result.status == "degraded"
    assert [hit.ref for hit in result.hits] == ["ops"]
    assert result.hits[0].match == "keyword"
    assert result.hits[0].score == 1.0


def test_tenants_share_one_weaviate_collection_and_stay_apart(
    actor_system: ActorSystem, openai_env: Any, weaviate_server: FakeWeaviate
) -> None:
    from akgentic.core.agent_config import BaseConfig
    from akgentic.core.orchestrator import Orchestrator
    from akgentic.tool.core.testing import spawn_tool_agent

    stores = []
    for tenant in ("team-a", "team-b"):
        orchestrator = actor_system.createActor(
            Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        store = bind(spawn_tool_agent(actor_system, orchestrator, f"@{tenant}"))
        store.create_collection(
            "shared", CollectionConfig(dimension=DIM, backend="weaviate", tenant=tenant)
        )
        stores.append(store)
    stores[0].upsert("shared", DOCS[:1])
    stores[1].upsert("shared", DOCS[1:])
    eventually(lambda: stores[0].collection_stats("shared").embedded == 1)
    eventually(lambda: stores[1].collection_stats("shared").embedded == 2)

    a = search_text(stores[0], "shared", VectorQuery(text="login page colours"))
    b = search_text(stores[1], "shared", VectorQuery(text="login page colours"))

    assert weaviate_server.tenants["Akgentic_shared"] == {"team-a", "team-b"}
    assert weaviate_server.classes["Akgentic_shared"]["multiTenancyConfig"]["enabled"] is True
    assert [hit.ref for hit in a.hits] == ["db"]
    assert b.hits[0].ref == "ui"
    assert stores[0].drop_collection("shared") is True
    assert weaviate_server.tenants["Akgentic_shared"] == {"team-b"}
    assert stores[1].collection_stats("shared").documents == 2


def test_the_store_state_keeps_only_configuration_and_waiting_texts(
    actor_system: ActorSystem,
    orchestrator: Any,
    tool_agent: Any,
    openai_env: Any,
    weaviate_server: FakeWeaviate,
) -> None:
    store = bind(tool_agent)
    store.create_collection("notes", CollectionConfig(dimension=DIM, backend="weaviate"))
    openai_env.fail_status = 500
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").failed == 3)
    from akgentic.core.orchestrator import Orchestrator

    address = actor_system.proxy_ask(orchestrator, Orchestrator).get_team_member(VECTOR_STORE_NAME)
    actor = actor_system.proxy_ask(address, VectorStoreActor)
    actor.flush_state()
    record = actor.state.collections["notes"]

    assert record.refs == []
    assert record.vectors == b""
    assert record.unembedded == {doc.ref: doc.text for doc in DOCS}
    assert record.unembedded_metadata["ui"] == {"kind": "b"}

    # A restored actor reconnects and re-embeds what was waiting.
    openai_env.fail_status = None
    actor.init_state(actor.state.serializable_copy())
    assert store.search("notes", VectorQuery(text="certificates")).status == "pending"
    eventually(lambda: store.collection_stats("notes").embedded == 3)


def test_without_the_extra_the_error_names_the_install_command() -> None:
    script = (
        "import sys; sys.modules['weaviate'] = None\n"
        "from akgentic.tool.vector_store.backend import CollectionRecord\n"
        "from akgentic.tool.vector_store.weaviate import WeaviateBackend\n"
        "from akgentic.tool.core.vector_store import CollectionConfig\n"
        "import uuid\n"
        "try:\n"
        "    WeaviateBackend.connect('x', CollectionRecord(config=CollectionConfig("
        "backend='weaviate')), team_id=uuid.uuid4())\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert WEAVIATE_INSTALL_HINT in out.stdout


def test_connection_settings_are_not_card_fields() -> None:
    fields = set(VectorStoreTool.model_fields) | set(CollectionConfig.model_fields)
    assert not any("host" in f or "port" in f or "key" in f or "url" in f for f in fields)


def test_a_server_that_is_not_ready_is_reported_and_nothing_is_created(
    tool_agent: Any, openai_env: Any, weaviate_server: FakeWeaviate
) -> None:
    weaviate_server.ready = False
    store = bind(tool_agent)
    with pytest.raises(ConnectionError, match="not ready"):
        store.create_collection("notes", CollectionConfig(dimension=DIM, backend="weaviate"))
    assert store.list_collections() == []
    assert weaviate_server.classes == {}


def test_objects_weaviate_rejects_surface_as_an_error_naming_the_collection(
    tool_agent: Any, openai_env: Any, weaviate_server: FakeWeaviate
) -> None:
    store = bind(tool_agent)
    store.create_collection(
        "shared", CollectionConfig(dimension=DIM, backend="weaviate", tenant="t1")
    )
    weaviate_server.tenants["Akgentic_shared"].clear()  # the tenant vanished server-side
    with pytest.raises(RuntimeError, match="Weaviate rejected 1 of 1 objects in Akgentic_shared"):
        store.upsert("shared", [DOCS[0].model_copy(update={"vector": [1.0] * DIM})])


# -- the predecessor's forms: WeaviateBackend(url, api_key, tenant), VectorStoreConfig --------


def _misdirect_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the HTTP settings of the environment nowhere, so only an explicit url works."""
    monkeypatch.setenv("WEAVIATE_HTTP_HOST", "127.0.0.1")
    monkeypatch.setenv("WEAVIATE_HTTP_PORT", "9")  # discard port: nothing answers
    monkeypatch.setenv("WEAVIATE_TIMEOUT", "2")


def test_the_predecessor_form_connects_to_its_url_and_works_per_collection(
    weaviate_server: FakeWeaviate, monkeypatch: pytest.MonkeyPatch
) -> None:
    from akgentic.tool.core.vector_store import UnknownCollectionError
    from akgentic.tool.vector_store.protocol import SearchHit
    from akgentic.tool.vector_store.vector import VectorEntry
    from akgentic.tool.vector_store.weaviate import WeaviateBackend

    _misdirect_env(monkeypatch)
    backend = WeaviateBackend(url=weaviate_server.url, api_key="wv-key", tenant="team-7")
    try:
        backend.create_collection("tasks", CollectionConfig(dimension=3))
        backend.create_collection("tasks", CollectionConfig(dimension=3))  # idempotent
        added = backend.add(
            "tasks",
            [
                VectorEntry(
                    ref_id="t1", ref_type="task", text="write the migration", vector=[1, 0, 0]
                ),
                VectorEntry(ref_id="t2", ref_type="task", text="review login", vector=[0, 1, 0]),
                {"ref_id": "t3", "ref_type": "note", "text": "no vector yet"},
            ],
        )
        hits = backend.search("tasks", [1, 0.2, 0], 2)
        by_name = backend.search(collection="tasks", query_vector=[0, 1, 0], top_k=1)
        removed = backend.remove("tasks", ["t1", "missing"])
        after = backend.search("tasks", [1, 0, 0], 5)
        with pytest.raises(ValueError, match="expects 3"):
            backend.add("tasks", [VectorEntry(ref_id="x", ref_type="t", text="x", vector=[1.0])])
        with pytest.raises(UnknownCollectionError):
            backend.search("nope", [1, 0, 0], 1)
        with pytest.raises(TypeError, match="create_collection"):
            backend.counts()
    finally:
        backend.close()

    assert added == 3
    assert weaviate_server.tenants["Akgentic_tasks"] == {"team-7"}
    assert len(weaviate_server.objects[("Akgentic_tasks", "team-7")]) == 2
    assert removed == 1
    assert all(isinstance(hit, SearchHit) for hit in hits)
    assert [(h.ref_id, h.ref_type) for h in hits] == [("t1", "task"), ("t2", "task")]
    assert hits[0].score == pytest.approx(1 / np.sqrt(1.04), abs=1e-5)
    assert [h.ref_id for h in by_name] == ["t2"]
    assert [h.ref_id for h in after] == ["t2"]  # t3 has no vector, t1 is gone
    assert "Bearer wv-key" in weaviate_server.auth


def test_the_predecessor_form_positionally_and_without_url_uses_the_environment(
    weaviate_server: FakeWeaviate,
) -> None:
    from akgentic.tool.vector_store.weaviate import WeaviateBackend

    for backend in (WeaviateBackend(weaviate_server.url), WeaviateBackend()):
        try:
            backend.create_collection("c", CollectionConfig(dimension=2))
            backend.add("c", [{"ref_id": "a", "ref_type": "t", "text": "alpha", "vector": [1, 0]}])
            assert backend.search("c", [1, 0], 1)[0].ref_id == "a"
        finally:
            backend.close()
    assert "Akgentic_c" in weaviate_server.classes  # no team, no tenant: the plain name
    assert weaviate_server.auth
    assert set(weaviate_server.auth) == {None}


def test_store_config_weaviate_url_and_key_override_the_environment(
    actor_system: ActorSystem,
    orchestrator: Any,
    tool_agent: Any,
    openai_env: Any,
    weaviate_server: FakeWeaviate,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from akgentic.core.orchestrator import Orchestrator
    from akgentic.tool.core.vector_store import VectorStoreConfig

    _misdirect_env(monkeypatch)
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    orch.getChildrenOrCreate(
        VectorStoreActor,
        VectorStoreConfig(
            name="#UrlStore", weaviate_url=weaviate_server.url, weaviate_api_key="cfg-key"
        ),
    )
    store = lookup_vector_store(tool_agent, "#UrlStore")
    assert store is not None
    store.create_collection("notes", CollectionConfig(dimension=DIM, backend="weaviate"))
    store.upsert("notes", DOCS)
    eventually(lambda: store.collection_stats("notes").embedded == 3)
    result = search_text(store, "notes", VectorQuery(text="postgres database migration"))

    assert result.status == "ok"
    assert result.hits[0].ref == "db"
    assert f"Akgentic_notes_{tool_agent.team_id.hex}" in weaviate_server.classes
    assert "Bearer cfg-key" in weaviate_server.auth


def test_without_the_config_fields_the_environment_is_used(
    tool_agent: Any, openai_env: Any, weaviate_server: FakeWeaviate, monkeypatch: pytest.MonkeyPatch
) -> None:
    _misdirect_env(monkeypatch)
    store = bind(tool_agent)  # the card sets no Weaviate fields
    with pytest.raises(Exception, match="Could not connect to Weaviate"):
        store.create_collection("notes", CollectionConfig(dimension=DIM, backend="weaviate"))
    assert weaviate_server.classes == {}
