"""The in-memory backend reading back what was stored: a predecessor ``backend_state``
(every layout :func:`stored_entries` accepts), a collection file that is damaged, crafted
or of another format, a record with broken vector bytes, and the predecessor's set-of-
collections calls around them (search, create, load_collection, workspace directories)."""

from __future__ import annotations

import logging
import os
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument
from akgentic.tool.vector_store.backend import (
    CollectionRecord,
    CorruptCollectionError,
    stored_entries,
)
from akgentic.tool.vector_store.inmemory import FILE_SUFFIX, InMemoryBackend
from akgentic.tool.vector_store.vector import VectorEntry

CONFIG = CollectionConfig(dimension=3)


def entry(ref: str, text: str, vector: list[float] | None = None) -> dict[str, Any]:
    """A stored entry as the predecessor's ``backend_state`` holds it."""
    return VectorEntry(ref_id=ref, ref_type="task", text=text, vector=vector).model_dump(
        mode="json"
    )


def state_of(config: CollectionConfig, *entries: dict[str, Any]) -> dict[str, Any]:
    return {"config": config.model_dump(mode="json"), "entries": list(entries)}


def saved_file(directory: Path, name: str = "tasks") -> Path:
    """A real collection file (two documents, one with a vector) written by the backend."""
    source = InMemoryBackend()
    source.create_collection(name, CONFIG)
    source.add(name, [entry("t1", "alpha", [1.0, 0.0, 0.0]), entry("t2", "beta")])
    return source.save_collection(name, directory)


def rewrite(path: Path, **arrays: Any) -> None:
    """Replace some arrays of the collection file at ``path``, keeping the others."""
    with np.load(path) as data:
        content = {key: data[key] for key in data.files}
    content.update(arrays)
    with path.open("wb") as handle:
        np.savez(handle, **content)


def workspace_backend(directory: Path, name: str = "tasks") -> InMemoryBackend:
    config = CollectionConfig(dimension=3, persistence="workspace")
    return InMemoryBackend(name, config, directory)


def aside_files(directory: Path, path: Path) -> list[Path]:
    return [p for p in directory.iterdir() if p.name.startswith(f"{path.name}.corrupt-")]


# -- stored_entries: the layouts of a predecessor's backend_state -----------------------


def test_stored_entries_are_found_in_every_layout() -> None:
    first = entry("a", "alpha")
    assert stored_entries("tasks", {"tasks": [first]}) == [first]
    assert stored_entries("tasks", {"tasks": {"entries": [first]}}) == [first]
    assert stored_entries("tasks", {"collections": {"tasks": [first]}}) == [first]
    assert stored_entries("tasks", {"collections": {"tasks": {"entries": [first]}}}) == [first]
    assert stored_entries("tasks", {"collections": {"other": [first]}}) == []
    assert stored_entries("tasks", {}) == []


def test_stored_entries_under_the_name_win_over_a_collections_mapping() -> None:
    top, nested = entry("top", "top level"), entry("nested", "nested")
    state = {"tasks": [top], "collections": {"tasks": [nested]}}
    assert stored_entries("tasks", state) == [top]


@pytest.mark.parametrize(
    "stored",
    ["a string is not a list", {"entries": None}, {"entries": "text"}, {"config": {}}, 42],
)
def test_stored_entries_that_are_not_a_list_read_as_none(stored: Any) -> None:
    assert stored_entries("tasks", {"tasks": stored}) == []


# -- restore_state -----------------------------------------------------------------------


def test_restore_state_reads_the_collections_layout() -> None:
    backend = InMemoryBackend()
    backend.restore_state(
        {"collections": {"tasks": state_of(CONFIG, entry("t1", "alpha", [0.0, 2.0, 0.0]))}}
    )

    assert sorted(backend.collections) == ["tasks"]
    assert backend.collection("tasks").counts() == (1, 1)
    assert backend.search("tasks", [0.0, 1.0, 0.0], 1)[0].ref_id == "t1"


def test_restore_state_creates_a_collection_with_its_stored_config() -> None:
    stored = CollectionConfig(dimension=5)
    backend = InMemoryBackend()
    backend.restore_state({"tasks": state_of(stored, entry("t1", "no vector yet"))})

    assert backend.collection("tasks").config == stored
    assert backend.collection("tasks").unembedded() == {"t1": "no vector yet"}


