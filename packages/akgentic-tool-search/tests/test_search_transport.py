"""The request deadline and the first reading of an answer, in the cases the other files miss.

- an answer without a Content-Length ends when the connection closes, so the shutdown at the
  deadline looks like a complete (short) body: it must still be reported as a timeout, not
  read as a truncated document;
- behind an HTTP proxy (tavily-python's ``TAVILY_HTTP_PROXY``) the connections come from
  another pool, which must be watched by the deadline too;
- over HTTPS the connections come from the TLS pool, also watched (the certificate in
  fixtures/ is a self-signed one for 127.0.0.1, made for these tests only);
- a 200 answer that is JSON but not an object is named by its kind.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tavily_standin import API_KEY, FakeTavily, serving

from akgentic.tool.errors import RetriableError
from akgentic.tool.search import SearchTool
from akgentic.tool.search._transport import BoundedSession, Transfer, transfer_scope

FIXTURES = Path(__file__).parent / "fixtures"
SLOW_PAGE = json.dumps({"results": [{"url": "https://e.com/a", "raw_content": "x" * 150}]})


def assert_ends_at_the_deadline() -> None:
    """A fetch with a 1 s deadline fails with timeout advice, well before the answer ends."""
    fetch = fetch_tool()
    started = time.monotonic()
    with pytest.raises(RetriableError, match=r"did not answer within 1 s"):
        fetch(url="https://e.com/a")
    assert time.monotonic() - started < 5.0


def fetch_tool(timeout: float = 1) -> Callable[..., Any]:
    return {fn.__name__: fn for fn in SearchTool(timeout_seconds=timeout).get_tools()}["web_fetch"]


def test_an_answer_without_a_length_cut_by_the_deadline_is_a_timeout(
    fake_tavily: FakeTavily,
) -> None:
    fake_tavily.trickle_next(SLOW_PAGE.encode(), every=0.05, length=False)
    assert_ends_at_the_deadline()


def test_an_answer_without_a_length_that_completes_is_read(fake_tavily: FakeTavily) -> None:
    fake_tavily.trickle_next(SLOW_PAGE.encode(), every=0.001, length=False)
    assert fetch_tool(timeout=10)(url="https://e.com/a").content == "x" * 150


@pytest.fixture
def behind_proxy(fake_tavily: FakeTavily, monkeypatch: pytest.MonkeyPatch) -> FakeTavily:
    """Tavily's address does not resolve; only the proxy (the stand-in itself) reaches it."""
    monkeypatch.setenv("TAVILY_API_BASE_URL", "http://tavily.invalid")
    monkeypatch.setenv("TAVILY_HTTP_PROXY", fake_tavily.url)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    return fake_tavily


def test_calls_through_a_proxy_work(behind_proxy: FakeTavily) -> None:
    behind_proxy.pages["https://e.com/a"] = "through the proxy"
    assert fetch_tool()(url="https://e.com/a").content == "through the proxy"
    assert [r.path for r in behind_proxy.requests] == ["/extract"]


def test_the_deadline_holds_through_a_proxy(behind_proxy: FakeTavily) -> None:
    # Each byte arrives well within a per-read timeout; only the total deadline ends it.
    behind_proxy.trickle_next(SLOW_PAGE.encode(), every=0.2)
    assert_ends_at_the_deadline()


