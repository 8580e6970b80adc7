"""Where local embedding models are found: the Hugging Face cache directory read from the
environment, the cached snapshot picked for a model name (``refs/main`` first, else the
newest complete one), names that can only be paths, the "downloads off" switch, the
errors naming what is wrong, and a model loaded once even when workers ask at once.

Nothing is downloaded (conftest sets ``HF_HUB_OFFLINE=1``): every model is a tiny one the
test writes itself. Model names carry a fresh random part, since a process keeps every
model it loaded."""

from __future__ import annotations

import os
import sys
import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from akgentic.tool.vector_store import local_embeddings
from akgentic.tool.vector_store.local_embeddings import (
    LocalEmbedder,
    LocalModelError,
    downloads_off,
    hub_cache_dir,
    load_local_model,
)
from akgentic.tool.vector_store.testing import write_static_model

_ALL_FILES = "config.json, model.safetensors, tokenizer.json"

# Two vocabularies of different sizes, so the dimension tells which snapshot was read.
_THREE = {"car": "vehicle", "dog": "canine", "bread": "bread"}
_FIVE = {"car": "vehicle", "dog": "canine", "bread": "bread", "fence": "fence", "walk": "walk"}
_TWO = {"car": "vehicle", "dog": "canine"}
_FOUR = {"car": "vehicle", "dog": "canine", "bread": "bread", "fence": "fence"}


def fresh_name() -> str:
    """A model name (``owner/name``) no earlier load in this process has used."""
    return f"test-owner/tiny-{uuid.uuid4().hex}"


def repo_dir(cache: Path, name: str) -> Path:
    return cache / f"models--{name.replace('/', '--')}"


def write_snapshot(
    cache: Path,
    name: str,
    revision: str,
    concepts: Mapping[str, str],
    mtime: float | None = None,
) -> Path:
    folder = write_static_model(repo_dir(cache, name) / "snapshots" / revision, concepts)
    if mtime is not None:
        os.utime(folder, (mtime, mtime))
    return folder


def point_main_at(cache: Path, name: str, revision: str) -> None:
    refs = repo_dir(cache, name) / "refs"
    refs.mkdir(parents=True, exist_ok=True)
    (refs / "main").write_text(f"{revision}\n", encoding="utf-8")


def use_cache(monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))


# -- the cache directory ------------------------------------------------------------------


def test_the_cache_directory_is_hf_hub_cache_when_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_CACHE", f"  {tmp_path / 'explicit'}  ")
    assert hub_cache_dir() == tmp_path / "explicit"


def test_a_cache_directory_under_the_home_folder_is_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_CACHE", "~/my-cache")
    assert hub_cache_dir() == tmp_path / "my-cache"


def test_without_hf_hub_cache_the_cache_is_the_hub_folder_of_hf_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    assert hub_cache_dir() == tmp_path / "hf-home" / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", "   ")  # blank counts as not set
    assert hub_cache_dir() == tmp_path / "hf-home" / "hub"


def test_without_any_setting_the_cache_is_in_the_users_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HF_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert hub_cache_dir() == tmp_path / ".cache" / "huggingface" / "hub"
    monkeypatch.setenv("HF_HOME", " ")  # blank counts as not set
    assert hub_cache_dir() == tmp_path / ".cache" / "huggingface" / "hub"


