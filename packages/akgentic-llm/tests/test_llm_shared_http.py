"""Agents with equal HTTP settings share one client; closing one never breaks another.

The server is a real keep-alive HTTP/1.1 server on 127.0.0.1 that answers OpenAI chat
completions; the agents reach it through the OpenAI SDK and the retrying client
(``OPENAI_BASE_URL``), each driving its own event loop with ``run_sync``.
"""

from __future__ import annotations

import asyncio
import os
import socketserver
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest
from pydantic import BaseModel
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from akgentic.llm import (
    CompactionConfig,
    HttpClientConfig,
    ModelConfig,
    ReactAgent,
    ReactAgentConfig,
    RuntimeConfig,
)
from akgentic.llm._shared_http import PerLoopTransport, shared_ssl_context, user_count


class ChatServer:
    """Answers every POST with a chat completion naming the request's number."""

    def __init__(
        self,
        start: Callable[[type[BaseHTTPRequestHandler]], Any],
        completion: Callable[[str, int, int], bytes],
        before_answer: Callable[[], object] | None = None,
    ) -> None:
        self.requests = 0
        self.peers: set[tuple[str, int]] = set()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: pools really reuse connections

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                self.rfile.read(length)
                if before_answer is not None:
                    before_answer()
                server.requests += 1
                server.peers.add(self.client_address)
                body = completion(f"answer {server.requests}", 5, 2)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = start(Handler)

    @property
    def url(self) -> str:
        return f"{self._server.url}/v1"


@pytest.fixture
def chat_server(
    clean_provider_env: pytest.MonkeyPatch, http_server: Any, chat_completion: Any
) -> ChatServer:
    server = ChatServer(http_server, chat_completion)
    clean_provider_env.setenv("OPENAI_API_KEY", "sk-local")
    clean_provider_env.setenv("OPENAI_BASE_URL", server.url)
    return server


def _config(*, shared: bool = True, timeout: float = 30.0) -> ReactAgentConfig:
    # A timeout no other test uses, so the registry entry belongs to this test alone.
    return ReactAgentConfig(
        model_cfg=ModelConfig(provider="openai", model="gpt-4o"),
        runtime_cfg=RuntimeConfig(
            share_http_client=shared,
            http_client_config=HttpClientConfig(timeout=timeout, max_retries=0),
        ),
    )


@pytest.fixture
def agents() -> Iterator[list[ReactAgent]]:
    built: list[ReactAgent] = []
    yield built
    for agent in built:
        agent.close()


def _two_sharing(
    agents: list[ReactAgent], timeout: float
) -> tuple[ReactAgent, ReactAgent, httpx.AsyncClient]:
    """Two agents with equal settings, so one shared client (returned too); closed after the
    test through ``agents``."""
    a, b = ReactAgent(_config(timeout=timeout)), ReactAgent(_config(timeout=timeout))
    agents += [a, b]
    assert a.http_client is not None
    return a, b, a.http_client


def test_agents_with_equal_settings_share_one_client(
    chat_server: ChatServer, agents: list[ReactAgent]
) -> None:
    a = ReactAgent(_config(timeout=31.0))
    b = ReactAgent(_config(timeout=31.0))
    other = ReactAgent(_config(timeout=32.0))
    agents += [a, b, other]
    assert a.http_client is not None
    assert a.http_client is b.http_client
    assert other.http_client is not a.http_client  # other settings, other client
    assert user_count(a.http_client) == 2
    # One SSL context for the whole process, used by the pool of every loop.
    transport = a.http_client._transport.wrapped  # type: ignore[attr-defined]
    assert isinstance(transport, PerLoopTransport)
    assert a.run_sync("hi") == "answer 1"
    assert b.run_sync("hi") == "answer 2"
    assert transport.pool_count == 2  # one pool per agent loop, none shared across loops
    for pool in transport._pools.values():
        assert pool[1]._pool._ssl_context is shared_ssl_context()


