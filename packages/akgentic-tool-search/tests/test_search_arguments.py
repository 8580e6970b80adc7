"""Every argument check of the three tools: the exact refusal, and the values just inside.

A refusal names the argument at fault and what would be accepted, and costs no request. The
value at each limit is accepted and reaches Tavily as given, so a check that is one off in
either direction fails here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tavily_standin import FakeTavily

from akgentic.tool.errors import RetriableError
from akgentic.tool.search import SearchTool, WebCrawl

CRAWL_BOUNDS = "must be a whole number, at least 1 (max_depth and limit must both be at least 1)."
FETCH_ONE_OF = "web_fetch needs exactly one of `url` (one page) or `urls` (a list of pages)."
TIMEOUT = "timeout must be a number of seconds above 0."
URL_HELP = "needs an absolute http(s) URL such as https://example.com/page, got"
S, F, C = "web_search", "web_fetch", "web_crawl"
E = "https://e.com"

REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    (S, {"query": 5}, "web_search `query` must be text, got int."),
    (S, {"query": "  "}, "web_search needs a non-empty query."),
    (S, {"query": "q", "max_results": True}, "web_search `max_results` must be a whole number."),
    (S, {"query": "q", "max_results": 2.0}, "web_search `max_results` must be a whole number."),
    (S, {"query": "q", "max_results": 0}, "web_search max_results must be at least 1."),
    (
        S,
        {"query": "q", "include_domains": "python.org"},
        "web_search `include_domains` must be a list of domain names.",
    ),
    (
        S,
        {"query": "q", "include_domains": [1]},
        "web_search `include_domains` must be a list of domain names.",
    ),
    (
        S,
        {"query": "q", "include_domains": ["a.org"] * 51},
        "web_search `include_domains` has 51 entries; the limit is 50. Name only the few sites "
        "that matter.",
    ),
    (
        S,
        {"query": "q", "include_domains": ["d" * 254]},
        "web_search `include_domains` has an entry 254 characters long; a domain name has at "
        "most 253. Give names like 'python.org'.",
    ),
    (
        S,
        {"query": "q", "search_depth": "x"},
        "web_search search_depth must be 'basic' or 'advanced', got 'x'.",
    ),
    (F, {}, FETCH_ONE_OF),
    (F, {"url": E, "urls": [E]}, FETCH_ONE_OF),
    (F, {"url": 5}, "web_fetch `url` must be text, got int."),
    (
        F,
        {"url": "ftp://x/" + "y" * 300},
        f"web_fetch `url` {URL_HELP} 'ftp://x/{'y' * 191}… [110 more characters cut].",
    ),
    (F, {"url": "https://"}, f"web_fetch `url` {URL_HELP} 'https://'."),
    (F, {"url": E, "offset": -1}, "web_fetch offset must be a whole number, 0 or more."),
    (F, {"url": E, "offset": True}, "web_fetch offset must be a whole number, 0 or more."),
    (F, {"url": E, "timeout": True}, f"web_fetch {TIMEOUT}"),
    (F, {"url": E, "timeout": 0}, f"web_fetch {TIMEOUT}"),
    (F, {"urls": E}, "web_fetch `urls` must be a non-empty list of URLs."),
    (
        F,
        {"urls": [E] * 21},
        "web_fetch reads at most 20 URLs per call, got 21; split them over several calls.",
    ),
    (
        F,
        {"urls": [E], "offset": 3},
        "web_fetch `offset` applies to a single `url`; with `urls` every page starts at 0. Page "
        "on with `url` and `offset`.",
    ),
    (F, {"urls": [7]}, "web_fetch `urls` must be text, got int."),
    (F, {"urls": ["e.com"]}, f"web_fetch `urls` {URL_HELP} 'e.com'."),
    (
        F,
        {"url": E, "extract_depth": "x" * 100},
        f"web_fetch extract_depth must be 'basic' or 'advanced', got '{'x' * 39}… [62 more "
        "characters cut].",
    ),
    (C, {"url": 5}, "web_crawl `url` must be text, got int."),
    (C, {"url": "e.com"}, f"web_crawl `url` {URL_HELP} 'e.com'."),
    (
        C,
        {"url": "https://e.com/" + "u" * 1_987},
        "web_crawl `url` has a URL 2,001 characters long; the limit is 2,000. Give the page's "
        "plain address, without embedded data.",
    ),
    (C, {"url": E, "instructions": 5}, "web_crawl `instructions` must be text, got int."),
    (
        C,
        {"url": E, "instructions": "i" * 2_001},
        "web_crawl `instructions` is 2,001 characters long; the limit is 2,000. Say in a "
        "sentence or two what to look for.",
    ),
    (C, {"url": E, "max_depth": True}, f"web_crawl max_depth {CRAWL_BOUNDS}"),
    (C, {"url": E, "max_depth": 0}, f"web_crawl max_depth {CRAWL_BOUNDS}"),
    (C, {"url": E, "limit": 0}, f"web_crawl limit {CRAWL_BOUNDS}"),
    (C, {"url": E, "limit": 1.5}, f"web_crawl limit {CRAWL_BOUNDS}"),
    (
        C,
        {"url": E, "max_breadth": True},
        "web_crawl max_breadth must be a whole number, at least 1.",
    ),
    (C, {"url": E, "max_breadth": 0}, "web_crawl max_breadth must be a whole number, at least 1."),
    (
        C,
        {"url": E, "extract_depth": 3},
        "web_crawl extract_depth must be 'basic' or 'advanced', got 3.",
    ),
    (C, {"url": E, "timeout": "3"}, f"web_crawl {TIMEOUT}"),
    (C, {"url": E, "timeout": True}, f"web_crawl {TIMEOUT}"),
]


def tools_of(card: SearchTool) -> dict[str, Callable[..., Any]]:
    return {fn.__name__: fn for fn in card.get_tools()}


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    REFUSALS,
    ids=[f"{tool}-{'-'.join(args) or 'none'}-{i}" for i, (tool, args, _) in enumerate(REFUSALS)],
)
def test_a_bad_argument_is_refused_by_name_before_any_request(
    fake_tavily: FakeTavily, tool: str, args: dict[str, Any], expected: str
) -> None:
    with pytest.raises(RetriableError) as caught:
        tools_of(SearchTool())[tool](**args)
    assert str(caught.value) == expected
    assert fake_tavily.requests == []


# -- the values at each limit are accepted ------------------------------------------------


def test_search_limits_are_inclusive(fake_tavily: FakeTavily) -> None:
    domains = [f"site{i}.org" for i in range(49)] + ["d" * 253]
    tools_of(SearchTool())["web_search"](query="q", include_domains=domains)
    assert fake_tavily.calls("/search")[0].body["include_domains"] == domains


def test_an_empty_domain_list_means_no_restriction(fake_tavily: FakeTavily) -> None:
    tools_of(SearchTool())["web_search"](query="q", include_domains=[])
    assert "include_domains" not in fake_tavily.calls("/search")[0].body


def test_fetch_limits_are_inclusive(fake_tavily: FakeTavily) -> None:
    url = "http://e.com/" + "u" * 1_987  # 2,000 characters, plain http
    fake_tavily.pages[url] = "page"
    fetch = tools_of(SearchTool())["web_fetch"]
    assert fetch(url=f"  {url}  ", timeout=0.5).content == "page"
    body = fake_tavily.calls("/extract")[0].body
    assert (body["urls"], body["timeout"]) == (url, 0.5)


def test_crawl_limits_are_inclusive_and_sent_as_given(fake_tavily: FakeTavily) -> None:
    crawl = tools_of(SearchTool())["web_crawl"]
    crawl(url=E, instructions="i" * 2_000, max_depth=1, limit=1, max_breadth=1)
    body = fake_tavily.calls("/crawl")[0].body
    assert (body["max_depth"], body["limit"], body["max_breadth"]) == (1, 1, 1)
    assert body["instructions"] == "i" * 2_000


def test_crawl_defaults_reach_the_request(fake_tavily: FakeTavily) -> None:
    card = SearchTool(web_crawl=WebCrawl(extract_depth="advanced", max_breadth=None))
    crawl = tools_of(card)["web_crawl"]
    crawl(url=E, instructions="   ")
    crawl(url=E, max_breadth=7)
    first, second = (call.body for call in fake_tavily.calls("/crawl"))
    # One link deep unless the model asks for more; blank instructions are not sent.
    assert (first["max_depth"], first["extract_depth"]) == (1, "advanced")
    assert "instructions" not in first
    assert "max_breadth" not in first
    # With no configured cap, the model's breadth is sent as asked.
    assert second["max_breadth"] == 7


def test_a_configured_breadth_caps_and_defaults_the_request(fake_tavily: FakeTavily) -> None:
    crawl = tools_of(SearchTool(web_crawl=WebCrawl(max_breadth=4)))["web_crawl"]
    crawl(url=E)
    crawl(url=E, max_breadth=9)
    crawl(url=E, max_breadth=2)
    assert [c.body["max_breadth"] for c in fake_tavily.calls("/crawl")] == [4, 4, 2]


def test_the_model_may_lower_the_crawl_timeout_and_choose_the_depth(
    fake_tavily: FakeTavily,
) -> None:
    crawl = tools_of(SearchTool())["web_crawl"]
    crawl(url=E, timeout=2)
    crawl(url=E, extract_depth="advanced")
    first, second = (call.body for call in fake_tavily.calls("/crawl"))
    assert (first["timeout"], first["extract_depth"]) == (2, "basic")
    assert (second["timeout"], second["extract_depth"]) == (150, "advanced")


def test_a_crawl_failure_is_named_as_one(fake_tavily: FakeTavily) -> None:
    fake_tavily.fail_next(500, {"detail": {"error": "boom"}})
    with pytest.raises(RetriableError) as caught:
        tools_of(SearchTool())["web_crawl"](url=E)
    assert str(caught.value).startswith("web_crawl failed: Tavily had a server error (HTTP 500).")
