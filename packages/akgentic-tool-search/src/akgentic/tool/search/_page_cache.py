"""The extracted pages a bound web_fetch keeps, so paging through one costs one Tavily call.

Bounded twice: by entry count and by the total characters held, because sixteen entries of
a few megabytes each is a lot of memory for a cache whose job is to save one HTTP call.
The least recently used page goes first; a page larger than the whole budget is not kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

__all__ = ["FetchedPage", "PageCache"]


@dataclass(frozen=True)
class FetchedPage:
    """A page's extracted text, and why it may be incomplete (None when it is whole)."""

    text: str
    notice: str | None = None


class PageCache:
    """A thread-safe LRU of pages by URL, bounded in entries and in total characters."""

    def __init__(self, max_entries: int, max_chars: int) -> None:
        self.max_entries = max_entries
        self.max_chars = max_chars
        self._pages: OrderedDict[str, FetchedPage] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    @property
    def chars(self) -> int:
        """Characters of page text held now."""
        return self._chars

    def __len__(self) -> int:
        return len(self._pages)

    def get(self, url: str) -> FetchedPage | None:
        with self._lock:
            page = self._pages.get(url)
            if page is not None:
                self._pages.move_to_end(url)
            return page

    def put(self, url: str, page: FetchedPage) -> None:
        size = len(page.text)
        with self._lock:
            self._drop(url)
            if size > self.max_chars or self.max_entries < 1:
                return
            self._pages[url] = page
            self._chars += size
            while len(self._pages) > self.max_entries or self._chars > self.max_chars:
                oldest = next(iter(self._pages))
                self._drop(oldest)

    def _drop(self, url: str) -> None:
        page = self._pages.pop(url, None)
        if page is not None:
            self._chars -= len(page.text)
