"""The request deadline and the first reading of an answer, in the cases the other files miss.

- an answer without a Content-Length ends when the connection closes, so the shutdown at the
  deadline looks like a complete (short) body: it must still be reported as a timeout, not
  read as a truncated document;
- behind an HTTP proxy (tavily-python's ``TAVILY_HTTP_PROXY``) the connections come from
  another pool, which must be watched by the deadline too;
- a 200 answer that is JSON but not an object is named by its kind.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from tavily_standin import FakeTavily

from akgentic.tool.errors import RetriableError
from akgentic.tool.search import SearchTool

SLOW_PAGE = json.dumps({"results": [{"url": "https://e.com/a", "raw_content": "x" * 150}]})


def fetch_tool(timeout: float = 1) -> Callable[..., Any]:
    return {fn.__name__: fn for fn in SearchTool(timeout_seconds=timeout).get_tools()}["web_fetch"]


def test_an_answer_without_a_length_cut_by_the_deadline_is_a_timeout(
    fake_tavily: FakeTavily,
) -> None:
    fake_tavily.trickle_next(SLOW_PAGE.encode(), every=0.05, length=False)
    fetch = fetch_tool()
    started = time.monotonic()
    with pytest.raises(RetriableError, match=r"did not answer within 1 s"):
        fetch(url="https://e.com/a")
    assert time.monotonic() - started < 5.0


def test_an_answer_without_a_length_that_completes_is_read(fake_tavily: FakeTavily) -> None:
    fake_tavily.trickle_next(SLOW_PAGE.encode(), every=0.001, length=False)
    assert fetch_tool(timeout=10)(url="https://e.com/a").content == "x" * 150


@pytest.fixture
def behind_proxy(fake_tavily: FakeTavily, monkeypatch: pytest.MonkeyPatch) -> FakeTavily:
    """Tavily's address does not resolve; only the proxy (the stand-in itself) reaches it."""
    monkeypatch.setenv("TAVILY_API_BASE_URL", "http://tavily.invalid")
    monkeypatch.setenv("TAVILY_HTTP_PROXY", fake_tavily.url)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    return fake_tavily


def test_calls_through_a_proxy_work(behind_proxy: FakeTavily) -> None:
    behind_proxy.pages["https://e.com/a"] = "through the proxy"
    assert fetch_tool()(url="https://e.com/a").content == "through the proxy"
    assert [r.path for r in behind_proxy.requests] == ["/extract"]


def test_the_deadline_holds_through_a_proxy(behind_proxy: FakeTavily) -> None:
    # Each byte arrives well within a per-read timeout; only the total deadline ends it.
    behind_proxy.trickle_next(SLOW_PAGE.encode(), every=0.2)
    fetch = fetch_tool()
    started = time.monotonic()
    with pytest.raises(RetriableError, match=r"did not answer within 1 s"):
        fetch(url="https://e.com/a")
    assert time.monotonic() - started < 5.0


@pytest.mark.parametrize(
    ("body", "kind"), [(b"true", "boolean"), (b"3.5", "number")], ids=["boolean", "number"]
)
def test_a_json_answer_that_is_not_an_object_is_named(
    fake_tavily: FakeTavily, body: bytes, kind: str
) -> None:
    fake_tavily.fail_next(200, body)
    search = {fn.__name__: fn for fn in SearchTool().get_tools()}["web_search"]
    with pytest.raises(RetriableError) as caught:
        search(query="q")
    assert str(caught.value) == (
        f"web_search failed: Tavily's answer could not be read: it is a JSON {kind}, not an "
        "object. Retry once; if it fails again, continue without web results."
    )
