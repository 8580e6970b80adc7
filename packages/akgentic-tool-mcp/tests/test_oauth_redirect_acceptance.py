"""What the local redirect listeners answer, and which redirect they take.

Two listeners wait for the authorization redirect on 127.0.0.1: the asynchronous one of the
flow (``listen_for_callback``) and the blocking one of the predecessor's helper
(``handle_mcp_oauth_flow``). Both are driven here by a real HTTP client playing the
browser; every answer must be a complete HTML page (the browser shows it to the user) whose
status and title say what happened to the request.
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import threading
from collections.abc import Callable
from html import escape
from urllib.parse import urlencode

import httpx
import pytest
from mcp_harness import free_port

from akgentic.tool.mcp.oauth_handler import (
    OAuthFlowError,
    handle_mcp_oauth_flow,
    listen_for_callback,
)

STATE = "st-1"

# What each answer shows the user: status, the page's title and its message, as written.
NOT_FOUND = (404, "Not found", "Nothing here.")
WRONG_STATE = (
    400,
    "Not accepted",
    "This answer does not belong to the sign-in in progress (its state is wrong or "
    "missing), so it was ignored. Finish signing in from the page the application opened.",
)
AUTHORIZED = (200, "Authorized", "Done: you can close this tab.")
REFUSED = (200, "Authorization refused", "You can close this tab.")
NO_CODE = (
    400,
    "Authorization failed",
    "The answer carried no authorization code; the sign-in failed. You can close this tab.",
)
NOTHING_PENDING = (
    400,
    "Nothing to authorize",
    "No sign-in is waiting for this answer (it may have finished already). You can close this tab.",
)

Page = tuple[int, str, str]


def _query(**params: str) -> str:
    return "?" + urlencode(params)


def _assert_page(answer: httpx.Response, expected: Page) -> None:
    status, title, message = expected
    assert answer.status_code == status
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert int(answer.headers["content-length"]) == len(answer.content)
    assert answer.headers["connection"] == "close"
    shown_title = re.fullmatch(
        r"<!doctype html><html><head><meta charset='utf-8'><title>(.*)</title></head>"
        r"<body><p>(.*)</p></body></html>",
        answer.text,
    )
    assert shown_title is not None, answer.text
    assert shown_title[1] == escape(title)
    assert shown_title[2] == escape(message)


def _blocking_flow(
    requests: list[str], *, auth_timeout: float = 10, opened: bool | None = True
) -> tuple[list[httpx.Response], Callable[[], str]]:
    """Prepare ``handle_mcp_oauth_flow`` with a browser that sends ``requests`` in order.

    Returns the list the answers land in, and the call that runs the flow (its code, or
    its error); the answers are complete once the call has returned or raised.
    """
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    auth_url = "https://auth.example/authorize?" + urlencode(
        {"state": STATE, "redirect_uri": f"{origin}/cb"}
    )
    answers: list[httpx.Response] = []
    visits: list[threading.Thread] = []

    def browser(url: str) -> bool | None:
        assert url == auth_url

        def visit() -> None:
            for request in requests:
                answers.append(httpx.get(origin + request, timeout=10))

        visits.append(threading.Thread(target=visit, daemon=True))
        visits[0].start()
        return opened

    def run() -> str:
        try:
            return handle_mcp_oauth_flow(
                auth_url, callback_port=port, auth_timeout=auth_timeout, open_browser=browser
            )
        finally:
            for thread in visits:
                thread.join(timeout=10)

    return answers, run


# -- the asynchronous listener -------------------------------------------------------------


async def test_the_listener_answers_each_request_with_a_page_saying_what_happened() -> None:
    async with listen_for_callback() as callback, httpx.AsyncClient() as client:
        origin = callback.redirect_uri.removesuffix("/callback")
        _assert_page(await client.get(f"{callback.redirect_uri}?code=c&state=x"), NOTHING_PENDING)
        callback.expect(STATE)
        _assert_page(await client.get(f"{origin}/favicon.ico"), NOT_FOUND)
        _assert_page(await client.get(callback.redirect_uri + _query(code="c")), WRONG_STATE)
        wrong = _query(code="c", state="st-2")
        _assert_page(await client.get(callback.redirect_uri + wrong), WRONG_STATE)
        assert callback.rejected == 2
        right = _query(code="the-code", state=STATE)
        _assert_page(await client.get(callback.redirect_uri + right), AUTHORIZED)
        _assert_page(await client.get(callback.redirect_uri + right), NOTHING_PENDING)
        assert await callback.wait() == {"code": "the-code", "state": STATE}


@pytest.mark.parametrize(
    ("params", "page"),
    [
        ({"error": "access_denied", "state": STATE}, REFUSED),
        ({"state": STATE}, NO_CODE),
    ],
)
async def test_a_redirect_without_a_code_ends_the_wait_with_its_own_page(
    params: dict[str, str], page: Page
) -> None:
    async with listen_for_callback() as callback, httpx.AsyncClient() as client:
        callback.expect(STATE)
        _assert_page(await client.get(callback.redirect_uri + _query(**params)), page)
        assert await callback.wait() == params


async def test_a_listener_serves_one_request_after_another(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="akgentic.tool.mcp.oauth_handler")
    async with listen_for_callback() as callback, httpx.AsyncClient() as client:
        callback.expect(STATE)
        await client.get(callback.redirect_uri + _query(code="first", state=STATE))
        assert await callback.wait() == {"code": "first", "state": STATE}
        # A second authorization through the same listener (a new login, a retry).
        callback.expect("st-2")
        await client.get(callback.redirect_uri + _query(code="stolen", state=STATE))
        await client.get(callback.redirect_uri + _query(code="second", state="st-2"))
        assert await callback.wait() == {"code": "second", "state": "st-2"}
    # The request turned away is logged with the listener it reached, not its values.
    (turned_away,) = [r.getMessage() for r in caplog.records]
    assert callback.redirect_uri in turned_away
    assert "stolen" not in turned_away


async def test_a_new_request_starts_with_nothing_turned_away() -> None:
    async with listen_for_callback() as callback, httpx.AsyncClient() as client:
        callback.expect(STATE)
        await client.get(callback.redirect_uri + _query(code="c", state="forged"))
        assert callback.rejected == 1
        callback.expect("st-2")
        assert callback.rejected == 0
        _assert_page(await client.get(callback.redirect_uri + _query(code="c")), WRONG_STATE)
        assert callback.rejected == 1


@pytest.mark.parametrize(
    ("request_bytes", "half_close"),
    [
        (b"GET /favicon.ico HTTP/1.1\nHost: x\n\n", False),  # bare line feeds
        (b"GET /favicon.ico HTTP/1.1\r\nHost: x\r\n", True),  # no blank line, then EOF
    ],
)
async def test_the_listener_answers_requests_that_end_unusually(
    request_bytes: bytes, half_close: bool
) -> None:
    async with listen_for_callback() as callback:
        reader, writer = await asyncio.open_connection("127.0.0.1", callback.port)
        writer.write(request_bytes)
        if half_close:
            writer.write_eof()
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), 5)
        writer.close()
    assert status_line.startswith(b"HTTP/1.1 404 ")


# -- the blocking listener of the predecessor's helper -------------------------------------


def test_the_blocking_listener_answers_with_the_same_pages() -> None:
    answers, run = _blocking_flow(
        [
            "/favicon.ico",
            "/cb" + _query(code="stolen"),
            "/cb" + _query(code="stolen", state="forged"),
            "/cb" + _query(code="the-code", state=STATE),
        ]
    )
    assert run() == "the-code"
    for answer, page in zip(
        answers, [NOT_FOUND, WRONG_STATE, WRONG_STATE, AUTHORIZED], strict=True
    ):
        _assert_page(answer, page)


@pytest.mark.parametrize(
    ("params", "page", "error"),
    [
        ({"error": "access_denied", "state": STATE}, REFUSED, "refused: access_denied"),
        ({"state": STATE}, NO_CODE, "^the authorization redirect carried no code$"),
    ],
)
def test_the_blocking_listener_takes_a_redirect_without_a_code_as_a_failure(
    params: dict[str, str], page: Page, error: str
) -> None:
    answers, run = _blocking_flow(["/cb" + _query(**params)])
    with pytest.raises(OAuthFlowError, match=error):
        run()
    (answer,) = answers
    _assert_page(answer, page)


def test_the_blocking_timeout_counts_the_requests_turned_away() -> None:
    forged = "/cb" + _query(code="stolen", state="forged")
    answers, run = _blocking_flow([forged, forged], auth_timeout=0.5)
    with pytest.raises(OAuthFlowError) as caught:
        run()
    assert "within 0.5 s (2 request(s) with a wrong or missing state were turned away)" in str(
        caught.value
    )
    assert re.search(r"at http://127\.0\.0\.1:\d+/cb ", str(caught.value))
    assert [answer.status_code for answer in answers] == [400, 400]


def test_a_blocking_timeout_without_any_request_says_only_that() -> None:
    _, run = _blocking_flow([], auth_timeout=0.3)
    with pytest.raises(OAuthFlowError) as caught:
        run()
    assert re.fullmatch(
        r"no authorization arrived at http://127\.0\.0\.1:\d+/cb within 0\.3 s", str(caught.value)
    )


def test_a_redirect_within_a_short_wait_is_still_taken() -> None:
    _, run = _blocking_flow(["/cb" + _query(code="the-code", state=STATE)], auth_timeout=1.0)
    assert run() == "the-code"


@pytest.mark.parametrize(("opened", "logged"), [(False, True), (True, False), (None, False)])
def test_the_url_is_logged_only_when_the_browser_could_not_be_opened(
    caplog: pytest.LogCaptureFixture, opened: bool | None, logged: bool
) -> None:
    caplog.set_level(logging.WARNING, logger="akgentic.tool.mcp.oauth_handler")
    _, run = _blocking_flow(["/cb" + _query(code="the-code", state=STATE)], opened=opened)
    assert run() == "the-code"
    # When it is, the warning tells the user what to do with it.
    said = r"Could not open a browser; open this URL to authorize: https://auth\.example/authorize\?\S+"
    messages = [record.getMessage() for record in caplog.records]
    assert any(re.fullmatch(said, m) for m in messages) is logged


def test_an_insecure_authorization_url_is_refused_by_name() -> None:
    with pytest.raises(OAuthFlowError) as caught:
        handle_mcp_oauth_flow("http://auth.example/authorize?state=s", callback_port=0)
    assert (
        "authorization url ('http://auth.example/authorize?state=s')" in str(caught.value).lower()
    )


def test_the_blocking_listener_refuses_other_methods_and_never_logs_a_query(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG, logger="akgentic.tool.mcp.oauth_handler")
    port = free_port()
    auth_url = "https://auth.example/authorize?" + urlencode({"state": STATE})
    answers: list[int] = []
    visits: list[threading.Thread] = []

    def browser(url: str) -> bool:
        def visit() -> None:
            redirect = f"http://127.0.0.1:{port}/callback"
            stolen = _query(code="SECRET-CODE", state=STATE)
            answers.append(httpx.post(redirect + stolen, timeout=10).status_code)
            with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
                # One word too many: refused before its path is even read.
                raw.sendall(b"GET /callback?code=SECRET-CODE&state=st-1 x HTTP/1.1\r\n\r\n")
                answers.append(int(raw.makefile("rb").readline().split()[1]))
            answer = httpx.get(redirect + _query(code="the-code", state=STATE), timeout=10)
            answers.append(answer.status_code)

        visits.append(threading.Thread(target=visit, daemon=True))
        visits[0].start()
        return True

    code = handle_mcp_oauth_flow(
        auth_url, callback_port=port, auth_timeout=10, open_browser=browser
    )
    visits[0].join(timeout=10)
    assert code == "the-code"
    assert answers == [501, 400, 200]
    logged = [record.getMessage() for record in caplog.records]
    assert any("POST" in line and "/callback" in line for line in logged), logged
    assert "SECRET-CODE" not in "\n".join(logged) + capfd.readouterr().err