def test_a_connection_opened_on_one_loop_is_never_used_on_another(
    chat_server: ChatServer, agents: list[ReactAgent]
) -> None:
    """Two agents alternate turns on one client, each on its own loop.

    A single pool shared across loops would hand agent b the keep-alive connection agent a
    opened on a's loop, and b's turn would fail; per-loop pools make every turn succeed.
    """
    a, b, _ = _two_sharing(agents, timeout=33.0)
    answers = [agent.run_sync("hi") for agent in (a, b, a, b)]
    assert answers == ["answer 1", "answer 2", "answer 3", "answer 4"]
    assert len(chat_server.peers) == 2  # each loop kept its one connection alive


def test_agents_on_threads_share_the_client_concurrently(
    chat_server: ChatServer, agents: list[ReactAgent], in_threads: Callable[..., list[object]]
) -> None:
    members = [ReactAgent(_config(timeout=34.0)) for _ in range(4)]
    agents += members
    outcomes = in_threads(lambda agent: agent.run_sync("hi"), members)
    assert [outcome for outcome in outcomes if not isinstance(outcome, str)] == []  # no error
    assert len(outcomes) == 4


def test_closing_one_agent_leaves_the_other_working(
    chat_server: ChatServer, agents: list[ReactAgent]
) -> None:
    a, b, client = _two_sharing(agents, timeout=35.0)
    assert a.run_sync("hi") == "answer 1"
    a.close()
    assert not client.is_closed
    assert user_count(client) == 1
    assert b.run_sync("still there?") == "answer 2"
    b.close()
    assert client.is_closed  # the last user closed it
    assert user_count(client) == 0
    c = ReactAgent(_config(timeout=35.0))
    agents.append(c)
    assert c.http_client is not client  # a fresh client, not the closed one
    assert c.run_sync("hi") == "answer 3"


def test_aclose_in_async_code_keeps_the_shared_client_for_the_others(
    chat_server: ChatServer, agents: list[ReactAgent]
) -> None:
    a, b, _ = _two_sharing(agents, timeout=36.0)

    async def main() -> tuple[str, bool]:
        await a.run("hi")
        await a.aclose()
        a.close()
        answer = str(await b.run("and you?"))
        still_open = b.http_client is not None and not b.http_client.is_closed
        await b.aclose()  # the last user, on the loop its connection lives on: all closed
        return answer, still_open

    assert asyncio.run(main()) == ("answer 2", True)
    assert b.http_client is not None
    assert b.http_client.is_closed


def test_an_agent_closed_in_async_code_gives_its_share_back_only_once(
    chat_server: ChatServer, agents: list[ReactAgent]
) -> None:
    a, b, client = _two_sharing(agents, timeout=42.0)

    async def main() -> tuple[int, str]:
        a.close()  # from async code: the share is let go of without driving a loop
        await a.aclose()  # letting go again must not count a out a second time
        return user_count(client), str(await b.run("still there?"))

    assert asyncio.run(main()) == (1, "answer 1")
    assert not client.is_closed  # b still holds it


def test_an_agent_closed_before_its_first_turn_gives_its_share_back_only_once(
    chat_server: ChatServer, agents: list[ReactAgent]
) -> None:
    a, b, client = _two_sharing(agents, timeout=43.0)
    a.close()  # no loop of its own yet: the share is let go of without one
    asyncio.run(a.aclose())  # letting go again must not count a out a second time
    assert user_count(client) == 1
    assert b.run_sync("still there?") == "answer 1"


def test_pools_of_loops_that_have_ended_are_dropped(
    chat_server: ChatServer, agents: list[ReactAgent]
) -> None:
    # Each asyncio.run() is a loop that ends with its pool never closed: a new loop's first
    # request drops the pools of the ended ones, so they do not pile up.
    a, _, client = _two_sharing(agents, timeout=44.0)
    transport = client._transport.wrapped  # type: ignore[attr-defined]
    answers = [str(asyncio.run(a.run("hi"))) for _ in range(3)]
    assert answers == ["answer 1", "answer 2", "answer 3"]
    assert transport.pool_count == 1


def test_the_shared_ssl_context_follows_the_certificate_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    import ssl

    import certifi

    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    default = shared_ssl_context()
    assert isinstance(default, ssl.SSLContext)
    assert shared_ssl_context() is default  # built once per environment
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    with_file = shared_ssl_context()
    assert with_file is not default
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    with_both = shared_ssl_context()
    assert isinstance(with_both, ssl.SSLContext)
    assert with_both not in (default, with_file)