@pytest.fixture
def over_tls(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeTavily]:
    """The stand-in serving HTTPS, with a certificate the client is told to trust."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(FIXTURES / "tls-127.0.0.1.pem", FIXTURES / "tls-127.0.0.1.key")
    with serving(FakeTavily(), tls=context) as fake:
        monkeypatch.setenv("TAVILY_API_KEY", API_KEY)
        monkeypatch.setenv("TAVILY_API_BASE_URL", fake.url)
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(FIXTURES / "tls-127.0.0.1.pem"))
        yield fake


def test_calls_over_https_work(over_tls: FakeTavily) -> None:
    over_tls.pages["https://e.com/a"] = "over TLS"
    assert fetch_tool()(url="https://e.com/a").content == "over TLS"


def test_the_deadline_holds_over_https(over_tls: FakeTavily) -> None:
    # The headers trickle: only the connection (not yet a response) can be shut.
    over_tls.trickle_next(SLOW_PAGE.encode(), every=0.2, headers=True)
    assert_ends_at_the_deadline()


@pytest.mark.parametrize(
    ("body", "kind"), [(b"true", "boolean"), (b"3.5", "number")], ids=["boolean", "number"]
)
def test_a_json_answer_that_is_not_an_object_is_named(
    fake_tavily: FakeTavily, body: bytes, kind: str
) -> None:
    fake_tavily.fail_next(200, body)
    search = {fn.__name__: fn for fn in SearchTool().get_tools()}["web_search"]
    with pytest.raises(RetriableError) as caught:
        search(query="q")
    assert str(caught.value) == (
        f"web_search failed: Tavily's answer could not be read: it is a JSON {kind}, not an "
        "object. Retry once; if it fails again, continue without web results."
    )


def search_refusal(fake: FakeTavily, body: bytes, card: SearchTool) -> str:
    fake.fail_next(200, body)
    search = {fn.__name__: fn for fn in card.get_tools()}["web_search"]
    with pytest.raises(RetriableError) as caught:
        search(query="q")
    return str(caught.value)


def test_an_answer_cut_outside_any_text_cannot_be_read(fake_tavily: FakeTavily) -> None:
    body = json.dumps({"results": [], "scores": [1] * 5_000}).encode()
    message = search_refusal(fake_tavily, body, SearchTool(max_download_bytes=1_000))
    assert message == (
        "web_search failed: Tavily's answer could not be read: it passed the 1,000-byte "
        "download limit and the part that arrived cannot be read. Retry once; if it fails "
        "again, continue without web results."
    )


def test_an_answer_nested_too_deeply_is_named(fake_tavily: FakeTavily) -> None:
    deep = b"[" * 200_000 + b"]" * 200_000
    assert search_refusal(fake_tavily, deep, SearchTool()) == (
        "web_search failed: Tavily's answer could not be read: it is JSON nested too deeply "
        "to read. Retry once; if it fails again, continue without web results."
    )


def test_past_the_limit_the_rest_is_not_downloaded(fake_tavily: FakeTavily) -> None:
    # 20 MB, far more than socket buffers hold: the stand-in can only finish sending it if
    # the client reads it all.
    fake_tavily.fail_next(200, {"results": [], "pad": "p" * 20_000_000})
    search = {fn.__name__: fn for fn in SearchTool(max_download_bytes=100_000).get_tools()}
    with pytest.raises(RetriableError, match="100,000-byte download limit"):
        search["web_search"](query="q")
    deadline = time.monotonic() + 5
    while fake_tavily.abandoned == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert fake_tavily.abandoned == 1


def test_a_session_outside_any_transfer_is_a_plain_session(fake_tavily: FakeTavily) -> None:
    # Only requests made inside transfer_scope are bounded; the session works without one
    # (from a thread that never opened a scope), with requests' own arguments.
    answers: list[Any] = []

    def post() -> None:
        session = BoundedSession()
        answer = session.post(
            f"{fake_tavily.url}/search",
            json={"query": "plain", "max_results": 1},
            headers={"Authorization": f"Bearer {API_KEY}"},
            timeout=5,
        )
        answers.append((answer.status_code, answer.json()["query"]))

    worker = threading.Thread(target=post)
    worker.start()
    worker.join(timeout=10)
    assert answers == [(200, "plain")]


def test_an_answer_of_exactly_the_limit_is_whole(fake_tavily: FakeTavily) -> None:
    answer: dict[str, Any] = {"results": [], "pad": ""}
    answer["pad"] = "p" * (1_000 - len(json.dumps(answer)))
    assert len(json.dumps(answer)) == 1_000
    fake_tavily.fail_next(200, answer)
    search = {fn.__name__: fn for fn in SearchTool(max_download_bytes=1_000).get_tools()}
    assert search["web_search"](query="q") == []


def test_the_limit_counts_every_chunk_read(fake_tavily: FakeTavily) -> None:
    # 150,000 bytes is past two full 64 KiB reads: the cut must fall in the third.
    answer = {"results": [{"url": "https://e.com/big", "raw_content": "a" * 300_000}]}
    fake_tavily.fail_next(200, answer)
    card = SearchTool(max_download_bytes=150_000)
    page = {fn.__name__: fn for fn in card.get_tools()}["web_fetch"](url="https://e.com/big")
    assert page.total_chars == 150_000 - json.dumps(answer).index("aaa")


def test_a_refused_connection_is_not_mistaken_for_a_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("TAVILY_API_KEY", API_KEY)
    monkeypatch.setenv("TAVILY_API_BASE_URL", f"http://127.0.0.1:{port}")
    # Well under a second of the deadline is left when the refusal comes back.
    search = {fn.__name__: fn for fn in SearchTool(timeout_seconds=0.5).get_tools()}
    with pytest.raises(RetriableError, match="could not be reached"):
        search["web_search"](query="q")


def test_an_answer_that_is_not_json_says_so(fake_tavily: FakeTavily) -> None:
    assert search_refusal(fake_tavily, b"<html>busy</html>", SearchTool()) == (
        "web_search failed: Tavily's answer could not be read: it is not JSON. Retry once; if "
        "it fails again, continue without web results."
    )


def test_positional_request_arguments_are_passed_on(fake_tavily: FakeTavily) -> None:
    body = json.dumps({"query": "positional", "max_results": 1})
    headers = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
    session = BoundedSession()
    # requests' own order: method, url, params, data, headers.
    plain = session.request("POST", f"{fake_tavily.url}/search", None, body, headers)
    with transfer_scope(Transfer(timeout=5, max_bytes=100_000)):
        bounded = session.request("POST", f"{fake_tavily.url}/search", None, body, headers)
    assert [plain.json()["query"], bounded.json()["query"]] == ["positional", "positional"]
