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
from collections.abc import Callable
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from pydantic import Field

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.channels import TOOL_CALL as TOOL_CALL  # importable here, as it was
from akgentic.tool.core.params import BaseToolParam
from akgentic.tool.errors import RetriableError
from akgentic.tool.search._answers import CrawlAnswer, ExtractAnswer, SearchAnswer, parse_answer
from akgentic.tool.search._page_cache import FetchedPage, PageCache
from akgentic.tool.search._provider import (
    DEFAULT_BASE_URL,
    DETAIL_CHARS,
    TavilyClients,
    call_tavily,
    clip_marked,
    redact,
)
from akgentic.tool.search._transport import Transfer
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
# window by window costs one Tavily call, not one per window. Their total size is bounded
# too (WebFetch.cache_chars).
_PAGE_CACHE_SIZE = 16

# Titles and URLs are short by nature; the caps only guard against a malformed or hostile
# provider answer (a cut one says how much was cut).
_TITLE_CHARS = 300
_URL_CHARS = 2_000

# Bounds on what the model may send: a URL, the domains a search is limited to, and a
# crawl's instructions. Tavily has its own limits; these keep a runaway argument from
# costing a request at all.
_MAX_DOMAINS = 50
_DOMAIN_CHARS = 253
_INSTRUCTIONS_CHARS = 2_000

Topic = Literal["general", "news", "finance"]
TimeRange = Literal["day", "week", "month", "year"]
Depth = Literal["basic", "advanced"]

# Default timeouts per capability, in seconds: Tavily's own defaults for extract and crawl
# (a crawl visits many pages, so it gets much longer than a single search or fetch).
_SEARCH_TIMEOUT = 30
_FETCH_TIMEOUT = 30
_CRAWL_TIMEOUT = 150
_MAX_TIMEOUT = 600.0
_MAX_CRAWL_DEPTH = 5
_MAX_FETCH_URLS = 20


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
    max_query_chars: int = Field(
        default=400,
        ge=10,
        le=10_000,
        description="Longest query accepted (a search-engine query, not a paragraph).",
    )
    search_depth: Depth | None = Field(
        default=None,
        description=(
            "Tavily search depth used when the model does not choose one; None means "
            "Tavily's default, 'basic'. 'advanced' costs more credits."
        ),
    )
    timeout: float = Field(
        default=_SEARCH_TIMEOUT, gt=0, le=_MAX_TIMEOUT, description="Seconds one search may take."
    )


class WebFetch(BaseToolParam):
    """Configuration of ``web_fetch``."""

    max_chars: int = Field(
        default=12_000,
        ge=500,
        le=200_000,
        description="Size of the window of page text one call returns.",
    )
    cache_chars: int = Field(
        default=20_000_000,
        ge=0,
        le=500_000_000,
        description="Most characters of page text kept for paging, over all cached pages "
        "(0: no cache; a page longer than this is not cached).",
    )
    extract_depth: Depth | None = Field(
        default=None,
        description="Tavily extraction depth used when the model does not choose one "
        "(None: Tavily's default, 'basic').",
    )
    timeout: float = Field(
        default=_FETCH_TIMEOUT,
        gt=0,
        le=_MAX_TIMEOUT,
        description="Seconds one extraction may take (Tavily's own `timeout`, also the HTTP "
        "timeout).",
    )


class WebCrawl(BaseToolParam):
    """Configuration of ``web_crawl``.

    ``limit``, ``max_depth`` and ``max_breadth`` are Tavily's crawl parameters: each is the
    value sent when the model does not ask for less, and the most the model may ask for.
    """

    max_pages: int = Field(default=10, ge=1, le=100, description="Most pages one crawl returns.")
    limit: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="Tavily's name for the page cap: when set, it replaces `max_pages`.",
    )
    max_depth: int | None = Field(
        default=2,
        ge=1,
        le=_MAX_CRAWL_DEPTH,
        description=f"Deepest link depth allowed (None: up to {_MAX_CRAWL_DEPTH}).",
    )
    max_breadth: int | None = Field(
        default=None,
        ge=1,
        le=500,
        description="Most links followed per page (None: Tavily's default, unless the model "
        "asks for fewer).",
    )
    page_chars: int = Field(
        default=3_000, ge=200, le=50_000, description="Longest text kept per crawled page."
    )
    extract_depth: Depth | None = Field(
        default=None,
        description="Tavily extraction depth used when the model does not choose one "
        "(None: Tavily's default, 'basic').",
    )
    timeout: float = Field(
        default=_CRAWL_TIMEOUT,
        gt=0,
        le=_MAX_TIMEOUT,
        description="Seconds one crawl may take (Tavily's own `timeout`, also the HTTP timeout).",
    )

    @property
    def page_cap(self) -> int:
        """The most pages one crawl returns: ``limit`` when set, else ``max_pages``."""
        return self.limit if self.limit is not None else self.max_pages


