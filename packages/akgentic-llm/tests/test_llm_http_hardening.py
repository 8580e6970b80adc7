"""The retrying HTTP client: every retryable status, and credentials echoed in error bodies.

A real ``http.server`` on 127.0.0.1 answers from a script; its replies may echo the request's
credential headers into the body, as some gateways and proxies do.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from akgentic.llm import (
    HttpClientConfig,
    create_http_client,
)


async def _no_sleep(seconds: float) -> None:
    return None


# ---------------------------------------------------------- retryable statuses


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504, 599])
async def test_every_retryable_status_is_retried(serve: Any, status: int) -> None:
    server = serve((status, '"busy"'), (200, '"ok"'))
    async with create_http_client(HttpClientConfig(max_retries=1), sleep=_no_sleep) as client:
        response = await client.get(server.url)
    assert (response.status_code, server.attempts) == (200, 2)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 422, 499])
async def test_other_statuses_are_not_retried(serve: Any, status: int) -> None:
    server = serve((status, '"no"'), (200, '"ok"'))
    async with create_http_client(HttpClientConfig(max_retries=3), sleep=_no_sleep) as client:
        response = await client.get(server.url)
    assert (response.status_code, server.attempts) == (status, 1)


# -------------------------------------------------------------- redaction

SECRET = "sk-test-0123456789abcdef"


def _texts(error: BaseException) -> list[str]:
    """str/repr of the error and of every exception chained to it, plus any body it holds."""
    texts: list[str] = []
    seen: BaseException | None = error
    while seen is not None:
        texts += [str(seen), repr(seen), repr(getattr(seen, "body", None))]
        seen = seen.__cause__ or seen.__context__
    return texts


def test_an_echoed_api_key_never_reaches_the_exception(serve: Any, openai_agent: Any) -> None:
    from pydantic_ai.exceptions import ModelHTTPError

    body = json.dumps({"error": {"message": "Invalid credentials: {auth}", "type": "auth"}})
    server = serve((401, body))
    agent = openai_agent(f"{server.url}/v1", SECRET, HttpClientConfig(max_retries=0))
    with pytest.raises(ModelHTTPError) as info:
        agent.run_sync("hi")
    assert info.value.status_code == 401
    texts = _texts(info.value)
    assert not [text for text in texts if SECRET in text]
    assert any("Invalid credentials: [REDACTED]" in text for text in texts)


async def test_redaction_covers_key_headers_and_leaves_success_alone(serve: Any) -> None:
    server = serve((403, '"denied for {api_key} / {auth}"'), (200, '"hello {api_key}"'))
    headers = {"x-api-key": SECRET, "Authorization": "Basic dXNlcjpzZWNyZXQ="}
    async with create_http_client(HttpClientConfig(max_retries=0)) as client:
        denied = await client.get(server.url, headers=headers)
        fine = await client.get(server.url, headers=headers)
    assert denied.text == '"denied for [REDACTED] / [REDACTED]"'
    assert denied.headers["content-length"] == str(len(denied.content))
    assert fine.text == f'"hello {SECRET}"'  # success bodies are not read nor changed


class EchoingGateway:
    """Refuses every request with ``401 Key Rejected``, echoing its credentials in the body.

    The body quotes the ``Authorization`` and ``x-api-key`` headers and the ``?key=`` query
    parameter. The path picks how the body travels: ``/gzip`` compressed
    (``Content-Encoding: gzip``), ``/chunked`` in chunks (``Transfer-Encoding: chunked``),
    anything else plain with a ``Content-Length``. Every answer carries an ``X-Request-Id``, the
    header a provider's support desk asks for.
    """

    def __init__(self, start: Any) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # chunked answers need it

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                key = parse_qs(url.query).get("key", [""])[0]
                echoed = (
                    f"denied: auth={self.headers.get('Authorization', '')} "
                    f"api_key={self.headers.get('x-api-key', '')} key={key}"
                ).encode()
                self.send_response(401, "Key Rejected")
                self.send_header("Content-Type", "text/plain")
                self.send_header("X-Request-Id", "req-42")
                if url.path == "/chunked":
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for piece in (echoed[:10], echoed[10:]):
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.write(b"0\r\n\r\n")
                    return
                body = gzip.compress(echoed) if url.path == "/gzip" else echoed
                if url.path == "/gzip":
                    self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.url = start(Handler).url


@pytest.fixture
def gateway(http_server: Any) -> EchoingGateway:
    return EchoingGateway(http_server)


async def _refused(url: str, **headers: str) -> httpx.Response:
    async with create_http_client(HttpClientConfig(max_retries=0)) as client:
        return await client.get(url, headers=headers)


async def test_a_key_passed_in_the_query_string_is_masked(gateway: EchoingGateway) -> None:
    # Google's API takes its key as ?key=..., and an error body may quote the URL.
    answer = await _refused(f"{gateway.url}/plain?key={SECRET}")
    assert answer.text == "denied: auth= api_key= key=[REDACTED]"


async def test_a_credential_with_spaces_after_its_scheme_is_masked_whole(serve: Any) -> None:
    # A signature-style Authorization value has several space-separated parts after its
    # scheme; echoed without the scheme, all of them are masked, not just the last one.
    server = serve((401, '"rejected {token}"'))
    value = "Signature keyId=abc123def, signature=0f1e2d3c4b5a"
    answer = await _refused(server.url, Authorization=value)
    assert answer.text == '"rejected [REDACTED]"'


async def test_a_six_character_key_is_masked_and_a_shorter_value_is_not(serve: Any) -> None:
    # Shorter values are placeholders, and masking them would mask ordinary words of the text.
    server = serve((403, '"denied {api_key}"'))
    assert (await _refused(server.url, **{"x-api-key": "abc123"})).text == '"denied [REDACTED]"'
    assert (await _refused(server.url, **{"x-api-key": "abc12"})).text == '"denied abc12"'


async def test_the_masked_answer_keeps_the_servers_status_reason_and_headers(
    gateway: EchoingGateway,
) -> None:
    answer = await _refused(f"{gateway.url}/plain", Authorization=f"Bearer {SECRET}")
    assert answer.text == "denied: auth=[REDACTED] api_key= key="
    assert (answer.status_code, answer.reason_phrase) == (401, "Key Rejected")
    assert answer.headers["x-request-id"] == "req-42"
    assert answer.headers["content-type"] == "text/plain"


@pytest.mark.parametrize("framing", ["gzip", "chunked"])
async def test_a_compressed_or_chunked_error_body_is_masked_and_stays_readable(
    gateway: EchoingGateway, framing: str
) -> None:
    # The masked body is the decoded one: headers that described the body on the wire
    # (its encoding, its chunking) no longer apply to it and must not be handed on.
    answer = await _refused(f"{gateway.url}/{framing}", **{"x-api-key": SECRET})
    assert answer.text == "denied: auth= api_key=[REDACTED] key="
    assert "content-encoding" not in answer.headers
    assert "transfer-encoding" not in answer.headers
    assert answer.headers["content-length"] == str(len(answer.content))


# ------------------------------------------------------------- the deadline


class TricklingServer:
    """Sends its answer one byte every ``pause`` seconds (50 ms by default), in the head or in
    the body: ``length`` bytes of it, so 20 bytes take about 1 s and 600 bytes about 30 s."""

    def __init__(self, phase: str, length: int, start: Any, pause: float = 0.05) -> None:
        self.attempts = 0
        self.length = length
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.attempts += 1
                body = b"x" * (owner.length if phase == "body" else 20)
                head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\nX-Slow: "
                slow = (
                    ("y" * owner.length + "\r\n\r\n").encode() if phase == "head" else b"y\r\n\r\n"
                )
                self.wfile.write(head.encode())
                try:
                    for chunk in [slow[i : i + 1] for i in range(len(slow))]:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                        if phase == "head":
                            time.sleep(pause)
                    for byte in body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        if phase == "body":
                            time.sleep(pause)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up: what the deadline is for

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.url = start(Handler).url


@pytest.fixture
def trickle(http_server: Any) -> Callable[..., TricklingServer]:
    def start(phase: str, length: int = 20, pause: float = 0.05) -> TricklingServer:
        return TricklingServer(phase, length, http_server, pause)

    return start


@pytest.mark.parametrize("phase", ["head", "body"])
async def test_a_trickling_answer_is_cut_at_the_attempt_deadline(trickle: Any, phase: str) -> None:
    # A 30 s answer, each byte well within the 1 s per-read timeout: only the deadline can
    # stop it. The bound below is a third of the trickle, so a loaded runner cannot reach it
    # by being slow, and a client that waited for the whole answer cannot pass under it.
    server = trickle(phase, length=600)
    config = HttpClientConfig(timeout=1.0, attempt_deadline=0.3, max_retries=1)
    started = time.monotonic()
    async with create_http_client(config, sleep=_no_sleep) as client:
        # The message names the setting to change.
        with pytest.raises(
            httpx.ReadTimeout, match=r"deadline of 0.3 s \(HttpClientConfig.attempt_deadline\)"
        ):
            await client.get(server.url)
    assert time.monotonic() - started < 10.0
    # Waiting for the head happens inside the retry loop: a miss there is retried. The body
    # is read by the caller once the transport has answered, so a miss there surfaces.
    assert server.attempts == (2 if phase == "head" else 1)


async def test_a_body_that_stalls_is_cut_at_the_deadline_not_at_its_next_byte(
    trickle: Any,
) -> None:
    # Two body bytes 4 s apart, a per-read timeout above that: only the deadline ends the
    # wait, and it must do so while the stalled read is still pending.
    server = trickle("body", length=2, pause=4.0)
    config = HttpClientConfig(timeout=10.0, attempt_deadline=0.3, max_retries=0)
    started = time.monotonic()
    async with create_http_client(config) as client:
        with pytest.raises(httpx.ReadTimeout, match=r"deadline of 0.3 s"):
            await client.get(server.url)
    assert time.monotonic() - started < 3.0


async def test_without_a_deadline_the_same_answer_is_read_whole(trickle: Any) -> None:
    server = trickle("body")
    config = HttpClientConfig(timeout=1.0, attempt_deadline=None, max_retries=0)
    async with create_http_client(config) as client:
        response = await client.get(server.url)
    assert response.content == b"x" * 20


class _Clock:
    """Stands in for the deadline module's monotonic clock, so that a test sets the time left
    exactly instead of racing a real clock on a loaded runner."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    from akgentic.llm import _deadline

    fake = _Clock()
    monkeypatch.setattr(_deadline, "time", fake)  # the module's own clock, not asyncio's
    return fake


