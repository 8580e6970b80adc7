"""Fixtures shared by the akgentic-llm tests.

Models are pydantic-ai ``TestModel`` / ``FunctionModel`` swapped in with
``ReactAgent.pydantic_agent.override(model=...)``; provider credentials are fake values set in
the environment only so that ``create_model`` can build its (never contacted) provider client.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic_ai.profiles import ModelProfile

from akgentic.llm import HttpClientConfig, ModelConfig, ReactAgent, ReactAgentConfig, RuntimeConfig

_PROVIDER_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
    "OPENAI_API_VERSION",
    "ANTHROPIC_API_KEY",
    "NVIDIA_BASE_URL",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "MISTRAL_API_KEY",
)


@dataclass
class EventRecorder:
    """A context observer keeping every event, in order."""

    events: list[object] = field(default_factory=list)

    def notify_event(self, event: object) -> None:
        self.events.append(event)

    def of_type(self, kind: type) -> list[Any]:
        return [event for event in self.events if isinstance(event, kind)]

    def names(self) -> list[str]:
        return [type(event).__name__ for event in self.events]


@pytest.fixture
def event_recorder() -> EventRecorder:
    return EventRecorder()


@pytest.fixture
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No provider variable set, whatever the developer's shell exports."""
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture
def fake_keys(clean_provider_env: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Fake credentials for every provider (nothing is ever sent with them)."""
    clean_provider_env.setenv("OPENAI_API_KEY", "sk-test-openai")
    clean_provider_env.setenv("AZURE_OPENAI_API_KEY", "test-azure")
    clean_provider_env.setenv("AZURE_OPENAI_ENDPOINT", "https://example-resource.openai.azure.com")
    clean_provider_env.setenv("OPENAI_API_VERSION", "2024-10-21")
    clean_provider_env.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    clean_provider_env.setenv("GOOGLE_API_KEY", "test-google")
    clean_provider_env.setenv("MISTRAL_API_KEY", "test-mistral")
    return clean_provider_env


@pytest.fixture
def closing() -> Iterator[Callable[[Any], Any]]:
    """``closing(agent)``: returns ``agent`` and closes it once the test is over."""
    built: list[Any] = []

    def keep(agent: Any) -> Any:
        built.append(agent)
        return agent

    yield keep
    for agent in built:
        agent.close()


@pytest.fixture
def make_agent(fake_keys: pytest.MonkeyPatch, closing: Any) -> Callable[..., ReactAgent]:
    """Build ReactAgents (default: openai gpt-4o config), closed after the test."""

    def factory(config: ReactAgentConfig | None = None, **kwargs: Any) -> ReactAgent:
        cfg = config or ReactAgentConfig(model_cfg=ModelConfig(provider="openai", model="gpt-4o"))
        agent: ReactAgent = closing(ReactAgent(config=cfg, **kwargs))
        return agent

    return factory


def _outcomes_in_threads[T](
    work: Callable[[T], object], items: Iterable[T], timeout: float = 20.0
) -> list[object]:
    """``work(item)`` for every item, each on its own thread, all running at once (a barrier
    inside ``work`` may wait for all of them): what each returned, or the exception it raised,
    in the order they finished."""
    todo = list(items)
    with ThreadPoolExecutor(max_workers=len(todo)) as pool:
        futures = [pool.submit(work, item) for item in todo]
        return [_outcome(future) for future in as_completed(futures, timeout=timeout)]


def _outcome(future: Future[object]) -> object:
    error = future.exception()
    return error if error is not None else future.result()


InThreads = Callable[..., list[object]]


Decorator = Callable[[Callable[..., str]], Callable[..., str]]


def _logged(fn: Callable[..., str]) -> Callable[..., str]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> str:
        return "logged " + fn(*args, **kwargs)

    return wrapper


@pytest.fixture
def logged() -> Decorator:
    """A plain ``functools.wraps`` decorator (the answer gains a ``logged`` prefix): every
    wrapper it makes runs the same code, as the tool-schema cache sees decorated tools."""
    return _logged


@pytest.fixture
def in_threads() -> InThreads:
    """``in_threads(work, items, timeout=20.0)``: the outcome of ``work(item)`` for each item,
    every call on its own thread; an exception is an outcome, kept for the assertions."""
    return _outcomes_in_threads


@pytest.fixture
def native_profile() -> ModelProfile:
    """Lets TestModel/FunctionModel accept the NativeOutput that openai-class configs request."""
    return ModelProfile(supports_json_schema_output=True)


# ------------------------------------------------------------ local HTTP servers


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # a crowd of agents may connect at once


class LocalHttpServer:
    """A ``ThreadingHTTPServer`` on 127.0.0.1 serving ``handler`` from a daemon thread."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = _Server(("127.0.0.1", 0), handler)
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        ).start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


