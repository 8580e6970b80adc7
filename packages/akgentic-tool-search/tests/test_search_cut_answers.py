"""Answers cut at the download limit: exactly what arrived is kept, and the result says so.

The stand-in announces each body's length, so the notice can say how much of it arrived; the
byte counts below follow from the JSON the stand-in sends.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tavily_standin import FakeTavily

from akgentic.tool.search import SearchTool, WebCrawl, WebFetch


def tools_of(card: SearchTool) -> dict[str, Callable[..., Any]]:
    return {fn.__name__: fn for fn in card.get_tools()}


def notice(announced: int, rest: str) -> str:
    return (
        "Tavily's answer was larger than the 100,000-byte download limit, so it was cut "
        f"(100,000 of {announced:,} bytes arrived): {rest}. Look for a shorter source if the "
        "missing part matters."
    )


def test_a_cut_page_keeps_every_byte_that_arrived(fake_tavily: FakeTavily) -> None:
    answer = {"results": [{"url": "https://e.com/big", "raw_content": "a" * 200_000}]}
    fake_tavily.fail_next(200, answer)
    body = json.dumps(answer)
    card = SearchTool(max_download_bytes=100_000, web_fetch=WebFetch(max_chars=500))
    page = tools_of(card)["web_fetch"](url="https://e.com/big")
    assert page.total_chars == 100_000 - body.index("aaa")
    assert page.content == "a" * 500
    assert page.notice == notice(
        len(body), "the rest of this page's text cannot be read through web_fetch"
    )


def test_a_cut_crawl_marks_only_the_page_that_stops_early(fake_tavily: FakeTavily) -> None:
    answer = {
        "base_url": "https://site.example",
        "results": [
            {"url": f"https://site.example/p{i}", "raw_content": str(i) * 40_000} for i in range(5)
        ],
    }
    fake_tavily.fail_next(200, answer)
    card = SearchTool(max_download_bytes=100_000, web_crawl=WebCrawl(page_chars=50_000))
    result = tools_of(card)["web_crawl"](url="https://site.example")
    # Two whole pages, then the third as far as it arrived: shorter than page_chars, but cut.
    assert [(p.url, p.truncated) for p in result.pages] == [
        ("https://site.example/p0", False),
        ("https://site.example/p1", False),
        ("https://site.example/p2", True),
    ]
    assert [len(p.content) for p in result.pages[:2]] == [40_000, 40_000]
    assert 0 < len(result.pages[2].content) < 40_000
    assert result.omitted_pages == 0
    assert result.notice == notice(
        len(json.dumps(answer)), "the pages after the last one shown were not read"
    )
    assert fake_tavily.calls("/crawl")[0].body["format"] == "markdown"