class SearchTool(ToolCard):
    """Web search, fetch and crawl through the Tavily API.

    Every capability is on by default; pass ``False`` to remove one, or a param object to
    tune its limits. Each capability has its own ``timeout``; ``timeout_seconds``, when
    set, is a ceiling over all three.
    """

    web_search: bool | WebSearch = True
    web_fetch: bool | WebFetch = True
    web_crawl: bool | WebCrawl = True
    timeout_seconds: float | None = Field(
        default=None,
        gt=0,
        le=_MAX_TIMEOUT,
        description="Ceiling on every request's timeout (None: each capability's own timeout).",
    )
    max_download_bytes: int = Field(
        default=10_000_000,
        ge=1_000,
        le=1_000_000_000,
        description="Most bytes read of one provider answer; past it the answer is cut.",
    )

    def _capability_context(self) -> TavilyClients:
        # Read when a builder is about to run, so a card whose capabilities are all off
        # needs no key; one set of clients serves the three tools of one get_* call.
        return _clients_from_environment()

    def _timeout(self, configured: float) -> float:
        """A capability's timeout under the card-wide ceiling."""
        if self.timeout_seconds is None:
            return configured
        return min(configured, self.timeout_seconds)

    # -- callables: one _build_<field> per `bool | Param` field ---------------------------

    def _build_web_search(self, param: WebSearch, clients: TavilyClients) -> Callable[..., Any]:
        configured_timeout = self._timeout(param.timeout)
        cap = param.max_results
        snippet_chars = param.snippet_chars
        query_chars = param.max_query_chars
        configured_depth = param.search_depth
        max_bytes = self.max_download_bytes

        def web_search(
            query: str,
            max_results: int = cap,
            topic: Topic = "general",
            time_range: TimeRange | None = None,
            include_domains: list[str] | None = None,
            search_depth: Depth | None = None,
        ) -> list[SearchResult]:
            """Search the web. Returns the title, URL and a relevant snippet of each hit.

            Args:
                query: What to look for, phrased like a search-engine query.
                max_results: How many hits to return (capped by the tool's configuration).
                topic: "general", or "news" for recent reporting, or "finance".
                time_range: Only pages from the last "day", "week", "month" or "year".
                include_domains: Only search these domains (e.g. ["python.org"]).
                search_depth: "basic" (default) or "advanced" (deeper, costs more).
            """
            text = _arg_str("web_search", "query", query).strip()
            if not text:
                raise RetriableError("web_search needs a non-empty query.")
            if len(text) > query_chars:
                raise RetriableError(
                    f"web_search `query` is {len(text):,} characters long; the limit is "
                    f"{query_chars:,}. Use a short search-engine style query, not a paragraph."
                )
            if isinstance(max_results, bool) or not isinstance(max_results, int):
                raise RetriableError("web_search `max_results` must be a whole number.")
            if max_results < 1:
                raise RetriableError("web_search max_results must be at least 1.")
            count = min(max_results, cap)
            depth = (
                _depth("web_search", "search_depth", search_depth) or configured_depth or "basic"
            )
            domains = _domains(include_domains)
            transfer = Transfer(timeout=configured_timeout, max_bytes=max_bytes)
            answer = call_tavily(
                "web_search",
                transfer,
                clients,
                lambda client: client.search(
                    text,
                    search_depth=depth,
                    topic=topic,
                    time_range=time_range,
                    max_results=count,
                    include_domains=domains,
                    timeout=transfer.timeout,
                ),
            )
            if transfer.cut:
                raise RetriableError(
                    f"web_search failed: Tavily's answer passed the {max_bytes:,}-byte download "
                    "limit. Ask for fewer results (max_results), or a narrower query."
                )
            hits = parse_answer("web_search", SearchAnswer, answer).results
            return [
                SearchResult(
                    title=clip_marked(hit.title or hit.url, _TITLE_CHARS),
                    url=clip_marked(hit.url, _URL_CHARS),
                    snippet=_clip(hit.content or "", snippet_chars),
                    score=hit.score,
                )
                for hit in hits[:count]
            ]

        return web_search

    def _build_web_fetch(self, param: WebFetch, clients: TavilyClients) -> Callable[..., Any]:
        configured_timeout = self._timeout(param.timeout)
        window = param.max_chars
        configured_depth = param.extract_depth
        cache = PageCache(_PAGE_CACHE_SIZE, param.cache_chars)
        max_bytes = self.max_download_bytes

        def extract(
            urls: list[str], depth: Depth | None, timeout: float
        ) -> dict[str, FetchedPage | RetriableError]:
            """Text of each URL (from the cache when known), or why it could not be read."""
            found: dict[str, FetchedPage | RetriableError] = {}
            for url in urls:
                cached = cache.get(url)
                if cached is not None:
                    found[url] = cached
            missing = [url for url in urls if url not in found]
            if not missing:
                return found
            transfer = Transfer(timeout=timeout, max_bytes=max_bytes)
            answer = call_tavily(
                "web_fetch",
                transfer,
                clients,
                lambda client: client.extract(
                    missing if len(missing) > 1 else missing[0],
                    extract_depth=depth,
                    format="markdown",
                    timeout=timeout,
                ),
            )
            parsed = parse_answer("web_fetch", ExtractAnswer, answer)
            pages = {page.url: page.raw_content or "" for page in parsed.results}
            # When the answer was cut, the last page in it is the one that stops early, and
            # the pages after it never arrived.
            cut_url = parsed.results[-1].url if transfer.cut and parsed.results else None
            failures = {f.url: f.error or "" for f in parsed.failed_results}
            for url in missing:
                if url in pages or (len(missing) == 1 and len(pages) == 1):
                    # A provider may normalise the URL it echoes; with one URL asked, the one
                    # page returned is that URL's.
                    echoed = url if url in pages else next(iter(pages))
                    notice = _cut_notice(transfer) if echoed == cut_url else None
                    page = FetchedPage(pages[echoed], notice)
                    found[url] = page
                    cache.put(url, page)
                else:
                    reason = _failure(transfer, failures.get(url), clients.api_key)
                    found[url] = RetriableError(
                        f"web_fetch could not read {url}: {reason}. Check the URL, or use "
                        "web_search to find another page with the same information."
                    )
            return found

        def page_window(url: str, page: FetchedPage, offset: int) -> WebPage:
            content = page.text
            total = len(content)
            if offset > total:
                raise RetriableError(
                    f"web_fetch offset {offset} is past the end of {url} "
                    f"({total} characters); use an offset below {total}."
                )
            end = min(offset + window, total)
            return WebPage(
                url=url,
                content=content[offset:end],
                offset=offset,
                total_chars=total,
                next_offset=end if end < total else None,
                notice=page.notice,
            )

        def web_fetch(
            url: str | None = None,
            offset: int = 0,
            urls: list[str] | None = None,
            extract_depth: Depth | None = None,
            timeout: float | None = None,
        ) -> WebPage | list[WebPage]:
            """Read the text of a web page (extracted, as markdown), one window at a time.

            Give `url` for one page. Long pages come back in parts: when `next_offset` is
            set in the answer, call again with that `offset` to read on. Give `urls`
            instead to read the first window of several pages at once (a list comes back).

            Args:
                url: The absolute http(s) URL of the page.
                offset: Character offset to start reading from (0 for the beginning).
                urls: Several absolute http(s) URLs (at most 20), instead of `url`.
                extract_depth: "basic" (default) or "advanced" (for hard-to-read pages).
                timeout: Seconds to wait at most (capped by the tool's configuration).
            """
            if (url is None) == (urls is None):
                raise RetriableError(
                    "web_fetch needs exactly one of `url` (one page) or `urls` (a list of pages)."
                )
            if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
                raise RetriableError("web_fetch offset must be a whole number, 0 or more.")
            depth = (
                _depth("web_fetch", "extract_depth", extract_depth) or configured_depth or "basic"
            )
            bound = _bounded_timeout("web_fetch", timeout, configured_timeout)
            if url is not None:
                target = _check_url("web_fetch", _arg_str("web_fetch", "url", url))
                result = extract([target], depth, bound)[target]
                if isinstance(result, RetriableError):
                    raise result
                return page_window(target, result, offset)
            if not isinstance(urls, list) or not urls:
                raise RetriableError("web_fetch `urls` must be a non-empty list of URLs.")
            if len(urls) > _MAX_FETCH_URLS:
                raise RetriableError(
                    f"web_fetch reads at most {_MAX_FETCH_URLS} URLs per call, got {len(urls)}; "
                    "split them over several calls."
                )
            if offset:
                raise RetriableError(
                    "web_fetch `offset` applies to a single `url`; with `urls` every page "
                    "starts at 0. Page on with `url` and `offset`."
                )
            targets = list(
                dict.fromkeys(
                    _check_url("web_fetch", _arg_str("web_fetch", "urls", u), "urls") for u in urls
                )
            )
            results = extract(targets, depth, bound)
            errors = [r for r in results.values() if isinstance(r, RetriableError)]
            if len(errors) == len(targets):
                raise RetriableError(" ".join(str(e) for e in errors))
            return [
                page_window(target, result, 0)
                if not isinstance(result, RetriableError)
                else WebPage(url=target, content="", offset=0, total_chars=0, error=str(result))
                for target, result in results.items()
            ]

        return web_fetch

    def _build_web_crawl(self, param: WebCrawl, clients: TavilyClients) -> Callable[..., Any]:
        configured_timeout = self._timeout(param.timeout)
        page_cap = param.page_cap
        depth_cap = param.max_depth if param.max_depth is not None else _MAX_CRAWL_DEPTH
        breadth_cap = param.max_breadth
        page_chars = param.page_chars
        configured_depth = param.extract_depth
        max_bytes = self.max_download_bytes

        def web_crawl(
            url: str,
            instructions: str | None = None,
            max_depth: int = 1,
            limit: int = page_cap,
            max_breadth: int | None = None,
            extract_depth: Depth | None = None,
            timeout: float | None = None,
        ) -> CrawlResult:
            """Crawl a site from a starting URL and return the text of the pages reached.

            Each page's text is shortened; use web_fetch on a page URL to read it in full.

            Args:
                url: The absolute http(s) URL to start from.
                instructions: What to look for, in plain words (guides which links are followed).
                max_depth: How many links away from `url` to go (capped by configuration).
                limit: Most pages to return (capped by configuration).
                max_breadth: Most links to follow from each page (capped by configuration).
                extract_depth: "basic" (default) or "advanced" (for hard-to-read pages).
                timeout: Seconds to wait at most (capped by the tool's configuration).
            """
            target = _check_url("web_crawl", _arg_str("web_crawl", "url", url))
            guidance = _instructions(instructions)
            for name, value in (("max_depth", max_depth), ("limit", limit)):
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise RetriableError(
                        f"web_crawl {name} must be a whole number, at least 1 "
                        "(max_depth and limit must both be at least 1)."
                    )
            if max_breadth is not None and (
                isinstance(max_breadth, bool) or not isinstance(max_breadth, int) or max_breadth < 1
            ):
                raise RetriableError("web_crawl max_breadth must be a whole number, at least 1.")
            breadth = (
                max_breadth
                if breadth_cap is None
                else min(max_breadth, breadth_cap)
                if max_breadth is not None
                else breadth_cap
            )
            depth = (
                _depth("web_crawl", "extract_depth", extract_depth) or configured_depth or "basic"
            )
            bound = _bounded_timeout("web_crawl", timeout, configured_timeout)
            pages_wanted = min(limit, page_cap)
            transfer = Transfer(timeout=bound, max_bytes=max_bytes)
            answer = call_tavily(
                "web_crawl",
                transfer,
                clients,
                lambda client: client.crawl(
                    target,
                    max_depth=min(max_depth, depth_cap),
                    max_breadth=breadth,
                    limit=pages_wanted,
                    instructions=guidance,
                    extract_depth=depth,
                    format="markdown",
                    timeout=bound,
                ),
            )
            parsed = parse_answer("web_crawl", CrawlAnswer, answer)
            records = parsed.results
            kept = records[:pages_wanted]
            pages = [
                CrawledPage(
                    url=clip_marked(record.url, _URL_CHARS),
                    content=_clip(record.raw_content or "", page_chars),
                    # The last record of a cut answer stops early whatever its length.
                    truncated=len(record.raw_content or "") > page_chars
                    or (transfer.cut and record is records[-1]),
                )
                for record in kept
            ]
            return CrawlResult(
                base_url=clip_marked(parsed.base_url or target, _URL_CHARS),
                pages=pages,
                omitted_pages=max(0, len(records) - pages_wanted),
                notice=_cut_notice(transfer, "the pages after the last one shown were not read")
                if transfer.cut
                else None,
            )

        return web_crawl


