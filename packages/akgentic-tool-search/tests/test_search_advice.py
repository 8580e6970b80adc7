"""What the model is told when Tavily fails, word for word, and what never reaches it.

The README's "Errors the model sees" table is the contract: each failure says what happened
and what to do next (retry, wait, give up, tell the user). The model acts on these sentences,
so they are checked whole. The key used here is not shaped like a Tavily key, so only the
redaction of the configured key itself can hide it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import requests
from tavily_standin import FakeTavily

from akgentic.tool.errors import RetriableError
from akgentic.tool.search import SearchTool, WebFetch
from akgentic.tool.search._answers import SearchAnswer, parse_answer
from akgentic.tool.search._provider import _advice
from akgentic.tool.search._transport import MalformedAnswerError

KEY = "key-0042-secret"


@pytest.fixture
def own_key(fake_tavily: FakeTavily, monkeypatch: pytest.MonkeyPatch) -> FakeTavily:
    """The stand-in accepting ``KEY``, which the tools are configured with."""
    fake_tavily.api_key = KEY
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    return fake_tavily


def tools_of(card: SearchTool) -> dict[str, Callable[..., Any]]:
    return {fn.__name__: fn for fn in card.get_tools()}


def search_failure(fake: FakeTavily, status: int, body: Any) -> str:
    fake.fail_next(status, body)
    with pytest.raises(RetriableError) as caught:
        tools_of(SearchTool())["web_search"](query="q")
    return str(caught.value)


ADVICE = [
    (
        401,
        f"key {KEY} refused",
        "web_search failed: Tavily rejected the configured API key (HTTP 401): key [redacted] "
        "refused. Retrying will not help: continue without web results and tell the user that "
        "TAVILY_API_KEY must be fixed.",
    ),
    (
        429,
        f"slow down, {KEY}",
        "web_search failed: Tavily's rate or usage limit was reached (HTTP 429): slow down, "
        "[redacted]. Wait about a minute before the next web call, and make fewer, more "
        "targeted calls; meanwhile continue with the information you already have.",
    ),
    (
        432,
        f"plan of {KEY}",
        "web_search failed: Tavily refused the request (plan or credit limit): plan of "
        "[redacted]. Do not retry: continue without web results and tell the user.",
    ),
    (
        400,
        f"bad query for {KEY}",
        "web_search failed: Tavily rejected the request as invalid: bad query for [redacted]. "
        "Change the arguments (a shorter query, a plain http(s) URL) and try again.",
    ),
    (
        500,
        "boom",
        "web_search failed: Tavily had a server error (HTTP 500). Retry in a few seconds; if it "
        "keeps failing, continue without web results.",
    ),
    (
        404,
        "nope",
        "web_search failed: Tavily answered HTTP 404. Check the arguments; if they look right, "
        "continue without web results.",
    ),
]


@pytest.mark.parametrize(("status", "detail", "expected"), ADVICE, ids=[str(a[0]) for a in ADVICE])
def test_each_provider_failure_has_its_advice(
    own_key: FakeTavily, status: int, detail: str, expected: str
) -> None:
    assert search_failure(own_key, status, {"detail": {"error": detail}}) == expected


@pytest.mark.parametrize("detail", ["", "   "], ids=["empty", "blank"])
def test_an_empty_provider_explanation_adds_nothing(own_key: FakeTavily, detail: str) -> None:
    assert search_failure(own_key, 400, {"detail": {"error": detail}}) == (
        "web_search failed: Tavily rejected the request as invalid. Change the arguments (a "
        "shorter query, a plain http(s) URL) and try again."
    )


def test_an_explanation_of_exactly_the_limit_is_not_marked_cut(own_key: FakeTavily) -> None:
    message = search_failure(own_key, 400, {"detail": {"error": "e" * 500}})
    assert f": {'e' * 500}. Change the arguments" in message
    assert "cut" not in message
    message = search_failure(own_key, 400, {"detail": {"error": "e" * 501}})
    assert f": {'e' * 500}… [1 more characters cut]. Change" in message


def test_a_stalled_request_is_told_to_narrow_down(own_key: FakeTavily) -> None:
    own_key.stall_next(3.0)
    with pytest.raises(RetriableError) as caught:
        tools_of(SearchTool(timeout_seconds=0.4))["web_search"](query="q")
    assert str(caught.value) == (
        "web_search failed: Tavily did not answer within 0.4 s. Retry once with a narrower "
        "request (fewer results, a smaller crawl); if it times out again, continue without it."
    )


# -- pages that could not be read ----------------------------------------------------------


def fetch_failure(fake: FakeTavily, card: SearchTool, **args: Any) -> str:
    with pytest.raises(RetriableError) as caught:
        tools_of(card)["web_fetch"](**args)
    return str(caught.value)


def test_a_page_failure_reason_hides_the_configured_key(own_key: FakeTavily) -> None:
    own_key.fail_next(
        200, {"results": [], "failed_results": [{"url": "https://e.com/a", "error": KEY}]}
    )
    assert fetch_failure(own_key, SearchTool(), url="https://e.com/a") == (
        "web_fetch could not read https://e.com/a: [redacted]. Check the URL, or use "
        "web_search to find another page with the same information."
    )


def test_a_page_without_a_reason(own_key: FakeTavily) -> None:
    own_key.fail_next(200, {"results": [], "failed_results": []})
    message = fetch_failure(own_key, SearchTool(), url="https://e.com/a")
    assert message == (
        "web_fetch could not read https://e.com/a: no content was extracted. Check the URL, or "
        "use web_search to find another page with the same information."
    )


def test_pages_after_the_cut_are_told_to_be_fetched_alone(own_key: FakeTavily) -> None:
    own_key.pages["https://e.com/big"] = "b" * 50_000
    own_key.pages["https://e.com/small"] = "small page"
    card = SearchTool(max_download_bytes=10_000, web_fetch=WebFetch(max_chars=500))
    first, second = tools_of(card)["web_fetch"](urls=["https://e.com/big", "https://e.com/small"])
    assert first.error is None
    assert first.content == "b" * 500
    assert first.notice is not None
    assert first.notice.endswith(
        "the rest of this page's text cannot be read through web_fetch. Look for a shorter "
        "source if the missing part matters."
    )
    assert second.error == (
        "web_fetch could not read https://e.com/small: the answer passed the 10,000-byte "
        "download limit before this page; fetch it on its own. Check the URL, or use "
        "web_search to find another page with the same information."
    )


# -- failures tavily-python does not produce today, and malformed answers ----------------------

# tavily-python turns requests' timeouts into its own and always attaches the response to an
# HTTPError; these branches stand for a client version that does not, and must still advise.
UNREACHABLE = [
    (
        requests.Timeout("t"),
        "web_crawl failed: Tavily did not answer within 2.5 s. Retry once with a narrower "
        "request; if it times out again, continue without it.",
    ),
    (
        requests.ConnectionError("c"),
        "web_crawl failed: Tavily could not be reached. Retry later; meanwhile continue with "
        "the information you already have.",
    ),
    (
        requests.HTTPError("h"),
        "web_crawl failed: Tavily answered with an HTTP error. Check the arguments; if they "
        "look right, continue without web results.",
    ),
    (
        TypeError("exceptions must derive from BaseException"),
        "web_crawl failed: Tavily gave an unexpected answer. Retry once; if it fails again, "
        "continue without web results.",
    ),
    (
        MalformedAnswerError("it is odd"),
        "web_crawl failed: Tavily's answer could not be read: it is odd. Retry once; if it "
        "fails again, continue without web results.",
    ),
    (
        ValueError("v"),
        "web_crawl failed: Tavily's answer could not be read (ValueError). Retry once; if it "
        "fails again, continue without web results.",
    ),
    (
        AttributeError("a"),
        "web_crawl failed: Tavily's answer could not be read (AttributeError). Retry once; if "
        "it fails again, continue without web results.",
    ),
]


@pytest.mark.parametrize(
    ("error", "expected"), UNREACHABLE, ids=[type(e).__name__ for e, _ in UNREACHABLE]
)
def test_every_client_failure_becomes_advice(error: Exception, expected: str) -> None:
    assert str(_advice("web_crawl", 2.5, error, KEY)) == expected


def test_a_misshapen_answer_names_the_path_of_each_fault(own_key: FakeTavily) -> None:
    message = search_failure(own_key, 200, {"results": [{"url": i} for i in range(5)]})
    problems = "; ".join(f"results[{i}].url: Input should be a valid string" for i in range(3))
    assert message == (
        f"web_search failed: Tavily's answer did not have the expected shape ({problems} (and "
        "2 more)). Retry once; if it fails again, continue without web results."
    )


@pytest.mark.parametrize(
    ("faults", "end"),
    [(3, "string). Retry"), (4, "string (and 1 more)).")],
    ids=["three", "four"],
)
def test_three_faults_are_shown_and_the_rest_counted(faults: int, end: str) -> None:
    answer = {"results": [{"url": i} for i in range(faults)]}
    with pytest.raises(RetriableError) as caught:
        parse_answer("web_search", SearchAnswer, answer)
    assert f"results[2].url: Input should be a valid {end}" in str(caught.value)


def test_a_misshapen_crawl_answer_is_named_as_one(own_key: FakeTavily) -> None:
    own_key.fail_next(200, {"results": [{"raw_content": "x"}]})
    with pytest.raises(RetriableError) as caught:
        tools_of(SearchTool())["web_crawl"](url="https://site.example")
    assert str(caught.value) == (
        "web_crawl failed: Tavily's answer did not have the expected shape (results[0].url: "
        "Field required). Retry once; if it fails again, continue without web results."
    )


def test_a_fault_in_the_whole_answer_is_named_as_such() -> None:
    # The transport refuses anything but an object before it gets here; the shape check
    # still names the fault should it be handed one.
    with pytest.raises(RetriableError) as caught:
        parse_answer("web_search", SearchAnswer, [])
    assert "shape (the answer: Input should be a valid dictionary" in str(caught.value)
