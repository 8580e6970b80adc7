"""Details of the Qdrant backend that the shared storage contract does not pin down.

Qdrant runs in its embedded (local) mode here, in memory or in a temporary directory;
server mode is exercised against a small Qdrant REST stand-in on 127.0.0.1 backed by an
embedded engine. Covered: the settings' error messages, the shared client and its lock,
what a collection of the wrong shape is refused with, the stable point ids, keyword
ranking when many documents compete for few places, paging through more points than
one scroll page, foreign points without a ref or text, the exactly-opposite vector at
the lowest threshold, the memo of "nothing waits", and what server mode sends.
"""

from __future__ import annotations

import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np
import numpy.typing as npt
import pytest
from qdrant_client import QdrantClient, models

from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument
from akgentic.tool.vector_store import qdrant
from akgentic.tool.vector_store.backend import CollectionRecord
from akgentic.tool.vector_store.qdrant import (
    QDRANT_INSTALL_HINT,
    QdrantBackend,
    QdrantSettings,
    qdrant_name,
)

from .loopback_http import JsonHandler, serve, url_of

MEMORY = QdrantSettings(location=":memory:")


def _open(
    settings: QdrantSettings,
    name: str = "notes",
    dimension: int = 3,
    team: uuid.UUID | None = None,
    **kw: Any,
) -> QdrantBackend:
    config = CollectionConfig(dimension=dimension, backend="qdrant", **kw)
    return QdrantBackend.connect(
        name, CollectionRecord(config=config), team_id=team, settings=settings
    )


def _vec(*values: float) -> npt.NDArray[np.float32]:
    return np.asarray(values, dtype=np.float32)


@pytest.fixture
def memory_backend() -> Iterator[QdrantBackend]:
    backend = _open(MEMORY, team=uuid.uuid4())
    try:
        yield backend
    finally:
        backend.close()


# -- settings and the missing extra -------------------------------------------------------


def test_settings_naming_no_place_say_none_was_given() -> None:
    with pytest.raises(ValueError, match=r"\(got none\)"):
        QdrantSettings()


def test_an_api_key_without_a_url_is_refused_with_its_reason() -> None:
    with pytest.raises(ValueError) as caught:
        QdrantSettings(location=":memory:", api_key="k")
    assert str(caught.value).startswith("api_key is only sent to a server")


def test_without_the_qdrant_package_opening_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "qdrant_client", None)
    with pytest.raises(ImportError) as caught:
        _open(QdrantSettings(path=str(tmp_path / "never")))
    assert QDRANT_INSTALL_HINT in str(caught.value)
    assert not (tmp_path / "never").exists()


# -- the shared client and its lock -------------------------------------------------------


def _blocks_another_thread(lease: Any) -> bool:
    """Whether holding ``lease.guard()`` here keeps another thread out of it."""
    entered = threading.Event()

    def other() -> None:
        with lease.guard():
            entered.set()

    with lease.guard():
        thread = threading.Thread(target=other, daemon=True)
        thread.start()
        blocked = not entered.wait(0.3)
    thread.join(5)
    assert entered.is_set()
    return blocked


def test_the_embedded_engine_is_used_by_one_thread_at_a_time() -> None:
    lease = qdrant._acquire(MEMORY)
    try:
        assert qdrant._acquire(MEMORY) is lease  # one shared client per place
        qdrant._release(MEMORY, lease)
        assert _blocks_another_thread(lease)
    finally:
        qdrant._release(MEMORY, lease)


def test_a_server_client_is_not_serialised_by_this_process() -> None:
    settings = QdrantSettings(url="http://127.0.0.1:9")  # built lazily: nothing is sent
    lease = qdrant._acquire(settings)
    try:
        assert not _blocks_another_thread(lease)
    finally:
        qdrant._release(settings, lease)


def test_an_in_memory_engine_leaves_no_folder_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    backend = _open(MEMORY)
    backend.close()
    assert list(tmp_path.iterdir()) == []


def test_close_twice_keeps_the_client_of_the_other_holders(tmp_path: Path) -> None:
    settings = QdrantSettings(path=str(tmp_path / "q"))
    first, second = _open(settings, "first"), _open(settings, "second")
    first.close()
    first.close()
    second.put([VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0, 0.0])])
    assert second.counts() == (1, 1)
    second.close()