def test_the_shared_ssl_context_trusts_exactly_the_file_ssl_cert_file_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    import certifi

    with open(certifi.where(), encoding="ascii") as pem:
        bundle = pem.read()
    end = "-----END CERTIFICATE-----"
    one = tmp_path / "one-ca.pem"
    one.write_text(bundle[bundle.index("-----BEGIN") : bundle.index(end) + len(end)] + "\n")
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(one))
    context = shared_ssl_context()
    assert context.cert_store_stats()["x509_ca"] == 1  # the file's CA, not certifi's bundle
    assert shared_ssl_context() is context


def test_opting_out_gives_each_agent_its_own_client(
    chat_server: ChatServer, agents: list[ReactAgent]
) -> None:
    a = ReactAgent(_config(shared=False, timeout=37.0))
    b = ReactAgent(_config(shared=False, timeout=37.0))
    agents += [a, b]
    assert a.http_client is not None
    assert b.http_client is not None
    assert a.http_client is not b.http_client
    assert a.http_client.timeout.read == 37.0  # its own client is built from the settings
    assert not isinstance(a.http_client._transport.wrapped, PerLoopTransport)  # type: ignore[attr-defined]
    assert a.run_sync("hi") == "answer 1"
    a.close()
    assert a.http_client.is_closed
    assert b.run_sync("hi") == "answer 2"


def test_a_failed_construction_gives_its_share_back(clean_provider_env: pytest.MonkeyPatch) -> None:
    clean_provider_env.setenv("OPENAI_API_KEY", "sk-test")
    keeper = ReactAgent(_config(timeout=38.0))
    try:
        client = keeper.http_client
        assert client is not None
        bad = _config(timeout=38.0).model_copy(
            update={
                "compaction_cfg": CompactionConfig(
                    summary_model_cfg=ModelConfig(provider="anthropic", model="claude")
                )
            }
        )
        with pytest.raises(ValueError, match="ANTHROPIC_API_KEY"):
            ReactAgent(bad)
        assert user_count(client) == 1
    finally:
        keeper.close()


# --------------------------------------------------------------- model=


class Summary(BaseModel):
    title: str
    points: list[str]


def test_a_function_model_runs_with_no_key_and_no_client(
    clean_provider_env: pytest.MonkeyPatch,
) -> None:
    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if info.function_tools and len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("lookup", {"topic": "sprint"})])
        return ModelResponse(parts=[TextPart("done: " + str(len(messages)))])

    def lookup(topic: str) -> str:
        """Look a topic up."""
        return f"notes on {topic}"

    agent = ReactAgent(ReactAgentConfig(), tools=[lookup], model=FunctionModel(reply))
    try:
        assert agent.http_client is None
        assert agent.run_sync("plan the sprint") == "done: 3"
    finally:
        agent.close()


def test_structured_output_on_test_model_needs_no_profile(
    clean_provider_env: pytest.MonkeyPatch,
) -> None:
    # The openai config would ask for NativeOutput, which TestModel refuses; the given
    # model's own profile decides instead.
    config = ReactAgentConfig(model_cfg=ModelConfig(provider="openai", model="gpt-4o"))
    for model in (TestModel(), "test"):
        agent = ReactAgent(config, model=model)
        try:
            summary = agent.run_sync("Summarise AI trends", output_type=Summary)
            assert isinstance(summary, Summary)
            assert isinstance(agent.run_sync("And in one sentence?"), str)
        finally:
            agent.close()


