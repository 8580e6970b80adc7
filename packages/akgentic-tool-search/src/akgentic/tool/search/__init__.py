"""Web search, page fetching and site crawling for akgentic agents, backed by Tavily.

``SearchTool`` is the card; ``WebSearch``, ``WebFetch`` and ``WebCrawl`` tune its three
capabilities; the result models describe what the model gets back.
"""

from akgentic.tool.search.results import CrawledPage, CrawlResult, SearchResult, WebPage
from akgentic.tool.search.search import (
    TAVILY_API_BASE_URL_ENV,
    TAVILY_API_KEY_ENV,
    MissingTavilyKeyError,
    SearchTool,
    WebCrawl,
    WebFetch,
    WebSearch,
)

__all__ = [
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