# -- the collection's shape --------------------------------------------------------------


def test_a_qdrant_collection_without_the_named_vector_is_refused(tmp_path: Path) -> None:
    place = tmp_path / "q"
    direct = QdrantClient(path=str(place))
    try:  # made by someone else, with Qdrant's unnamed default vector
        direct.create_collection(
            "akgentic_notes",
            vectors_config=models.VectorParams(size=3, distance=models.Distance.COSINE),
        )
    finally:
        direct.close()
    with pytest.raises(ValueError) as caught:
        _open(QdrantSettings(path=str(place)))
    message = str(caught.value)
    assert "collection 'notes'" in message
    assert "holds no 'dense' vector" in message
    assert "dimension 3" in message


def test_a_vector_of_the_wrong_length_is_refused_naming_document_and_collection(
    memory_backend: QdrantBackend,
) -> None:
    with pytest.raises(ValueError) as caught:
        memory_backend.put([VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0])])
    message = str(caught.value)
    assert "document 'a': vector has 2 values" in message
    assert "collection 'notes' expects 3" in message
    assert memory_backend.counts() == (0, 0)


# -- ids, ranking, paging -----------------------------------------------------------------


def test_a_point_id_is_the_uuid5_of_its_ref_and_of_the_tenant_with_it(tmp_path: Path) -> None:
    settings = QdrantSettings(path=str(tmp_path / "q"))
    team = uuid.uuid4()
    plain = _open(settings, team=team)
    shared = _open(settings, "shared", tenant="acme")
    plain.put([VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0, 0.0])])
    shared.put([VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0, 0.0])])
    plain.close()
    shared.close()

    direct = QdrantClient(path=str(tmp_path / "q"))
    try:
        (own,) = direct.scroll(qdrant_name("notes", CollectionConfig(), team))[0]
        (tenant,) = direct.scroll("akgentic_shared")[0]
    finally:
        direct.close()
    # Stable across versions: data written earlier is found again by the same ids.
    assert str(own.id) == str(uuid.uuid5(qdrant._NAMESPACE, "a"))
    assert str(tenant.id) == str(uuid.uuid5(qdrant._NAMESPACE, "acme\x00a"))


def test_keyword_search_keeps_the_best_while_scrolling_many_candidates(
    memory_backend: QdrantBackend,
) -> None:
    docs = [VectorDocument(ref=f"w{i:02d}", text=f"weak match {i}") for i in range(40)]
    docs += [
        VectorDocument(ref="s1", text="strong match alpha beta"),
        VectorDocument(ref="s2", text="alpha beta strong match"),
        VectorDocument(ref="m1", text="alpha only"),
    ]
    memory_backend.put(docs)

    hits = memory_backend.keyword_search("alpha beta", 3, {})
    assert [(hit.ref, hit.score) for hit in hits] == [("s1", 1.0), ("s2", 1.0), ("m1", 0.5)]
    assert [hit.text for hit in hits][:2] == ["strong match alpha beta", "alpha beta strong match"]
    ones = memory_backend.keyword_search("match", 4, {})
    assert [hit.ref for hit in ones] == ["s1", "s2", "w00", "w01"]  # ties: smaller ref first


def test_equal_scores_keep_the_smallest_refs_whatever_the_scroll_order(
    memory_backend: QdrantBackend,
) -> None:
    refs = [f"r{i}" for i in range(12)]
    memory_backend.put([VectorDocument(ref=ref, text="same words") for ref in refs])
    hits = memory_backend.keyword_search("same words", 3, {})
    assert [hit.ref for hit in hits] == sorted(refs)[:3]
    assert memory_backend.waiting_keyword_search("same", 2, {})[0].ref == sorted(refs)[0]


@pytest.mark.timeout(120)
def test_more_points_than_one_scroll_page_are_all_listed(memory_backend: QdrantBackend) -> None:
    count = qdrant._PAGE + 30
    memory_backend.put([VectorDocument(ref=f"d{i}", text=f"waiting {i}") for i in range(count)])
    listed = memory_backend.unembedded()
    assert len(listed) == count
    assert listed["d7"] == "waiting 7"
    assert len(memory_backend.keyword_search("waiting", count + 5, {})) == count


