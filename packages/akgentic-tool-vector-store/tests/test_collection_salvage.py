"""Opening a collection whose stored record or file cannot be trusted: documents are kept
when only the vectors are damaged, an inconsistent record is set aside under a timestamped
key, the store is told to write the collection again, and what went wrong is logged."""

from __future__ import annotations

import datetime
import logging
import re
import uuid
from pathlib import Path

import pytest

from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument, VectorStoreConfig
from akgentic.tool.vector_store._opening import CollectionOpener, Opened
from akgentic.tool.vector_store.backend import CollectionRecord, CorruptCollectionError
from akgentic.tool.vector_store.inmemory import FILE_SUFFIX, InMemoryBackend

CONFIG = CollectionConfig(dimension=3)


def opener() -> CollectionOpener:
    config = VectorStoreConfig(name="#VectorStore", role="ToolActor")
    return CollectionOpener("my-store", uuid.uuid4(), config)


def good_record() -> CollectionRecord:
    backend = InMemoryBackend("notes", CONFIG)
    backend.put(
        [
            VectorDocument(ref="a", text="alpha database", vector=[1.0, 0.0, 0.0]),
            VectorDocument(ref="b", text="beta login page", vector=[0.0, 1.0, 0.0]),
        ]
    )
    return backend.record()


def corruption_of(record: CollectionRecord) -> str:
    """The error the backend raises for ``record`` (what the opener reports)."""
    with pytest.raises(CorruptCollectionError) as caught:
        InMemoryBackend.from_record("notes", record)
    return str(caught.value)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_damaged_vectors_keep_the_documents_and_ask_for_a_rewrite(
    caplog: pytest.LogCaptureFixture,
) -> None:
    record = good_record()
    damaged = record.model_copy(update={"vectors": record.vectors[:-3]})
    error = corruption_of(damaged)

    with caplog.at_level(logging.WARNING):
        opened = opener().open("notes", damaged, fresh=False)

    assert isinstance(opened, Opened)
    assert opened.rewrite is True
    assert opened.set_aside is None
    assert opened.unsafe_path is False
    assert opened.backend.counts() == (2, 0)  # kept, to be embedded again
    assert opened.backend.unembedded() == {"a": "alpha database", "b": "beta login page"}
    assert warnings_of(caplog) == [
        f"my-store: {error}; its 2 document(s) are kept and embedded again"
    ]


def test_an_inconsistent_record_is_set_aside_under_a_timestamped_key(
    caplog: pytest.LogCaptureFixture,
) -> None:
    record = good_record()
    broken = record.model_copy(update={"texts": ["only one text"]})
    error = corruption_of(broken)
    before = datetime.datetime.now().replace(microsecond=0)

    with caplog.at_level(logging.WARNING):
        opened = opener().open("notes", broken, fresh=False)

    after = datetime.datetime.now()
    assert opened.rewrite is True
    assert opened.unsafe_path is False
    assert opened.set_aside is not None
    key, kept = opened.set_aside
    assert kept == broken  # the only copy of the data, kept whole
    found = re.fullmatch(r"notes\.corrupt-(\w+)-[0-9a-f]{4}", key)
    assert found is not None
    stamp = datetime.datetime.strptime(found.group(1), "%Y%m%dT%H%M%S")
    assert before <= stamp <= after
    assert opened.backend.counts() == (0, 0)  # the collection starts empty
    assert opened.backend.config == CONFIG
    assert warnings_of(caplog) == [
        f"my-store: {error}; the record is kept aside as {key!r} and the collection starts empty"
    ]


def test_two_inconsistent_records_are_set_aside_under_different_keys() -> None:
    broken = good_record().model_copy(update={"metadata": []})
    first = opener().open("notes", broken, fresh=False).set_aside
    second = opener().open("notes", broken, fresh=False).set_aside

    assert first is not None
    assert second is not None
    assert first[0] != second[0]


def test_a_collection_with_an_absolute_workspace_path_lives_in_that_directory(
    tmp_path: Path,
) -> None:
    config = CollectionConfig(dimension=3, persistence="workspace", workspace_path=str(tmp_path))

    assert opener().directory(config).path == tmp_path

    opened = opener().open("notes", CollectionRecord(config=config), fresh=True)
    opened.backend.put([VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0, 0.0])])
    opened.backend.flush()
    assert (tmp_path / f"notes{FILE_SUFFIX}").is_file()


def test_a_directory_planted_at_the_file_name_leaves_the_collection_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = CollectionConfig(dimension=3, persistence="workspace", workspace_path=str(tmp_path))
    (tmp_path / f"notes{FILE_SUFFIX}").mkdir()

    with caplog.at_level(logging.WARNING):
        opened = opener().open("notes", CollectionRecord(config=config), fresh=False)

    assert opened.unsafe_path is True
    assert opened.backend.counts() == (0, 0)
    assert f"{tmp_path / f'notes{FILE_SUFFIX}'} is a directory" in caplog.text
