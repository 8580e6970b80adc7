"""What the suite's HTTP stand-ins share: a quiet request handler that reads and writes
JSON, and a threaded server on 127.0.0.1 started in the background."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class JsonHandler(BaseHTTPRequestHandler):
    """A handler that logs nothing, reads a JSON body and answers JSON."""

    def log_message(self, format: str, *args: Any) -> None:
        return

    def read_json(self) -> Any:
        """The request's JSON body; ``None`` when it has none."""
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"null")

    def send_json(self, status: int, payload: Any = None) -> None:
        """Answer ``payload`` as JSON (an empty body for ``None``)."""
        raw = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def serve(handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    """A server on a free port of 127.0.0.1, already serving on a daemon thread."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def url_of(httpd: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}"
