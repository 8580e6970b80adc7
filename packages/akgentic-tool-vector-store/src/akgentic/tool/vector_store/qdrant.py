"""The Qdrant backend: a collection stored in Qdrant (``qdrant`` extra).

One code path for three places, chosen by configuration only (:class:`QdrantSettings`):

* embedded, in memory (``location=":memory:"``): Qdrant's local mode inside this process;
* embedded, on disk (``path=<directory>``): the same, kept in a directory, so a team that
  stops and resumes finds its vectors without embedding anything again;
* client-server (``url=..., api_key=...``): a Qdrant server or cluster.

Mapping of a store collection to Qdrant:

* without a tenant, the Qdrant collection is per team: ``akgentic_<name>_<team id>``;
* with ``CollectionConfig.tenant``, teams naming the same tenant-less collection name
  share ``akgentic_<name>`` and each point carries its ``tenant`` in the payload; every
  read, count and delete is restricted to it, and dropping the collection deletes only
  that tenant's points.

Each document is one point. Its id is a uuid5 of its ``ref`` (and tenant), so writing a
ref again replaces it. The payload holds ``ref``, ``text``, ``metadata``, ``pairs``
(``key=<json value>`` strings, what ``where`` filters match exactly, as the Weaviate
backend does) and ``embedded`` (whether the point has its vector yet). The vector is a
named one (``dense``, cosine distance), which Qdrant lets a point lack: a document waiting
for its embedding is stored without it, found by keyword and listed by :meth:`unembedded`.
Nothing of the documents is kept in this process: the engine is the only copy.

The embedded on-disk mode locks its directory: one client per directory per process.
Clients are therefore shared (one per place, counted), by every collection and every store
actor of the process, and closed when the last collection using them closes.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import os
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from akgentic.tool.core.vector_store import (
    CollectionConfig,
    MetadataValue,
    VectorDocument,
    VectorHit,
    VectorStoreConfig,
)
from akgentic.tool.vector_store.backend import CollectionBackend, CollectionRecord, KeywordMatcher

if TYPE_CHECKING:
    from qdrant_client import QdrantClient
    from qdrant_client.models import Filter, PointStruct, Record

__all__ = ["QDRANT_INSTALL_HINT", "QdrantBackend", "QdrantSettings", "qdrant_name"]

QDRANT_INSTALL_HINT = 'pip install "akgentic-tool-vector-store[qdrant]"'

MEMORY = ":memory:"
_NAMESPACE = uuid.UUID("2b5e7c4a-91d3-4f0e-8c6b-5a1d3e9f7b20")
_VECTOR = "dense"
_PAGE = 512
"""Points fetched per scroll page (keyword search, unembedded listing)."""


def _require_qdrant() -> Any:
    try:
        import qdrant_client
    except ImportError as exc:
        raise ImportError(
            f"the Qdrant backend needs the qdrant extra: {QDRANT_INSTALL_HINT} ({exc})"
        ) from exc
    return qdrant_client


# -- where the engine is ------------------------------------------------------------------


@dataclass(frozen=True)
class QdrantSettings:
    """Where a store's Qdrant collections live: exactly one of ``location`` (only
    ``":memory:"``), ``path`` (embedded, on disk) or ``url`` (a server; ``api_key`` is
    sent with it)."""

    location: str | None = None
    path: str | None = None
    url: str | None = None
    api_key: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        given = [name for name in ("location", "path", "url") if getattr(self, name)]
        if len(given) != 1:
            raise ValueError(
                f"Qdrant needs exactly one of location, path, url (got {given or 'none'})"
            )
        if self.location is not None and self.location != MEMORY:
            raise ValueError(f"location={self.location!r}: only {MEMORY!r}; use url= for a server")
        if self.api_key is not None and self.url is None:
            raise ValueError("api_key is only sent to a server: set url= with it")

    @property
    def embedded(self) -> bool:
        """Whether the engine runs inside this process (memory or path)."""
        return self.url is None

    @property
    def key(self) -> tuple[str, str, str]:
        """What identifies one shared client (a path is resolved, so two spellings of one
        directory share the client and its lock)."""
        if self.path is not None:
            return ("path", str(Path(self.path).expanduser().resolve()), "")
        if self.url is not None:
            return ("url", self.url, self.api_key or "")
        return ("memory", MEMORY, "")

    def client_arguments(self) -> dict[str, Any]:
        """The keyword arguments given to ``QdrantClient``."""
        if self.path is not None:
            return {"path": self.key[1]}
        if self.url is not None:
            # No compatibility check: the client would run it on a thread of its own at
            # construction, reaching the server (and warning) after the caller moved on.
            # Building the client stays free of I/O; the first real call meets the server.
            return {"url": self.url, "api_key": self.api_key, "check_compatibility": False}
        return {"location": MEMORY}

    @classmethod
    def for_store(
        cls, config: VectorStoreConfig, default_path: Callable[[], Path]
    ) -> QdrantSettings:
        """The place a store's configuration (over the ``QDRANT_*`` environment) names.

        ``qdrant_url`` / ``qdrant_path`` / ``qdrant_location`` of the config win, then
        ``QDRANT_URL``, then ``QDRANT_PATH``, then ``default_path()`` (the team's workspace, only
        built when needed).
        The API key is the config's, else ``QDRANT_API_KEY``, and only goes with a url. A
        relative path is resolved against the workspaces root.
        """
        env_key = os.environ.get("QDRANT_API_KEY") or None
        if config.qdrant_location is not None:
            return cls(location=config.qdrant_location)
        if config.qdrant_url is not None:
            return cls(url=config.qdrant_url, api_key=config.qdrant_api_key or env_key)
        path = config.qdrant_path
        if path is None:
            env_url = os.environ.get("QDRANT_URL") or None
            if env_url is not None:
                return cls(url=env_url, api_key=config.qdrant_api_key or env_key)
            path = os.environ.get("QDRANT_PATH") or None
        if path is None:
            return cls(path=str(default_path()))
        return cls(path=str(_rooted(Path(path).expanduser())))


def _rooted(path: Path) -> Path:
    if path.is_absolute():
        return path
    from akgentic.tool.core.workspace_dir import workspaces_root

    return workspaces_root() / path


class _Lease:
    """One shared client, how many collections hold it, and the lock serialising the
    embedded engine (local mode is plain Python, not made for concurrent writers)."""

    def __init__(self, client: QdrantClient, embedded: bool) -> None:
        self.client = client
        self.holders = 0
        self._lock: threading.RLock | None = threading.RLock() if embedded else None
        # Embedded only: the collections (and tenants) known to hold no point waiting for
        # its vector. The engine's folder is locked to this process, so only this process
        # writes to it and the knowledge stays true until one of its own puts (under the
        # lock) adds a waiting point. A server may have other writers: nothing is known.
        self.settled: set[tuple[str, str | None]] = set()

    def guard(self) -> contextlib.AbstractContextManager[Any]:
        return self._lock if self._lock is not None else contextlib.nullcontext()


_LEASES: dict[tuple[str, str, str], _Lease] = {}
_LEASES_LOCK = threading.Lock()


def _acquire(settings: QdrantSettings) -> _Lease:
    """The shared client of ``settings``' place, opened on first use."""
    with _LEASES_LOCK:
        lease = _LEASES.get(settings.key)
        if lease is None:
            qdrant_client = _require_qdrant()
            if settings.path is not None:
                Path(settings.key[1]).mkdir(parents=True, exist_ok=True)
            client = qdrant_client.QdrantClient(**settings.client_arguments())
            lease = _LEASES[settings.key] = _Lease(client, settings.embedded)
        lease.holders += 1
        return lease


