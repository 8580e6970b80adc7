"""The paging cache's two bounds, at their edges: entries, and characters held.

``PageCache`` is the real cache a bound ``web_fetch`` uses; these tests fill it directly so
that each limit can be hit exactly. test_search_hardening.py covers it through the tool.
"""

from __future__ import annotations

from akgentic.tool.search._page_cache import FetchedPage, PageCache


def page(chars: int, letter: str = "p") -> FetchedPage:
    return FetchedPage(letter * chars)


def test_a_page_of_exactly_the_budget_is_kept() -> None:
    cache = PageCache(max_entries=4, max_chars=100)
    cache.put("a", page(100))
    assert cache.get("a") == page(100)
    assert cache.chars == 100


def test_pages_filling_the_budget_exactly_are_all_kept() -> None:
    cache = PageCache(max_entries=4, max_chars=100)
    cache.put("a", page(60))
    cache.put("b", page(40))
    assert (len(cache), cache.chars) == (2, 100)
    cache.put("c", page(1))  # one character over: the least recently used page goes
    assert cache.get("a") is None
    assert (len(cache), cache.chars) == (2, 41)


def test_a_page_over_the_budget_is_not_kept_and_evicts_nothing() -> None:
    cache = PageCache(max_entries=4, max_chars=100)
    cache.put("a", page(10))
    cache.put("huge", page(101))
    assert cache.get("huge") is None
    assert cache.get("a") == page(10)
    assert cache.chars == 10


def test_the_entry_bound_is_inclusive() -> None:
    single = PageCache(max_entries=1, max_chars=100)
    single.put("a", page(5))
    assert single.get("a") == page(5)
    pair = PageCache(max_entries=2, max_chars=100)
    pair.put("a", page(5))
    pair.put("b", page(5))
    assert len(pair) == 2
    pair.get("a")  # now "b" is the least recently used
    pair.put("c", page(5))
    assert (pair.get("a"), pair.get("b"), pair.get("c")) == (page(5), None, page(5))
    assert pair.chars == 10


def test_no_entries_means_no_cache() -> None:
    cache = PageCache(max_entries=0, max_chars=100)
    cache.put("a", page(5))
    assert (len(cache), cache.chars, cache.get("a")) == (0, 0, None)


def test_storing_a_url_again_replaces_its_page_and_its_size() -> None:
    cache = PageCache(max_entries=4, max_chars=100)
    cache.put("a", page(30))
    cache.put("b", page(30))
    cache.put("a", page(50, "q"))
    assert cache.get("a") == page(50, "q")
    assert (len(cache), cache.chars) == (2, 80)
    # A replacement too large for the budget drops the old page as well.
    cache.put("a", page(200))
    assert cache.get("a") is None
    assert (len(cache), cache.chars) == (1, 30)
