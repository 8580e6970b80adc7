"""Core's standard tests, applied to the search card: conformance, stored forms, and bad
arguments that ask for a retry before anything reaches Tavily."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from pydantic import BaseModel
from tavily_standin import FakeTavily

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import BadInputTests, CardStandardTests, StoredFormTests, Tools
from akgentic.tool.search import SearchTool, WebFetch

STORED: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "fixtures" / "stored_config.yaml").read_text()
)


def _card() -> SearchTool:
    return SearchTool(web_fetch=WebFetch(max_chars=1000), timeout_seconds=5)


class TestSearchCard(CardStandardTests):
    @pytest.fixture(autouse=True)
    def _tavily(self, fake_tavily: FakeTavily) -> None:
        """Bound tools point at the local stand-in."""

    def make_card(self) -> ToolCard:
        return _card()


class TestSearchBadInput(BadInputTests):
    """The state of a search tool is what it asked the provider: a bad call asks nothing."""

    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {
        "web_search": [{"query": ""}, {"query": "x" * 500}, {"query": "ok", "max_results": 0}],
        "web_fetch": [
            {"url": "not a url"},
            {"url": "ftp://example.com/file"},
            {"url": "https://example.com/", "offset": -1},
        ],
        "web_crawl": [{"url": "example.com"}, {"url": "https://e.com", "limit": 0}],
    }

    @pytest.fixture(autouse=True)
    def _tavily(self, fake_tavily: FakeTavily) -> None:
        self.tavily = fake_tavily

    def make_card(self) -> ToolCard:
        return _card()

    def read_state(self, tools: Tools) -> Any:
        return [request.path for request in self.tavily.requests]


class TestSearchStoredForms(StoredFormTests):
    stored_models: ClassVar[Sequence[BaseModel]] = [
        SearchTool.model_validate(entry["config"]) for entry in STORED
    ]
