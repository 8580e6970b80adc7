"""The in-memory backend: documents in a dictionary, vectors in a :class:`VectorIndex`.

Two persistence modes (``CollectionConfig.persistence``):

* ``actor_state``: :meth:`InMemoryBackend.record` puts the documents and the vector
  matrix (as float32 bytes) in the store actor's state, which akgentic-core snapshots
  and hands back when the team resumes (:meth:`InMemoryBackend.from_record`).
* ``workspace``: :meth:`InMemoryBackend.flush` writes the collection to
  ``<directory>/<collection>.vectors.npz`` through a temporary file and an atomic
  rename, so a crash leaves either the old file or the new one, never half of one;
  :meth:`InMemoryBackend.load` reads it back. The actor state then keeps only the
  configuration. Every file access goes through a :class:`StoreDirectory` (by
  descriptor, never through a symlink). A file that cannot be read back is renamed
  ``<file>.corrupt-<timestamp>`` and the collection starts empty, so the next flush
  does not overwrite the only copy of the bad data.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt
from pydantic import ValidationError

from akgentic.tool.core.vector_store import (
    CollectionConfig,
    MetadataValue,
    UnknownCollectionError,
    VectorDocument,
    VectorHit,
)
from akgentic.tool.core.word_index import WordIndex
from akgentic.tool.vector_store._entry_shapes import documents_from_entries, search_hits
from akgentic.tool.vector_store._store_dir import StoreDirectory
from akgentic.tool.vector_store.backend import (
    CollectionBackend,
    CollectionRecord,
    CorruptCollectionError,
    KeywordMatcher,
    metadata_matches,
    stored_entries,
)
from akgentic.tool.vector_store.protocol import SearchHit
from akgentic.tool.vector_store.vector import VectorEntry, VectorIndex

__all__ = ["FILE_SUFFIX", "InMemoryBackend"]

FloatMatrix = npt.NDArray[np.float32]

FILE_SUFFIX = ".vectors.npz"
"""Suffix of a collection's file under ``persistence="workspace"``."""

_FORMAT_VERSION = 1

logger = logging.getLogger(__name__)


class _Document:
    """Text and metadata of one document, with the case-folded text for keyword search."""

    __slots__ = ("folded", "metadata", "text")

    def __init__(self, text: str, metadata: dict[str, MetadataValue]) -> None:
        self.text = text
        self.metadata = metadata
        self.folded = text.casefold()