def test_the_summarizer_reuses_the_given_model(clean_provider_env: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append("summary" if info.instructions else "turn")
        return ModelResponse(parts=[TextPart("the gist")])

    agent = ReactAgent(ReactAgentConfig(), model=FunctionModel(reply))
    try:
        agent.run_sync("first")
        agent.run_sync("second")
        assert "summarize" in agent.compact()
        assert calls == ["turn", "turn", "summary"]
    finally:
        agent.close()


# ------------------------------------------------------- construction cost


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc (Linux)")
def test_building_agents_opens_no_file_descriptor(clean_provider_env: pytest.MonkeyPatch) -> None:
    clean_provider_env.setenv("OPENAI_API_KEY", "sk-test")
    before = _open_fds()
    built = [ReactAgent(_config(timeout=39.0)) for _ in range(30)]
    try:
        # No event loop (self-pipe, selector) and no socket until an agent first runs.
        assert _open_fds() - before < 3
    finally:
        for agent in built:
            agent.close()


def test_closing_an_agent_that_never_ran_closes_its_own_client(
    clean_provider_env: pytest.MonkeyPatch,
) -> None:
    clean_provider_env.setenv("OPENAI_API_KEY", "sk-test")
    own = ReactAgent(_config(shared=False, timeout=40.0))
    shared = ReactAgent(_config(timeout=40.0))
    own.close()
    shared.close()
    assert own.http_client is not None
    assert own.http_client.is_closed
    assert shared.http_client is not None
    assert shared.http_client.is_closed  # its only user: closed without any loop of its own


def test_a_shared_pool_does_not_queue_agents_behind_each_other(
    clean_provider_env: pytest.MonkeyPatch,
    agents: list[ReactAgent],
    http_server: Any,
    chat_completion: Any,
) -> None:
    """101 agents awaited together on one loop share its pool; all their requests are in
    flight at once (httpx's default cap of 100 connections would hold the 101st back)."""
    crowd = 101
    barrier = threading.Barrier(crowd, timeout=10)
    server = ChatServer(http_server, chat_completion, before_answer=barrier.wait)
    clean_provider_env.setenv("OPENAI_API_KEY", "sk-local")
    clean_provider_env.setenv("OPENAI_BASE_URL", server.url)
    members = [ReactAgent(_config(timeout=41.0)) for _ in range(crowd)]
    agents += members

    async def everyone() -> list[Any]:
        try:
            return await asyncio.gather(*(m.run("hi") for m in members))
        finally:
            for member in members:  # the last one closes the loop's pool
                await member.aclose()

    answers = asyncio.run(everyone())
    assert len(answers) == crowd
    assert len(server.peers) == crowd  # one connection each, all open together


def test_a_given_model_takes_a_client_only_for_a_configured_summarizer(
    clean_provider_env: pytest.MonkeyPatch,
) -> None:
    clean_provider_env.setenv("OPENAI_API_KEY", "sk-test")
    config = ReactAgentConfig(
        compaction_cfg=CompactionConfig(
            summary_model_cfg=ModelConfig(provider="openai", model="gpt-4o-mini")
        )
    )
    agent = ReactAgent(config, model=TestModel())
    try:
        assert agent.http_client is not None  # the summarizer is built from summary_model_cfg
        summarizer = agent.compaction.strategy.model  # type: ignore[attr-defined]
        assert summarizer.model_name == "gpt-4o-mini"
    finally:
        agent.close()


class _KeepAliveServer(socketserver.ThreadingTCPServer):
    """Answers each request on a connection and notes when the client hangs the connection up."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _KeepAliveHandler)
        self.hung_up = threading.Event()


class _KeepAliveHandler(socketserver.StreamRequestHandler):
    server: _KeepAliveServer

    def handle(self) -> None:
        while line := self.rfile.readline():
            if line in (b"\r\n", b"\n"):  # end of a request's head: answer, keep the line open
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        self.server.hung_up.set()  # readline gave b"": the client closed its end


def test_closing_a_loops_pool_hangs_up_its_connections() -> None:
    # close_loop_pool is what an agent's close runs on its own loop: the pool's keep-alive
    # connections must be closed there and then, not left open until the loop ends.
    server = _KeepAliveServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"

    async def scenario() -> tuple[bool, bool]:
        transport = PerLoopTransport(shared_ssl_context())
        response = await transport.handle_async_request(httpx.Request("GET", url))
        await response.aread()
        open_after_answer = not server.hung_up.wait(0.2)
        await transport.close_loop_pool()
        hung_up = await asyncio.to_thread(server.hung_up.wait, 5)
        return open_after_answer, hung_up

    try:
        open_after_answer, hung_up = asyncio.run(scenario())
    finally:
        server.shutdown()
        server.server_close()
    assert open_after_answer  # the connection was kept alive for the next request
    assert hung_up
