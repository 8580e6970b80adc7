"""SearchTool: web search, page extraction and site crawling for agents, through Tavily.

Three capabilities, each one a ``bool | Param`` field on the card:

- ``web_search``: a query in, titles, URLs and snippets out;
- ``web_fetch``: a URL in, the page's extracted text out, one bounded window at a time;
- ``web_crawl``: a URL in, the text of the pages reachable from it out, each page bounded.

Configuration that belongs to the deployment, not to the team, comes from the environment:
``TAVILY_API_KEY`` (required) and ``TAVILY_API_BASE_URL`` (optional, for a gateway or a
local stand-in). Both are read when the tools are built (``get_tools`` / ``get_commands``),
not when the card is created: a team definition that mentions SearchTool can be loaded,
validated and serialized anywhere, and an agent that carries it fails at start-up, with an
error naming the variable, instead of discovering mid-conversation that it cannot search.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.channels import COMMAND, TOOL_CALL
from akgentic.tool.core.params import BaseToolParam, resolve_param
from akgentic.tool.errors import RetriableError
from akgentic.tool.search._provider import DEFAULT_BASE_URL, TavilyClients, call_tavily
from akgentic.tool.search.results import CrawledPage, CrawlResult, SearchResult, WebPage

__all__ = [
    "TAVILY_API_BASE_URL_ENV",
    "TAVILY_API_KEY_ENV",
    "MissingTavilyKeyError",
    "SearchTool",
    "WebCrawl",
    "WebFetch",
    "WebSearch",
]

TAVILY_API_KEY_ENV = "TAVILY_API_KEY"
TAVILY_API_BASE_URL_ENV = "TAVILY_API_BASE_URL"

# How many extracted pages one bound SearchTool remembers, so that reading a long page
# window by window costs one Tavily call, not one per window.
_PAGE_CACHE_SIZE = 16

# Titles are short by nature; the cap only guards against a malformed provider answer.
_TITLE_CHARS = 300

Topic = Literal["general", "news", "finance"]
TimeRange = Literal["day", "week", "month", "year"]
Depth = Literal["basic", "advanced"]


class MissingTavilyKeyError(RuntimeError):
    """SearchTool's tools were built while ``TAVILY_API_KEY`` was unset or empty.

    A deployment error, not something the model can fix, so it is raised when the agent
    binds its tools rather than returned to the model on a call.
    """


class WebSearch(BaseToolParam):
    """Configuration of ``web_search``."""

    max_results: int = Field(
        default=5, ge=1, le=20, description="Most results one call returns (and its default)."
    )
    snippet_chars: int = Field(
        default=800, ge=50, le=10_000, description="Longest snippet kept per result."
    )
    search_depth: Depth = Field(
        default="basic", description="Tavily search depth; 'advanced' costs more credits."
    )


class WebFetch(BaseToolParam):
    """Configuration of ``web_fetch``."""

    max_chars: int = Field(
        default=12_000,
        ge=500,
        le=200_000,
        description="Size of the window of page text one call returns.",
    )
    extract_depth: Depth = Field(default="basic", description="Tavily extraction depth.")


class WebCrawl(BaseToolParam):
    """Configuration of ``web_crawl``."""

    max_pages: int = Field(default=10, ge=1, le=100, description="Most pages one crawl returns.")
    max_depth: int = Field(default=2, ge=1, le=5, description="Deepest link depth allowed.")
    page_chars: int = Field(
        default=3_000, ge=200, le=50_000, description="Longest text kept per crawled page."
    )
    extract_depth: Depth = Field(default="basic", description="Tavily extraction depth.")


class SearchTool(ToolCard):
    """Web search, fetch and crawl through the Tavily API.

    Every capability is on by default; pass ``False`` to remove one, or a param object to
    tune its limits. ``timeout_seconds`` bounds each request to Tavily.
    """

    web_search: bool | WebSearch = True
    web_fetch: bool | WebFetch = True
    web_crawl: bool | WebCrawl = True
    timeout_seconds: float = Field(
        default=30.0, gt=0, le=120, description="Per-request timeout for calls to Tavily."
    )

    def get_tools(self) -> list[Callable[..., Any]]:
        return [fn for param, fn in self._bind() if param.exposes(TOOL_CALL)]

    def get_commands(self) -> dict[type[BaseToolParam], Callable[..., Any]]:
        return {type(param): fn for param, fn in self._bind() if param.exposes(COMMAND)}

    def _bind(self) -> list[tuple[BaseToolParam, Callable[..., Any]]]:
        params: list[BaseToolParam] = [
            p
            for p in (
                resolve_param(self.web_search, WebSearch),
                resolve_param(self.web_fetch, WebFetch),
                resolve_param(self.web_crawl, WebCrawl),
            )
            if p is not None and p.expose & {TOOL_CALL, COMMAND}
        ]
        if not params:
            return []
        clients = _clients_from_environment()
        bound: list[tuple[BaseToolParam, Callable[..., Any]]] = []
        for param in params:
            if isinstance(param, WebSearch):
                bound.append((param, param.describe(self._search_tool(param, clients))))
            elif isinstance(param, WebFetch):
                bound.append((param, param.describe(self._fetch_tool(param, clients))))
            elif isinstance(param, WebCrawl):
                bound.append((param, param.describe(self._crawl_tool(param, clients))))
        return bound

    def _search_tool(self, param: WebSearch, clients: TavilyClients) -> Callable[..., Any]:
        timeout = self.timeout_seconds
        cap = param.max_results
        snippet_chars = param.snippet_chars
        depth = param.search_depth

        def web_search(
            query: str,
            max_results: int = cap,
            topic: Topic = "general",
            time_range: TimeRange | None = None,
            include_domains: list[str] | None = None,
        ) -> list[SearchResult]:
            """Search the web. Returns the title, URL and a relevant snippet of each hit.

            Args:
                query: What to look for, phrased like a search-engine query.
                max_results: How many hits to return (capped by the tool's configuration).
                topic: "general", or "news" for recent reporting, or "finance".
                time_range: Only pages from the last "day", "week", "month" or "year".
                include_domains: Only search these domains (e.g. ["python.org"]).
            """
            text = query.strip()
            if not text:
                raise RetriableError("web_search needs a non-empty query.")
            if len(text) > 400:
                raise RetriableError(
                    f"web_search query is {len(text)} characters long; keep it under 400 "
                    "(a search-engine style query, not a paragraph)."
                )
            if max_results < 1:
                raise RetriableError("web_search max_results must be at least 1.")
            count = min(max_results, cap)
            answer = call_tavily(
                "web_search",
                timeout,
                lambda: clients.get().search(
                    text,
                    search_depth=depth,
                    topic=topic,
                    time_range=time_range,
                    max_results=count,
                    include_domains=include_domains or None,
                    timeout=timeout,
                ),
            )
            return [
                SearchResult(
                    title=_clip(_text(hit.get("title")) or _text(hit.get("url")), _TITLE_CHARS),
                    url=_text(hit.get("url")),
                    snippet=_clip(_text(hit.get("content")), snippet_chars),
                    score=hit.get("score") if isinstance(hit.get("score"), int | float) else None,
                )
                for hit in _records(answer, "results")[:count]
            ]

        return web_search

    def _fetch_tool(self, param: WebFetch, clients: TavilyClients) -> Callable[..., Any]:
        timeout = self.timeout_seconds
        window = param.max_chars
        depth = param.extract_depth
        cache: OrderedDict[str, str] = OrderedDict()
        lock = threading.Lock()

        def extract(url: str) -> str:
            with lock:
                if url in cache:
                    cache.move_to_end(url)
                    return cache[url]
            answer = call_tavily(
                "web_fetch",
                timeout,
                lambda: clients.get().extract(
                    url, extract_depth=depth, format="markdown", timeout=timeout
                ),
            )
            pages = _records(answer, "results")
            if not pages:
                failed = _records(answer, "failed_results")
                reason = _text(failed[0].get("error")) if failed else "no content was extracted"
                raise RetriableError(
                    f"web_fetch could not read {url}: {reason}. Check the URL, or use "
                    "web_search to find another page with the same information."
                )
            content = _text(pages[0].get("raw_content"))
            with lock:
                cache[url] = content
                while len(cache) > _PAGE_CACHE_SIZE:
                    cache.popitem(last=False)
            return content

        def web_fetch(url: str, offset: int = 0) -> WebPage:
            """Read the text of a web page (extracted, as markdown), one window at a time.

            Long pages come back in parts: when `next_offset` is set in the answer, call
            again with that `offset` to read on.

            Args:
                url: The absolute http(s) URL of the page.
                offset: Character offset to start reading from (0 for the beginning).
            """
            target = _check_url("web_fetch", url)
            if offset < 0:
                raise RetriableError("web_fetch offset must be 0 or more.")
            content = extract(target)
            total = len(content)
            if offset > total:
                raise RetriableError(
                    f"web_fetch offset {offset} is past the end of {target} "
                    f"({total} characters); use an offset below {total}."
                )
            end = min(offset + window, total)
            return WebPage(
                url=target,
                content=content[offset:end],
                offset=offset,
                total_chars=total,
                next_offset=end if end < total else None,
            )

        return web_fetch

    def _crawl_tool(self, param: WebCrawl, clients: TavilyClients) -> Callable[..., Any]:
        timeout = self.timeout_seconds
        page_cap = param.max_pages
        depth_cap = param.max_depth
        page_chars = param.page_chars
        extract_depth = param.extract_depth

        def web_crawl(
            url: str,
            instructions: str | None = None,
            max_depth: int = 1,
            limit: int = page_cap,
        ) -> CrawlResult:
            """Crawl a site from a starting URL and return the text of the pages reached.

            Each page's text is shortened; use web_fetch on a page URL to read it in full.

            Args:
                url: The absolute http(s) URL to start from.
                instructions: What to look for, in plain words (guides which links are followed).
                max_depth: How many links away from `url` to go (capped by configuration).
                limit: Most pages to return (capped by configuration).
            """
            target = _check_url("web_crawl", url)
            if max_depth < 1 or limit < 1:
                raise RetriableError("web_crawl max_depth and limit must both be at least 1.")
            pages_wanted = min(limit, page_cap)
            answer = call_tavily(
                "web_crawl",
                timeout,
                lambda: clients.get().crawl(
                    target,
                    max_depth=min(max_depth, depth_cap),
                    limit=pages_wanted,
                    instructions=instructions or None,
                    extract_depth=extract_depth,
                    format="markdown",
                    timeout=timeout,
                ),
            )
            records = _records(answer, "results")
            pages = [
                CrawledPage(
                    url=_text(record.get("url")),
                    content=_clip(_text(record.get("raw_content")), page_chars),
                    truncated=len(_text(record.get("raw_content"))) > page_chars,
                )
                for record in records[:pages_wanted]
            ]
            base = answer.get("base_url") if isinstance(answer, dict) else None
            return CrawlResult(
                base_url=_text(base) or target,
                pages=pages,
                omitted_pages=max(0, len(records) - pages_wanted),
            )

        return web_crawl


def _clients_from_environment() -> TavilyClients:
    key = os.environ.get(TAVILY_API_KEY_ENV, "").strip()
    if not key:
        raise MissingTavilyKeyError(
            f"SearchTool needs the {TAVILY_API_KEY_ENV} environment variable (a Tavily API "
            "key) when its tools are bound; set it, or remove SearchTool from this agent."
        )
    base_url = os.environ.get(TAVILY_API_BASE_URL_ENV, "").strip() or DEFAULT_BASE_URL
    return TavilyClients(api_key=key, base_url=base_url.rstrip("/"))


def _check_url(action: str, url: str) -> str:
    candidate = url.strip()
    parts = urlsplit(candidate)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RetriableError(
            f"{action} needs an absolute http(s) URL such as https://example.com/page, got {url!r}."
        )
    return candidate


def _records(answer: Any, key: str) -> list[dict[str, Any]]:
    """The list of objects under ``key`` in a Tavily answer; anything malformed is skipped."""
    if not isinstance(answer, dict):
        return []
    items = answer.get(key)
    if not isinstance(items, list):
        return []
    return [item for item in items if isinstance(item, dict)]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _clip(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, preferring a word boundary, marked by '…'."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"
