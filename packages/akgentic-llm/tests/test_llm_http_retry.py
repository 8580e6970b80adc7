"""The retrying HTTP client against a real HTTP server on 127.0.0.1.

The server answers from a script (status, headers, body) and counts the requests it received;
the client's sleep is replaced by a recorder, so the waits are asserted without waiting.
"""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from akgentic.llm import (
    HttpClientConfig,
    create_http_client,
)

Reply = tuple[int, dict[str, str], bytes]


class SleepRecorder:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


OK: Reply = (200, {"Content-Type": "text/plain"}, b"ok")


def busy(status: int = 503, **headers: str) -> Reply:
    return (status, headers, b"busy")


async def test_429_then_503_then_success_retries_with_exponential_jittered_waits(
    serve: Any,
) -> None:
    server = serve(busy(429), busy(503), OK)
    sleep = SleepRecorder()
    config = HttpClientConfig(max_retries=5, backoff_multiplier=0.5, backoff_max=60.0)
    async with create_http_client(config, sleep=sleep) as client:
        response = await client.get(f"{server.url}/v1/thing")
    assert response.status_code == 200
    assert response.text == "ok"
    assert server.attempts == 3
    assert len(sleep.waits) == 2
    # initial * 2**(n-1) plus jitter in [0, backoff_multiplier]
    assert 0.5 <= sleep.waits[0] <= 1.0
    assert 1.0 <= sleep.waits[1] <= 1.5


async def test_retry_after_seconds_is_honoured(serve: Any) -> None:
    server = serve(busy(429, **{"Retry-After": "7"}), OK)
    sleep = SleepRecorder()
    async with create_http_client(HttpClientConfig(), sleep=sleep) as client:
        response = await client.post(f"{server.url}/v1/chat", content=b"{}")
    assert response.status_code == 200
    assert server.attempts == 2
    assert sleep.waits == [7.0]


async def test_retry_after_http_date_is_honoured_and_capped(serve: Any) -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    server = serve(busy(503, **{"Retry-After": when}), busy(429, **{"Retry-After": "600"}), OK)
    sleep = SleepRecorder()
    config = HttpClientConfig(backoff_max=60.0)
    async with create_http_client(config, sleep=sleep) as client:
        response = await client.get(server.url)
    assert response.status_code == 200
    assert server.attempts == 3
    assert 27.0 <= sleep.waits[0] <= 30.0
    assert sleep.waits[1] == 60.0  # a 600 s Retry-After is capped at backoff_max


@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_other_4xx_fail_fast(serve: Any, status: int) -> None:
    server = serve((status, {}, b"nope"), OK)
    sleep = SleepRecorder()
    async with create_http_client(HttpClientConfig(), sleep=sleep) as client:
        response = await client.get(server.url)
    assert response.status_code == status
    assert response.text == "nope"
    assert server.attempts == 1
    assert sleep.waits == []


async def test_exhausted_retries_hand_back_the_last_answer(serve: Any) -> None:
    server = serve(busy(503))
    sleep = SleepRecorder()
    config = HttpClientConfig(max_retries=2, backoff_multiplier=1.0, backoff_max=3.0)
    async with create_http_client(config, sleep=sleep) as client:
        response = await client.get(server.url)
    assert response.status_code == 503
    assert response.text == "busy"  # the body survives for the SDK's error message
    assert server.attempts == 3
    assert len(sleep.waits) == 2
    assert 1.0 <= sleep.waits[0] <= 2.0
    assert sleep.waits[1] <= 3.0  # 2.0 + jitter, capped at backoff_max


async def test_zero_retries_means_one_attempt(serve: Any) -> None:
    server = serve(busy(429))
    sleep = SleepRecorder()
    async with create_http_client(HttpClientConfig(max_retries=0), sleep=sleep) as client:
        response = await client.get(server.url)
    assert response.status_code == 429
    assert server.attempts == 1
    assert sleep.waits == []


async def test_connection_errors_are_retried_then_raised() -> None:
    # A port that was free a moment ago: nothing listens, every connect is refused.
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    sleep = SleepRecorder()
    async with create_http_client(HttpClientConfig(max_retries=3), sleep=sleep) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://127.0.0.1:{port}/")
    assert len(sleep.waits) == 3


