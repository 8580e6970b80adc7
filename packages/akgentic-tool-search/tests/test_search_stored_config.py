"""Stored SearchTool configurations of akgentic-tool 1.6.4 load, round-trip and work.

Each entry of ``fixtures/stored_config.yaml`` is validated, dumped and validated again,
then bound through ``ToolFactory`` on a real actor system and called against the local
Tavily stand-in: the settings it carries must be the ones that reach Tavily.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from tavily_standin import FakeTavily

from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.search import SearchTool, WebCrawl, WebFetch, WebSearch

ENTRIES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "fixtures" / "stored_config.yaml").read_text()
)


@pytest.mark.parametrize("entry", ENTRIES, ids=[str(i) for i in range(len(ENTRIES))])
def test_stored_config_loads_round_trips_and_works(
    entry: dict[str, Any], fake_tavily: FakeTavily, tool_agent: ToolTestAgent
) -> None:
    assert entry["card"] == "SearchTool"
    card = SearchTool.model_validate(entry["config"])
    again = SearchTool.model_validate(card.model_dump())
    assert again == card
    assert SearchTool.model_validate_json(card.model_dump_json()) == card

    factory = ToolFactory([again], observer=tool_agent)
    tools = {fn.__name__: fn for fn in factory.get_tools()}
    fake_tavily.pages["https://docs.example/a"] = "alpha " * 50
    if "web_search" in tools:
        assert tools["web_search"](query="actor model")
    if "web_fetch" in tools:
        assert tools["web_fetch"](url="https://docs.example/a").total_chars == 300
    if "web_crawl" in tools:
        assert tools["web_crawl"](url="https://docs.example").pages
    assert fake_tavily.requests, "at least one tool reached Tavily"


def test_tavily_parameter_names_reach_the_requests(
    fake_tavily: FakeTavily, tool_agent: ToolTestAgent
) -> None:
    """The catalog entry written with Tavily's own names is applied to every request."""
    card = SearchTool.model_validate(
        {
            "web_search": {"max_results": 5},
            "web_crawl": {"timeout": 150, "max_depth": 3, "max_breadth": 5, "limit": 10},
            "web_fetch": {"timeout": 30},
        }
    )
    assert isinstance(card.web_crawl, WebCrawl)
    assert card.web_crawl.limit == 10
    tools = {fn.__name__: fn for fn in ToolFactory([card], observer=tool_agent).get_tools()}
    fake_tavily.pages["https://docs.example/a"] = "alpha"

    assert len(tools["web_search"](query="q", max_results=50)) == 5
    tools["web_fetch"](url="https://docs.example/a")
    # Asking for more than configured is capped; the defaults are the configured values.
    result = tools["web_crawl"](url="https://docs.example", max_depth=9, limit=99, max_breadth=50)
    assert len(result.pages) == 10
    assert result.omitted_pages == 1
    tools["web_crawl"](url="https://docs.example", max_depth=2, limit=3, max_breadth=2)

    assert fake_tavily.calls("/search")[0].body["max_results"] == 5
    assert fake_tavily.calls("/extract")[0].body["timeout"] == 30
    first, second = (call.body for call in fake_tavily.calls("/crawl"))
    assert (first["timeout"], first["max_depth"], first["max_breadth"], first["limit"]) == (
        150,
        3,
        5,
        10,
    )
    assert (second["max_depth"], second["max_breadth"], second["limit"]) == (2, 2, 3)


def test_predecessor_defaults() -> None:
    """Defaults of the fields the predecessor had, where they describe the same thing."""
    assert WebSearch().max_results == 5
    assert WebSearch().search_depth is None
    assert WebFetch().timeout == 30
    assert WebFetch().extract_depth is None
    crawl = WebCrawl()
    assert (crawl.timeout, crawl.limit, crawl.max_breadth, crawl.extract_depth) == (
        150,
        None,
        None,
        None,
    )
    assert crawl.page_cap == crawl.max_pages == 10


def test_card_ceiling_bounds_every_capability(
    fake_tavily: FakeTavily, tool_agent: ToolTestAgent
) -> None:
    card = SearchTool(web_crawl=WebCrawl(timeout=150), timeout_seconds=20)
    tools = {fn.__name__: fn for fn in ToolFactory([card], observer=tool_agent).get_tools()}
    tools["web_crawl"](url="https://docs.example")
    assert fake_tavily.calls("/crawl")[0].body["timeout"] == 20


def test_predecessor_tool_arguments(fake_tavily: FakeTavily, tool_agent: ToolTestAgent) -> None:
    """The argument names the predecessor's tools took are accepted and applied."""
    tools = {fn.__name__: fn for fn in ToolFactory([SearchTool()], observer=tool_agent).get_tools()}
    fake_tavily.pages["https://e.com/a"] = "first page"
    fake_tavily.pages["https://e.com/b"] = "second page"

    tools["web_search"](query="q", search_depth="advanced")
    assert fake_tavily.calls("/search")[0].body["search_depth"] == "advanced"

    pages = tools["web_fetch"](
        urls=["https://e.com/a", "https://e.com/b", "https://e.com/missing"],
        extract_depth="advanced",
        timeout=5,
    )
    assert [(p.url, p.content, p.error is None) for p in pages] == [
        ("https://e.com/a", "first page", True),
        ("https://e.com/b", "second page", True),
        ("https://e.com/missing", "", False),
    ]
    body = fake_tavily.calls("/extract")[0].body
    assert body["urls"] == ["https://e.com/a", "https://e.com/b", "https://e.com/missing"]
    assert (body["extract_depth"], body["timeout"]) == ("advanced", 5)

    tools["web_crawl"](url="https://e.com", extract_depth="advanced", timeout=1000)
    crawl = fake_tavily.calls("/crawl")[0].body
    assert crawl["extract_depth"] == "advanced"
    assert crawl["timeout"] == 150  # the model cannot raise the configured bound


@pytest.mark.parametrize(
    ("name", "kwargs", "expected"),
    [
        ("web_fetch", {}, "exactly one of `url`"),
        ("web_fetch", {"url": "https://e.com/a", "urls": ["https://e.com/b"]}, "exactly one"),
        ("web_fetch", {"urls": []}, "non-empty list"),
        ("web_fetch", {"urls": ["https://e.com/a"], "offset": 5}, "single `url`"),
        ("web_fetch", {"url": "https://e.com/a", "timeout": 0}, "above 0"),
        ("web_fetch", {"url": "https://e.com/a", "extract_depth": "deep"}, "'basic' or"),
        ("web_search", {"query": "q", "search_depth": "ultra"}, "'basic' or"),
        ("web_crawl", {"url": "https://e.com", "max_breadth": 0}, "max_breadth"),
    ],
)
def test_bad_predecessor_arguments_are_retriable(
    fake_tavily: FakeTavily, name: str, kwargs: dict[str, Any], expected: str
) -> None:
    from akgentic.tool.errors import RetriableError

    tool = {fn.__name__: fn for fn in SearchTool().get_tools()}[name]
    with pytest.raises(RetriableError, match=expected):
        tool(**kwargs)
    assert fake_tavily.requests == []
