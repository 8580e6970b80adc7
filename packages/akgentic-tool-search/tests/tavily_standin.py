"""A local stand-in for the Tavily API.

`FakeTavily` is a real HTTP server on 127.0.0.1 (a free port) that answers `/search`,
`/extract` and `/crawl` with bodies shaped like Tavily's, checks the bearer key the way the
real API does (401 with `{"detail": {"error": ...}}`), and can be told to fail or stall the
next requests. tavily-python is pointed at it through `TAVILY_API_BASE_URL`, so every test
goes through the real client library and a real socket.
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

API_KEY = "tvly-test-key"


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class Scripted:
    status: int
    body: Any
    delay: float = 0.0
    # Seconds between single bytes of the body (or of the headers, with trickle_headers).
    trickle: float = 0.0
    trickle_headers: bool = False
    # False: no Content-Length, the body ends when the connection closes.
    length: bool = True


@dataclass
class FakeTavily:
    """State of the stand-in server; tests read `requests` and queue `scripted` answers."""

    url: str = ""
    api_key: str = API_KEY
    requests: list[Recorded] = field(default_factory=list)
    scripted: list[Scripted] = field(default_factory=list)
    pages: dict[str, str] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Answers the client stopped reading before they were fully sent.
    abandoned: int = 0

    def fail_next(self, status: int, body: Any = None, delay: float = 0.0) -> None:
        """Answer the next request with ``status``/``body`` (after ``delay`` seconds)."""
        with self.lock:
            self.scripted.append(Scripted(status, body, delay))

    def trickle_next(
        self, body: Any, every: float, headers: bool = False, length: bool = True
    ) -> None:
        """Answer the next request with 200/``body``, one byte every ``every`` seconds.

        With ``headers`` the status line and headers trickle too; otherwise they arrive at
        once (with the body's Content-Length, unless ``length`` is False) and only the body
        trickles.
        """
        with self.lock:
            self.scripted.append(
                Scripted(200, body, trickle=every, trickle_headers=headers, length=length)
            )

    def stall_next(self, seconds: float) -> None:
        """Answer the next request normally, but only after ``seconds``."""
        with self.lock:
            self.scripted.append(Scripted(0, None, seconds))

    def calls(self, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.path == path]

    # -- canned answers -------------------------------------------------------------------

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path == "/search":
            n = int(body.get("max_results") or 5)
            query = str(body.get("query", ""))
            return 200, {
                "query": query,
                "answer": None,
                "images": [],
                "follow_up_questions": None,
                "results": [
                    {
                        "title": f"Result {i} for {query}",
                        "url": f"https://example.com/{i}",
                        "content": f"snippet {i} " + "lorem ipsum " * 200,
                        "score": 0.9 - i / 100,
                        "raw_content": None,
                    }
                    # The real API may return more than asked; so does the stand-in.
                    for i in range(n + 2)
                ],
                "response_time": 0.01,
            }
        if path == "/extract":
            urls = body.get("urls")
            asked = [str(u) for u in urls] if isinstance(urls, list) else [str(urls)]
            return 200, {
                "results": [
                    {"url": url, "raw_content": self.pages[url], "images": []}
                    for url in asked
                    if url in self.pages
                ],
                "failed_results": [
                    {"url": url, "error": "Failed to fetch url"}
                    for url in asked
                    if url not in self.pages
                ],
                "response_time": 0.01,
            }
        if path == "/crawl":
            limit = int(body.get("limit") or 10)
            base = str(body.get("url"))
            return 200, {
                "base_url": base,
                "results": [
                    {"url": f"{base.rstrip('/')}/p{i}", "raw_content": f"page {i} " + "x" * 5000}
                    # One page more than the limit, to prove the tool still enforces it.
                    for i in range(limit + 1)
                ],
                "response_time": 0.01,
            }
        return 404, {"detail": {"error": f"unknown path {path}"}}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeTavily

    def log_message(self, format: str, *args: Any) -> None:  # silence the default stderr log
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        fake = self.fake
        # Through an HTTP proxy the request line carries the absolute URL; keep its path.
        path = urlsplit(self.path).path
        with fake.lock:
            fake.requests.append(Recorded(path, dict(self.headers.items()), body))
            scripted = fake.scripted.pop(0) if fake.scripted else None
        if scripted is not None and scripted.delay:
            # Wait, but give up as soon as the test tears the server down.
            fake.stop.wait(scripted.delay)
        if self.headers.get("Authorization") != f"Bearer {fake.api_key}":
            status, payload = (
                401,
                {"detail": {"error": "Unauthorized: missing or invalid API key."}},
            )
        elif scripted is not None and scripted.status:
            status, payload = scripted.status, scripted.body
        else:
            status, payload = fake.answer(path, body)
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        if scripted is not None and scripted.trickle:
            self._trickle(data, scripted)
            return
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (timeout, size limit) before the answer was sent.
            with fake.lock:
                fake.abandoned += 1
            return

    def _trickle(self, data: bytes, scripted: Scripted) -> None:
        length = f"Content-Length: {len(data)}\r\n" if scripted.length else ""
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{length}\r\n".encode()
        slow = head + data if scripted.trickle_headers else data
        try:
            if not scripted.trickle_headers:
                self.wfile.write(head)
                self.wfile.flush()
            for i in range(len(slow)):
                if self.fake.stop.wait(scripted.trickle):
                    return
                self.wfile.write(slow[i : i + 1])
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return  # the client gave up, as it should
        self.close_connection = True


def make_handler(fake: FakeTavily) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to ``fake``'s state."""
    return type("TavilyHandler", (_Handler,), {"fake": fake})


@contextmanager
def serving(fake: FakeTavily, tls: ssl.SSLContext | None = None) -> Iterator[FakeTavily]:
    """``fake`` served on a free port of 127.0.0.1 (over HTTPS with ``tls``) for the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(fake))
    server.daemon_threads = True
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    scheme = "http" if tls is None else "https"
    fake.url = f"{scheme}://127.0.0.1:{server.server_address[1]}"
    try:
        yield fake
    finally:
        fake.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
