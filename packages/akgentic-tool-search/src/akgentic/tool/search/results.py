"""What the web tools hand back to the model.

Every text field here has already been cut to the size its capability allows, so a result
can be put into the model's context as is. The models also say when something was cut and
how to get the rest, because a silently shortened page reads like a complete one.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["CrawlResult", "CrawledPage", "SearchResult", "WebPage"]


class SearchResult(BaseModel):
    """One hit of ``web_search``."""

    title: str
    url: str
    snippet: str = Field(description="The relevant passage of the page, possibly shortened.")
    score: float | None = Field(default=None, description="The provider's relevance score.")


class WebPage(BaseModel):
    """A window onto the text of one page, as returned by ``web_fetch``."""

    url: str
    content: str
    offset: int = Field(description="Character offset of `content` in the whole page text.")
    total_chars: int = Field(description="Length of the whole extracted page text.")
    next_offset: int | None = Field(
        default=None,
        description="Pass this as `offset` to read the next part; null when the page is done.",
    )
    error: str | None = Field(
        default=None,
        description="Why the page could not be read (only when several `urls` were asked "
        "for; `content` is then empty).",
    )
    notice: str | None = Field(
        default=None,
        description="Set when the page's text stops early because it was larger than the "
        "download limit: how much arrived, and that the rest cannot be read.",
    )


class CrawledPage(BaseModel):
    """One page reached by ``web_crawl``."""

    url: str
    content: str
    truncated: bool = Field(
        default=False, description="True when `content` was cut; use web_fetch to read it all."
    )


class CrawlResult(BaseModel):
    """The pages ``web_crawl`` reached from ``base_url``."""

    base_url: str
    pages: list[CrawledPage]
    omitted_pages: int = Field(
        default=0, description="Pages the provider returned beyond the page limit (not shown)."
    )
    notice: str | None = Field(
        default=None,
        description="Set when the provider's answer was larger than the download limit and "
        "was cut: the last page may stop early and later pages are missing.",
    )