def test_restore_state_replaces_a_collection_whose_config_changed() -> None:
    backend = InMemoryBackend()
    backend.create_collection("tasks", CONFIG)
    backend.add("tasks", [entry("old", "old", [1.0, 0.0, 0.0])])
    wider = CollectionConfig(dimension=4)

    backend.restore_state({"tasks": state_of(wider, entry("t1", "new", [0.0, 0.0, 0.0, 1.0]))})

    assert backend.collection("tasks").config == wider
    assert backend.collection("tasks").counts() == (1, 1)
    assert backend.search("tasks", [0.0, 0.0, 0.0, 1.0], 1)[0].ref_id == "t1"


def test_an_unreadable_stored_entry_is_skipped_with_a_warning_naming_its_collection(
    caplog: pytest.LogCaptureFixture,
) -> None:
    backend = InMemoryBackend()
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.vector_store"):
        backend.restore_state({"tasks": [entry("t1", "kept"), {"text": "no ref"}]})

    assert backend.collection("tasks").unembedded() == {"t1": "kept"}
    assert caplog.messages == ["collection 'tasks': a stored entry could not be read"]


def test_a_bare_list_without_vectors_makes_a_collection_of_the_default_config() -> None:
    backend = InMemoryBackend()
    backend.restore_state({"notes": [entry("n1", "pending"), entry("n2", "also pending")]})

    assert backend.collection("notes").config == CollectionConfig()
    assert backend.collection("notes").counts() == (2, 0)


def test_a_named_backend_restores_its_own_collection_into_itself() -> None:
    backend = InMemoryBackend("tasks", CONFIG)
    backend.put([VectorDocument(ref="stale", text="gone after restore", vector=[1, 0, 0])])

    backend.restore_state({"tasks": [entry("t1", "alpha", [0.0, 0.0, 1.0]), entry("t2", "b")]})

    assert backend.collection("tasks") is backend
    assert backend.counts() == (2, 1)
    assert backend.unembedded() == {"t2": "b"}

    backend.restore_state({"tasks": state_of(CONFIG, entry("t3", "gamma"))})  # same config
    assert backend.collection("tasks") is backend
    assert backend.unembedded() == {"t3": "gamma"}


def test_a_named_backend_refuses_another_config_for_its_own_collection() -> None:
    backend = InMemoryBackend("tasks", CONFIG)
    with pytest.raises(ValueError, match="this backend's own"):
        backend.restore_state({"tasks": state_of(CollectionConfig(dimension=4))})
    assert backend.collection("tasks") is backend


def test_restore_state_gives_a_workspace_collection_its_directory(tmp_path: Path) -> None:
    workspace = CollectionConfig(
        dimension=3, persistence="workspace", workspace_path=str(tmp_path / "w")
    )
    backend = InMemoryBackend()
    backend.restore_state({"kept": state_of(workspace)})

    assert backend.collection("kept").directory == tmp_path / "w"


def test_a_stored_vector_of_another_length_is_dropped_and_its_entry_kept() -> None:
    backend = InMemoryBackend()
    backend.restore_state(
        {
            "tasks": state_of(
                CONFIG,
                entry("ok", "right length", [1.0, 0.0, 0.0]),
                entry("short", "wrong length", [1.0, 0.0]),
            )
        }
    )

    assert backend.collection("tasks").counts() == (2, 1)
    assert backend.collection("tasks").unembedded() == {"short": "wrong length"}


# -- search in the predecessor's shape -------------------------------------------------------


def test_search_returns_ten_hits_unless_told_otherwise() -> None:
    backend = InMemoryBackend()
    backend.create_collection("tasks", CONFIG)
    backend.add("tasks", [entry(f"t{n}", f"task {n}", [1.0, n / 10, 0.0]) for n in range(12)])

    assert len(backend.search("tasks", [1.0, 0.0, 0.0])) == 10
    assert len(backend.search("tasks", [1.0, 0.0, 0.0], top_k=12)) == 12


def test_search_includes_documents_pointing_away_from_the_query() -> None:
    backend = InMemoryBackend()
    backend.create_collection("tasks", CONFIG)
    backend.add("tasks", [entry("near", "n", [1.0, 0.0, 0.0]), entry("far", "f", [-1.0, 0, 0])])

    hits = backend.search("tasks", [1.0, 0.0, 0.0])

    assert [hit.ref_id for hit in hits] == ["near", "far"]
    assert hits[1].score == pytest.approx(-1.0)


def test_a_hit_without_a_ref_type_has_an_empty_ref_type() -> None:
    backend = InMemoryBackend("notes", CONFIG)
    backend.put([VectorDocument(ref="n1", text="plain note", vector=[0.0, 1.0, 0.0])])

    [hit] = backend.search("notes", [0.0, 1.0, 0.0], 1)

    assert (hit.ref_id, hit.ref_type, hit.text) == ("n1", "", "plain note")


