"""The in-memory backend: documents in a dictionary, vectors in a :class:`VectorIndex`.

Two persistence modes (``CollectionConfig.persistence``):

* ``actor_state``: :meth:`InMemoryBackend.record` puts the documents and the vector
  matrix (as float32 bytes) in the store actor's state, which akgentic-core snapshots
  and hands back when the team resumes (:meth:`InMemoryBackend.from_record`).
* ``workspace``: :meth:`InMemoryBackend.flush` writes the collection to
  ``<directory>/<collection>.vectors.npz`` through a temporary file and an atomic
  rename, so a crash leaves either the old file or the new one, never half of one;
  :meth:`InMemoryBackend.load` reads it back. The actor state then keeps only the
  configuration.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from akgentic.tool.core.vector_store import (
    CollectionConfig,
    MetadataValue,
    VectorDocument,
    VectorHit,
)
from akgentic.tool.vector_store.backend import (
    CollectionBackend,
    CollectionRecord,
    KeywordMatcher,
    metadata_matches,
)
from akgentic.tool.vector_store.vector import VectorEntry, VectorIndex

__all__ = ["FILE_SUFFIX", "InMemoryBackend"]

FILE_SUFFIX = ".vectors.npz"
"""Suffix of a collection's file under ``persistence="workspace"``."""

_FORMAT_VERSION = 1


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
    """

    def __init__(self, name: str, config: CollectionConfig, directory: Path | None = None) -> None:
        super().__init__(name, config)
        if config.persistence == "workspace" and directory is None:
            raise ValueError(f"collection {name!r}: persistence='workspace' needs a directory")
        self.directory = directory
        self._docs: dict[str, _Document] = {}
        self._index = VectorIndex(config.dimension)

    @property
    def path(self) -> Path | None:
        """The collection's file (``workspace`` persistence), else ``None``."""
        if self.directory is None:
            return None
        return self.directory / f"{self.name}{FILE_SUFFIX}"

    # -- writes -------------------------------------------------------------------------

    def put(self, documents: Sequence[VectorDocument]) -> None:
        with_vector: list[VectorDocument] = []
        stale: list[str] = []
        for doc in documents:
            self._docs[doc.ref] = _Document(doc.text, dict(doc.metadata))
            if doc.vector is None:
                stale.append(doc.ref)
            else:
                with_vector.append(doc)
        if stale:
            self._index.remove(stale)
        if with_vector:
            self._index.add(
                [doc.ref for doc in with_vector],
                np.asarray([doc.vector for doc in with_vector], dtype=np.float32),
            )

    def set_vectors(self, refs: Sequence[str], vectors: npt.NDArray[np.float32]) -> None:
        keep = [position for position, ref in enumerate(refs) if ref in self._docs]
        if not keep:
            return
        self._index.add([refs[position] for position in keep], vectors[keep])

    def delete(self, refs: Iterable[str]) -> list[str]:
        gone = [ref for ref in dict.fromkeys(refs) if self._docs.pop(ref, None) is not None]
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
        matcher = KeywordMatcher(text)
        scored: list[tuple[float, str]] = []
        for ref, doc in self._docs.items():
            if where and not metadata_matches(doc.metadata, where):
                continue
            score = matcher.score(doc.folded)
            if score > 0.0:
                scored.append((score, ref))
        scored.sort(key=lambda item: -item[0])  # stable: ties keep insertion order
        return [self._hit(ref, score, "keyword") for score, ref in scored[:top_k]]

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
        cls, name: str, record: CollectionRecord, directory: Path | None = None
    ) -> InMemoryBackend:
        """Rebuild a collection from the actor state (or from its file in workspace mode)."""
        backend = cls(name, record.config, directory)
        if record.config.persistence == "workspace":
            backend.load()
            return backend
        if not (len(record.refs) == len(record.texts) == len(record.metadata)):
            raise ValueError(f"collection {name!r}: inconsistent record (refs/texts/metadata)")
        backend._restore(
            record.refs, record.texts, record.metadata, record.vector_refs, record.vectors
        )
        return backend

    def flush(self) -> None:
        """Write the collection file atomically (``workspace`` persistence only)."""
        path = self.path
        if self.config.persistence != "workspace" or path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
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
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed below, then renamed
            dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
        )
        try:
            with handle:
                np.savez(handle, allow_pickle=False, **arrays)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(handle.name, path)
        except BaseException:
            Path(handle.name).unlink(missing_ok=True)
            raise

    def load(self) -> None:
        """Replace the contents with the collection file, if there is one."""
        path = self.path
        if path is None or not path.exists():
            return
        with np.load(path, allow_pickle=False) as data:
            if int(data["format"][0]) != _FORMAT_VERSION:
                raise ValueError(f"{path}: unsupported vector file format {data['format'][0]}")
            if int(data["dimension"][0]) != self.config.dimension:
                raise ValueError(
                    f"{path}: holds vectors of dimension {int(data['dimension'][0])}, "
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
        path = self.path
        if self.config.persistence == "workspace" and path is not None:
            path.unlink(missing_ok=True)

    def _restore(
        self,
        refs: Sequence[str],
        texts: Sequence[str],
        metadata: Sequence[dict[str, MetadataValue]],
        vector_refs: Sequence[str],
        vectors: bytes | npt.NDArray[np.float32],
    ) -> None:
        self._docs = {
            ref: _Document(text, dict(meta))
            for ref, text, meta in zip(refs, texts, metadata, strict=True)
        }
        matrix = np.frombuffer(vectors, dtype=np.float32) if isinstance(vectors, bytes) else vectors
        matrix = np.asarray(matrix, dtype=np.float32).reshape(-1, self.config.dimension)
        if matrix.shape[0] != len(vector_refs):
            raise ValueError(
                f"collection {self.name!r}: {len(vector_refs)} vector refs for "
                f"{matrix.shape[0]} stored vectors"
            )
        self._index = VectorIndex(self.config.dimension)
        if len(vector_refs):
            self._index.add(list(vector_refs), matrix)
