"""A scriptable OAuth/MCP stand-in: a real HTTP server on a loopback address.

Each test sets the routes it needs (path -> status, JSON or text body, optional headers);
``/authorize`` always approves and redirects to the ``redirect_uri`` it was given, with a
code and the request's ``state``. Every request is recorded, so a test can check what was
(and what was not) asked for. Several stand-ins can run at once to play a victim server
and an attacker's server.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

Route = tuple[int, Any] | tuple[int, Any, dict[str, str]]


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: str


@dataclass
class StandIn:
    """Routes (path -> (status, body[, headers])) and the requests the stand-in received."""

    base: str = ""
    routes: dict[str, Route] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    code: str = "the-code"

    def metadata(self, issuer: str, **overrides: Any) -> dict[str, Any]:
        """RFC 8414 metadata with this stand-in's endpoints; ``None`` overrides drop a field."""
        data: dict[str, Any] = {
            "issuer": issuer,
            "authorization_endpoint": f"{self.base}/authorize",
            "token_endpoint": f"{self.base}/token",
            "registration_endpoint": f"{self.base}/register",
            "code_challenge_methods_supported": ["S256"],
        }
        data.update(overrides)
        return {k: v for k, v in data.items() if v is not None}

    def serve_as_own_authorization_server(self, **overrides: Any) -> None:
        """No resource metadata: the origin's RFC 8414 document, registration and token."""
        self.routes["/.well-known/oauth-authorization-server"] = (
            200,
            self.metadata(overrides.pop("issuer", self.base), **overrides),
        )
        self.routes["/register"] = (201, {"client_id": "c"})
        self.routes["/token"] = (200, {"access_token": "t"})

    def requests_to(self, path: str) -> list[Seen]:
        return [s for s in self.seen if urlsplit(s.path).path == path]

    def oauth_requests(self) -> list[Seen]:
        """Requests that mean the flow went past discovery."""
        return [s for p in ("/register", "/authorize", "/token") for s in self.requests_to(p)]


class _Handler(BaseHTTPRequestHandler):
    stand_in: StandIn

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        self.stand_in.seen.append(Seen(self.command, self.path, dict(self.headers), body))
        parts = urlsplit(self.path)
        if parts.path == "/authorize":
            query = parse_qs(parts.query)
            answer = {"code": self.stand_in.code, "state": query["state"][0]}
            self.send_response(302)
            self.send_header("Location", query["redirect_uri"][0] + "?" + urlencode(answer))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        status, payload, *rest = self.stand_in.routes.get(parts.path, (404, {"error": "not_found"}))
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (rest[0] if rest else {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    do_GET = _handle
    do_POST = _handle


class _IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


@contextmanager
def running_stand_in(host: str = "127.0.0.1", name: str | None = None) -> Iterator[StandIn]:
    """A stand-in listening on ``host`` (any free port), addressed as ``http://name:port``.

    ``name`` defaults to ``host`` (bracketed when it is an IPv6 address).
    """
    state = StandIn()
    server_class = _IPv6Server if ":" in host else ThreadingHTTPServer
    server = server_class((host, 0), type("Handler", (_Handler,), {"stand_in": state}))
    name = name or (f"[{host}]" if ":" in host else host)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    state.base = f"http://{name}:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