def test_an_entry_with_a_vector_of_the_wrong_length_is_refused_naming_the_collection() -> None:
    backend = InMemoryBackend()
    backend.create_collection("tasks", CONFIG)
    with pytest.raises(ValueError, match="collection 'tasks' expects 3"):
        backend.add("tasks", [entry("bad", "short", [1.0, 0.0])])


# -- create_collection and the directory of a workspace collection ---------------------------


def test_creating_an_existing_collection_with_another_config_says_how_to_change_it() -> None:
    backend = InMemoryBackend()
    backend.create_collection("tasks", CONFIG)
    with pytest.raises(ValueError, match="remove it first to change it"):
        backend.create_collection("tasks", CollectionConfig(dimension=4))


def test_a_workspace_collection_without_a_path_uses_the_backends_directory(
    tmp_path: Path,
) -> None:
    backend = workspace_backend(tmp_path)
    backend.create_collection("other", CollectionConfig(dimension=3, persistence="workspace"))

    other = backend.collection("other")
    assert other.directory == tmp_path
    other.put([VectorDocument(ref="o", text="other", vector=[1.0, 0.0, 0.0])])
    other.flush()
    assert (tmp_path / f"other{FILE_SUFFIX}").is_file()


def test_a_workspace_collection_without_any_directory_is_refused_saying_what_is_missing() -> None:
    backend = InMemoryBackend()
    with pytest.raises(ValueError) as caught:
        backend.create_collection("w", CollectionConfig(persistence="workspace"))

    assert "needs a workspace_path in the config" in str(caught.value)
    assert "(or a directory given to this backend)" in str(caught.value)
    assert backend.collections == {}


# -- load_collection -------------------------------------------------------------------------


def test_a_named_backend_loads_its_own_collection_into_itself(tmp_path: Path) -> None:
    saved_file(tmp_path)
    backend = InMemoryBackend("tasks", CONFIG)

    assert backend.load_collection("tasks", CONFIG, tmp_path) == 2

    assert backend.collection("tasks") is backend
    assert backend.counts() == (2, 1)
    with pytest.raises(ValueError, match="this backend's own"):
        backend.load_collection("tasks", CollectionConfig(dimension=4), tmp_path)


def test_load_collection_of_a_damaged_file_names_the_file_and_the_cause(tmp_path: Path) -> None:
    path = saved_file(tmp_path)
    path.write_bytes(path.read_bytes()[:-40])

    with pytest.raises(CorruptCollectionError) as caught:
        InMemoryBackend().load_collection("tasks", CONFIG, tmp_path)

    assert str(path) in str(caught.value)
    assert "unreadable vector file" in str(caught.value)
    assert "BadZipFile" in str(caught.value)


def test_a_file_whose_vectors_do_not_fit_the_dimension_is_corrupt(tmp_path: Path) -> None:
    path = saved_file(tmp_path)
    rewrite(path, vectors=np.ones((2, 2), dtype=np.float32))  # 4 values, dimension 3

    with pytest.raises(CorruptCollectionError, match="collection 'tasks'"):
        InMemoryBackend().load_collection("tasks", CONFIG, tmp_path)


def test_a_file_with_more_vectors_than_vector_refs_says_how_many_of_each(tmp_path: Path) -> None:
    path = saved_file(tmp_path)
    rewrite(path, vectors=np.eye(3, dtype=np.float32)[:2])  # two rows, one vector ref

    with pytest.raises(CorruptCollectionError) as caught:
        InMemoryBackend().load_collection("tasks", CONFIG, tmp_path)

    assert "collection 'tasks'" in str(caught.value)
    assert "1 vector refs for 2 stored vectors" in str(caught.value)


# -- load: a workspace collection's file -----------------------------------------------------


