"""SearchTool against a local Tavily stand-in: results, bounds, configuration and failures."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from pydantic_ai import Agent, ModelRetry
from tavily_standin import FakeTavily

import akgentic.tool.search as search_pkg
from akgentic.llm.testing import ScriptedCall, ScriptedModel
from akgentic.tool.core.channels import COMMAND
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent, assert_card_conformance
from akgentic.tool.errors import RetriableError
from akgentic.tool.search import (
    CrawlResult,
    MissingTavilyKeyError,
    SearchResult,
    SearchTool,
    WebCrawl,
    WebFetch,
    WebPage,
    WebSearch,
)


def tools_of(card: SearchTool) -> dict[str, Callable[..., Any]]:
    return {fn.__name__: fn for fn in card.get_tools()}


def test_public_names_are_pinned() -> None:
    assert sorted(search_pkg.__all__) == sorted(
        [
            "TAVILY_API_BASE_URL_ENV",
            "TAVILY_API_KEY_ENV",
            "CrawlResult",
            "CrawledPage",
            "MissingTavilyKeyError",
            "SearchResult",
            "SearchTool",
            "WebCrawl",
            "WebFetch",
            "WebPage",
            "WebSearch",
        ]
    )


# -- configuration and binding -----------------------------------------------------------


def test_missing_key_fails_at_bind_time_not_at_construction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    card = SearchTool(web_search=WebSearch(max_results=3))
    # The card itself is plain configuration: it validates and round-trips without a key.
    assert SearchTool.model_validate_json(card.model_dump_json()) == card
    with pytest.raises(MissingTavilyKeyError, match="TAVILY_API_KEY"):
        card.get_tools()
    monkeypatch.setenv("TAVILY_API_KEY", "   ")
    with pytest.raises(MissingTavilyKeyError, match="TAVILY_API_KEY"):
        card.get_tools()


def test_disabled_capabilities_need_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    card = SearchTool(web_search=False, web_fetch=False, web_crawl=False)
    assert card.get_tools() == []
    assert card.get_commands() == {}


def test_capabilities_can_be_removed_or_moved_to_commands(fake_tavily: FakeTavily) -> None:
    card = SearchTool(web_fetch=False, web_crawl=WebCrawl(expose={COMMAND}))
    assert sorted(tools_of(card)) == ["web_search"]
    commands = card.get_commands()
    assert list(commands) == [WebCrawl]
    assert commands[WebCrawl].__name__ == "web_crawl"


def test_instructions_reach_the_tool_description(fake_tavily: FakeTavily) -> None:
    card = SearchTool(web_search=WebSearch(instructions="Prefer official documentation."))
    doc = tools_of(card)["web_search"].__doc__ or ""
    assert doc.startswith("Search the web.")
    assert doc.rstrip().endswith("Prefer official documentation.")


def test_card_conformance(fake_tavily: FakeTavily, tool_agent: ToolTestAgent) -> None:
    assert_card_conformance(
        SearchTool(web_fetch=WebFetch(max_chars=1000), timeout_seconds=5),
        observer=tool_agent,
        bad_calls={
            "web_search": [{"query": ""}, {"query": "x" * 500}, {"query": "ok", "max_results": 0}],
            "web_fetch": [
                {"url": "not a url"},
                {"url": "ftp://example.com/file"},
                {"url": "https://example.com/unknown"},
                {"url": "https://example.com/", "offset": -1},
            ],
            "web_crawl": [{"url": "example.com"}, {"url": "https://e.com", "limit": 0}],
        },
    )
    # Bad input never reached the provider, except the fetch of an unknown page.
    assert [r.path for r in fake_tavily.requests] == ["/extract"]


# -- web_search ---------------------------------------------------------------------------


def test_web_search_returns_bounded_hits_and_sends_the_key(fake_tavily: FakeTavily) -> None:
    search = tools_of(SearchTool())["web_search"]
    hits = search(query="akgentic actors")
    assert len(hits) == 5  # the stand-in returned 7; the default cap is 5
    assert all(isinstance(hit, SearchResult) for hit in hits)
    assert hits[0].title == "Result 0 for akgentic actors"
    assert hits[0].url == "https://example.com/0"
    assert hits[0].score == pytest.approx(0.9)
    assert all(len(hit.snippet) <= 800 for hit in hits)
    assert hits[0].snippet.endswith("…")
    (call,) = fake_tavily.calls("/search")
    assert call.headers["Authorization"] == "Bearer tvly-test-key"
    assert call.body["query"] == "akgentic actors"
    assert call.body["max_results"] == 5
    assert call.body["search_depth"] == "basic"


def test_web_search_caps_what_the_model_asks_for(fake_tavily: FakeTavily) -> None:
    card = SearchTool(web_search=WebSearch(max_results=2, snippet_chars=100))
    search = tools_of(card)["web_search"]
    hits = search(query="q", max_results=50, topic="news", include_domains=["python.org"])
    assert len(hits) == 2
    assert all(len(hit.snippet) <= 100 for hit in hits)
    body = fake_tavily.calls("/search")[0].body
    assert body["max_results"] == 2
    assert body["topic"] == "news"
    assert body["include_domains"] == ["python.org"]


# -- web_fetch ----------------------------------------------------------------------------


def test_web_fetch_reads_a_long_page_window_by_window_with_one_provider_call(
    fake_tavily: FakeTavily,
) -> None:
    page = "".join(f"line {i:05d}\n" for i in range(3000))  # 33,000 characters
    fake_tavily.pages["https://docs.example.com/big"] = page
    fetch = tools_of(SearchTool(web_fetch=WebFetch(max_chars=10_000)))["web_fetch"]

    parts: list[str] = []
    offset: int | None = 0
    while offset is not None:
        window = fetch(url="https://docs.example.com/big", offset=offset)
        assert isinstance(window, WebPage)
        assert len(window.content) <= 10_000
        assert window.total_chars == len(page)
        parts.append(window.content)
        offset = window.next_offset
    assert "".join(parts) == page
    assert len(parts) == 4
    assert len(fake_tavily.calls("/extract")) == 1
    body = fake_tavily.calls("/extract")[0].body
    assert body["urls"] == "https://docs.example.com/big"
    assert body["format"] == "markdown"


def test_web_fetch_of_a_page_the_provider_cannot_read(fake_tavily: FakeTavily) -> None:
    fetch = tools_of(SearchTool())["web_fetch"]
    with pytest.raises(RetriableError, match=r"could not read https://nowhere\.example/"):
        fetch(url="https://nowhere.example/")


def test_web_fetch_offset_past_the_end(fake_tavily: FakeTavily) -> None:
    fake_tavily.pages["https://e.com/short"] = "tiny"
    fetch = tools_of(SearchTool())["web_fetch"]
    whole = fetch(url="https://e.com/short")
    assert whole.content == "tiny"
    assert whole.next_offset is None
    with pytest.raises(RetriableError, match="past the end"):
        fetch(url="https://e.com/short", offset=10)


# -- web_crawl ----------------------------------------------------------------------------


def test_web_crawl_bounds_pages_and_their_text(fake_tavily: FakeTavily) -> None:
    card = SearchTool(web_crawl=WebCrawl(max_pages=3, max_depth=2, page_chars=500))
    crawl = tools_of(card)["web_crawl"]
    result = crawl(url="https://site.example/docs", instructions="API pages", max_depth=9)
    assert isinstance(result, CrawlResult)
    assert result.base_url == "https://site.example/docs"
    assert [p.url for p in result.pages] == [f"https://site.example/docs/p{i}" for i in range(3)]
    assert all(p.truncated and len(p.content) <= 500 for p in result.pages)
    assert result.omitted_pages == 1
    body = fake_tavily.calls("/crawl")[0].body
    assert body["limit"] == 3
    assert body["max_depth"] == 2
    assert body["instructions"] == "API pages"


# -- provider failures --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (429, {"detail": {"error": "Rate limit exceeded"}}, r"HTTP 429.*Wait about a minute"),
        (500, {"detail": {"error": "boom"}}, r"server error \(HTTP 500\)\. Retry in a few"),
        (503, "Service Unavailable", r"server error \(HTTP 503\)"),
        (400, {"detail": {"error": "Query is too long"}}, r"invalid: Query is too long"),
        (432, {"detail": {"error": "Plan limit"}}, r"plan or credit limit.*Do not retry"),
        (404, {"detail": {"error": "nope"}}, r"answered HTTP 404"),
        (202, {"status": "queued"}, r"unexpected answer"),
    ],
)
def test_provider_errors_become_advice(
    fake_tavily: FakeTavily, status: int, body: Any, expected: str
) -> None:
    fake_tavily.fail_next(status, body)
    search = tools_of(SearchTool())["web_search"]
    with pytest.raises(RetriableError, match=expected):
        search(query="anything")


def test_a_rejected_key_is_reported_as_unfixable_by_retrying(
    fake_tavily: FakeTavily, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-wrong")
    crawl = tools_of(SearchTool())["web_crawl"]
    with pytest.raises(RetriableError, match=r"rejected the configured API key \(HTTP 401\)"):
        crawl(url="https://site.example")
    assert fake_tavily.calls("/crawl")[0].headers["Authorization"] == "Bearer tvly-wrong"


def test_a_slow_answer_past_the_timeout(fake_tavily: FakeTavily) -> None:
    fake_tavily.stall_next(5.0)
    fake_tavily.pages["https://e.com/a"] = "content"
    fetch = tools_of(SearchTool(timeout_seconds=0.3))["web_fetch"]
    started = time.monotonic()
    with pytest.raises(RetriableError, match=r"did not answer within 0\.3 s"):
        fetch(url="https://e.com/a")
    assert time.monotonic() - started < 3.0
    # The next call (not stalled) works with the same tool.
    assert fetch(url="https://e.com/a").content == "content"


def test_an_unreadable_answer(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(200, b"<html>not json</html>")
    search = tools_of(SearchTool())["web_search"]
    with pytest.raises(RetriableError, match="could not be read"):
        search(query="q")


def test_an_unreachable_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # Nothing listens on that port any more.
    monkeypatch.setenv("TAVILY_API_KEY", "k")
    monkeypatch.setenv("TAVILY_API_BASE_URL", f"http://127.0.0.1:{port}")
    search = tools_of(SearchTool(timeout_seconds=2))["web_search"]
    with pytest.raises(RetriableError, match="could not be reached"):
        search(query="q")


# -- through the factory and a pydantic-ai agent ------------------------------------------


def test_factory_turns_provider_errors_into_the_framework_retry(
    fake_tavily: FakeTavily, tool_agent: ToolTestAgent
) -> None:
    factory = ToolFactory([SearchTool()], observer=tool_agent, retry_exception=ModelRetry)
    search = {fn.__name__: fn for fn in factory.get_tools()}["web_search"]
    fake_tavily.fail_next(429, {"detail": {"error": "slow down"}})
    with pytest.raises(ModelRetry, match="HTTP 429"):
        search(query="q")
    assert search(query="q")[0].url == "https://example.com/0"


async def test_an_agent_searches_and_sees_rate_limit_advice(
    fake_tavily: FakeTavily, tool_agent: ToolTestAgent
) -> None:
    factory = ToolFactory([SearchTool()], observer=tool_agent, retry_exception=ModelRetry)
    search = ScriptedCall("web_search", {"query": "pykka actors", "max_results": 2})
    script = ScriptedModel(search, "finished", search, "finished")  # one search a run
    agent = Agent(script, tools=factory.get_tools())
    result = await agent.run("find it")
    assert result.output == "finished"
    assert [hit.url for hit in script.returned()[0]] == [
        "https://example.com/0",
        "https://example.com/1",
    ]

    fake_tavily.fail_next(429, {"detail": {"error": "Rate limit exceeded"}})
    result = await agent.run("again")
    assert "HTTP 429" in script.retried()[-1]
    assert "Wait about a minute" in script.retried()[-1]


def test_concurrent_calls_from_worker_threads(fake_tavily: FakeTavily) -> None:
    # pydantic-ai runs sync tools in worker threads, several at once for parallel calls.
    for i in range(8):
        fake_tavily.pages[f"https://e.com/{i}"] = f"page {i} " * 100
    fetch = tools_of(SearchTool())["web_fetch"]
    with ThreadPoolExecutor(max_workers=8) as pool:
        pages = list(pool.map(lambda i: fetch(url=f"https://e.com/{i}"), range(8)))
        again = list(pool.map(lambda i: fetch(url=f"https://e.com/{i}"), range(8)))
    assert [p.content for p in pages] == [f"page {i} " * 100 for i in range(8)]
    assert again == pages
    assert len(fake_tavily.calls("/extract")) == 8  # the second round came from the cache
