"""Opening a collection's backend from its record, as the store starts, resumes or creates.

The backend follows the record's configuration (Weaviate, Qdrant, or in memory, with or
without a workspace file). A file that cannot be trusted or read does not stop the store:
a link planted where the store keeps its files leaves the collection empty and in memory
(nothing is read through it), and a record that cannot be read back whole keeps its
documents when only the vectors are damaged, or is set aside under
``<name>.corrupt-<time>`` otherwise. What the store must do about it (remember the unsafe
path, keep the record aside, write the collection again) comes back in :class:`Opened`.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from akgentic.tool.core.vector_store import CollectionConfig, VectorStoreConfig
from akgentic.tool.core.workspace_dir import resolve_workspace_dir, workspaces_root
from akgentic.tool.vector_store._store_dir import StoreDirectory, StorePathError
from akgentic.tool.vector_store.backend import (
    CollectionBackend,
    CollectionRecord,
    CorruptCollectionError,
)
from akgentic.tool.vector_store.inmemory import InMemoryBackend

__all__ = ["WORKSPACE_SUBDIR", "CollectionOpener", "Opened"]

logger = logging.getLogger(__name__)

WORKSPACE_SUBDIR = ".vector_store"
"""Directory, inside the team's workspace, of collections with no ``workspace_path``."""


@dataclass
class Opened:
    """A backend, and what the store must do about how it was opened."""

    backend: CollectionBackend
    unsafe_path: bool = False
    """A link sits where the collection's file lives: the store refuses to write there."""
    rewrite: bool = False
    """The stored record was damaged: write the collection again at the next snapshot."""
    set_aside: tuple[str, CollectionRecord] | None = None
    """An unreadable record, to keep in the state under this key."""


class CollectionOpener:
    """Opens the collections of the store named ``store`` of team ``team_id``."""

    def __init__(self, store: str, team_id: Any, config: VectorStoreConfig) -> None:
        self.store = store
        self.team_id = team_id
        self.config = config

    def open(self, name: str, record: CollectionRecord, *, fresh: bool) -> Opened:
        """The backend of collection ``name`` (``fresh``: just created, nothing to read)."""
        config = record.config
        if config.backend == "weaviate":
            from akgentic.tool.vector_store.weaviate import WeaviateBackend

            return Opened(
                WeaviateBackend.connect(
                    name,
                    record,
                    team_id=self.team_id,
                    url=self.config.weaviate_url,
                    api_key=self.config.weaviate_api_key,
                )
            )
        if config.backend == "qdrant":
            from akgentic.tool.vector_store.qdrant import QdrantBackend, QdrantSettings

            settings = QdrantSettings.for_store(
                self.config,
                lambda: resolve_workspace_dir(str(self.team_id)) / WORKSPACE_SUBDIR / "qdrant",
            )
            return Opened(
                QdrantBackend.connect(name, record, team_id=self.team_id, settings=settings)
            )
        directory = self.directory(config) if config.persistence == "workspace" else None
        if fresh and directory is None:
            return Opened(InMemoryBackend(name, config))
        try:
            return Opened(InMemoryBackend.from_record(name, record, directory))
        except StorePathError as exc:
            # A link planted where the store keeps its files: nothing is read from it.
            # The collection works in memory; flushes keep being refused (with one
            # warning) until the link is gone.
            logger.warning(
                "%s: collection %r is not loaded from its file: %s; it starts empty, in memory",
                self.store,
                name,
                exc,
            )
            return Opened(InMemoryBackend(name, config, directory), unsafe_path=True)
        except CorruptCollectionError as exc:
            return self._salvage(name, record, directory, exc)

    def directory(self, config: CollectionConfig) -> StoreDirectory:
        """Where a ``workspace`` collection's file lives, as a root from configuration and
        the part beneath it that must not be reached through a symlink."""
        if config.workspace_path is None:
            return StoreDirectory(resolve_workspace_dir(str(self.team_id)), WORKSPACE_SUBDIR)
        path = Path(config.workspace_path).expanduser()
        if path.is_absolute():
            return StoreDirectory.at(path)
        return StoreDirectory(workspaces_root(), config.workspace_path)

    def _salvage(
        self,
        name: str,
        record: CollectionRecord,
        directory: StoreDirectory | None,
        error: CorruptCollectionError,
    ) -> Opened:
        """A collection whose stored record cannot be read back whole.

        When only the vectors are damaged, the documents are kept without them (they are
        embedded again). Otherwise the record is kept aside under
        ``<name>.corrupt-<timestamp>`` (never overwritten) and the collection starts empty.
        """
        consistent = len(record.refs) == len(record.texts) == len(record.metadata)
        if consistent:
            logger.warning(
                "%s: %s; its %d document(s) are kept and embedded again",
                self.store,
                error,
                len(record.refs),
            )
            salvaged = record.model_copy(update={"vector_refs": [], "vectors": b""})
            backend = InMemoryBackend.from_record(name, salvaged, directory)
            return Opened(backend, rewrite=True)
        aside = f"{name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:4]}"
        logger.warning(
            "%s: %s; the record is kept aside as %r and the collection starts empty",
            self.store,
            error,
            aside,
        )
        backend = InMemoryBackend(name, record.config, directory)
        return Opened(backend, rewrite=True, set_aside=(aside, record))