def test_points_written_by_others_without_ref_or_text_read_as_empty(
    memory_backend: QdrantBackend,
) -> None:
    memory_backend.put([VectorDocument(ref="Alpha", text="none of these", vector=[1.0, 0.0, 0.0])])
    foreign = [
        models.PointStruct(
            id=str(uuid.uuid4()),
            vector={"dense": [1.0, 0.0, 0.0]},
            payload={"embedded": True, "metadata": {"k": 1}},
        ),
        models.PointStruct(
            id=str(uuid.uuid4()), vector={}, payload={"ref": "r", "embedded": False}
        ),
        models.PointStruct(
            id=str(uuid.uuid4()),
            vector={"dense": [0.0, 1.0, 0.0]},
            payload={"text": "xxxx none", "embedded": True},
        ),
    ]
    memory_backend._client.upsert(memory_backend.qdrant_name, points=foreign, wait=True)

    assert memory_backend.unembedded() == {"r": ""}
    hits = memory_backend.vector_search(_vec(1, 0, 0), 10, 0.5, {})
    assert sorted((hit.ref, hit.text) for hit in hits) == [("", ""), ("Alpha", "none of these")]
    assert [(h.ref, h.text) for h in memory_backend.keyword_search("xxxx", 5, {})] == [
        ("", "xxxx none")
    ]
    assert [h.ref for h in memory_backend.keyword_search("none", 5, {})] == ["", "Alpha"]


# -- vector search at the lowest threshold ------------------------------------------------


def test_the_lowest_threshold_admits_the_exactly_opposite_vector(
    memory_backend: QdrantBackend,
) -> None:
    memory_backend.put(
        [
            VectorDocument(ref="same", text="a", vector=[0.3, 0.1, 0.7]),
            VectorDocument(ref="opposite", text="b", vector=[-0.3, -0.1, -0.7]),
        ]
    )
    hits = memory_backend.vector_search(_vec(0.3, 0.1, 0.7), 10, -1.0, {})
    assert [hit.ref for hit in hits] == ["same", "opposite"]
    assert hits[1].score == pytest.approx(-1.0, abs=1e-5)


# -- the memo that nothing waits ------------------------------------------------------------


def _sneak_waiting_point(backend: QdrantBackend, ref: str) -> None:
    """A waiting point written around the backend (as another tool would)."""
    backend._client.upsert(
        backend.qdrant_name,
        points=[
            models.PointStruct(
                id=str(uuid.uuid4()),
                vector={},
                payload={"ref": ref, "text": "sneaked page", "embedded": False},
            )
        ],
        wait=True,
    )


def test_a_fully_embedded_collection_remembers_that_nothing_waits(
    memory_backend: QdrantBackend,
) -> None:
    memory_backend.put([VectorDocument(ref="a", text="a page", vector=[1.0, 0.0, 0.0])])
    assert memory_backend.waiting_keyword_search("page", 5, {}) == []
    _sneak_waiting_point(memory_backend, "sneaked")
    # Remembered: the embedded engine is this process's alone, so no scroll is repeated.
    assert memory_backend.waiting_keyword_search("page", 5, {}) == []
    memory_backend.put([VectorDocument(ref="b", text="b page")])  # a real put forgets it
    assert sorted(h.ref for h in memory_backend.waiting_keyword_search("page", 5, {})) == [
        "b",
        "sneaked",
    ]


def test_dropping_a_collection_forgets_that_nothing_waited() -> None:
    keeper = _open(MEMORY, "keeper")  # keeps the shared client (and its memo) alive
    backend = _open(MEMORY, "notes")
    try:
        backend.put([VectorDocument(ref="a", text="a page", vector=[1.0, 0.0, 0.0])])
        assert backend.waiting_keyword_search("page", 5, {}) == []
        backend.drop()
        backend.close()
        backend = _open(MEMORY, "notes")
        _sneak_waiting_point(backend, "sneaked")
        assert [h.ref for h in backend.waiting_keyword_search("page", 5, {})] == ["sneaked"]
    finally:
        backend.close()
        keeper.close()


