"""web_fetch's paths through its cache, the provider's echo of URLs, and its page windows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tavily_standin import FakeTavily

from akgentic.tool.errors import RetriableError
from akgentic.tool.search import SearchTool, WebFetch

FAILED = "Check the URL, or use web_search to find another page with the same information."


def fetch_tool(card: SearchTool | None = None) -> Callable[..., Any]:
    return {fn.__name__: fn for fn in (card or SearchTool()).get_tools()}["web_fetch"]


def test_only_the_pages_not_cached_are_asked_for(fake_tavily: FakeTavily) -> None:
    for name in "abc":
        fake_tavily.pages[f"https://e.com/{name}"] = f"page {name}"
    fetch = fetch_tool()
    fetch(url="https://e.com/a")
    pages = fetch(urls=["https://e.com/a", "https://e.com/b"])
    assert [(p.url, p.content, p.notice) for p in pages] == [
        ("https://e.com/a", "page a", None),
        ("https://e.com/b", "page b", None),
    ]
    fetch(urls=["https://e.com/a", "https://e.com/b", "https://e.com/c"])
    fetch(urls=["https://e.com/c", "https://e.com/a"])  # all cached: no request
    assert [c.body["urls"] for c in fake_tavily.calls("/extract")] == [
        "https://e.com/a",
        "https://e.com/b",  # one URL left to ask: sent on its own, not as a list
        "https://e.com/c",
    ]


def test_a_url_given_twice_is_asked_and_returned_once(fake_tavily: FakeTavily) -> None:
    fake_tavily.pages["https://e.com/a"] = "page a"
    fake_tavily.pages["https://e.com/b"] = "page b"
    pages = fetch_tool()(urls=["https://e.com/a", " https://e.com/a ", "https://e.com/b"])
    assert [p.url for p in pages] == ["https://e.com/a", "https://e.com/b"]
    assert fake_tavily.calls("/extract")[0].body["urls"] == ["https://e.com/a", "https://e.com/b"]


def test_twenty_urls_are_read_in_one_call(fake_tavily: FakeTavily) -> None:
    urls = [f"https://e.com/{i}" for i in range(20)]
    for url in urls:
        fake_tavily.pages[url] = url
    pages = fetch_tool()(urls=urls)
    assert [p.content for p in pages] == urls
    assert len(fake_tavily.calls("/extract")) == 1


def test_a_normalised_echo_of_a_single_url_is_its_page(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(200, {"results": [{"url": "https://e.com/a/", "raw_content": "A"}]})
    page = fetch_tool()(url="https://e.com/a")
    assert (page.url, page.content, page.notice) == ("https://e.com/a", "A", None)


def test_with_several_urls_an_unknown_echo_is_not_guessed(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(
        200,
        {
            "results": [
                {"url": "https://e.com/a", "raw_content": "A"},
                {"url": "https://e.com/b/", "raw_content": "B"},
            ]
        },
    )
    a, b = fetch_tool()(urls=["https://e.com/a", "https://e.com/b"])
    assert (a.content, a.error) == ("A", None)
    assert (b.content, b.error) == (
        "",
        f"web_fetch could not read https://e.com/b: no content was extracted. {FAILED}",
    )


def test_when_every_page_fails_the_call_fails_naming_each(fake_tavily: FakeTavily) -> None:
    with pytest.raises(RetriableError) as caught:
        fetch_tool()(urls=["https://e.com/x", "https://e.com/y"])
    assert str(caught.value) == (
        f"web_fetch could not read https://e.com/x: Failed to fetch url. {FAILED} "
        f"web_fetch could not read https://e.com/y: Failed to fetch url. {FAILED}"
    )


def test_the_offset_at_the_very_end_is_an_empty_last_window(fake_tavily: FakeTavily) -> None:
    fake_tavily.pages["https://e.com/short"] = "tiny"
    fetch = fetch_tool()
    end = fetch(url="https://e.com/short", offset=4)
    assert (end.content, end.offset, end.total_chars, end.next_offset) == ("", 4, 4, None)
    with pytest.raises(RetriableError) as caught:
        fetch(url="https://e.com/short", offset=5)
    assert str(caught.value) == (
        "web_fetch offset 5 is past the end of https://e.com/short (4 characters); use an "
        "offset below 4."
    )


def test_a_window_ending_exactly_at_the_end_is_the_last(fake_tavily: FakeTavily) -> None:
    fake_tavily.pages["https://e.com/p"] = "x" * 1_000
    fetch = fetch_tool(SearchTool(web_fetch=WebFetch(max_chars=500)))
    first = fetch(url="https://e.com/p")
    assert (len(first.content), first.next_offset) == (500, 500)
    last = fetch(url="https://e.com/p", offset=500)
    assert (len(last.content), last.offset, last.next_offset) == (500, 500, None)


def test_the_extraction_settings_sent(fake_tavily: FakeTavily) -> None:
    fake_tavily.pages["https://e.com/a"] = "A"
    tuned = SearchTool(web_fetch=WebFetch(extract_depth="advanced", timeout=20))
    fetch_tool()(url="https://e.com/a")
    fetch_tool(tuned)(url="https://e.com/a")
    fetch_tool(tuned)(url="https://e.com/a", extract_depth="basic", timeout=500)
    sent = [(c.body["extract_depth"], c.body["timeout"]) for c in fake_tavily.calls("/extract")]
    assert sent == [("basic", 30), ("advanced", 20), ("basic", 20)]


def test_a_fetch_failure_is_named_as_one(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(500, {"detail": {"error": "boom"}})
    with pytest.raises(RetriableError) as caught:
        fetch_tool()(url="https://e.com/a")
    assert str(caught.value).startswith("web_fetch failed: Tavily had a server error (HTTP 500).")
    fake_tavily.fail_next(200, {"results": [{"raw_content": "no url"}]})
    with pytest.raises(RetriableError) as caught:
        fetch_tool()(url="https://e.com/a")
    assert str(caught.value) == (
        "web_fetch failed: Tavily's answer did not have the expected shape (results[0].url: "
        "Field required). Retry once; if it fails again, continue without web results."
    )


def test_missing_texts_and_reasons_read_as_empty(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(
        200,
        {
            "results": [{"url": "https://e.com/a", "raw_content": None}],
            "failed_results": [{"url": "https://e.com/b", "error": None}],
        },
    )
    a, b = fetch_tool()(urls=["https://e.com/a", "https://e.com/b"])
    assert (a.content, a.total_chars, a.error) == ("", 0, None)
    assert (b.content, b.offset, b.total_chars, b.next_offset) == ("", 0, 0, None)
    assert b.error == (
        f"web_fetch could not read https://e.com/b: no content was extracted. {FAILED}"
    )
