"""The agent tier under concurrent runs of ONE ReactAgent: asyncio tasks and threads.

Each test drives real ``ReactAgent``s on a pydantic-ai ``FunctionModel`` and counts what the
model actually served. A gate holds every run's first request until a known number of runs are
in flight, so the interleaving the limits must survive is forced rather than hoped for: all
runs are admitted on an untouched budget, then their responses land together.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from akgentic.llm import AgentUsageLimitError, AgentUsageLimits, ReactAgent, ReactAgentConfig

RUNS = 8
GATE_TIMEOUT = 5.0

InThreads = Callable[..., list[object]]
"""The ``in_threads`` fixture (tests/conftest.py)."""


async def fetch(topic: str) -> str:
    """Look a topic up (async, so asyncio runs stay on one thread and interleave exactly)."""
    return f"facts about {topic}"


def _turns_of_this_run(messages: list[ModelMessage]) -> int:
    """Responses since this run's user prompt (the shared history may hold other runs)."""
    turns = 0
    for message in reversed(messages):
        if isinstance(message, ModelRequest) and any(
            isinstance(part, UserPromptPart) for part in message.parts
        ):
            break
        turns += isinstance(message, ModelResponse)
    return turns


@dataclass
class ToolLoop:
    """Every run asks for ``tool_turns`` lookups, then answers; each response costs the same.

    ``gate`` is awaited on each run's FIRST request only, so the first requests of the runs it
    waits for are all in flight before any of them is answered.
    """

    tool_turns: int
    input_tokens: int
    output_tokens: int
    gate: Callable[[], Any] | None = None
    served: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def per_request(self) -> int:
        return self.input_tokens + self.output_tokens

    async def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        with self._lock:
            self.served += 1
            number = self.served
        turn = _turns_of_this_run(messages)
        if turn == 0 and self.gate is not None:
            await self.gate()
        usage = RequestUsage(input_tokens=self.input_tokens, output_tokens=self.output_tokens)
        if turn < self.tool_turns:
            call = ToolCallPart("fetch", {"topic": f"t{turn}"}, tool_call_id=f"call-{number}")
            return ModelResponse(parts=[call], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    @property
    def model(self) -> FunctionModel:
        return FunctionModel(self.respond)


def async_gate(parties: int) -> Callable[[], Any]:
    """Release the waiters once ``parties`` of them are waiting (one event loop)."""
    arrived = 0
    opened = asyncio.Event()

    async def wait() -> None:
        nonlocal arrived
        arrived += 1
        if arrived == parties:
            opened.set()
        await asyncio.wait_for(opened.wait(), GATE_TIMEOUT)

    return wait


def thread_gate(parties: int) -> Callable[[], Any]:
    """The same for runs on different threads: blocking is fine, each owns its loop."""
    barrier = threading.Barrier(parties, timeout=GATE_TIMEOUT)

    async def wait() -> None:
        barrier.wait()

    return wait


def _agent(make_agent: Any, limits: AgentUsageLimits) -> ReactAgent:
    agent: ReactAgent = make_agent(ReactAgentConfig(agent_usage_limits=limits), tools=[fetch])
    return agent


async def _gather_runs(agent: ReactAgent, model: ToolLoop) -> list[object]:
    with agent.pydantic_agent.override(model=model.model):
        return await asyncio.gather(
            *(agent.run(f"question {i}") for i in range(RUNS)), return_exceptions=True
        )


def _thread_runs(agent: ReactAgent, model: ToolLoop, in_threads: InThreads) -> list[object]:
    """``RUNS`` threads released together, each driving ``run()`` on its own event loop."""
    start = threading.Barrier(RUNS, timeout=GATE_TIMEOUT)

    def worker(i: int) -> object:
        # ``override`` is a context variable: each thread sets it for its own context.
        with agent.pydantic_agent.override(model=model.model):
            start.wait()
            return asyncio.run(agent.run(f"question {i}"))

    results = in_threads(worker, range(RUNS), 2 * GATE_TIMEOUT)
    assert len(results) == RUNS
    return results


def _unanswered_tool_calls(messages: list[ModelMessage]) -> set[str]:
    calls = {
        part.tool_call_id
        for message in messages
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, ToolCallPart)
    }
    answered = {
        part.tool_call_id
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }
    return calls - answered


def _refusals(results: list[object]) -> list[str]:
    refused = [r for r in results if isinstance(r, AgentUsageLimitError)]
    others = [r for r in results if r != "done" and not isinstance(r, AgentUsageLimitError)]
    assert others == []  # every run either answered or was refused by the agent tier
    return [str(r) for r in refused]


def _token_refusals(results: list[object]) -> list[int]:
    """The ``total_tokens`` each refused run was told, checking the documented wording."""
    spent = []
    for message in _refusals(results):
        match = re.fullmatch(
            r"Exceeded the total_tokens_limit of 100 \(total_tokens=(\d+)\)", message
        )
        assert match is not None, message
        spent.append(int(match.group(1)))
    return spent


# ------------------------------------------------------------------ token limits


