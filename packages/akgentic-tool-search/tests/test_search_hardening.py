"""Attacks on SearchTool from both sides, against the local Tavily stand-in on 127.0.0.1.

From the provider: answers of the wrong JSON type, with missing keys or wrong field types,
nested too deep to parse, with megabyte-long strings, trickled a byte at a time, far larger
than any page should be, or echoing the API key. From the model: arguments that grow
without bound. Each must end in advice (a RetriableError) or a result that says what was
cut, within the configured limits, never in a raw exception or an unbounded answer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from tavily_standin import API_KEY, FakeTavily

from akgentic.tool.errors import RetriableError
from akgentic.tool.search import CrawlResult, SearchTool, WebFetch, WebPage, WebSearch


def tools_of(card: SearchTool) -> dict[str, Callable[..., Any]]:
    return {fn.__name__: fn for fn in card.get_tools()}


CALLS: dict[str, dict[str, Any]] = {
    "web_search": {"query": "q"},
    "web_fetch": {"url": "https://e.com/a"},
    "web_crawl": {"url": "https://site.example"},
}

# 200,000 levels of nesting: more than Python's JSON parser can recurse through.
DEEP = b"[" * 200_000 + b"]" * 200_000


# -- finding 6: malformed answers become advice --------------------------------------------


@pytest.mark.parametrize("tool", sorted(CALLS))
@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"[]", r"JSON list, not an object"),
        (b"null", r"JSON null, not an object"),
        (b'"just text"', r"JSON string, not an object"),
        (DEEP, r"nested too deeply"),
        (b"<html>not json</html>", r"not JSON"),
        ({"results": "none"}, r"results: Input should be a valid list"),
        ({"results": [{"url": 5, "title": "t"}]}, r"results\[0\]\.url: Input should be"),
        ({"results": [{"title": "no url"}]}, r"results\[0\]\.url: Field required"),
    ],
    ids=["list", "null", "string", "deep", "html", "results-not-list", "url-int", "no-url"],
)
def test_malformed_answers_become_advice_naming_the_fault(
    fake_tavily: FakeTavily, tool: str, body: Any, expected: str
) -> None:
    fake_tavily.fail_next(200, body)
    call = tools_of(SearchTool())[tool]
    with pytest.raises(RetriableError, match=expected) as caught:
        call(**CALLS[tool])
    assert "Retry once" in str(caught.value)


def test_a_crawl_answer_without_results_is_named(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(200, {"base_url": "https://site.example"})
    crawl = tools_of(SearchTool())["web_crawl"]
    with pytest.raises(RetriableError, match=r"results: Field required"):
        crawl(url="https://site.example")


def test_a_deeply_nested_error_body_is_still_advice(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(400, DEEP)
    search = tools_of(SearchTool())["web_search"]
    with pytest.raises(RetriableError, match="rejected the request as invalid"):
        search(query="q")


# -- finding 6: strings from the provider are bounded ------------------------------------


def test_huge_hit_fields_are_cut_and_say_how_much(fake_tavily: FakeTavily) -> None:
    url = "https://e.com/" + "a" * 2_000_000
    fake_tavily.fail_next(
        200, {"results": [{"url": url, "title": "T" * 1_000_000, "content": "c " * 1_000_000}]}
    )
    (hit,) = tools_of(SearchTool())["web_search"](query="q")
    assert len(hit.url) < 2_100
    assert hit.url.startswith("https://e.com/aaa")
    assert hit.url.endswith(f"[{len(url) - 2_000:,} more characters cut]")
    assert len(hit.title) < 400
    assert hit.title.endswith("[999,700 more characters cut]")
    assert len(hit.snippet) <= 800
    assert len(hit.model_dump_json()) < 4_000


def test_a_huge_crawl_base_url_and_page_urls_are_cut(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(
        200,
        {
            "base_url": "https://site.example/" + "b" * 2_000_000,
            "results": [{"url": "https://site.example/" + "p" * 2_000_000, "raw_content": "x"}],
        },
    )
    result = tools_of(SearchTool())["web_crawl"](url="https://site.example")
    assert isinstance(result, CrawlResult)
    assert len(result.base_url) < 2_100
    assert "more characters cut" in result.base_url
    assert len(result.pages[0].url) < 2_100
    assert "more characters cut" in result.pages[0].url


def test_a_huge_error_detail_is_cut(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(400, {"detail": {"error": "bad " + "x" * 5_000_000}})
    search = tools_of(SearchTool())["web_search"]
    with pytest.raises(RetriableError, match="more characters cut") as caught:
        search(query="q")
    assert len(str(caught.value)) < 1_000


def test_a_huge_failure_reason_for_one_page_is_cut(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(
        200, {"results": [], "failed_results": [{"url": "https://e.com/a", "error": "y" * 10**6}]}
    )
    fetch = tools_of(SearchTool())["web_fetch"]
    with pytest.raises(RetriableError, match="more characters cut") as caught:
        fetch(url="https://e.com/a")
    assert len(str(caught.value)) < 1_000


# -- finding 6: arguments from the model are bounded --------------------------------------


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("web_crawl", {"url": "https://e.com/" + "u" * 2_000_000}, r"`url` has a URL 2,000,014"),
        ("web_fetch", {"url": "https://e.com/" + "u" * 5_000}, r"`url` has a URL 5,014 char"),
        ("web_fetch", {"urls": ["https://e.com/" + "u" * 5_000]}, r"`urls` has a URL 5,014"),
        ("web_search", {"query": "q" * 1_000_000}, r"`query` is 1,000,000 characters long"),
        ("web_search", {"query": "q", "include_domains": ["a.com"] * 1_000}, r"1,000 entries"),
        ("web_search", {"query": "q", "include_domains": ["d" * 10_000]}, r"10,000 characters"),
        ("web_crawl", {"url": "https://e.com", "instructions": "i" * 10**6}, r"`instructions`"),
        ("web_fetch", {"url": "https://e.com", "extract_depth": "d" * 10**6}, r"characters cut"),
    ],
    ids=["crawl-url", "fetch-url", "fetch-urls", "query", "domains", "domain", "instr", "depth"],
)
def test_oversized_arguments_are_refused_before_any_request(
    fake_tavily: FakeTavily, tool: str, args: dict[str, Any], expected: str
) -> None:
    call = tools_of(SearchTool())[tool]
    with pytest.raises(RetriableError, match=expected) as caught:
        call(**args)
    assert len(str(caught.value)) < 1_000  # the refusal does not echo the argument
    assert fake_tavily.requests == []


def test_the_query_limit_is_configurable(fake_tavily: FakeTavily) -> None:
    search = tools_of(SearchTool(web_search=WebSearch(max_query_chars=20)))["web_search"]
    with pytest.raises(RetriableError, match=r"`query` is 21 characters long; the limit is 20"):
        search(query="q" * 21)
    assert search(query="q" * 20)


# -- finding 6: the timeout is a total deadline -------------------------------------------


@pytest.mark.parametrize("headers", [False, True], ids=["body", "headers"])
def test_a_trickled_answer_ends_at_the_deadline(fake_tavily: FakeTavily, headers: bool) -> None:
    fake_tavily.pages["https://e.com/a"] = "content"
    # 200 bytes at one per 0.2 s: 40 s of trickle, each byte well inside a per-read timeout.
    body = json.dumps({"results": [{"url": "https://e.com/a", "raw_content": "x" * 150}]})
    fake_tavily.trickle_next(body.encode(), every=0.2, headers=headers)
    fetch = tools_of(SearchTool(timeout_seconds=1))["web_fetch"]
    started = time.monotonic()
    with pytest.raises(RetriableError, match=r"did not answer within 1 s"):
        fetch(url="https://e.com/a")
    assert time.monotonic() - started < 5.0
    # The tool is still usable afterwards.
    assert fetch(url="https://e.com/a").content == "content"


# -- finding 6: the download is bounded, and so is the cache ------------------------------


def test_a_page_past_the_download_limit_is_cut_and_says_so(fake_tavily: FakeTavily) -> None:
    page = "".join(f"word{i} " for i in range(60_000))  # about 500,000 characters
    fake_tavily.pages["https://e.com/big"] = page
    card = SearchTool(max_download_bytes=100_000, web_fetch=WebFetch(max_chars=40_000))
    fetch = tools_of(card)["web_fetch"]
    first = fetch(url="https://e.com/big")
    assert isinstance(first, WebPage)
    assert first.total_chars < 100_000
    assert page.startswith(first.content)
    assert first.notice is not None
    assert "100,000-byte download limit" in first.notice
    assert "100,000 of " in first.notice  # how much of the announced size arrived
    # The cut text pages like any other, from the cache, and the last window ends it.
    text, window = first.content, first
    while window.next_offset is not None:
        window = fetch(url="https://e.com/big", offset=window.next_offset)
        text += window.content
    assert len(text) == first.total_chars
    assert page.startswith(text)
    assert len(fake_tavily.calls("/extract")) == 1


def test_a_crawl_past_the_download_limit_is_cut_and_says_so(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(
        200,
        {
            "base_url": "https://site.example",
            "results": [
                {"url": f"https://site.example/p{i}", "raw_content": "z" * 40_000} for i in range(5)
            ],
        },
    )
    result = tools_of(SearchTool(max_download_bytes=100_000))["web_crawl"](
        url="https://site.example"
    )
    assert 1 <= len(result.pages) < 5
    assert result.pages[-1].truncated
    assert result.notice is not None
    assert "were not read" in result.notice


def test_a_search_answer_past_the_download_limit_is_refused(fake_tavily: FakeTavily) -> None:
    search = tools_of(SearchTool(max_download_bytes=1_000))["web_search"]
    with pytest.raises(RetriableError, match=r"1,000-byte download limit.*fewer results"):
        search(query="q")


def test_the_page_cache_is_bounded_in_characters(fake_tavily: FakeTavily) -> None:
    for name in "abc":
        fake_tavily.pages[f"https://e.com/{name}"] = name * 4_000
    fetch = tools_of(SearchTool(web_fetch=WebFetch(cache_chars=10_000)))["web_fetch"]
    for name in "abc":
        fetch(url=f"https://e.com/{name}")
    assert len(fake_tavily.calls("/extract")) == 3
    fetch(url="https://e.com/c")  # still cached
    assert len(fake_tavily.calls("/extract")) == 3
    fetch(url="https://e.com/a")  # evicted: 12,000 characters do not fit in 10,000
    assert len(fake_tavily.calls("/extract")) == 4


# -- finding 8: credentials echoed by the provider are removed ----------------------------


@pytest.mark.parametrize(
    ("status", "text"),
    [
        (401, f"Invalid key. Request had Authorization: Bearer {API_KEY}"),
        (429, f"Too many requests for key {API_KEY}"),
        (400, 'bad request {"api_key": "sk-other-secret-123"}'),
        (432, "Authorization: bearer abc.def.ghi"),
    ],
)
def test_credentials_in_provider_errors_are_redacted(
    fake_tavily: FakeTavily, status: int, text: str
) -> None:
    fake_tavily.fail_next(status, {"detail": {"error": text}})
    search = tools_of(SearchTool())["web_search"]
    with pytest.raises(RetriableError) as caught:
        search(query="q")
    message = str(caught.value)
    assert "[redacted]" in message
    for secret in (API_KEY, "sk-other-secret-123", "abc.def.ghi"):
        assert secret not in message


def test_credentials_in_a_page_failure_are_redacted(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(
        200,
        {
            "results": [],
            "failed_results": [{"url": "https://e.com/a", "error": f"denied for {API_KEY}"}],
        },
    )
    fetch = tools_of(SearchTool())["web_fetch"]
    with pytest.raises(RetriableError, match=r"denied for \[redacted\]") as caught:
        fetch(url="https://e.com/a")
    assert API_KEY not in str(caught.value)