def test_a_truncated_file_is_set_aside_and_the_collection_starts_empty(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = saved_file(tmp_path)
    damaged = path.read_bytes()[:-40]
    path.write_bytes(damaged)
    backend = workspace_backend(tmp_path)
    backend.put([VectorDocument(ref="before", text="in memory", vector=[1.0, 0.0, 0.0])])
    for n in range(2):  # left by flushes killed mid-write
        (tmp_path / f".{path.name}.dead{n}.tmp").write_bytes(b"partial")
        os.utime(tmp_path / f".{path.name}.dead{n}.tmp", (0, 0))

    with caplog.at_level(logging.INFO, logger="akgentic.tool.vector_store"):
        backend.load()

    assert backend.counts() == (0, 0)
    [aside] = aside_files(tmp_path, path)
    assert aside.read_bytes() == damaged
    assert not path.exists()
    assert not list(tmp_path.glob("*.tmp"))
    cleaned, warning = caplog.messages
    assert cleaned == "collection 'tasks': removed 2 stale temporary file(s)"
    assert warning.startswith("collection 'tasks': ")
    assert "unreadable vector file" in warning
    assert warning.endswith(f"; the file is kept as {aside.name} and the collection starts empty")


def test_a_file_of_another_format_version_is_refused_and_left_in_place(tmp_path: Path) -> None:
    path = saved_file(tmp_path)
    rewrite(path, format=np.asarray([2], dtype=np.int64))
    content = path.read_bytes()

    with pytest.raises(ValueError, match="unsupported vector file format 2") as caught:
        workspace_backend(tmp_path).load()

    assert not isinstance(caught.value, CorruptCollectionError)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == content
    assert aside_files(tmp_path, path) == []


def test_a_file_of_another_dimension_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = saved_file(tmp_path)
    narrow = InMemoryBackend(
        "tasks", CollectionConfig(dimension=2, persistence="workspace"), tmp_path
    )

    with pytest.raises(ValueError, match="dimension 3") as caught:
        narrow.load()

    assert str(path) in str(caught.value)
    assert aside_files(tmp_path, path) == []


class _Planted:
    """An object whose unpickling leaves a mark: it must never be unpickled."""

    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (os.mkdir, (str(self.mark),))


def test_a_file_holding_pickled_objects_is_never_unpickled(tmp_path: Path) -> None:
    path = saved_file(tmp_path)
    mark = tmp_path / "unpickled"
    planted = np.empty(2, dtype=object)
    planted[0] = _Planted(mark)
    planted[1] = "{}"
    pickle.dumps(planted)  # really picklable: only the loader's refusal keeps it inert
    rewrite(path, metadata=planted)
    backend = workspace_backend(tmp_path)

    backend.load()

    assert not mark.exists()
    assert backend.counts() == (0, 0)
    assert len(aside_files(tmp_path, path)) == 1


def test_a_file_with_more_refs_than_texts_is_set_aside_not_cut_short(tmp_path: Path) -> None:
    path = saved_file(tmp_path)
    rewrite(path, texts=np.asarray(["alpha"], dtype=np.str_))  # two refs, one text
    backend = workspace_backend(tmp_path)

    backend.load()

    assert backend.counts() == (0, 0)
    assert len(aside_files(tmp_path, path)) == 1


def test_a_file_with_float64_vectors_loads_the_same_vectors(tmp_path: Path) -> None:
    path = saved_file(tmp_path)
    with np.load(path) as data:
        vectors = data["vectors"].astype(np.float64)
    rewrite(path, vectors=vectors)
    backend = workspace_backend(tmp_path)

    backend.load()

    assert backend.counts() == (2, 1)
    assert backend.search("tasks", [1.0, 0.0, 0.0], 1)[0].score == pytest.approx(1.0)
    assert aside_files(tmp_path, path) == []


# -- a record's vector bytes -----------------------------------------------------------------


def test_truncated_vector_bytes_say_how_many_bytes_were_expected() -> None:
    backend = InMemoryBackend("tasks", CONFIG)
    backend.put([VectorDocument(ref="a", text="alpha", vector=[1.0, 0.0, 0.0])])
    backend.put([VectorDocument(ref="b", text="beta", vector=[0.0, 1.0, 0.0])])
    record = backend.record()
    damaged = record.model_copy(update={"vectors": record.vectors[:-3]})

    with pytest.raises(CorruptCollectionError) as caught:
        InMemoryBackend.from_record("tasks", damaged)

    assert "collection 'tasks'" in str(caught.value)
    assert "(expected 24)" in str(caught.value)


def test_vector_bytes_without_vector_refs_are_corrupt() -> None:
    record = CollectionRecord(
        config=CONFIG, refs=["a"], texts=["alpha"], metadata=[{}], vectors=b"\x00" * 12
    )
    with pytest.raises(CorruptCollectionError, match="collection 'tasks'"):
        InMemoryBackend.from_record("tasks", record)


def test_a_restored_empty_collection_checks_query_lengths_like_a_fresh_one() -> None:
    fresh = InMemoryBackend("tasks", CONFIG)
    restored = InMemoryBackend.from_record("tasks", CollectionRecord(config=CONFIG))
    query = np.asarray([1.0, 0.0], dtype=np.float32)

    for backend in (fresh, restored):
        with pytest.raises(ValueError, match="dimension 2"):
            backend.vector_search(query, 5, 0.0, {})


def test_dropping_an_actor_state_collection_leaves_files_alone(tmp_path: Path) -> None:
    path = saved_file(tmp_path)
    backend = InMemoryBackend("tasks", CONFIG, tmp_path)

    backend.drop()

    assert path.is_file()
