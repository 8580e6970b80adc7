"""What reaches Tavily from the environment, the card and the model's search arguments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tavily_standin import API_KEY, FakeTavily

from akgentic.tool.errors import RetriableError
from akgentic.tool.search import MissingTavilyKeyError, SearchTool, WebSearch
from akgentic.tool.search.search import _clients_from_environment


def search_tool(card: SearchTool | None = None) -> Callable[..., Any]:
    return {fn.__name__: fn for fn in (card or SearchTool()).get_tools()}["web_search"]


def test_the_environment_is_read_trimmed(
    fake_tavily: FakeTavily, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", f"  {API_KEY}\n")
    monkeypatch.setenv("TAVILY_API_BASE_URL", f"  {fake_tavily.url}/  ")
    assert search_tool()(query="q")
    (call,) = fake_tavily.calls("/search")  # not "//search"
    assert call.headers["Authorization"] == f"Bearer {API_KEY}"


def test_without_a_base_url_the_real_endpoint_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "k")
    for value in (None, "   "):
        if value is None:
            monkeypatch.delenv("TAVILY_API_BASE_URL", raising=False)
        else:
            monkeypatch.setenv("TAVILY_API_BASE_URL", value)
        clients = _clients_from_environment()
        assert (clients.api_key, clients.base_url) == ("k", "https://api.tavily.com")


def test_a_missing_key_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "")
    with pytest.raises(MissingTavilyKeyError) as caught:
        SearchTool(web_fetch=False, web_crawl=False).get_tools()
    assert str(caught.value) == (
        "SearchTool needs the TAVILY_API_KEY environment variable (a Tavily API key) when its "
        "tools are bound; set it, or remove SearchTool from this agent."
    )


def test_the_search_settings_sent(fake_tavily: FakeTavily) -> None:
    tuned = SearchTool(web_search=WebSearch(search_depth="advanced", max_results=3))
    search_tool()(query="  plain query  ")
    search_tool(tuned)(query="q", topic="news", time_range="week", search_depth="basic")
    search_tool(tuned)(query="q", max_results=3)
    default, chosen, configured = (c.body for c in fake_tavily.calls("/search"))
    assert (default["query"], default["topic"], default["search_depth"]) == (
        "plain query",
        "general",
        "basic",
    )
    assert "time_range" not in default
    assert (chosen["topic"], chosen["time_range"], chosen["search_depth"]) == (
        "news",
        "week",
        "basic",
    )
    assert (configured["search_depth"], configured["max_results"]) == ("advanced", 3)


def test_a_search_waits_at_most_its_own_timeout(fake_tavily: FakeTavily) -> None:
    fake_tavily.stall_next(3.0)
    with pytest.raises(RetriableError, match=r"did not answer within 0\.3 s"):
        search_tool(SearchTool(web_search=WebSearch(timeout=0.3)))(query="q")


def test_one_result_may_be_asked_for(fake_tavily: FakeTavily) -> None:
    (hit,) = search_tool()(query="q", max_results=1)
    assert hit.url == "https://example.com/0"
    assert fake_tavily.calls("/search")[0].body["max_results"] == 1


def test_a_search_answer_past_the_limit_asks_for_less(fake_tavily: FakeTavily) -> None:
    with pytest.raises(RetriableError) as caught:
        search_tool(SearchTool(max_download_bytes=1_000))(query="q")
    assert str(caught.value) == (
        "web_search failed: Tavily's answer passed the 1,000-byte download limit. Ask for "
        "fewer results (max_results), or a narrower query."
    )


def test_a_hit_without_text_has_an_empty_snippet(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(200, {"results": [{"url": "https://e.com/a", "title": "A"}]})
    (hit,) = search_tool()(query="q")
    assert (hit.title, hit.url, hit.snippet) == ("A", "https://e.com/a", "")
