"""Fixtures: the local Tavily stand-in (see tavily_standin.py)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

# pytest runs with --import-mode=importlib, which does not put this folder on sys.path;
# the tests import the stand-in's types, so make its module importable by name (appended,
# so that nothing in this folder can shadow an installed module).
sys.path.append(str(Path(__file__).parent))

from tavily_standin import API_KEY, FakeTavily, make_handler


@pytest.fixture
def fake_tavily(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeTavily]:
    """A running stand-in server, with TAVILY_API_KEY/TAVILY_API_BASE_URL pointing at it."""
    fake = FakeTavily()
    handler = make_handler(fake)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("TAVILY_API_KEY", API_KEY)
    monkeypatch.setenv("TAVILY_API_BASE_URL", fake.url)
    try:
        yield fake
    finally:
        fake.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