StartServer = Callable[[type[BaseHTTPRequestHandler]], LocalHttpServer]


@pytest.fixture
def http_server() -> Iterator[StartServer]:
    """Start local servers for a handler class; every one is stopped after the test."""
    started: list[LocalHttpServer] = []

    def start(handler: type[BaseHTTPRequestHandler]) -> LocalHttpServer:
        started.append(LocalHttpServer(handler))
        return started[-1]

    yield start
    for server in started:
        server.stop()


# A reply is (status, headers, body), or (status, text) for a JSON body. In a text body,
# "{auth}", "{api_key}" and "{token}" become the request's credentials, as some gateways echo
# them back.
Reply = tuple[int, str] | tuple[int, dict[str, str], bytes]


class ScriptedServer:
    """Answers each request with the next scripted reply (the last one repeats)."""

    def __init__(self, replies: list[Reply], start: StartServer) -> None:
        self.replies = replies
        self.paths: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                reply = owner.replies[min(len(owner.paths), len(owner.replies) - 1)]
                owner.paths.append(self.path)
                status, headers, body = _expand(reply, self.headers)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = _answer
            do_POST = _answer

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = start(Handler)

    @property
    def url(self) -> str:
        return self._server.url

    @property
    def attempts(self) -> int:
        return len(self.paths)


def _expand(reply: Reply, request_headers: Any) -> tuple[int, dict[str, str], bytes]:
    if len(reply) == 3:
        return reply
    status, text = reply
    token = request_headers.get("Authorization", "").partition(" ")[2]
    for placeholder, value in (
        ("{auth}", request_headers.get("Authorization", "")),
        ("{api_key}", request_headers.get("x-api-key", "")),
        ("{token}", token),
    ):
        text = text.replace(placeholder, value)
    return status, {"Content-Type": "application/json"}, text.encode()


@pytest.fixture
def serve(http_server: StartServer) -> Callable[..., ScriptedServer]:
    """``serve(*replies)``: a local server answering the scripted replies in turn."""

    def start(*replies: Reply) -> ScriptedServer:
        return ScriptedServer(list(replies), http_server)

    return start


def chat_completion(text: str, prompt_tokens: int = 12, completion_tokens: int = 3) -> bytes:
    """An OpenAI chat-completion body answering ``text`` with the given token usage."""
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "gpt-4o",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    ).encode()


@pytest.fixture(name="chat_completion")
def chat_completion_fixture() -> Callable[..., bytes]:
    """``chat_completion(text, prompt_tokens=12, completion_tokens=3)`` as a fixture."""
    return chat_completion


@pytest.fixture
def openai_agent(clean_provider_env: pytest.MonkeyPatch, closing: Any) -> Callable[..., ReactAgent]:
    """``openai_agent(base_url, key, http_config, **kwargs)``: a gpt-4o ``ReactAgent`` whose
    OpenAI SDK talks to ``base_url`` with ``key``; closed after the test."""

    def build(base_url: str, key: str, http_config: HttpClientConfig, **kwargs: Any) -> ReactAgent:
        clean_provider_env.setenv("OPENAI_API_KEY", key)
        clean_provider_env.setenv("OPENAI_BASE_URL", base_url)
        config = ReactAgentConfig(
            model_cfg=ModelConfig(provider="openai", model="gpt-4o"),
            runtime_cfg=RuntimeConfig(http_client_config=http_config),
        )
        agent: ReactAgent = closing(ReactAgent(config=config, **kwargs))
        return agent

    return build
