"""The Weaviate backend: a collection stored in a Weaviate server (``weaviate`` extra).

Where the server is, and how to authenticate, is deployment configuration read from the
environment (never from a card). Code that creates a store actor itself may override it
with ``VectorStoreConfig.weaviate_url`` / ``weaviate_api_key`` (the predecessor's
fields), and ``WeaviateBackend(url=..., api_key=...)`` takes them directly:

=========================  =======================  =================================
variable                   default                  meaning
=========================  =======================  =================================
``WEAVIATE_HTTP_HOST``     ``localhost``            REST endpoint host
``WEAVIATE_HTTP_PORT``     ``8080``                 REST endpoint port
``WEAVIATE_HTTP_SECURE``   ``false``                use https
``WEAVIATE_GRPC_HOST``     the HTTP host            gRPC endpoint host
``WEAVIATE_GRPC_PORT``     ``50051``                gRPC endpoint port
``WEAVIATE_GRPC_SECURE``   the HTTP setting         use TLS for gRPC
``WEAVIATE_API_KEY``       (none)                   API key, if the server wants one
``WEAVIATE_TIMEOUT``       ``10``                   seconds for each query / insert
=========================  =======================  =================================

Mapping of a store collection to Weaviate:

* with ``CollectionConfig.tenant`` set, the Weaviate collection ``Akgentic_<name>`` is
  created with multi-tenancy and the documents live in that tenant (created on demand),
  so several teams can share one Weaviate collection and stay apart;
* without a tenant, the collection is per team: ``Akgentic_<name>_<team id>``; a
  collection created through the predecessor's ``WeaviateBackend(url)`` form, which
  knows no team, is ``Akgentic_<name>``.

Each document is one object whose id is derived from its ``ref`` (so writing a ref again
replaces it), with the properties ``ref``, ``text``, ``metadata_json`` (the metadata as
JSON) and ``metadata_pairs`` (``key=<json value>`` strings, which is what ``where``
filters match exactly). Vectors are supplied by the store (no Weaviate vectorizer) and
compared by cosine distance; a hit's score is ``1 - distance``.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt

from akgentic.tool.core.vector_store import (
    CollectionConfig,
    MetadataValue,
    UnknownCollectionError,
    VectorDocument,
    VectorHit,
)
from akgentic.tool.vector_store._entry_shapes import documents_from_entries, search_hits
from akgentic.tool.vector_store.backend import (
    CollectionBackend,
    CollectionRecord,
    KeywordMatcher,
)
from akgentic.tool.vector_store.protocol import SearchHit
from akgentic.tool.vector_store.vector import VectorEntry

if TYPE_CHECKING:
    from weaviate import WeaviateClient

__all__ = ["WEAVIATE_INSTALL_HINT", "WeaviateBackend", "connect_from_env", "weaviate_name"]

WEAVIATE_INSTALL_HINT = 'pip install "akgentic-tool-vector-store[weaviate]"'

_NAMESPACE = uuid.UUID("6f0d8a52-3c1e-4d7b-9a57-1f0b9f3c2e41")
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")
# bm25 returns candidates that the keyword matcher then scores; fetch a few more than
# top_k so a candidate the matcher rejects does not leave the answer short.
_KEYWORD_OVERFETCH = 4


def _require_weaviate() -> Any:
    try:
        import weaviate
    except ImportError as exc:
        raise ImportError(
            f"CollectionConfig(backend='weaviate') needs the weaviate-client package: "
            f"{WEAVIATE_INSTALL_HINT}"
        ) from exc
    return weaviate


def _env_flag(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def _endpoint(url: str | None) -> tuple[str, int, bool, str]:
    """``(http host, http port, https?, where)`` from ``url`` or the environment."""
    if url is None:
        host = os.environ.get("WEAVIATE_HTTP_HOST", "localhost")
        port = int(os.environ.get("WEAVIATE_HTTP_PORT", "8080"))
        return (
            host,
            port,
            _env_flag("WEAVIATE_HTTP_SECURE", False),
            (f"{host}:{port} (WEAVIATE_HTTP_HOST / WEAVIATE_HTTP_PORT)"),
        )
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"Weaviate url {url!r}: expected http[s]://host[:port]")
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    return parts.hostname, port, secure, url


def connect_from_env(url: str | None = None, api_key: str | None = None) -> WeaviateClient:
    """Open a Weaviate client from the ``WEAVIATE_*`` environment variables.

    Args:
        url: When given, the REST endpoint (``http[s]://host[:port]``; port 80/443 by
            default) instead of ``WEAVIATE_HTTP_HOST`` / ``_PORT`` / ``_SECURE``. The gRPC
            endpoint is then the same host (unless ``WEAVIATE_GRPC_HOST``), on
            ``WEAVIATE_GRPC_PORT`` (50051), with TLS when the url is https (unless
            ``WEAVIATE_GRPC_SECURE``).
        api_key: When given, used instead of ``WEAVIATE_API_KEY``.
    """
    weaviate = _require_weaviate()
    from weaviate.classes.init import AdditionalConfig, Auth, Timeout

    http_host, http_port, http_secure, where = _endpoint(url)
    timeout = float(os.environ.get("WEAVIATE_TIMEOUT", "10"))
    api_key = api_key if api_key is not None else os.environ.get("WEAVIATE_API_KEY")
    client: WeaviateClient = weaviate.connect_to_custom(
        http_host=http_host,
        http_port=http_port,
        http_secure=http_secure,
        grpc_host=os.environ.get("WEAVIATE_GRPC_HOST", http_host),
        grpc_port=int(os.environ.get("WEAVIATE_GRPC_PORT", "50051")),
        grpc_secure=_env_flag("WEAVIATE_GRPC_SECURE", http_secure),
        auth_credentials=Auth.api_key(api_key) if api_key else None,
        additional_config=AdditionalConfig(
            timeout=Timeout(init=timeout, query=timeout, insert=timeout)
        ),
        # The client's own start-up checks include a request to pypi.org (a version
        # warning); a store must not reach the internet on its own. Readiness is checked
        # below instead, against the configured server only.
        skip_init_checks=True,
    )
    try:
        ready = client.is_ready()
    except Exception:
        client.close()
        raise
    if not ready:
        client.close()
        raise ConnectionError(f"Weaviate at {where} is not ready")
    return client


def weaviate_name(collection: str, config: CollectionConfig, team_id: uuid.UUID | None) -> str:
    """The Weaviate collection name used for a store collection (see the module doc)."""
    base = "Akgentic_" + _UNSAFE.sub("_", collection)
    return base if config.tenant or team_id is None else f"{base}_{team_id.hex}"


class _NoCollection:
    """Stands in for the collection handle of a backend in the predecessor's form."""

    def __getattr__(self, name: str) -> Any:
        raise TypeError(
            "this WeaviateBackend is a connection (the predecessor's WeaviateBackend(url) "
            "form): create_collection(name, config), then add/search/remove(collection, ...)"
        )


