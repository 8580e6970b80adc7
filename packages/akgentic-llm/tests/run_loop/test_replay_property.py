"""Property: replaying the emitted events rebuilds exactly the live context and counters.

Random sequences of runs (with tool calls), run-tier breaches of every kind, failing runs,
agent-tier refusals, manual and automatic compactions and clears are played against a bare
pydantic-ai Agent carrying the run-loop capabilities. Every event is deep-copied the moment
it is emitted (as a persisted log would hold it). A fresh ``ContextManager`` replays that log
and a fresh ``LifetimeBudgetCapability`` restores from it; both must equal the live ones.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
from akgentic.llm.capabilities.compaction import CompactionCapability
from akgentic.llm.capabilities.errors import AgentUsageLimitError
from akgentic.llm.capabilities.event_sourcing import EventSourcingCapability
from akgentic.llm.capabilities.healing import HealingCapability
from akgentic.llm.capabilities.limit_recovery import LimitRecoveryCapability
from akgentic.llm.compaction import CompactionStrategy, SlidingWindowStrategy, SummarizeStrategy
from akgentic.llm.config import AgentUsageLimits
from akgentic.llm.context import ContextManager


@dataclass
class Script:
    """What the model does in the current run: ``tools`` tool calls, then an answer."""

    tools: int = 0
    input_tokens: int = 50
    fail_tool: bool = False
    made: int = 0

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.made += 1
        usage = RequestUsage(input_tokens=self.input_tokens + self.made, output_tokens=7)
        if self.made <= self.tools:
            return ModelResponse(
                parts=[
                    ToolCallPart(
                        "lookup", {"n": self.made}, tool_call_id=f"c{id(self)}-{self.made}"
                    )
                ],
                usage=usage,
            )
        return ModelResponse(parts=[TextPart(f"answer after {self.made - 1} tool(s)")], usage=usage)


def _summarizer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(f"summary of {len(messages)} request(s)")])


OPS = st.sampled_from(
    [
        "run",
        "run_tools",
        "tool_breach",
        "request_breach",
        "token_breach",
        "failing_tool",
        "compact",
        "clear",
        "note",
    ]
)


def _dump(messages: list[ModelMessage]) -> Any:
    return ModelMessagesTypeAdapter.dump_python(messages, mode="json")


async def _play(
    ops: list[str],
    max_messages: int | None,
    strategy_name: str,
    threshold: int | None,
    request_budget: int | None,
    new_log: Any,
) -> None:
    log = new_log()
    context = ContextManager(max_messages=max_messages)
    context.subscribe(log)
    strategy: CompactionStrategy = (
        SummarizeStrategy(FunctionModel(_summarizer))
        if strategy_name == "summarize"
        else SlidingWindowStrategy(keep_recent_messages=3)
    )
    budget = LifetimeBudgetCapability(AgentUsageLimits(agent_request_limit=request_budget))
    compaction = CompactionCapability(strategy, context, threshold_fn=lambda: threshold)
    script = Script()

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return script.respond(messages, info)  # the current op's script (rebound per run)

    agent: Agent[None, str] = Agent(
        FunctionModel(respond),
        system_prompt="You are a careful assistant.",
        capabilities=[
            budget,
            compaction,
            EventSourcingCapability(context),
            LimitRecoveryCapability(),
            HealingCapability(context),
        ],
    )

    @agent.tool_plain
    def lookup(n: int) -> str:
        if script.fail_tool:
            raise ConnectionError("backend down")
        return f"value {n}"

    scripts = {
        "run": lambda i: (Script(tools=0, input_tokens=40 * i), UsageLimits(request_limit=20)),
        "run_tools": lambda i: (
            Script(tools=2, input_tokens=40 * i),
            UsageLimits(request_limit=20),
        ),
        "tool_breach": lambda i: (Script(tools=5), UsageLimits(tool_calls_limit=1)),
        "request_breach": lambda i: (Script(tools=5), UsageLimits(request_limit=2)),
        "token_breach": lambda i: (
            Script(tools=5, input_tokens=30),
            UsageLimits(total_tokens_limit=80),
        ),
        "failing_tool": lambda i: (Script(tools=1, fail_tool=True), UsageLimits(request_limit=20)),
    }
    for index, op in enumerate(ops):
        if op == "compact":
            await compaction.compact()
        elif op == "clear":
            context.clear_context()
        elif op == "note":
            context.append_user_prompt(f"operator note {index}")
        else:
            script, limits = scripts[op](index)
            with contextlib.suppress(UsageLimitExceeded, AgentUsageLimitError, ConnectionError):
                await agent.run(
                    f"prompt {index}", message_history=context.messages, usage_limits=limits
                )

    replayed = ContextManager(max_messages=max_messages)
    replayed.replay(log.events)
    assert _dump(replayed.messages) == _dump(context.messages)
    assert replayed.last_input_tokens == context.last_input_tokens
    assert replayed.system_prompt_hash == context.system_prompt_hash
    restored = LifetimeBudgetCapability(AgentUsageLimits(agent_request_limit=request_budget))
    restored.restore(log.events)
    assert (restored.run_count, restored.input_tokens, restored.output_tokens) == (
        budget.run_count,
        budget.input_tokens,
        budget.output_tokens,
    )
    # the replayed history is runnable: no tool call is left unanswered
    last_response = next(
        (m for m in reversed(replayed.messages) if isinstance(m, ModelResponse)), None
    )
    if last_response is not None:
        answered = {
            p.tool_call_id
            for m in replayed.messages
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, ToolReturnPart)
        }
        calls = [p for p in last_response.parts if isinstance(p, ToolCallPart)]
        assert all(c.tool_call_id in answered for c in calls)


@settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    ops=st.lists(OPS, min_size=1, max_size=14),
    max_messages=st.sampled_from([None, 5, 9]),
    strategy_name=st.sampled_from(["summarize", "sliding_window"]),
    threshold=st.sampled_from([None, 150, 400]),
    request_budget=st.sampled_from([None, 4]),
)
def test_replaying_the_events_rebuilds_the_live_state(
    ops: list[str],
    max_messages: int | None,
    strategy_name: str,
    threshold: int | None,
    request_budget: int | None,
    new_log: Any,
) -> None:
    asyncio.run(_play(ops, max_messages, strategy_name, threshold, request_budget, new_log))