async def test_gathered_runs_stop_requesting_once_the_total_is_crossed(make_agent: Any) -> None:
    # 8 runs x (3 lookups + 1 answer) x 38 tokens would spend 1216 tokens unguarded.
    model = ToolLoop(tool_turns=3, input_tokens=30, output_tokens=8, gate=async_gate(RUNS))
    agent = _agent(make_agent, AgentUsageLimits(total_tokens_limit=100))

    results = await _gather_runs(agent, model)

    # The 8 first requests were all in flight (the gate held them), so all 8 are paid: 304.
    # The 3rd response folded took the total over 100; that run alone completes its 3 further
    # requests (the crossing run finishes, as when runs are sequential); every other run is
    # refused its second request.
    assert model.served == RUNS + 3
    budget = agent.lifetime_budget
    assert budget.total_tokens == (RUNS + 3) * model.per_request == 418
    assert results.count("done") == 1
    # each refusal reports the total it saw: at least the 8 paid first requests
    spent = _token_refusals(results)
    assert len(spent) == RUNS - 1
    assert all(RUNS * model.per_request <= seen <= 418 for seen in spent)
    assert (budget.run_count, budget.runs_in_flight) == (RUNS, 0)
    # the refused runs stopped after their tools answered: no call is left unanswered
    assert _unanswered_tool_calls(agent.context.messages) == set()

    # The agent is spent: the next run is refused before it reaches the model.
    with pytest.raises(
        AgentUsageLimitError, match=r"total_tokens_limit of 100 \(total_tokens=418\)"
    ):
        await agent.run("one more")
    assert model.served == RUNS + 3


def test_threaded_runs_stop_requesting_once_the_total_is_crossed(
    make_agent: Any, in_threads: InThreads
) -> None:
    # Every response (110 tokens) is alone above the limit, so whichever lands first crosses
    # it, whatever order the threads are scheduled in.
    model = ToolLoop(tool_turns=2, input_tokens=60, output_tokens=50, gate=thread_gate(RUNS))
    agent = _agent(make_agent, AgentUsageLimits(total_tokens_limit=100))

    results = _thread_runs(agent, model, in_threads)

    # 8 first requests in flight and paid; only the crossing run sends its 2 further ones.
    assert model.served == RUNS + 2
    assert agent.lifetime_budget.total_tokens == (RUNS + 2) * model.per_request
    assert results.count("done") == 1
    spent = _token_refusals(results)
    assert len(spent) == RUNS - 1
    assert all(seen >= 2 * model.per_request for seen in spent)  # the crossing one, and its own
    assert agent.lifetime_budget.runs_in_flight == 0


class HoldLaterRuns(AbstractCapability[Any]):
    """A caller capability: every run after the first waits, already admitted, for ``released``."""

    def __init__(self) -> None:
        self.released = asyncio.Event()
        self.entered = 0

    async def wrap_run(self, ctx: Any, *, handler: Any) -> Any:
        self.entered += 1
        if self.entered > 1:
            await asyncio.wait_for(self.released.wait(), GATE_TIMEOUT)
        return await handler()


async def test_a_run_admitted_before_the_crossing_is_refused_its_first_request(
    make_agent: Any,
) -> None:
    hold = HoldLaterRuns()
    model = ToolLoop(tool_turns=0, input_tokens=90, output_tokens=20)
    agent: ReactAgent = make_agent(
        ReactAgentConfig(agent_usage_limits=AgentUsageLimits(total_tokens_limit=100)),
        tools=[fetch],
        capabilities=[hold],
    )

    async def first() -> object:
        try:
            return await agent.run("a")  # one request, 110 tokens: crosses the line
        finally:
            hold.released.set()

    with agent.pydantic_agent.override(model=model.model):
        a, b = await asyncio.gather(first(), agent.run("b"), return_exceptions=True)

    assert a == "done"
    # "b" was admitted on an untouched budget, then asked for its first request after "a"
    # had spent 110 of 100: refused there, so the model served "a" alone.
    assert isinstance(b, AgentUsageLimitError)
    assert str(b) == "Exceeded the total_tokens_limit of 100 (total_tokens=110)"
    assert model.served == 1
    assert agent.lifetime_budget.run_count == 2


async def test_a_sequential_run_that_crosses_the_line_still_completes(make_agent: Any) -> None:
    model = ToolLoop(tool_turns=3, input_tokens=30, output_tokens=8)
    agent = _agent(make_agent, AgentUsageLimits(total_tokens_limit=100))
    with agent.pydantic_agent.override(model=model.model):
        # crosses after its 3rd response (114) and still sends its 4th request
        assert await agent.run("long turn") == "done"
        assert model.served == 4
        with pytest.raises(AgentUsageLimitError, match=r"\(total_tokens=152\)"):
            await agent.run("refused")
    assert model.served == 4


# ------------------------------------------------------------------- run count


async def test_gathered_runs_admit_exactly_agent_request_limit_runs(make_agent: Any) -> None:
    model = ToolLoop(tool_turns=1, input_tokens=10, output_tokens=5, gate=async_gate(3))
    agent = _agent(make_agent, AgentUsageLimits(agent_request_limit=3))

    results = await _gather_runs(agent, model)

    assert results.count("done") == 3
    assert _refusals(results) == ["Exceeded the agent_request_limit of 3 (run_count=3)"] * 5
    # the limit counts runs: each admitted run made its 2 requests (a lookup and the answer)
    assert model.served == 3 * 2
    assert agent.lifetime_budget.run_count == 3


def test_threaded_runs_admit_exactly_agent_request_limit_runs(
    make_agent: Any, in_threads: InThreads
) -> None:
    # The gate waits for 3 first requests: a 4th admitted run would break it (timeout).
    model = ToolLoop(tool_turns=1, input_tokens=10, output_tokens=5, gate=thread_gate(3))
    agent = _agent(make_agent, AgentUsageLimits(agent_request_limit=3))

    results = _thread_runs(agent, model, in_threads)

    assert results.count("done") == 3
    assert _refusals(results) == ["Exceeded the agent_request_limit of 3 (run_count=3)"] * 5
    assert model.served == 3 * 2
    assert (agent.lifetime_budget.run_count, agent.lifetime_budget.runs_in_flight) == (3, 0)