class InMemoryBackend(CollectionBackend):
    """A collection held in this process, optionally mirrored to a file.

    Args:
        name: Collection name.
        config: Its configuration (``backend="inmemory"``).
        directory: Where the file lives when ``config.persistence == "workspace"``.

    **The predecessor's form.** ``InMemoryBackend()``, without a name and a config, is a
    set of named collections used through the predecessor's methods:
    :meth:`create_collection`, :meth:`add`, :meth:`remove`, :meth:`search`,
    :meth:`get_state` / :meth:`restore_state` and :meth:`save_collection` /
    :meth:`load_collection`. Each collection of the set is an ``InMemoryBackend`` of its
    own (see :meth:`collection`). A backend built with a name is the first collection
    of its own set, so those methods reach it by its name too. The set form has no
    collection of its own: its ``name`` is ``""`` and the collection methods
    (``put``, ``vector_search``, ...) act on an empty, unnamed collection nobody uses.
    """

    def __init__(
        self,
        name: str | None = None,
        config: CollectionConfig | None = None,
        directory: Path | StoreDirectory | None = None,
    ) -> None:
        if (name is None) != (config is None):
            raise TypeError("give both a name and a config, or neither (a set of collections)")
        config = config if config is not None else CollectionConfig()
        super().__init__(name or "", config)
        if config.persistence == "workspace" and directory is None and name is not None:
            raise ValueError(f"collection {name!r}: persistence='workspace' needs a directory")
        self.store_dir: StoreDirectory | None = (
            StoreDirectory.at(directory) if isinstance(directory, Path) else directory
        )
        self._docs: dict[str, _Document] = {}
        self._index = VectorIndex(config.dimension)
        # Built by the first keyword search, then kept up to date by put/delete (a
        # collection nobody keyword-searches never pays for it); reset on restore.
        self._words: WordIndex[str] | None = None
        self._collections: dict[str, InMemoryBackend] = {} if name is None else {name: self}

    @property
    def directory(self) -> Path | None:
        """The directory of the collection's file (``workspace`` persistence), else ``None``."""
        return None if self.store_dir is None else self.store_dir.path

    @property
    def file_name(self) -> str:
        """The name of the collection's file in its directory."""
        return f"{self.name}{FILE_SUFFIX}"

    @property
    def path(self) -> Path | None:
        """The collection's file (``workspace`` persistence), else ``None``."""
        if self.store_dir is None:
            return None
        return self.store_dir.path / self.file_name

    # -- writes -------------------------------------------------------------------------

    def put(self, documents: Sequence[VectorDocument]) -> None:
        with_vector = [doc for doc in documents if doc.vector is not None]
        # Vectors are checked (float32, finite, with a finite norm) before anything
        # changes: a refused vector must not leave the document's new text behind.
        matrix = _checked_matrix(with_vector, self.config.dimension)
        stale: list[str] = []
        words = self._words
        for doc in documents:
            stored = _Document(doc.text, dict(doc.metadata))
            if words is not None:
                old = self._docs.get(doc.ref)
                words.put(doc.ref, stored.folded, None if old is None else old.folded)
            self._docs[doc.ref] = stored
            if doc.vector is None:
                stale.append(doc.ref)
        if stale:
            self._index.remove(stale)
        if with_vector:
            self._index.add([doc.ref for doc in with_vector], matrix)

    def set_vectors(self, refs: Sequence[str], vectors: npt.NDArray[np.float32]) -> None:
        keep = [position for position, ref in enumerate(refs) if ref in self._docs]
        if not keep:
            return
        self._index.add([refs[position] for position in keep], vectors[keep])

    def delete(self, refs: Iterable[str]) -> list[str]:
        gone: list[str] = []
        for ref in dict.fromkeys(refs):
            doc = self._docs.pop(ref, None)
            if doc is not None:
                gone.append(ref)
                if self._words is not None:
                    self._words.remove(ref, doc.folded)
        self._index.remove(gone)
        return gone

    # -- reads --------------------------------------------------------------------------

    def vector_search(
        self,
        vector: npt.NDArray[np.float32],
        top_k: int,
        score_threshold: float,
        where: Mapping[str, MetadataValue],
    ) -> list[VectorHit]:
        allowed = None
        if where:
            allowed = [
                ref for ref, doc in self._docs.items() if metadata_matches(doc.metadata, where)
            ]
        found = self._index.search(vector, top_k, score_threshold, allowed)
        return [self._hit(ref, score, "vector") for ref, score in found]

    def keyword_search(
        self, text: str, top_k: int, where: Mapping[str, MetadataValue]
    ) -> list[VectorHit]:
        return self._keyword_hits(text, top_k, where, waiting_only=False)

    def waiting_keyword_search(
        self, text: str, top_k: int, where: Mapping[str, MetadataValue]
    ) -> list[VectorHit]:
        if len(self._index) == len(self._docs):  # the usual case: nothing waits
            return []
        return self._keyword_hits(text, top_k, where, waiting_only=True)

    def _keyword_hits(
        self, text: str, top_k: int, where: Mapping[str, MetadataValue], *, waiting_only: bool
    ) -> list[VectorHit]:
        matcher = KeywordMatcher(text)
        docs, index = self._docs, self._index
        return matcher.ranked(
            (
                (ref, docs[ref].text, docs[ref].folded, docs[ref].metadata)
                for ref in self._keyword_candidates(matcher)
                if not (waiting_only and ref in index)
            ),
            top_k,
            where,
        )

    def _keyword_candidates(self, matcher: KeywordMatcher) -> Iterable[str]:
        """The refs that may score above zero, in the collection's order: those holding
        at least one of the query's words (a text holding the whole phrase holds them
        all). A query without words (punctuation only) is tested on every document."""
        if not matcher.words:
            return list(self._docs)
        words = self._words
        if words is None:
            words = self._words = WordIndex(fold=None)  # texts and words come casefolded
            for ref, doc in self._docs.items():
                words.put(ref, doc.folded)
        found: set[str] = set()
        for word in matcher.words:
            found |= words.holding(word)
        return words.in_order(found)

    def counts(self) -> tuple[int, int]:
        return len(self._docs), len(self._index)

    def unembedded(self) -> dict[str, str]:
        return {ref: doc.text for ref, doc in self._docs.items() if ref not in self._index}

    def entries(self) -> list[VectorEntry]:
        """Every document as a :class:`VectorEntry` (vectors normalised), for inspection."""
        result: list[VectorEntry] = []
        for ref, doc in self._docs.items():
            vector = self._index.get(ref)
            result.append(
                VectorEntry(
                    ref=ref,
                    text=doc.text,
                    metadata=dict(doc.metadata),
                    vector=None if vector is None else vector.tolist(),
                )
            )
        return result

    def _hit(self, ref: str, score: float, match: str) -> VectorHit:
        doc = self._docs[ref]
        return VectorHit.model_construct(
            ref=ref, score=score, text=doc.text, metadata=dict(doc.metadata), match=match
        )

    # -- persistence --------------------------------------------------------------------

    def record(self) -> CollectionRecord:
        if self.config.persistence == "workspace":
            return CollectionRecord(config=self.config)
        refs = list(self._docs)
        return CollectionRecord(
            config=self.config,
            refs=refs,
            texts=[self._docs[ref].text for ref in refs],
            metadata=[self._docs[ref].metadata for ref in refs],
            vector_refs=self._index.refs,
            vectors=self._index.matrix().tobytes(),
        )

    @classmethod
    def from_record(
        cls, name: str, record: CollectionRecord, directory: Path | StoreDirectory | None = None
    ) -> InMemoryBackend:
        """Rebuild a collection from the actor state (or from its file in workspace mode)."""
        backend = cls(name, record.config, directory)
        if record.config.persistence == "workspace":
            backend.load()
            return backend
        if not (len(record.refs) == len(record.texts) == len(record.metadata)):
            raise CorruptCollectionError(
                f"collection {name!r}: inconsistent record (refs/texts/metadata)"
            )
        backend._restore(
            record.refs, record.texts, record.metadata, record.vector_refs, record.vectors
        )
        return backend

    def flush(self) -> None:
        """Write the collection file atomically (``workspace`` persistence only)."""
        if self.config.persistence != "workspace" or self.store_dir is None:
            return
        self._write(self.store_dir, self.file_name)

    def _write(self, directory: StoreDirectory, name: str) -> None:
        """Write the collection to ``name`` in ``directory`` (temp file, fsync, rename)."""
        arrays = self._arrays()

        def write(handle: BinaryIO) -> None:
            np.savez(handle, allow_pickle=False, **arrays)

        directory.write_atomic(name, write)

    def _arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        refs = list(self._docs)
        arrays: dict[str, npt.NDArray[np.generic]] = {
            "format": np.asarray([_FORMAT_VERSION], dtype=np.int64),
            "dimension": np.asarray([self.config.dimension], dtype=np.int64),
            "refs": np.asarray(refs, dtype=np.str_),
            "texts": np.asarray([self._docs[ref].text for ref in refs], dtype=np.str_),
            "metadata": np.asarray(
                [json.dumps(self._docs[ref].metadata) for ref in refs], dtype=np.str_
            ),
            "vector_refs": np.asarray(self._index.refs, dtype=np.str_),
            "vectors": self._index.matrix(),
        }
        return arrays

    def load(self) -> None:
        """Replace the contents with the collection file, if there is one.

        Temporary files a killed flush left behind are removed first. A file that cannot
        be read back is renamed ``<file>.corrupt-<timestamp>`` (with a warning) and the
        collection starts empty; a file of another format version or dimension is left
        untouched and raises ``ValueError``.

        Raises:
            StorePathError: when the directory or the file is a symlink.
        """
        if self.store_dir is None:
            return
        name = self.file_name
        stale = self.store_dir.clean_stale_temps(name)
        if stale:
            logger.info("collection %r: removed %d stale temporary file(s)", self.name, len(stale))
        try:
            self._read(self.store_dir, name)
        except CorruptCollectionError as exc:
            aside = self.store_dir.set_aside(name)
            logger.warning(
                "collection %r: %s; the file is kept as %s and the collection starts empty",
                self.name,
                exc,
                aside,
            )
            self._restore([], [], [], [], b"")

    def _read(self, directory: StoreDirectory, name: str) -> None:
        """Replace the contents with the collection file ``name`` in ``directory``."""
        shown = directory.path / name

        def read(handle: BinaryIO) -> None:
            try:
                with np.load(handle, allow_pickle=False) as data:
                    self._load_arrays(shown, data)
            except (CorruptCollectionError, _VersionOrDimensionError):
                raise
            except Exception as exc:  # zip, npy header, JSON, missing array, short read
                raise CorruptCollectionError(
                    f"{shown}: unreadable vector file ({type(exc).__name__}: {exc})"
                ) from exc

        try:
            directory.read(name, read)
        except _VersionOrDimensionError as exc:
            raise ValueError(str(exc)) from None

    def _load_arrays(self, shown: Path, data: Any) -> None:
        if int(data["format"][0]) != _FORMAT_VERSION:
            raise _VersionOrDimensionError(
                f"{shown}: unsupported vector file format {data['format'][0]}"
            )
        if int(data["dimension"][0]) != self.config.dimension:
            raise _VersionOrDimensionError(
                f"{shown}: holds vectors of dimension {int(data['dimension'][0])}, "
                f"collection {self.name!r} is configured with {self.config.dimension}"
            )
        metadata = [json.loads(item) for item in data["metadata"].tolist()]
        self._restore(
            data["refs"].tolist(),
            data["texts"].tolist(),
            metadata,
            data["vector_refs"].tolist(),
            data["vectors"],
        )

    def drop(self) -> None:
        if self.config.persistence == "workspace" and self.store_dir is not None:
            self.store_dir.remove(self.file_name)

    def _restore(
        self,
        refs: Sequence[str],
        texts: Sequence[str],
        metadata: Sequence[dict[str, MetadataValue]],
        vector_refs: Sequence[str],
        vectors: bytes | npt.NDArray[np.float32],
    ) -> None:
        self._words = None  # rebuilt from the restored documents by the next search
        self._docs = {
            ref: _Document(text, dict(meta))
            for ref, text, meta in zip(refs, texts, metadata, strict=True)
        }
        row_bytes = 4 * self.config.dimension
        if isinstance(vectors, bytes) and len(vectors) != row_bytes * len(vector_refs):
            raise CorruptCollectionError(
                f"collection {self.name!r}: {len(vectors)} bytes of vectors for "
                f"{len(vector_refs)} vector refs of dimension {self.config.dimension} "
                f"(expected {row_bytes * len(vector_refs)})"
            )
        matrix = np.frombuffer(vectors, dtype=np.float32) if isinstance(vectors, bytes) else vectors
        try:
            matrix = np.asarray(matrix, dtype=np.float32).reshape(-1, self.config.dimension)
        except ValueError as exc:
            raise CorruptCollectionError(f"collection {self.name!r}: {exc}") from None
        if matrix.shape[0] != len(vector_refs):
            raise CorruptCollectionError(
                f"collection {self.name!r}: {len(vector_refs)} vector refs for "
                f"{matrix.shape[0]} stored vectors"
            )
        self._index = VectorIndex(self.config.dimension)
        if len(vector_refs):
            self._index.add(list(vector_refs), matrix)

    # -- the predecessor's interface: a set of named collections ---------------------------

    def collection(self, name: str) -> InMemoryBackend:
        """The collection ``name`` of this set.

        Raises:
            UnknownCollectionError: when there is no such collection.
        """
        found = self._collections.get(name)
        if found is None:
            raise UnknownCollectionError(
                f"no collection {name!r}; create_collection() it first "
                f"(existing: {sorted(self._collections)})"
            )
        return found

    @property
    def collections(self) -> dict[str, InMemoryBackend]:
        """The collections of this set, by name (a copy of the mapping)."""
        return dict(self._collections)

    def create_collection(self, name: str, config: CollectionConfig) -> None:
        """Create collection ``name`` in this set (idempotent with the same config).

        Raises:
            ValueError: when it exists with another configuration.
        """
        existing = self._collections.get(name)
        if existing is not None:
            if existing.config != config:
                raise ValueError(
                    f"collection {name!r} already exists with another configuration; "
                    "remove it first to change it"
                )
            return
        self._collections[name] = InMemoryBackend(name, config, self._directory_for(config))

    def add(self, collection: str, entries: Sequence[VectorEntry | Mapping[str, Any]]) -> int:
        """Insert or replace ``entries`` (``VectorEntry`` objects or their dicts, with
        ``ref_id``/``ref_type`` as the predecessor named them); returns how many.

        Entries with a ``vector`` are searchable by vector at once; entries without one
        are kept for keyword search and reported by :meth:`unembedded`.

        Raises:
            UnknownCollectionError: when the collection does not exist.
            ValueError: when a vector's length is not the collection's dimension (nothing
                is stored then).
        """
        target = self.collection(collection)
        documents = documents_from_entries(collection, target.config.dimension, entries)
        target.put(documents)
        return len(documents)

    def remove(self, collection: str, ref_ids: Iterable[str]) -> int:
        """Remove documents by ``ref_id``; returns how many existed."""
        return len(self.collection(collection).delete(ref_ids))

    def search(
        self, collection: str, query_vector: Sequence[float], top_k: int = 10
    ) -> list[SearchHit]:
        """The ``top_k`` documents nearest to ``query_vector`` by cosine similarity, best
        first, as the predecessor's :class:`SearchHit` (``ref_id``, ``ref_type``, text,
        score). Documents without a vector are not candidates."""
        target = self.collection(collection)
        vector = np.asarray(query_vector, dtype=np.float32)
        hits = target.vector_search(vector, top_k, float("-inf"), {})
        return search_hits(hits)

    def get_state(self) -> dict[str, Any]:
        """Every collection in the predecessor's ``backend_state`` layout:
        ``{name: {"config": {...}, "entries": [VectorEntry dicts]}}``.

        Collections with ``persistence="workspace"`` contribute their configuration only
        (their documents are in their file: see :meth:`save_collection`). Vectors are the
        stored, normalised ones. ``VectorStoreState(backend_state=...)`` and
        :meth:`restore_state` read this layout back.
        """
        state: dict[str, Any] = {}
        for name, target in self._collections.items():
            entries = (
                []
                if target.config.persistence == "workspace"
                else [entry.model_dump(mode="json") for entry in target.entries()]
            )
            state[name] = {"config": target.config.model_dump(mode="json"), "entries": entries}
        return state

    def restore_state(self, state: Mapping[str, Any]) -> None:
        """Load a :meth:`get_state` result (or a stored predecessor ``backend_state``).

        Each collection named in ``state`` gets exactly the entries stored for it: it is
        created from its stored ``"config"`` if missing (or, for a bare list of entries,
        with the dimension of the first stored vector); collections not named in
        ``state`` are left alone. Entries that cannot be read are skipped with a warning.
        """
        names = state["collections"] if isinstance(state.get("collections"), Mapping) else state
        for name in names:
            raw = names[name]
            stored_config = raw.get("config") if isinstance(raw, Mapping) else None
            entries: list[VectorEntry] = []
            for item in stored_entries(name, state):
                try:
                    entries.append(VectorEntry.model_validate(item))
                except ValidationError:
                    logger.warning("collection %r: a stored entry could not be read", name)
            current = self._collections.get(name)
            if stored_config is not None:
                config = CollectionConfig.model_validate(stored_config)
            elif current is not None:
                config = current.config
            else:
                first = next((e.vector for e in entries if e.vector), None)
                config = CollectionConfig(dimension=len(first)) if first else CollectionConfig()
            if current is self and config != self.config:
                raise ValueError(f"collection {name!r} is this backend's own: same config needed")
            if current is None or current.config != config:
                self._collections[name] = InMemoryBackend(name, config, self._directory_for(config))
            target = self._collections[name]
            target.delete(list(target._docs))
            # A vector of another length is dropped: the entry stays, unembedded.
            self.add(
                name,
                [
                    entry
                    if entry.vector is None or len(entry.vector) == config.dimension
                    else entry.model_copy(update={"vector": None})
                    for entry in entries
                ],
            )

    def save_collection(self, name: str, workspace_path: str | Path) -> Path:
        """Write collection ``name`` to ``<workspace_path>/<name>.vectors.npz`` (atomically,
        whatever its ``persistence``) and return the file's path."""
        target = self.collection(name)
        directory = StoreDirectory.at(Path(workspace_path))
        target._write(directory, f"{name}{FILE_SUFFIX}")
        return directory.path / f"{name}{FILE_SUFFIX}"

    def load_collection(
        self, name: str, config: CollectionConfig, workspace_path: str | Path
    ) -> int:
        """(Re)create collection ``name`` with ``config`` and fill it from
        ``<workspace_path>/<name>.vectors.npz`` when that file exists; returns how many
        documents it holds then. A file written with another dimension is a ``ValueError``.
        """
        directory = Path(workspace_path).expanduser()
        if self._collections.get(name) is self:
            if config != self.config:
                raise ValueError(f"collection {name!r} is this backend's own: same config needed")
            target = self
        else:
            target = InMemoryBackend(name, config, directory)
        target._read(StoreDirectory.at(directory), f"{name}{FILE_SUFFIX}")
        self._collections[name] = target
        return len(target._docs)

    def _directory_for(self, config: CollectionConfig) -> Path | None:
        """Directory for a new ``workspace`` collection of this set: the config's
        ``workspace_path`` (or this backend's directory)."""
        if config.persistence != "workspace":
            return None
        if config.workspace_path is not None:
            return Path(config.workspace_path).expanduser()
        if self.directory is None:
            raise ValueError(
                "persistence='workspace' needs a workspace_path in the config "
                "(or a directory given to this backend)"
            )
        return self.directory


class _VersionOrDimensionError(Exception):
    """A readable file written for another format or dimension: left untouched."""


def _checked_matrix(documents: Sequence[VectorDocument], dimension: int) -> FloatMatrix:
    """The documents' vectors as a float32 matrix, refused (``ValueError`` naming the
    first bad ref) when one has another length, a NaN or infinity, or values whose norm
    overflows float32 (they could not be normalised)."""
    if not documents:
        return np.zeros((0, dimension), dtype=np.float32)
    for doc in documents:
        assert doc.vector is not None
        if len(doc.vector) != dimension:
            raise ValueError(
                f"document {doc.ref!r}: vector has {len(doc.vector)} values, expected {dimension}"
            )
    with np.errstate(over="ignore", invalid="ignore"):
        matrix = np.asarray([doc.vector for doc in documents], dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1)
    bad = np.flatnonzero(~np.isfinite(norms))
    if bad.size:
        raise ValueError(
            f"document {documents[int(bad[0])].ref!r}: vector contains NaN or infinity, "
            "or values too large for float32"
        )
    return matrix