def _object_id(ref: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, ref))


def _pairs(metadata: Mapping[str, MetadataValue]) -> list[str]:
    return [f"{key}={json.dumps(value)}" for key, value in sorted(metadata.items())]


class WeaviateBackend(CollectionBackend):
    """A store collection kept in Weaviate.

    Documents waiting for their embedding are remembered here (and in the actor state),
    because Weaviate only gets them, vector included, once the embedding is there.
    Until then they are stored without a vector, so keyword search finds them.

    Two ways to build one:

    * ``WeaviateBackend(name, config, client, team_id, unembedded=None)``: one collection
      on an open client (what the store uses, through :meth:`connect`);
    * the predecessor's ``WeaviateBackend(url, api_key=None, tenant=None)``: a connection
      to the server at ``url`` (``None``: the ``WEAVIATE_*`` environment) holding named
      collections, used with :meth:`create_collection`, :meth:`add`, :meth:`search`,
      :meth:`remove` and :meth:`close`. ``tenant`` is the tenant of every collection
      whose config names none.
    """

    @overload
    def __init__(
        self,
        name: str,
        config: CollectionConfig,
        client: WeaviateClient,
        team_id: uuid.UUID | None,
        unembedded: Mapping[str, tuple[str, dict[str, MetadataValue]]] | None = None,
    ) -> None: ...

    @overload
    def __init__(
        self, url: str | None = None, api_key: str | None = None, tenant: str | None = None
    ) -> None: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        ours = "config" in kwargs or (len(args) >= 2 and isinstance(args[1], CollectionConfig))
        if ours:
            self._init_collection(*args, **kwargs)
        else:
            self._init_connection(*args, **kwargs)

    def _init_collection(
        self,
        name: str,
        config: CollectionConfig,
        client: WeaviateClient,
        team_id: uuid.UUID | None,
        unembedded: Mapping[str, tuple[str, dict[str, MetadataValue]]] | None = None,
        *,
        owns_client: bool = True,
    ) -> None:
        super().__init__(name, config)
        self._client = client
        self._owns_client = owns_client
        self.tenant = config.tenant
        self._collections: dict[str, WeaviateBackend] = {name: self}
        self.weaviate_name = weaviate_name(name, config, team_id)
        self._unembedded: dict[str, tuple[str, dict[str, MetadataValue]]] = dict(unembedded or {})
        self._ensure_schema()
        handle = client.collections.get(self.weaviate_name)
        self._collection: Any = handle.with_tenant(config.tenant) if config.tenant else handle

    def _init_connection(
        self, url: str | None = None, api_key: str | None = None, tenant: str | None = None
    ) -> None:
        super().__init__("", CollectionConfig(backend="weaviate", tenant=tenant))
        _require_weaviate()
        self._client = connect_from_env(url, api_key)
        self._owns_client = True
        self.tenant = tenant
        self._collections = {}
        self.weaviate_name = ""
        self._unembedded = {}
        self._collection = _NoCollection()

    @classmethod
    def connect(
        cls,
        name: str,
        record: CollectionRecord,
        *,
        team_id: uuid.UUID,
        url: str | None = None,
        api_key: str | None = None,
    ) -> WeaviateBackend:
        """Connect and open (or create) the collection. ``url`` and ``api_key`` override
        the deployment's ``WEAVIATE_*`` settings (see :func:`connect_from_env`).

        Raises:
            ImportError: without the ``weaviate`` extra, naming the install command.
        """
        _require_weaviate()
        client = connect_from_env(url, api_key)
        unembedded = {
            ref: (text, dict(record.unembedded_metadata.get(ref, {})))
            for ref, text in record.unembedded.items()
        }
        try:
            return cls(name, record.config, client, team_id, unembedded)
        except BaseException:
            client.close()
            raise

    # -- the predecessor's interface: named collections on one connection -----------------

    def collection(self, name: str) -> WeaviateBackend:
        """The collection ``name`` opened on this connection.

        Raises:
            UnknownCollectionError: when it was not created (or opened) here.
        """
        found = self._collections.get(name)
        if found is None:
            raise UnknownCollectionError(
                f"no collection {name!r} on this Weaviate connection; create_collection() "
                f"it first (existing: {sorted(self._collections)})"
            )
        return found

    def create_collection(self, name: str, config: CollectionConfig) -> None:
        """Open collection ``name``, creating it in Weaviate (and its tenant) if needed.

        Its Weaviate name is ``Akgentic_<name>`` (no team here). The tenant is the
        config's, else the one given to this backend. Idempotent with the same config.

        Raises:
            ValueError: when it was opened here with another configuration.
        """
        if config.tenant is None and self.tenant is not None:
            config = config.model_copy(update={"tenant": self.tenant})
        existing = self._collections.get(name)
        if existing is not None:
            if existing.config != config:
                raise ValueError(f"collection {name!r} is open with another configuration")
            return
        child = WeaviateBackend.__new__(WeaviateBackend)
        child._init_collection(name, config, self._client, None, owns_client=False)
        self._collections[name] = child

    def add(self, collection: str, entries: Sequence[VectorEntry | Mapping[str, Any]]) -> int:
        """Write ``entries`` (``VectorEntry`` objects or their dicts) to the collection;
        returns how many. Entries without a vector are stored for keyword search and
        listed by :meth:`unembedded`.

        Raises:
            ValueError: when a vector's length is not the collection's dimension (nothing
                is written then).
        """
        target = self.collection(collection)
        documents = documents_from_entries(collection, target.config.dimension, entries)
        target.put(documents)
        return len(documents)

    def remove(self, collection: str, ref_ids: Iterable[str]) -> int:
        """Delete documents by ``ref_id``; returns how many existed."""
        return len(self.collection(collection).delete(ref_ids))

    def search(
        self, collection: str, query_vector: Sequence[float], top_k: int = 10
    ) -> list[SearchHit]:
        """The ``top_k`` nearest documents by cosine similarity, best first, as the
        predecessor's :class:`SearchHit` (``ref_type`` is the ``ref_type`` metadata)."""
        target = self.collection(collection)
        vector = np.asarray(query_vector, dtype=np.float32)
        if vector.shape != (target.config.dimension,):
            raise ValueError(
                f"query vector has {vector.size} values, collection {collection!r} "
                f"expects {target.config.dimension}"
            )
        return search_hits(target.vector_search(vector, top_k, -1.0, {}))

    def _ensure_schema(self) -> None:
        from weaviate.classes.config import Configure, DataType, Property
        from weaviate.classes.tenants import Tenant

        collections = self._client.collections
        if not collections.exists(self.weaviate_name):
            # Vectors come from the store, never from a Weaviate module. Clients from 4.16
            # spell that Configure.Vectors.self_provided(); older ones Vectorizer.none().
            vectors: dict[str, Any] = (
                {"vector_config": Configure.Vectors.self_provided()}
                if hasattr(Configure, "Vectors")
                else {"vectorizer_config": Configure.Vectorizer.none()}
            )
            collections.create(
                self.weaviate_name,
                properties=[
                    Property(name="ref", data_type=DataType.TEXT),
                    Property(name="text", data_type=DataType.TEXT),
                    Property(name="metadata_json", data_type=DataType.TEXT),
                    Property(name="metadata_pairs", data_type=DataType.TEXT_ARRAY),
                ],
                multi_tenancy_config=(
                    Configure.multi_tenancy(enabled=True) if self.config.tenant else None
                ),
                **vectors,
            )
        if self.config.tenant:
            handle = collections.get(self.weaviate_name)
            if self.config.tenant not in handle.tenants.get():
                handle.tenants.create([Tenant(name=self.config.tenant)])

    # -- writes -------------------------------------------------------------------------

    def put(self, documents: Sequence[VectorDocument]) -> None:
        for doc in documents:
            if doc.vector is None:
                self._unembedded[doc.ref] = (doc.text, dict(doc.metadata))
            else:
                self._unembedded.pop(doc.ref, None)
        self._insert([(doc.ref, doc.text, dict(doc.metadata), doc.vector) for doc in documents])

    def set_vectors(self, refs: Sequence[str], vectors: npt.NDArray[np.float32]) -> None:
        rows: list[tuple[str, str, dict[str, MetadataValue], list[float] | None]] = []
        for position, ref in enumerate(refs):
            waiting = self._unembedded.pop(ref, None)
            if waiting is not None:
                rows.append((ref, waiting[0], waiting[1], vectors[position].tolist()))
        self._insert(rows)

    def delete(self, refs: Iterable[str]) -> list[str]:
        from weaviate.classes.query import Filter

        by_id = {_object_id(ref): ref for ref in dict.fromkeys(refs)}
        if not by_id:
            return []
        for ref in by_id.values():
            self._unembedded.pop(ref, None)
        result = self._collection.data.delete_many(
            where=Filter.by_id().contains_any(list(by_id)), verbose=True
        )
        return [
            by_id[str(obj.uuid)]
            for obj in (result.objects or [])
            if obj.successful and str(obj.uuid) in by_id
        ]

    def _insert(
        self, rows: Sequence[tuple[str, str, dict[str, MetadataValue], list[float] | None]]
    ) -> None:
        from weaviate.classes.data import DataObject

        if not rows:
            return
        objects = [
            DataObject(
                uuid=_object_id(ref),
                properties={
                    "ref": ref,
                    "text": text,
                    "metadata_json": json.dumps(metadata),
                    "metadata_pairs": _pairs(metadata),
                },
                vector=vector,
            )
            for ref, text, metadata, vector in rows
        ]
        try:
            result = self._collection.data.insert_many(objects)
        except Exception as exc:  # the client raises when every object failed
            raise RuntimeError(
                f"Weaviate rejected {len(objects)} of {len(objects)} objects in "
                f"{self.weaviate_name}: {exc}"
            ) from exc
        if result.has_errors:
            first = next(iter(result.errors.values()))
            raise RuntimeError(
                f"Weaviate rejected {len(result.errors)} of {len(objects)} objects in "
                f"{self.weaviate_name}: {first.message}"
            )

    # -- reads --------------------------------------------------------------------------

    def vector_search(
        self,
        vector: npt.NDArray[np.float32],
        top_k: int,
        score_threshold: float,
        where: Mapping[str, MetadataValue],
    ) -> list[VectorHit]:
        from weaviate.classes.query import MetadataQuery

        response = self._collection.query.near_vector(
            near_vector=[float(x) for x in vector],
            limit=top_k,
            distance=1.0 - score_threshold,
            filters=self._filter(where),
            return_metadata=MetadataQuery(distance=True),
        )
        hits = []
        for obj in response.objects:
            distance = obj.metadata.distance if obj.metadata.distance is not None else 1.0
            score = 1.0 - float(distance)
            if score >= score_threshold:
                hits.append(self._hit(obj.properties, score, "vector"))
        hits.sort(key=lambda hit: -hit.score)
        return hits

    def keyword_search(
        self, text: str, top_k: int, where: Mapping[str, MetadataValue]
    ) -> list[VectorHit]:
        response = self._collection.query.bm25(
            query=text, limit=top_k * _KEYWORD_OVERFETCH, filters=self._filter(where)
        )
        matcher = KeywordMatcher(text)
        scored: list[VectorHit] = []
        for obj in response.objects:
            score = matcher.score(str(obj.properties.get("text", "")).casefold())
            if score > 0.0:
                scored.append(self._hit(obj.properties, score, "keyword"))
        scored.sort(key=lambda hit: -hit.score)
        return scored[:top_k]

    def waiting_keyword_search(
        self, text: str, top_k: int, where: Mapping[str, MetadataValue]
    ) -> list[VectorHit]:
        return KeywordMatcher(text).ranked(
            (
                (ref, body, body.casefold(), metadata)
                for ref, (body, metadata) in self._unembedded.items()
            ),
            top_k,
            where,
        )

    def counts(self) -> tuple[int, int]:
        total = self._collection.aggregate.over_all(total_count=True).total_count or 0
        return int(total), max(int(total) - len(self._unembedded), 0)

    def unembedded(self) -> dict[str, str]:
        return {ref: text for ref, (text, _) in self._unembedded.items()}

    def record(self) -> CollectionRecord:
        return CollectionRecord(
            config=self.config,
            unembedded={ref: text for ref, (text, _) in self._unembedded.items()},
            unembedded_metadata={ref: meta for ref, (_, meta) in self._unembedded.items()},
        )

    def drop(self) -> None:
        if self.config.tenant:
            self._client.collections.get(self.weaviate_name).tenants.remove([self.config.tenant])
        else:
            self._client.collections.delete(self.weaviate_name)
        self._unembedded.clear()

    def close(self) -> None:
        """Close the client, if this backend opened it (collections created through
        :meth:`create_collection` share their connection's and leave it open)."""
        if self._owns_client:
            self._client.close()

    def _filter(self, where: Mapping[str, MetadataValue]) -> Any:
        from weaviate.classes.query import Filter

        if not where:
            return None
        return Filter.by_property("metadata_pairs").contains_all(_pairs(where))

    @staticmethod
    def _hit(properties: Mapping[str, Any], score: float, match: str) -> VectorHit:
        raw = properties.get("metadata_json") or "{}"
        return VectorHit.model_construct(
            ref=str(properties.get("ref", "")),
            score=score,
            text=str(properties.get("text", "")),
            metadata=json.loads(str(raw)),
            match=match,
        )