def _release(settings: QdrantSettings, lease: _Lease) -> None:
    """Give a client back; the last holder closes it (releasing a path's lock)."""
    with _LEASES_LOCK:
        lease.holders -= 1
        if lease.holders > 0 or _LEASES.get(settings.key) is not lease:
            return
        del _LEASES[settings.key]
    lease.client.close()


# -- names, ids, payloads ---------------------------------------------------------------


def qdrant_name(name: str, config: CollectionConfig, team_id: uuid.UUID | None) -> str:
    """The Qdrant collection of store collection ``name`` (see the module documentation)."""
    if config.tenant or team_id is None:
        return f"akgentic_{name}"
    return f"akgentic_{name}_{team_id.hex}"


def _pairs(metadata: Mapping[str, MetadataValue]) -> list[str]:
    return [f"{key}={json.dumps(value)}" for key, value in sorted(metadata.items())]


class QdrantBackend(CollectionBackend):
    """A store collection kept in Qdrant (see the module documentation).

    Build it with :meth:`connect`, which takes a shared client for ``settings``' place;
    :meth:`close` gives it back.
    """

    def __init__(
        self,
        name: str,
        config: CollectionConfig,
        settings: QdrantSettings,
        team_id: uuid.UUID | None,
    ) -> None:
        super().__init__(name, config)
        self.settings = settings
        self.qdrant_name = qdrant_name(name, config, team_id)
        self._lease = _acquire(settings)
        self._client = self._lease.client
        self._closed = False
        try:
            with self._lease.guard():
                self._ensure_collection()
        except BaseException:
            self.close()
            raise

    @classmethod
    def connect(
        cls,
        name: str,
        record: CollectionRecord,
        *,
        team_id: uuid.UUID | None,
        settings: QdrantSettings,
    ) -> QdrantBackend:
        """Open (or create) the collection of ``record`` at ``settings``' place.

        Raises:
            ImportError: without the ``qdrant`` extra, naming the install command.
            ValueError: when the Qdrant collection exists with another vector size.
        """
        return cls(name, record.config, settings, team_id)

    def _ensure_collection(self) -> None:
        from qdrant_client import models

        if not self._client.collection_exists(self.qdrant_name):
            try:
                self._client.create_collection(
                    self.qdrant_name,
                    vectors_config={
                        _VECTOR: models.VectorParams(
                            size=self.config.dimension, distance=models.Distance.COSINE
                        )
                    },
                )
            except Exception:
                # Another store created it meanwhile (shared tenant collection): fine
                # if it is there now, the check below then validates it.
                if not self._client.collection_exists(self.qdrant_name):
                    raise
            self._index_payload()
        self._check_dimension()

    def _index_payload(self) -> None:
        """Keyword indexes for the filtered fields; a server needs them to filter fast,
        the embedded engine has no payload indexes (it would only warn)."""
        if self.settings.embedded:
            return
        from qdrant_client import models

        keyword = models.PayloadSchemaType.KEYWORD
        self._client.create_payload_index(self.qdrant_name, "pairs", field_schema=keyword)
        self._client.create_payload_index(
            self.qdrant_name, "embedded", field_schema=models.PayloadSchemaType.BOOL
        )
        if self.config.tenant:
            self._client.create_payload_index(
                self.qdrant_name,
                "tenant",
                field_schema=models.KeywordIndexParams(
                    type=models.KeywordIndexType.KEYWORD, is_tenant=True
                ),
            )

    def _check_dimension(self) -> None:
        vectors = self._client.get_collection(self.qdrant_name).config.params.vectors
        params = vectors.get(_VECTOR) if isinstance(vectors, Mapping) else None
        if params is None or params.size != self.config.dimension:
            found = "no 'dense' vector" if params is None else f"vectors of size {params.size}"
            raise ValueError(
                f"collection {self.name!r}: the Qdrant collection {self.qdrant_name!r} holds "
                f"{found}, the collection is configured with dimension "
                f"{self.config.dimension}; drop it or use another name"
            )

    # -- ids and filters ----------------------------------------------------------------

    def _point_id(self, ref: str) -> str:
        seed = f"{self.config.tenant}\x00{ref}" if self.config.tenant else ref
        return str(uuid.uuid5(_NAMESPACE, seed))

    def _filter(
        self, where: Mapping[str, MetadataValue] | None = None, embedded: bool | None = None
    ) -> Filter | None:
        from qdrant_client import models

        must: list[Any] = [
            models.FieldCondition(key="pairs", match=models.MatchValue(value=pair))
            for pair in _pairs(where or {})
        ]
        if self.config.tenant:
            must.append(
                models.FieldCondition(
                    key="tenant", match=models.MatchValue(value=self.config.tenant)
                )
            )
        if embedded is not None:
            must.append(
                models.FieldCondition(key="embedded", match=models.MatchValue(value=embedded))
            )
        return models.Filter(must=must) if must else None

    def _payload(
        self, ref: str, text: str, metadata: Mapping[str, MetadataValue], embedded: bool
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "ref": ref,
            "text": text,
            "metadata": dict(metadata),
            "pairs": _pairs(metadata),
            "embedded": embedded,
        }
        if self.config.tenant:
            payload["tenant"] = self.config.tenant
        return payload

    def _point(self, payload: dict[str, Any], vector: Sequence[float] | None) -> PointStruct:
        from qdrant_client import models

        return models.PointStruct(
            id=self._point_id(str(payload["ref"])),
            vector={} if vector is None else {_VECTOR: [float(x) for x in vector]},
            payload=payload,
        )

    # -- writes -------------------------------------------------------------------------

    def put(self, documents: Sequence[VectorDocument]) -> None:
        for doc in documents:
            if doc.vector is not None and len(doc.vector) != self.config.dimension:
                raise ValueError(
                    f"document {doc.ref!r}: vector has {len(doc.vector)} values, collection "
                    f"{self.name!r} expects {self.config.dimension}"
                )
        points = [
            self._point(
                self._payload(doc.ref, doc.text, doc.metadata, doc.vector is not None), doc.vector
            )
            for doc in documents
        ]
        with self._lease.guard():
            self._upsert(points)
            if any(doc.vector is None for doc in documents):
                self._lease.settled.discard(self._settled_key)

    def set_vectors(self, refs: Sequence[str], vectors: npt.NDArray[np.float32]) -> None:
        rows = {ref: vectors[position] for position, ref in enumerate(refs)}
        points = []
        for record in self._retrieve(rows):
            payload = dict(record.payload or {})
            payload["embedded"] = True
            points.append(self._point(payload, rows[str(payload["ref"])].tolist()))
        self._upsert(points)

    def delete(self, refs: Iterable[str]) -> list[str]:
        from qdrant_client import models

        wanted = list(dict.fromkeys(refs))
        present = {str((record.payload or {})["ref"]) for record in self._retrieve(wanted)}
        gone = [ref for ref in wanted if ref in present]
        if gone:
            with self._lease.guard():
                self._client.delete(
                    self.qdrant_name,
                    points_selector=models.PointIdsList(
                        points=[self._point_id(ref) for ref in gone]
                    ),
                    wait=True,
                )
        return gone

    def _upsert(self, points: list[PointStruct]) -> None:
        if not points:
            return
        with self._lease.guard():
            self._client.upsert(self.qdrant_name, points=points, wait=True)

    def _retrieve(self, refs: Iterable[str]) -> list[Record]:
        """The points of ``refs`` that exist (payload only)."""
        ids = [self._point_id(ref) for ref in refs]
        if not ids:
            return []
        with self._lease.guard():
            return list(
                self._client.retrieve(
                    self.qdrant_name, ids=ids, with_payload=True, with_vectors=False
                )
            )

    # -- reads --------------------------------------------------------------------------

    def vector_search(
        self,
        vector: npt.NDArray[np.float32],
        top_k: int,
        score_threshold: float,
        where: Mapping[str, MetadataValue],
    ) -> list[VectorHit]:
        with self._lease.guard():
            response = self._client.query_points(
                self.qdrant_name,
                query=[float(x) for x in vector],
                using=_VECTOR,
                limit=top_k,
                # -1 admits every vector: no threshold (saves the engine a comparison).
                score_threshold=None if score_threshold <= -1.0 else score_threshold,
                query_filter=self._filter(where),
                with_payload=True,
            )
        return [
            self._hit(point.payload or {}, float(point.score), "vector")
            for point in response.points
        ]

    def keyword_search(
        self, text: str, top_k: int, where: Mapping[str, MetadataValue]
    ) -> list[VectorHit]:
        return self._keyword_hits(text, top_k, self._scroll(self._filter(where)))

    def waiting_keyword_search(
        self, text: str, top_k: int, where: Mapping[str, MetadataValue]
    ) -> list[VectorHit]:
        if self.settings.embedded:
            if self._settled_key in self._lease.settled:
                return []
            if not where:  # only an unfiltered scroll can tell that nothing waits
                return self._embedded_waiting_hits(text, top_k)
        waiting = self._scroll(self._filter(where, embedded=False))
        return self._keyword_hits(text, top_k, waiting)

    @property
    def _settled_key(self) -> tuple[str, str | None]:
        return (self.qdrant_name, self.config.tenant)

    def _embedded_waiting_hits(self, text: str, top_k: int) -> list[VectorHit]:
        """The waiting points' keyword hits on an embedded engine, which has no index on
        the ``embedded`` flag: its filtered scroll reads every point. A scroll that finds
        no waiting point at all is remembered until this process stores a document without
        a vector, so the text searches of a fully embedded collection skip it."""
        key = self._settled_key
        seen = False

        def waiting() -> Iterator[dict[str, Any]]:
            nonlocal seen
            for payload in self._scroll(self._filter(embedded=False)):
                seen = True
                yield payload

        # Under the lease's lock throughout, so that no put lands between the scroll that
        # found nothing and the note that nothing waits.
        with self._lease.guard():
            if key in self._lease.settled:
                return []
            hits = self._keyword_hits(text, top_k, waiting())
            if not seen:
                self._lease.settled.add(key)
        return hits

    def _keyword_hits(
        self, text: str, top_k: int, payloads: Iterable[dict[str, Any]]
    ) -> list[VectorHit]:
        # Scored here, page by page, with the protocol's matcher (whole phrase, else the
        # share of its words found as substrings): no Qdrant text filter scores that way,
        # and only the top_k best are kept while scrolling.
        matcher = KeywordMatcher(text)
        # Ties go to the smaller ref (the heap's root is the worst kept: lowest score,
        # then largest ref), so the answer does not depend on Qdrant's scroll order.
        best: list[tuple[float, _Reversed]] = []
        kept: dict[str, dict[str, Any]] = {}
        for payload in payloads:
            score = matcher.score(str(payload.get("text", "")).casefold())
            if score <= 0.0:
                continue
            ref = str(payload.get("ref", ""))
            item = (score, _Reversed(ref))
            if len(best) < top_k:
                heapq.heappush(best, item)
            elif item > best[0]:
                kept.pop(heapq.heapreplace(best, item)[1].value)
            else:
                continue
            kept[ref] = payload
        ranked = sorted(best, reverse=True)
        return [self._hit(kept[entry.value], score, "keyword") for score, entry in ranked]

    def counts(self) -> tuple[int, int]:
        with self._lease.guard():
            total = self._client.count(
                self.qdrant_name, count_filter=self._filter(), exact=True
            ).count
            embedded = self._client.count(
                self.qdrant_name, count_filter=self._filter(embedded=True), exact=True
            ).count
        return int(total), int(embedded)

    def unembedded(self) -> dict[str, str]:
        return {
            str(payload["ref"]): str(payload.get("text", ""))
            for payload in self._scroll(self._filter(embedded=False))
        }

    def _scroll(self, flt: Filter | None) -> Iterator[dict[str, Any]]:
        """The payloads of the points ``flt`` admits, a page at a time."""
        offset: Any = None
        while True:
            with self._lease.guard():
                records, offset = self._client.scroll(
                    self.qdrant_name,
                    scroll_filter=flt,
                    limit=_PAGE,
                    offset=offset,
                    with_payload=True,
                    with_vectors=False,
                )
            for record in records:
                yield dict(record.payload or {})
            if offset is None:
                return

    @staticmethod
    def _hit(payload: Mapping[str, Any], score: float, match: str) -> VectorHit:
        return VectorHit.model_construct(
            ref=str(payload.get("ref", "")),
            score=score,
            text=str(payload.get("text", "")),
            metadata=dict(payload.get("metadata") or {}),
            match=match,
        )

    # -- life cycle ---------------------------------------------------------------------

    def record(self) -> CollectionRecord:
        """Only the configuration: documents, vectors and waiting texts are in Qdrant."""
        return CollectionRecord(config=self.config)

    def drop(self) -> None:
        from qdrant_client import models

        with self._lease.guard():
            if self.config.tenant:
                self._client.delete(
                    self.qdrant_name,
                    points_selector=models.FilterSelector(filter=self._filter() or models.Filter()),
                    wait=True,
                )
            else:
                self._client.delete_collection(self.qdrant_name)
            self._lease.settled.discard(self._settled_key)

    def close(self) -> None:
        """Give the shared client back (closed with its last holder). Idempotent."""
        if self._closed:
            return
        self._closed = True
        _release(self.settings, self._lease)


class _Reversed:
    """A string that orders backwards (keeps the heap's worst entry the largest ref)."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __lt__(self, other: _Reversed) -> bool:
        return self.value > other.value

    def __gt__(self, other: _Reversed) -> bool:
        return self.value < other.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reversed) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)