# -- server mode, against a Qdrant REST stand-in ------------------------------------------


class _QdrantStandIn:
    """A real HTTP server on 127.0.0.1 answering the Qdrant REST calls the backend makes,
    kept by an embedded engine, and recording each request (method, path, query, body).

    ``refuse_create``: creating a collection fails. ``create_races``: creating a
    collection fails because someone else created it meanwhile (it exists afterwards).
    """

    def __init__(self) -> None:
        self.engine = QdrantClient(location=":memory:")
        self.requests: list[tuple[str, str, dict[str, list[str]], Any]] = []
        self.refuse_create = False
        self.create_races = False
        self.lock = threading.Lock()
        standin = self

        class Handler(JsonHandler):
            def _answer(self) -> None:
                parts = urlsplit(self.path)
                body = self.read_json()
                with standin.lock:
                    standin.requests.append((self.command, parts.path, parse_qs(parts.query), body))
                    try:
                        status, result = standin.route(self.command, parts.path, body)
                    except Exception as exc:  # the engine's refusal, as a server error
                        status, result = 404, None
                        payload = {"status": {"error": f"stand-in: {exc}"}, "time": 0.0}
                    else:
                        payload = (
                            {"result": result, "status": "ok", "time": 0.0}
                            if status == 200
                            else {"status": {"error": result}, "time": 0.0}
                        )
                self.send_json(status, payload)

            do_GET = do_PUT = do_POST = do_DELETE = _answer

        self.httpd = serve(Handler)
        self.url = url_of(self.httpd)

    def route(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        parts = path.strip("/").split("/")
        name = parts[1]
        tail = "/".join(parts[2:])
        done = {"operation_id": 1, "status": "completed"}
        engine = self.engine
        if (method, tail) == ("GET", "exists"):
            return 200, {"exists": engine.collection_exists(name)}
        if (method, tail) == ("PUT", ""):
            if self.refuse_create:
                return 500, "stand-in refuses creating collections"
            vectors = models.CreateCollection.model_validate(body).vectors
            engine.create_collection(name, vectors_config=vectors)
            if self.create_races:
                return 409, f"Collection `{name}` already exists!"
            return 200, True
        if (method, tail) == ("GET", ""):
            return 200, engine.get_collection(name).model_dump(mode="json", exclude_none=True)
        if (method, tail) == ("DELETE", ""):
            return 200, engine.delete_collection(name)
        if (method, tail) == ("PUT", "index"):
            return 200, done
        flt = models.Filter.model_validate(body["filter"]) if body.get("filter") else None
        if (method, tail) == ("PUT", "points"):
            engine.upsert(name, points=models.PointsList.model_validate(body).points)
            return 200, done
        if (method, tail) == ("POST", "points"):
            records = engine.retrieve(
                name, ids=body["ids"], with_payload=True, with_vectors=bool(body.get("with_vector"))
            )
            return 200, [r.model_dump(mode="json") for r in records]
        if (method, tail) == ("POST", "points/delete"):
            selector: Any = (
                models.FilterSelector(filter=flt)
                if flt is not None
                else models.PointIdsList(points=body["points"])
            )
            engine.delete(name, points_selector=selector)
            return 200, done
        if (method, tail) == ("POST", "points/count"):
            return 200, {"count": engine.count(name, count_filter=flt).count}
        if (method, tail) == ("POST", "points/scroll"):
            records, offset = engine.scroll(
                name,
                scroll_filter=flt,
                limit=body.get("limit") or 10,
                offset=body.get("offset"),
                with_vectors=bool(body.get("with_vector")),
            )
            return 200, {
                "points": [r.model_dump(mode="json") for r in records],
                "next_page_offset": offset,
            }
        if (method, tail) == ("POST", "points/query"):
            response = engine.query_points(
                name,
                query=models.QueryRequest.model_validate(body).query,
                using=body.get("using"),
                limit=body.get("limit") or 10,
                score_threshold=body.get("score_threshold"),
                query_filter=flt,
                with_payload=True,
            )
            return 200, {"points": [p.model_dump(mode="json") for p in response.points]}
        return 404, f"stand-in: no route {method} {path}"

    def calls(self, method: str, suffix: str) -> list[tuple[dict[str, list[str]], Any]]:
        """The query and body of each request of ``method`` whose path ends with ``suffix``."""
        with self.lock:
            return [(q, b) for m, p, q, b in self.requests if m == method and p.endswith(suffix)]


@pytest.fixture
def qdrant_server() -> Iterator[_QdrantStandIn]:
    server = _QdrantStandIn()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        server.engine.close()


def test_server_mode_indexes_the_filtered_payload_fields(qdrant_server: _QdrantStandIn) -> None:
    settings = QdrantSettings(url=qdrant_server.url)
    team = uuid.uuid4()
    plain = _open(settings, team=team)
    shared = _open(settings, "shared", tenant="acme", team=team)
    plain.close()
    shared.close()

    indexes = [body for _, body in qdrant_server.calls("PUT", "/index")]
    assert indexes[:2] == [
        {"field_name": "pairs", "field_schema": "keyword"},
        {"field_name": "embedded", "field_schema": "bool"},
    ]
    assert [(b["field_name"], b["field_schema"]) for b in indexes[2:]] == [
        ("pairs", "keyword"),
        ("embedded", "bool"),
        ("tenant", {"type": "keyword", "is_tenant": True}),
    ]
    paths = [p for m, p, _, _ in qdrant_server.requests if p.endswith("/index")]
    assert (
        paths
        == [f"/collections/akgentic_notes_{team.hex}/index"] * 2
        + ["/collections/akgentic_shared/index"] * 3
    )


def test_server_mode_writes_wait_and_reads_count_exactly_without_vectors(
    qdrant_server: _QdrantStandIn,
) -> None:
    backend = _open(QdrantSettings(url=qdrant_server.url), tenant="acme")
    try:
        backend.put(
            [
                VectorDocument(ref="a", text="alpha page", vector=[1.0, 0.0, 0.0]),
                VectorDocument(ref="b", text="beta page"),
            ]
        )
        backend.set_vectors(["b"], np.asarray([[0.0, 1.0, 0.0]], dtype=np.float32))
        assert backend.counts() == (2, 2)
        assert backend.unembedded() == {}
        assert [h.ref for h in backend.keyword_search("page", 5, {})] == ["a", "b"]
        assert [h.ref for h in backend.vector_search(_vec(1, 0, 0), 1, 0.5, {})] == ["a"]
        assert backend.delete(["a", "nope"]) == ["a"]
        backend.drop()
        assert backend.counts() == (0, 0)
    finally:
        backend.close()

    writes = qdrant_server.calls("PUT", "/points") + qdrant_server.calls("POST", "/points/delete")
    assert len(writes) == 4  # put, set_vectors, delete, drop
    assert all(query.get("wait") == ["true"] for query, _ in writes)
    counts = qdrant_server.calls("POST", "/points/count")
    assert counts
    assert all(body["exact"] is True for _, body in counts)
    reads = qdrant_server.calls("POST", "/points") + qdrant_server.calls("POST", "/points/scroll")
    assert reads
    assert all(not body.get("with_vector") for _, body in reads)
    assert all(body.get("with_payload") is not False for _, body in reads)
    scrolls = qdrant_server.calls("POST", "/points/scroll")
    assert {body["limit"] for _, body in scrolls} == {qdrant._PAGE}
    assert all(body.get("offset") is None for _, body in scrolls)  # one page each, from the start


def test_a_collection_created_meanwhile_by_another_store_is_used(
    qdrant_server: _QdrantStandIn,
) -> None:
    qdrant_server.create_races = True
    backend = _open(QdrantSettings(url=qdrant_server.url), "shared", tenant="acme")
    try:
        backend.put([VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0, 0.0])])
        assert backend.counts() == (1, 1)
    finally:
        backend.close()
    assert len(qdrant_server.calls("PUT", "/index")) == 3


def test_a_collection_that_cannot_be_created_is_an_error(qdrant_server: _QdrantStandIn) -> None:
    qdrant_server.refuse_create = True
    settings = QdrantSettings(url=qdrant_server.url)
    with pytest.raises(Exception, match="stand-in refuses creating collections"):
        _open(settings)
    assert settings.key not in qdrant._LEASES
    assert qdrant_server.calls("PUT", "/index") == []