def test_react_agent_retries_through_the_openai_sdk(
    serve: Any, openai_agent: Any, chat_completion: Any, event_recorder: Any
) -> None:
    """End to end: ReactAgent -> OpenAI SDK -> retrying transport -> local server."""
    from akgentic.llm import LlmUsageEvent

    server = serve(
        busy(503, **{"Retry-After": "0"}),
        (200, {"Content-Type": "application/json"}, chat_completion("hello from the server")),
    )
    http_config = HttpClientConfig(max_retries=2, backoff_multiplier=0.01)
    agent = openai_agent(f"{server.url}/v1", "sk-local", http_config, observer=event_recorder)
    assert agent.run_sync("hi") == "hello from the server"
    assert server.attempts == 2
    assert all(path == "/v1/chat/completions" for path in server.paths)
    [usage] = event_recorder.of_type(LlmUsageEvent)
    assert (usage.input_tokens, usage.output_tokens) == (12, 3)


def test_sdk_retries_do_not_multiply_ours(serve: Any, openai_agent: Any) -> None:
    """Retries exhausted on 429: exactly 1 + max_retries requests, then the SDK's error."""
    from pydantic_ai.exceptions import ModelHTTPError

    server = serve(busy(429, **{"Retry-After": "0"}))
    agent = openai_agent(f"{server.url}/v1", "sk-local", HttpClientConfig(max_retries=1))
    with pytest.raises(ModelHTTPError) as info:
        agent.run_sync("hi")
    assert info.value.status_code == 429
    assert server.attempts == 2


async def test_predecessor_keywords_set_attempts_and_caps(serve: Any) -> None:
    # max_attempts counts every attempt: 2 means one retry, then the 503 is handed back.
    server = serve(busy(503), busy(503), OK)
    sleep = SleepRecorder()
    async with create_http_client(max_attempts=2, exp_multiplier=0.25, sleep=sleep) as client:
        response = await client.get(f"{server.url}/v1/thing")
    assert response.status_code == 503
    assert server.attempts == 2
    assert 0.25 <= sleep.waits[0] <= 0.5


async def test_retry_after_cap_is_separate_from_the_backoff_cap(serve: Any) -> None:
    server = serve(busy(429, **{"Retry-After": "200"}), OK)
    sleep = SleepRecorder()
    async with create_http_client(
        exp_max_s=5.0, retry_after_cap_s=150.0, timeout_s=9.0, sleep=sleep
    ) as client:
        assert client.timeout.read == 9.0
        response = await client.get(f"{server.url}/v1/thing")
    assert response.status_code == 200
    assert sleep.waits == [150.0]


async def test_exponential_waits_are_capped_at_backoff_max(serve: Any) -> None:
    # Uncapped, the third wait would be 4 s plus jitter; backoff_max holds every wait to 1.5 s.
    server = serve(busy(503), busy(503), busy(503), OK)
    sleep = SleepRecorder()
    config = HttpClientConfig(max_retries=3, backoff_multiplier=1.0, backoff_max=1.5)
    async with create_http_client(config, sleep=sleep) as client:
        response = await client.get(server.url)
    assert response.status_code == 200
    assert len(sleep.waits) == 3
    assert all(wait <= 1.5 for wait in sleep.waits)


async def test_predecessor_keywords_are_checked_at_their_bounds(serve: Any) -> None:
    # max_attempts=1 is one attempt and no retry; a Retry-After cap under a second is allowed.
    server = serve(busy(503), OK)
    sleep = SleepRecorder()
    async with create_http_client(max_attempts=1, retry_after_cap_s=0.5, sleep=sleep) as client:
        response = await client.get(server.url)
    assert (response.status_code, server.attempts, sleep.waits) == (503, 1, [])
    with pytest.raises(ValueError) as attempts:
        create_http_client(max_attempts=0)
    assert str(attempts.value) == "max_attempts must be at least 1, got 0"
    with pytest.raises(ValueError) as cap:
        create_http_client(retry_after_cap_s=0)
    assert str(cap.value) == "retry_after_cap_s must be positive, got 0"
