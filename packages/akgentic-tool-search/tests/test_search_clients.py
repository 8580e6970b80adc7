"""Which Tavily client a call uses: the key read at binding, one client per worker thread."""

from __future__ import annotations

import threading

import pytest
from tavily_standin import API_KEY, FakeTavily

from akgentic.tool.search import SearchTool
from akgentic.tool.search._provider import TavilyClients


def test_the_key_read_at_binding_is_the_one_sent(
    fake_tavily: FakeTavily, monkeypatch: pytest.MonkeyPatch
) -> None:
    search = {fn.__name__: fn for fn in SearchTool().get_tools()}["web_search"]
    # The environment changes after the tools were bound: the bound key still applies.
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-changed-later")
    assert search(query="q")
    assert fake_tavily.calls("/search")[0].headers["Authorization"] == f"Bearer {API_KEY}"


def test_one_client_per_thread_reused_between_calls(fake_tavily: FakeTavily) -> None:
    clients = TavilyClients(api_key=API_KEY, base_url=fake_tavily.url)
    mine = clients.get()
    assert clients.get() is mine
    assert mine.api_key == API_KEY
    theirs: list[object] = []
    worker = threading.Thread(target=lambda: theirs.extend([clients.get(), clients.get()]))
    worker.start()
    worker.join(timeout=5)
    assert theirs[0] is theirs[1]
    assert theirs[0] is not mine