def _arg_str(action: str, name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise RetriableError(f"{action} `{name}` must be text, got {type(value).__name__}.")
    return value


def _depth(action: str, name: str, value: Any) -> Depth | None:
    if value is None or value in ("basic", "advanced"):
        return cast(Depth | None, value)
    shown = clip_marked(repr(value), 40)
    raise RetriableError(f"{action} {name} must be 'basic' or 'advanced', got {shown}.")


def _domains(value: Any) -> list[str] | None:
    """``include_domains`` checked: at most ``_MAX_DOMAINS`` short names (None when empty)."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
        raise RetriableError("web_search `include_domains` must be a list of domain names.")
    if len(value) > _MAX_DOMAINS:
        raise RetriableError(
            f"web_search `include_domains` has {len(value):,} entries; the limit is "
            f"{_MAX_DOMAINS}. Name only the few sites that matter."
        )
    for domain in value:
        if len(domain) > _DOMAIN_CHARS:
            raise RetriableError(
                f"web_search `include_domains` has an entry {len(domain):,} characters long; "
                f"a domain name has at most {_DOMAIN_CHARS}. Give names like 'python.org'."
            )
    return list(value) or None


def _instructions(value: Any) -> str | None:
    """A crawl's ``instructions``, checked to be text of at most ``_INSTRUCTIONS_CHARS``."""
    if value is None:
        return None
    text = _arg_str("web_crawl", "instructions", value).strip()
    if len(text) > _INSTRUCTIONS_CHARS:
        raise RetriableError(
            f"web_crawl `instructions` is {len(text):,} characters long; the limit is "
            f"{_INSTRUCTIONS_CHARS:,}. Say in a sentence or two what to look for."
        )
    return text or None


def _cut_notice(transfer: Transfer, rest: str | None = None) -> str:
    """What the model is told when an answer was cut at the download limit."""
    arrived = f"{transfer.received:,}"
    if transfer.announced is not None:
        arrived += f" of {transfer.announced:,}"
    what = rest or "the rest of this page's text cannot be read through web_fetch"
    return (
        f"Tavily's answer was larger than the {transfer.max_bytes:,}-byte download limit, "
        f"so it was cut ({arrived} bytes arrived): {what}. Look for a shorter source if "
        "the missing part matters."
    )


def _failure(transfer: Transfer, reason: str | None, api_key: str) -> str:
    """Why a page is missing from an extract answer, bounded and without credentials."""
    if reason:
        return clip_marked(redact(reason, api_key), DETAIL_CHARS)
    if transfer.cut:
        return (
            f"the answer passed the {transfer.max_bytes:,}-byte download limit before this "
            "page; fetch it on its own"
        )
    return "no content was extracted"


def _bounded_timeout(action: str, asked: Any, configured: float) -> float:
    """The model's ``timeout`` argument, never above the configured one."""
    if asked is None:
        return configured
    if isinstance(asked, bool) or not isinstance(asked, int | float) or asked <= 0:
        raise RetriableError(f"{action} timeout must be a number of seconds above 0.")
    return min(float(asked), configured)


def _clients_from_environment() -> TavilyClients:
    key = os.environ.get(TAVILY_API_KEY_ENV, "").strip()
    if not key:
        raise MissingTavilyKeyError(
            f"SearchTool needs the {TAVILY_API_KEY_ENV} environment variable (a Tavily API "
            "key) when its tools are bound; set it, or remove SearchTool from this agent."
        )
    base_url = os.environ.get(TAVILY_API_BASE_URL_ENV, "").strip() or DEFAULT_BASE_URL
    return TavilyClients(api_key=key, base_url=base_url.rstrip("/"))


def _check_url(action: str, url: str, name: str = "url") -> str:
    candidate = url.strip()
    if len(candidate) > _URL_CHARS:
        raise RetriableError(
            f"{action} `{name}` has a URL {len(candidate):,} characters long; the limit is "
            f"{_URL_CHARS:,}. Give the page's plain address, without embedded data."
        )
    parts = urlsplit(candidate)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RetriableError(
            f"{action} `{name}` needs an absolute http(s) URL such as "
            f"https://example.com/page, got {clip_marked(repr(url), 200)}."
        )
    return candidate


def _clip(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, preferring a word boundary, marked by '…'."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"
