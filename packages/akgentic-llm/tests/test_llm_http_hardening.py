"""The retrying HTTP client: every retryable status, and credentials echoed in error bodies.

A real ``http.server`` on 127.0.0.1 answers from a script; its replies may echo the request's
credential headers into the body, as some gateways and proxies do.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from akgentic.llm import (
    HttpClientConfig,
    ModelConfig,
    ReactAgent,
    ReactAgentConfig,
    RuntimeConfig,
    create_http_client,
)

# A reply is (status, body); "{auth}" / "{api_key}" in the body become the request's headers.
Reply = tuple[int, str]


class EchoServer:
    """Answers each request with the next scripted reply (the last one repeats)."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = replies
        self.attempts = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                status, template = owner.replies[min(owner.attempts, len(owner.replies) - 1)]
                owner.attempts += 1
                body = template.replace("{auth}", self.headers.get("Authorization", ""))
                body = body.replace("{api_key}", self.headers.get("x-api-key", ""))
                token = self.headers.get("Authorization", "").partition(" ")[2]
                body = body.replace("{token}", token).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = _answer
            do_POST = _answer

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        ).start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"


@pytest.fixture
def serve() -> Iterator[Callable[..., EchoServer]]:
    servers: list[EchoServer] = []

    def start(*replies: Reply) -> EchoServer:
        server = EchoServer(list(replies))
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.httpd.shutdown()
        server.httpd.server_close()


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


def test_an_echoed_api_key_never_reaches_the_exception(
    serve: Any, clean_provider_env: pytest.MonkeyPatch
) -> None:
    from pydantic_ai.exceptions import ModelHTTPError

    body = json.dumps({"error": {"message": "Invalid credentials: {auth}", "type": "auth"}})
    server = serve((401, body))
    clean_provider_env.setenv("OPENAI_API_KEY", SECRET)
    clean_provider_env.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    agent = ReactAgent(
        config=ReactAgentConfig(
            model_cfg=ModelConfig(provider="openai", model="gpt-4o"),
            runtime_cfg=RuntimeConfig(http_client_config=HttpClientConfig(max_retries=0)),
        )
    )
    try:
        with pytest.raises(ModelHTTPError) as info:
            agent.run_sync("hi")
    finally:
        agent.close()
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


# ------------------------------------------------------------- the deadline


class TricklingServer:
    """Sends its answer one byte every 50 ms, in the head or in the body (1 s in all)."""

    def __init__(self, phase: str) -> None:
        self.attempts = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.attempts += 1
                body = b"x" * 20
                head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\nX-Slow: "
                slow = ("y" * 20 + "\r\n\r\n").encode() if phase == "head" else b"y\r\n\r\n"
                self.wfile.write(head.encode())
                try:
                    for chunk in [slow[i : i + 1] for i in range(len(slow))]:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                        if phase == "head":
                            time.sleep(0.05)
                    for byte in body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        if phase == "body":
                            time.sleep(0.05)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up: what the deadline is for

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        ).start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"


@pytest.fixture
def trickle() -> Iterator[Callable[[str], TricklingServer]]:
    servers: list[TricklingServer] = []

    def start(phase: str) -> TricklingServer:
        servers.append(TricklingServer(phase))
        return servers[-1]

    yield start
    for server in servers:
        server.httpd.shutdown()
        server.httpd.server_close()


@pytest.mark.parametrize("phase", ["head", "body"])
async def test_a_trickling_answer_is_cut_at_the_attempt_deadline(trickle: Any, phase: str) -> None:
    server = trickle(phase)
    # Each byte comes well within the 1 s per-read timeout: only the deadline can stop it.
    config = HttpClientConfig(timeout=1.0, attempt_deadline=0.3, max_retries=1)
    started = time.monotonic()
    async with create_http_client(config, sleep=_no_sleep) as client:
        with pytest.raises(httpx.ReadTimeout, match=r"deadline of 0.3 s"):
            await client.get(server.url)
    assert time.monotonic() - started < 1.5
    # Waiting for the head happens inside the retry loop: a miss there is retried. The body
    # is read by the caller once the transport has answered, so a miss there surfaces.
    assert server.attempts == (2 if phase == "head" else 1)


async def test_without_a_deadline_the_same_answer_is_read_whole(trickle: Any) -> None:
    server = trickle("body")
    config = HttpClientConfig(timeout=1.0, attempt_deadline=None, max_retries=0)
    async with create_http_client(config) as client:
        response = await client.get(server.url)
    assert response.content == b"x" * 20


def test_the_default_deadline_is_ten_minutes() -> None:
    assert HttpClientConfig().attempt_deadline == 600.0


async def test_a_bearer_token_echoed_without_its_scheme_is_masked(serve: Any) -> None:
    server = serve((401, '"key {token} is not valid"'))
    async with create_http_client(HttpClientConfig(max_retries=0)) as client:
        response = await client.get(server.url, headers={"Authorization": f"Bearer {SECRET}"})
    assert response.text == '"key [REDACTED] is not valid"'