async def _read_body(url: str, clock: _Clock, then: float) -> bytes:
    """The body of ``url`` read under a 10 s deadline, the clock set to ``then`` seconds after
    the request once the first byte has come."""
    config = HttpClientConfig(timeout=10.0, attempt_deadline=10.0, max_retries=0)
    body = b""
    async with create_http_client(config) as client, client.stream("GET", url) as response:
        async for chunk in response.aiter_raw():
            body += chunk
            clock.now = 1000.0 + then
    return body


async def test_a_body_that_ends_in_the_deadlines_last_second_is_read_whole(
    trickle: Any, clock: _Clock
) -> None:
    # Half a second is left after the first byte: the rest comes (50 ms a byte) and is kept.
    assert await _read_body(trickle("body", length=3).url, clock, then=9.5) == b"xxx"


async def test_a_body_still_being_read_after_the_deadline_is_cut_with_the_settings_name(
    trickle: Any, clock: _Clock
) -> None:
    # The reader itself is slow: by the time it asks for the next byte the deadline has gone.
    with pytest.raises(httpx.ReadTimeout) as cut:
        await _read_body(trickle("body", length=3).url, clock, then=10.5)
    assert str(cut.value) == (
        "the attempt took longer than its deadline of 10 s (HttpClientConfig.attempt_deadline)"
    )


def test_the_default_deadline_is_ten_minutes() -> None:
    assert HttpClientConfig().attempt_deadline == 600.0


async def test_a_bearer_token_echoed_without_its_scheme_is_masked(serve: Any) -> None:
    server = serve((401, '"key {token} is not valid"'))
    async with create_http_client(HttpClientConfig(max_retries=0)) as client:
        response = await client.get(server.url, headers={"Authorization": f"Bearer {SECRET}"})
    assert response.text == '"key [REDACTED] is not valid"'


async def test_a_400_answer_is_masked_like_every_error_status(serve: Any) -> None:
    # 400 is the first error status: an OpenAI-style "invalid request" may quote the key too.
    server = serve((400, '"bad request from {api_key}"'))
    assert (await _refused(server.url, **{"x-api-key": SECRET})).text == (
        '"bad request from [REDACTED]"'
    )
