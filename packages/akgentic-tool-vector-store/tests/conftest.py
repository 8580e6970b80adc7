"""Shared fixtures: a deterministic embedding function, and a real HTTP server on
127.0.0.1 that answers the OpenAI (and Azure OpenAI) embeddings API with it."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

# No test downloads a model: a local model name missing from the cache fails at once,
# with the error that tells to point the model at a folder (tests write tiny ones).
os.environ["HF_HUB_OFFLINE"] = "1"

DIM = 64
_WORD = re.compile(r"\w+")


def hash_embed(texts: list[str], dimension: int = DIM) -> npt.NDArray[np.float32]:
    """Bag-of-words embedding: each word adds a fixed +-1 in a hashed slot, then the row
    is normalised. Texts sharing words get a high cosine; it is fully deterministic."""
    matrix = np.zeros((len(texts), dimension), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in _WORD.findall(text.casefold()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            slot = int.from_bytes(digest[:4], "little") % dimension
            matrix[row, slot] += 1.0 if digest[4] & 1 else -1.0
        norm = float(np.linalg.norm(matrix[row]))
        if norm:
            matrix[row] /= norm
        else:
            matrix[row, 0] = 1.0
    return matrix


@dataclass
class EmbeddingServer:
    """Behaviour knobs and a log of what the server received."""

    base_url: str = ""
    dimension: int = DIM
    delay: float = 0.0
    fail_status: int | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    gate: threading.Event | None = None
    """When set, every request waits for it (tests release it to finish requests)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def inputs(self) -> list[list[str]]:
        with self.lock:
            return [list(entry["body"]["input"]) for entry in self.requests]


def _make_handler(server_state: EmbeddingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with server_state.lock:
                server_state.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": body}
                )
            if server_state.gate is not None:
                server_state.gate.wait(10)
            if server_state.delay:
                threading.Event().wait(server_state.delay)
            if not re.search(r"/embeddings(\?|$)", self.path):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            if server_state.fail_status is not None:
                self._send(
                    server_state.fail_status,
                    {"error": {"message": "provider unavailable", "type": "server_error"}},
                )
                return
            texts = body["input"]
            texts = [texts] if isinstance(texts, str) else list(texts)
            vectors = hash_embed(texts, server_state.dimension)
            base64_format = body.get("encoding_format") == "base64"
            data = [
                {
                    "object": "embedding",
                    "index": index,
                    "embedding": (
                        base64.b64encode(vector.astype("<f4").tobytes()).decode()
                        if base64_format
                        else vector.tolist()
                    ),
                }
                for index, vector in enumerate(vectors)
            ]
            data.reverse()  # the API does not promise order; the client must sort by index
            self._send(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": body.get("model", ""),
                    "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
                },
            )

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            raw = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

    return Handler


EmbedFn = Callable[..., npt.NDArray[np.float32]]


@pytest.fixture(name="hash_embed")
def hash_embed_fixture() -> EmbedFn:
    """The deterministic embedding function (``texts, dimension=64`` -> matrix)."""
    return hash_embed


@pytest.fixture
def embedding_server() -> Iterator[EmbeddingServer]:
    """A real OpenAI-compatible embeddings endpoint on 127.0.0.1."""
    state = EmbeddingServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(state))
    httpd.daemon_threads = True
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        if state.gate is not None:
            state.gate.set()
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def openai_env(
    embedding_server: EmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> EmbeddingServer:
    """Point the openai client (provider "openai") at the local server."""
    monkeypatch.setenv("OPENAI_BASE_URL", f"{embedding_server.base_url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-test")
    return embedding_server


@pytest.fixture
def workspaces(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """An isolated workspaces root."""
    root = tmp_path / "workspaces"
    monkeypatch.setenv("AKGENTIC_WORKSPACES_ROOT", str(root))
    return root
