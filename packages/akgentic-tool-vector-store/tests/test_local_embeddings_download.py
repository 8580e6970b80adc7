"""Downloading a local embedding model by name when it is not cached: the model files (and
its README) are fetched once into the Hugging Face cache the environment names, then
loaded; nothing else of the repository is fetched; a failed download is a clear error
naming the model, the cache and what to do offline.

No network: the "hub" is a small HTTP server on 127.0.0.1 answering the few Hugging Face
endpoints a download uses, serving a tiny model the test writes itself. The hub library
reads its endpoint and offline switch when imported, so those constants are pointed at
the local server for each test."""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from huggingface_hub import constants as hub_constants

from akgentic.tool.vector_store.local_embeddings import (
    LocalEmbedder,
    LocalModelError,
    load_local_model,
)
from akgentic.tool.vector_store.testing import write_static_model

_ALL_FILES = "config.json, model.safetensors, tokenizer.json"
_COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class LocalHub:
    """A stand-in Hugging Face hub serving one repository's files."""

    repo_id: str
    files: dict[str, bytes]
    base_url: str = ""
    fail: bool = False
    paths: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def requested(self) -> list[str]:
        with self.lock:
            return list(self.paths)


def _handler(hub: LocalHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def _reply(self, status: int, body: bytes, headers: dict[str, str], head: bool) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _answer(self, head: bool) -> None:
            path = self.path.split("?", 1)[0]
            with hub.lock:
                hub.paths.append(path)
            json_type = {"Content-Type": "application/json"}
            if hub.fail:
                self._reply(500, b'{"error": "hub down"}', json_type, head)
                return
            info = f"/api/models/{hub.repo_id}/revision/main"
            tree = f"/api/models/{hub.repo_id}/tree/{_COMMIT}"
            resolve = f"/{hub.repo_id}/resolve/{_COMMIT}/"
            if path == info:
                body = {
                    "id": hub.repo_id,
                    "sha": _COMMIT,
                    "siblings": [{"rfilename": name} for name in hub.files],
                }
                self._reply(200, json.dumps(body).encode(), json_type, head)
            elif path == tree:
                entries = [
                    {
                        "type": "file",
                        "path": name,
                        "size": len(data),
                        "oid": hashlib.sha1(data).hexdigest(),
                    }
                    for name, data in hub.files.items()
                ]
                self._reply(200, json.dumps(entries).encode(), json_type, head)
            elif path.startswith(resolve) and path[len(resolve) :] in hub.files:
                data = hub.files[path[len(resolve) :]]
                headers = {
                    "X-Repo-Commit": _COMMIT,
                    "ETag": f'"{hashlib.sha1(data).hexdigest()}"',
                    "Content-Type": "application/octet-stream",
                }
                self._reply(200, data, headers, head)
            else:
                self._reply(404, b'{"error": "not found"}', json_type, head)

        def do_GET(self) -> None:
            self._answer(head=False)

        def do_HEAD(self) -> None:
            self._answer(head=True)

    return Handler


def model_files(tmp_path: Path) -> dict[str, bytes]:
    folder = write_static_model(tmp_path / "source-model")
    files = {path.name: path.read_bytes() for path in folder.iterdir()}
    files["README.md"] = b"# tiny test model\n"
    files["weights.bin"] = b"a file the store has no use for"
    return files


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalHub]:
    """The stand-in hub, downloads allowed, and an empty cache in ``tmp_path/hub``."""
    state = LocalHub(
        repo_id=f"test-owner/tiny-{uuid.uuid4().hex[:12]}", files=model_files(tmp_path)
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.chdir(tmp_path)  # a download landing anywhere relative lands here
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hub_constants, "ENDPOINT", state.base_url)
    monkeypatch.setattr(
        hub_constants,
        "HUGGINGFACE_CO_URL_TEMPLATE",
        state.base_url + "/{repo_id}/resolve/{revision}/{filename}",
    )
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(tmp_path / "default-cache"))
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def snapshot_of(tmp_path: Path, repo_id: str) -> Path:
    return tmp_path / "hub" / f"models--{repo_id.replace('/', '--')}" / "snapshots" / _COMMIT


def test_a_name_not_cached_is_downloaded_into_the_cache_and_embeds(
    hub: LocalHub, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.vector_store"):
        vectors = LocalEmbedder(hub.repo_id)(["repair the automobile", "car", "bake the bread"])
    ours = [r.getMessage() for r in caplog.records if r.name.startswith("akgentic.")]
    assert ours == [
        f"downloading local embedding model {hub.repo_id} into {tmp_path / 'hub'} "
        "(once; later runs read it from there)"
    ]
    assert vectors.shape == (3, 13)
    assert float(vectors[0] @ vectors[1]) == pytest.approx(1 / np.sqrt(2), abs=1e-5)
    assert float(vectors[1] @ vectors[2]) == pytest.approx(0.0, abs=1e-6)
    snapshot = snapshot_of(tmp_path, hub.repo_id)
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        assert (snapshot / name).read_bytes() == hub.files[name]


def test_a_download_fetches_the_model_files_and_readme_only(hub: LocalHub, tmp_path: Path) -> None:
    load_local_model(hub.repo_id)
    snapshot = snapshot_of(tmp_path, hub.repo_id)
    assert sorted(path.name for path in snapshot.iterdir()) == [
        "README.md",
        "config.json",
        "model.safetensors",
        "tokenizer.json",
    ]
    assert not any(path.endswith("/weights.bin") for path in hub.requested())
    assert not (tmp_path / "default-cache").exists()
    assert not (tmp_path / "None").exists()


def test_a_downloaded_model_is_not_fetched_again(hub: LocalHub, tmp_path: Path) -> None:
    first = load_local_model(hub.repo_id)
    asked = hub.requested()
    hub.fail = True  # the hub is gone: what was downloaded is enough
    assert load_local_model(hub.repo_id) is first
    assert LocalEmbedder(hub.repo_id)(["car"]).shape == (1, 13)
    assert hub.requested() == asked


def test_a_failed_download_names_the_model_the_cache_and_the_offline_way(
    hub: LocalHub, tmp_path: Path
) -> None:
    hub.fail = True
    with pytest.raises(LocalModelError) as caught:
        load_local_model(hub.repo_id)
    message = str(caught.value)
    assert (
        f"could not download local embedding model {hub.repo_id!r} into {tmp_path / 'hub'}: "
        in (message)
    )
    assert "NoneType" not in message
    assert f"point model at a folder holding {_ALL_FILES}" in message
    assert f"/api/models/{hub.repo_id}/revision/main" in hub.requested()


def test_a_downloaded_model_that_cannot_be_read_is_named_in_the_error(
    hub: LocalHub, tmp_path: Path
) -> None:
    hub.files["model.safetensors"] = b"not a safetensors file"
    with pytest.raises(LocalModelError) as caught:
        load_local_model(hub.repo_id)
    snapshot = snapshot_of(tmp_path, hub.repo_id)
    assert f"{hub.repo_id!r} could not be read from {snapshot}" in str(caught.value)