# -- downloads off ------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1", "true", "True", "YES", " on ", "On"])
def test_downloads_are_off_for_any_spelling_of_yes(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", value)
    assert downloads_off() is True


@pytest.mark.parametrize("value", ["0", "false", "", "no"])
def test_downloads_are_allowed_unless_switched_off(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", value)
    assert downloads_off() is False


def test_downloads_are_allowed_when_the_variable_is_unset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert downloads_off() is False


# -- the cached snapshot ------------------------------------------------------------------


def test_a_cached_name_is_read_from_the_snapshot_refs_main_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, name = tmp_path / "hub", fresh_name()
    now = time.time()
    write_snapshot(cache, name, "old-main", _THREE, mtime=now - 1000)
    write_snapshot(cache, name, "newer-other", _FIVE, mtime=now)
    point_main_at(cache, name, "old-main")
    use_cache(monkeypatch, cache)
    assert LocalEmbedder(name)(["car", "dog"]).shape == (2, 3)


def test_without_refs_main_the_newest_complete_snapshot_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, name = tmp_path / "hub", fresh_name()
    now = time.time()
    # Names sort the other way round from ages, and iterdir order is the file system's.
    write_snapshot(cache, name, "a-oldest", _TWO, mtime=now - 3000)
    write_snapshot(cache, name, "b-older", _FOUR, mtime=now - 2000)
    write_snapshot(cache, name, "c-old", _FOUR, mtime=now - 1500)
    write_snapshot(cache, name, "d-newest", _FIVE, mtime=now)
    write_snapshot(cache, name, "e-middle", _THREE, mtime=now - 1000)
    use_cache(monkeypatch, cache)
    assert LocalEmbedder(name)(["car"]).shape == (1, 5)


def test_an_incomplete_snapshot_named_by_refs_main_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, name = tmp_path / "hub", fresh_name()
    now = time.time()
    broken = write_snapshot(cache, name, "main-rev", _FIVE, mtime=now)
    (broken / "tokenizer.json").unlink()
    write_snapshot(cache, name, "complete", _THREE, mtime=now - 1000)
    point_main_at(cache, name, "main-rev")
    use_cache(monkeypatch, cache)
    assert LocalEmbedder(name)(["car"]).shape == (1, 3)


def test_a_cached_name_embeds_by_meaning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache, name = tmp_path / "hub", fresh_name()
    write_snapshot(cache, name, "rev1", {"car": "vehicle", "automobile": "vehicle", "dog": "dog"})
    use_cache(monkeypatch, cache)
    vectors = LocalEmbedder(name)(["car", "automobile", "dog"])
    assert float(vectors[0] @ vectors[1]) == pytest.approx(1.0)
    assert float(vectors[0] @ vectors[2]) == pytest.approx(0.0)


def test_a_name_with_only_incomplete_snapshots_is_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, name = tmp_path / "hub", fresh_name()
    broken = write_snapshot(cache, name, "rev1", _THREE)
    (broken / "config.json").unlink()
    use_cache(monkeypatch, cache)
    with pytest.raises(LocalModelError, match="is not in the cache"):
        load_local_model(name)


def test_a_name_missing_from_the_cache_names_the_cache_and_the_files_to_provide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, name = tmp_path / "empty-hub", fresh_name()
    use_cache(monkeypatch, cache)
    with pytest.raises(LocalModelError) as caught:
        load_local_model(name)
    message = str(caught.value)
    assert f"{name!r} is not in the cache ({cache})" in message
    assert f"holding {_ALL_FILES}, or allow one download" in message


def test_an_unreadable_cached_model_names_the_model_and_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, name = tmp_path / "hub", fresh_name()
    snapshot = write_snapshot(cache, name, "rev1", _THREE)
    (snapshot / "model.safetensors").write_bytes(b"not a safetensors file")
    use_cache(monkeypatch, cache)
    with pytest.raises(LocalModelError) as caught:
        load_local_model(name)
    message = str(caught.value)
    assert f"{name!r} could not be read from {snapshot}" in message
    assert "NoneType" not in message


# -- names that can only be paths ---------------------------------------------------------


@pytest.mark.parametrize(
    "model",
    [
        "./missing-model-folder",
        "/missing-model-folder-3f2a",
        "~/missing-model-folder-3f2a",
        "owner\\sub/name",
        "just-a-name",
        "a/b/c",
    ],
)
def test_a_name_that_can_only_be_a_path_is_a_missing_folder(
    model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_cache(monkeypatch, tmp_path / "hub")
    with pytest.raises(LocalModelError) as caught:
        load_local_model(model)
    message = str(caught.value)
    assert f"folder {model!r} does not exist" in message
    assert f"holding {_ALL_FILES}, or at a model name" in message


def test_an_owner_and_name_is_looked_up_in_the_cache_not_as_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_cache(monkeypatch, tmp_path / "hub")
    with pytest.raises(LocalModelError, match="is not in the cache"):
        load_local_model(fresh_name())


# -- folders ------------------------------------------------------------------------------


def test_a_file_instead_of_a_folder_lists_the_files_a_folder_holds(tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(b"x")
    with pytest.raises(LocalModelError) as caught:
        load_local_model(str(path))
    assert f"{str(path)!r} is a file" in str(caught.value)
    assert f"holding {_ALL_FILES}" in str(caught.value)


def test_a_folder_lacking_files_names_the_model_and_each_missing_file(tmp_path: Path) -> None:
    folder = write_static_model(tmp_path / "partial")
    (folder / "config.json").unlink()
    (folder / "tokenizer.json").unlink()
    with pytest.raises(LocalModelError) as caught:
        load_local_model(str(folder))
    assert f"{str(folder)!r}: folder {folder} lacks config.json, tokenizer.json" in str(
        caught.value
    )


def test_an_empty_folder_lacks_every_model_file(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    with pytest.raises(LocalModelError, match=f"lacks {_ALL_FILES}$"):
        load_local_model(str(folder))


def test_without_model2vec_a_folder_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_static_model(tmp_path / "model")
    monkeypatch.setitem(sys.modules, "model2vec", None)
    with pytest.raises(LocalModelError) as caught:
        load_local_model(str(folder))
    message = str(caught.value)
    assert message.startswith("local embeddings need model2vec: pip install")
    assert message.endswith('pip install "akgentic-tool-vector-store[local-embeddings]"')


# -- embedding ----------------------------------------------------------------------------


def test_a_half_precision_model_still_gives_float32_vectors(tmp_path: Path) -> None:
    folder = write_static_model(tmp_path / "half")
    weights = load_file(str(folder / "model.safetensors"))
    save_file(
        {"embeddings": weights["embeddings"].astype(np.float16)},
        str(folder / "model.safetensors"),
    )
    vectors = LocalEmbedder(str(folder))(["car", "repair the automobile", "dog"])
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, 13)


def test_workers_asking_at_once_share_one_load(tmp_path: Path) -> None:
    folder = str(write_static_model(tmp_path / f"shared-{uuid.uuid4().hex}"))
    # Hold the model's load gate, so every worker misses the loaded model and queues
    # behind it: the first one to pass loads, the others must reuse that load.
    with local_embeddings._registry:
        gate = local_embeddings._loading.setdefault(folder, threading.Lock())
    results: list[object] = []
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            results.append(load_local_model(folder))
        except BaseException as exc:  # reported below
            errors.append(exc)

    with gate:
        workers = [threading.Thread(target=ask) for _ in range(3)]
        for worker in workers:
            worker.start()
        time.sleep(0.3)
    for worker in workers:
        worker.join(30)
    assert errors == []
    assert len(results) == 3
    assert all(result is results[0] for result in results)
