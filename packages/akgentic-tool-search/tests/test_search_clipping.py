"""Where a snippet or a crawled page's text is cut: on a word boundary when one is near.

The text is cut to the configured length including the closing '…'; the cut moves back to
the last space when that space lies in the second half of the kept text, so a word is not
split, but a long unbroken run of characters is still cut at the limit.
"""

from __future__ import annotations

import pytest
from tavily_standin import FakeTavily

from akgentic.tool.search import SearchTool, WebCrawl, WebSearch

CUTS = [
    ("x" * 50, "x" * 50),  # exactly the limit: kept whole, no mark
    ("x" * 100, "x" * 49 + "…"),  # no space at all: cut at the limit
    ("a" * 30 + " " + "b" * 10 + " " + "c" * 30, "a" * 30 + " " + "b" * 10 + "…"),  # last space
    ("a" * 25 + " " + "b" * 40, "a" * 25 + " " + "b" * 23 + "…"),  # space at half: not used
    ("a" * 20 + " " + "b" * 60, "a" * 20 + " " + "b" * 28 + "…"),  # space too early
    ("a" * 48 + "\n\n" + "b" * 10, "a" * 48 + "…"),  # trailing whitespace dropped
    ("  " + "a" * 60, "  " + "a" * 47 + "…"),  # leading whitespace kept
]


@pytest.mark.parametrize(("content", "snippet"), CUTS, ids=[str(i) for i in range(len(CUTS))])
def test_a_snippet_is_cut_at_the_limit_or_the_last_word(
    fake_tavily: FakeTavily, content: str, snippet: str
) -> None:
    fake_tavily.fail_next(200, {"results": [{"url": "https://e.com/a", "content": content}]})
    card = SearchTool(web_search=WebSearch(snippet_chars=50))
    (hit,) = {fn.__name__: fn for fn in card.get_tools()}["web_search"](query="q")
    assert hit.snippet == snippet
    # A hit without a title is titled by its URL, and one without a score has none.
    assert (hit.title, hit.score) == ("https://e.com/a", None)


def test_a_crawled_page_is_cut_the_same_way_and_says_so(fake_tavily: FakeTavily) -> None:
    text = "a" * 150 + " " + "b" * 100
    fake_tavily.fail_next(
        200,
        {
            "base_url": "https://site.example",
            "results": [
                {"url": "https://site.example/long", "raw_content": text},
                {"url": "https://site.example/fits", "raw_content": "c" * 200},
                {"url": "https://site.example/empty"},
            ],
        },
    )
    card = SearchTool(web_crawl=WebCrawl(page_chars=200))
    result = {fn.__name__: fn for fn in card.get_tools()}["web_crawl"](url="https://site.example")
    long, fits, empty = result.pages
    assert (long.content, long.truncated) == ("a" * 150 + "…", True)
    assert (fits.content, fits.truncated) == ("c" * 200, False)
    assert (empty.content, empty.truncated) == ("", False)
    assert (result.omitted_pages, result.notice) == (0, None)
