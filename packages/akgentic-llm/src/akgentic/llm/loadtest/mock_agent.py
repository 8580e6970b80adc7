"""``MockReactAgent``: the ``ReactAgent`` surface, answered from a YAML scenario.

For load tests of the layers above this package: no provider, no credentials, no tokens
spent. Underneath is still a real pydantic-ai ``Agent``, whose model is a ``FunctionModel``
that plays the scenario, so everything around the model behaves as in production: registered
tools really run, messages flow through ``EventSourcingCapability`` into the
``ContextManager`` (observers get the same events, with the scenario's token counts in
``LlmUsageEvent``), the agent-lifetime budget and the run-tier limits are enforced, dangling
tool calls are healed, and auto-compaction fires on the scripted input-token counts.

Differences from ``ReactAgent``, on purpose:

- ``capabilities`` and ``limit_recovery`` are accepted and ignored; a run-tier breach raises
  ``RunUsageLimitError`` straight away (no tool-free conclusion is attempted).
- The ``summarize`` compaction strategy is answered by the scenario's ``summary`` text
  instead of a summarizer model; other strategies run as configured.
- Structured output is produced through pydantic-ai's output tool, whatever the provider in
  ``config.model_cfg`` (which is never contacted).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import Tool
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai.usage import RequestUsage

from akgentic.llm._surface import AgentSurface
from akgentic.llm.approvals import ApprovalMismatchError, PendingToolCall, ToolCallDecision
from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
from akgentic.llm.capabilities.compaction import CompactionCapability, compaction_event_factory
from akgentic.llm.capabilities.errors import RunUsageLimitError, limit_message
from akgentic.llm.capabilities.event_sourcing import EventSourcingCapability
from akgentic.llm.capabilities.healing import HealingCapability
from akgentic.llm.capabilities.limit_recovery import LimitRecoveryCapability
from akgentic.llm.compaction import CompactionStrategy, SummarizeStrategy, create_compaction
from akgentic.llm.config import ReactAgentConfig, RunUsageLimits
from akgentic.llm.context import ContextManager
from akgentic.llm.event import ContextObserver
from akgentic.llm.loadtest.scenario import (
    SCENARIO_ENV_VAR,
    MockProviderReachedError,
    Scenario,
    ScenarioConfig,
    ScenarioError,
    ScenarioStep,
    load_scenario,
)

__all__ = ["SCENARIO_ENV_VAR", "MockProviderReachedError", "MockReactAgent", "load_scenario"]

_OLD_SCENARIO_ENV_VAR = "AKGENTIC_LLM_SCENARIO"
"""The variable this package read before adopting the predecessor's name; still honoured."""

_DEFAULT_SCENARIO = Scenario(steps=[ScenarioStep(reply="Mock reply.")])

F = TypeVar("F")


@dataclass(frozen=True, slots=True)
class _Play:
    """What the mock model plays during one run."""

    step: ScenarioStep
    call_prefix: str
    concluding: bool


# The step being played, per task: concurrent runs of one mock never read each other's step.
_PLAY: ContextVar[_Play | None] = ContextVar("akgentic_llm_mock_play", default=None)

_CONCLUSION_LIMITS = RunUsageLimits(run_request_limit=1).to_pydantic_ai()


def _prompt_text(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    return " ".join(item for item in prompt if isinstance(item, str))


def _looks_like_scenario_path(model: str) -> bool:
    """Whether ``model_cfg.model`` carries a scenario file path (akgentic-agent puts it there)."""
    if not model.lower().endswith((".yaml", ".yml")) and "/" not in model and "\\" not in model:
        return False
    return Path(model).is_file()


def _agent_names(observer: ContextObserver | None) -> tuple[str | None, ...]:
    """Names a ``ScenarioConfig`` may key this agent's script by: its name, then its role."""
    config = getattr(observer, "config", None)
    return (getattr(config, "name", None), getattr(config, "role", None))


def _resolve_scenario(
    scenario: Scenario | ScenarioConfig | str | Path | None,
    config: ReactAgentConfig,
    observer: ContextObserver | None,
) -> Scenario:
    """The scenario to play: ``scenario=``, else a path in ``config.model_cfg.model``, else
    the file named by ``AKGENTIC_MOCK_SCENARIO`` (or the older ``AKGENTIC_LLM_SCENARIO``),
    else one step answering ``"Mock reply."``."""
    source: Scenario | ScenarioConfig | str | Path | None = scenario
    if source is None and _looks_like_scenario_path(config.model_cfg.model):
        source = config.model_cfg.model
    if source is None:
        source = os.environ.get(SCENARIO_ENV_VAR) or os.environ.get(_OLD_SCENARIO_ENV_VAR) or None
    if isinstance(source, str | Path):
        source = load_scenario(source)
    if isinstance(source, ScenarioConfig):
        return source.for_agent(*_agent_names(observer))
    return source if source is not None else _DEFAULT_SCENARIO


class MockReactAgent(AgentSurface):
    """A ``ReactAgent`` stand-in that answers from a scenario; see the module docstring."""

    def __init__(
        self,
        config: ReactAgentConfig,
        deps_type: type[Any] | None = None,
        tools: list[Any] | None = None,
        toolsets: list[Any] | None = None,
        result_type: type[Any] = str,
        observer: ContextObserver | None = None,
        capabilities: Sequence[AbstractCapability[Any]] | None = None,
        limit_recovery: LimitRecoveryCapability | None = None,
        *,
        model: Model | str | None = None,
        scenario: Scenario | ScenarioConfig | str | Path | None = None,
    ) -> None:
        # Accepted for signature parity, deliberately not used: the scenario is the model.
        del capabilities, model
        # Kept so the property exists as on ReactAgent, but never consulted: see the module doc.
        self._limit_recovery = limit_recovery or LimitRecoveryCapability()
        self._config = config
        self._scenario = _resolve_scenario(scenario, config, observer)
        self._cursor = 0
        self._serial = 0
        self._closed = False
        self._context = ContextManager(max_messages=config.max_messages)
        if observer is not None:
            self._context.subscribe(observer)
        self._run_limits = config.run_usage_limits.to_pydantic_ai()
        self._budget = LifetimeBudgetCapability(config.agent_usage_limits)
        cfg = config.compaction_cfg
        self._compaction = CompactionCapability(
            self._build_strategy(),
            self._context,
            threshold_fn=config.compaction_threshold,
            event_factory=compaction_event_factory(cfg.strategy, cfg.summarizer_prompt_version),
        )
        self._loop = asyncio.new_event_loop()
        agent_kwargs: dict[str, Any] = {}
        if deps_type is not None:
            agent_kwargs["deps_type"] = deps_type
        self._agent: Agent[Any, Any] = Agent(
            FunctionModel(self._respond, model_name=self._scenario.model_name),
            output_type=result_type,
            tools=tools or (),
            toolsets=toolsets,
            retries=config.runtime_cfg.retries,
            end_strategy=config.runtime_cfg.end_strategy,
            capabilities=[
                self._budget,
                self._compaction,
                EventSourcingCapability(self._context),
                HealingCapability(self._context),
            ],
            **agent_kwargs,
        )

    def _build_strategy(self) -> CompactionStrategy:
        cfg = self._config.compaction_cfg
        if cfg.strategy == "summarize":
            summary = self._scenario.summary

            def summarize(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
                return ModelResponse(parts=[TextPart(summary)])

            return SummarizeStrategy(
                FunctionModel(summarize, model_name=self._scenario.model_name),
                prompt_version=cfg.summarizer_prompt_version,
                summary_target_tokens=cfg.summary_target_tokens,
                max_input_chars=cfg.summarizer_max_input_chars,
            )
        return create_compaction(cfg, self._config.model_cfg)

    # --------------------------------------------------------------- the model

    async def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        play = _PLAY.get()
        if play is None:
            raise ScenarioError("the mock model was called outside MockReactAgent.run()")
        step = play.step
        scenario = self._scenario
        latency = step.latency_s if step.latency_s is not None else scenario.latency_s
        if latency:
            await asyncio.sleep(latency)
        usage = RequestUsage(
            input_tokens=step.input_tokens
            if step.input_tokens is not None
            else scenario.input_tokens,
            output_tokens=(
                step.output_tokens if step.output_tokens is not None else scenario.output_tokens
            ),
        )
        parts: list[ModelResponsePart]
        if play.concluding:
            parts = self._answer(scenario.conclusion, info, step)
        elif step.tool_calls and not self._answered(messages, play.call_prefix):
            registered = {tool.name for tool in info.function_tools}
            parts = []
            for index, call in enumerate(step.tool_calls):
                if call.tool not in registered:
                    raise ScenarioError(
                        f"scenario {scenario.name!r}: tool {call.tool!r} is not registered on "
                        f"this agent (registered: {', '.join(sorted(registered)) or 'none'})"
                    )
                parts.append(
                    ToolCallPart(
                        call.tool, dict(call.args), tool_call_id=f"{play.call_prefix}{index}"
                    )
                )
        else:
            parts = self._answer(step.reply, info, step)
        return ModelResponse(parts=parts, usage=usage, model_name=scenario.model_name)

    @staticmethod
    def _answered(messages: list[ModelMessage], call_prefix: str) -> bool:
        """Whether this run's scripted tool calls already came back."""
        last = messages[-1] if messages else None
        return isinstance(last, ModelRequest) and any(
            isinstance(part, ToolReturnPart | RetryPromptPart)
            and part.tool_call_id.startswith(call_prefix)
            for part in last.parts
        )

    def _answer(
        self, reply: str | dict[str, Any], info: AgentInfo, step: ScenarioStep
    ) -> list[ModelResponsePart]:
        """The final answer: text for a text run; for a structured run, the reply (a mapping,
        or text holding JSON) as the output tool's arguments, validated by pydantic-ai into
        the requested type like a real model's answer."""
        if not info.output_tools:
            return [TextPart(reply if isinstance(reply, str) else json.dumps(reply))]
        args: Any = reply
        if isinstance(reply, str):
            try:
                args = json.loads(reply)
            except ValueError:
                args = None
            if not isinstance(args, dict):
                where = self._scenario.describe(step)
                kind = "JSON that is not an object" if args is not None else "plain text"
                raise ScenarioError(
                    f"scenario {self._scenario.name!r}, {where}: the run expects structured "
                    f"output ({info.output_tools[0].name}) but the scripted reply is {kind}: "
                    f"{reply!r}; script the reply as a mapping or as a JSON object"
                )
        return [ToolCallPart(info.output_tools[0].name, args)]

    # ----------------------------------------------------------------- running

    async def run(self, user_prompt: Any, deps: Any = None, output_type: Any = None) -> Any:
        """Play the next matching scenario step as one run and return its reply."""
        self._ensure_open()
        pending = self._context.drain_pending_user_prompts()
        if pending:
            user_prompt = (
                "\n\n".join([*pending, user_prompt])
                if isinstance(user_prompt, str)
                else [*pending, *user_prompt]
            )
        self._cursor, step = self._scenario.pick(self._cursor, _prompt_text(user_prompt))
        return await self._play(user_prompt, step, deps, output_type, self._run_limits, False)

    async def conclude_without_tools(
        self, reason: str, *, deps: Any = None, output_type: Any = None
    ) -> Any:
        """One tool-free run answering the scenario's ``conclusion`` text."""
        self._ensure_open()
        with self._agent.override(tools=[], toolsets=[]):
            step = ScenarioStep(reply=self._scenario.conclusion)
            return await self._play(reason, step, deps, output_type, _CONCLUSION_LIMITS, True)

    async def _play(
        self,
        prompt: Any,
        step: ScenarioStep,
        deps: Any,
        output_type: Any,
        usage_limits: Any,
        concluding: bool,
    ) -> Any:
        self._serial += 1
        token = _PLAY.set(_Play(step, f"mock-{self._serial}-", concluding))
        stubs = [] if concluding else self._stub_toolsets(step)
        try:
            result = await self._agent.run(
                prompt,
                deps=deps,
                message_history=self._context.messages,
                output_type=output_type,
                usage_limits=usage_limits,
                toolsets=stubs or None,
            )
        except UsageLimitExceeded as breach:
            raise RunUsageLimitError(limit_message(breach)) from breach
        finally:
            _PLAY.reset(token)
        return result.output

    def _stub_toolsets(self, step: ScenarioStep) -> list[FunctionToolset[Any]]:
        """A run-only toolset of stub tools for the step's calls that carry ``returns`` and
        name no tool the agent has (a registered tool always runs for real)."""
        wanted = {call.tool: call.returns for call in step.tool_calls if call.returns is not None}
        if not wanted:
            return []
        registered = set(self._agent._function_toolset.tools)
        for toolset in self._agent.toolsets:
            tools = getattr(toolset, "tools", None)
            if isinstance(tools, dict):
                registered.update(tools)
        stubs: list[Tool[Any]] = []
        for name, returns in wanted.items():
            if name in registered:
                continue

            def answer(_returns: str = returns, **_: Any) -> str:
                return _returns

            stubs.append(
                Tool.from_schema(
                    answer,
                    name=name,
                    description=f"Scenario stub of {name}.",
                    json_schema={"type": "object", "additionalProperties": True},
                )
            )
        return [FunctionToolset(stubs)] if stubs else []

    def run_sync(self, user_prompt: Any, deps: Any = None, output_type: Any = None) -> Any:
        """``run()`` driven on the mock's own event loop."""
        self._ensure_open()
        self._ensure_no_running_loop("run_sync", "run")
        return self._loop.run_until_complete(self.run(user_prompt, deps, output_type))

    def conclude_without_tools_sync(
        self, reason: str, *, deps: Any = None, output_type: Any = None
    ) -> Any:
        """``conclude_without_tools()`` driven on the mock's own event loop."""
        self._ensure_open()
        self._ensure_no_running_loop("conclude_without_tools_sync", "conclude_without_tools")
        return self._loop.run_until_complete(
            self.conclude_without_tools(reason, deps=deps, output_type=output_type)
        )

    # ---------------------------------------------------------- approvals (parity)

    @property
    def pending_tool_calls(self) -> list[PendingToolCall]:
        """Always empty: the mock runs every tool it was given, gated or not."""
        return []

    async def resume(
        self, decisions: Sequence[ToolCallDecision], *, deps: Any = None, output_type: Any = None
    ) -> Any:
        """Refused (``ApprovalMismatchError``): a mock run never leaves a call waiting."""
        self._ensure_open()
        raise ApprovalMismatchError("no tool call is waiting for a decision (mock agent)")

    def resume_sync(
        self, decisions: Sequence[ToolCallDecision], *, deps: Any = None, output_type: Any = None
    ) -> Any:
        """``resume()`` driven on the mock's own event loop."""
        self._ensure_open()
        self._ensure_no_running_loop("resume_sync", "resume")
        return self._loop.run_until_complete(
            self.resume(decisions, deps=deps, output_type=output_type)
        )

    @property
    def scenario(self) -> Scenario:
        """The scenario being played."""
        return self._scenario

    # ---------------------------------------------------------------- teardown

    @property
    def http_client(self) -> None:
        """Always ``None``: the scenario answers, no HTTP client is ever built."""
        return None

    def _sync_loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    async def aclose(self) -> None:
        """Nothing to release: the mock holds no HTTP pool."""

    def close(self) -> None:
        """Close the mock's event loop. Safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        if not self._loop.is_running():
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        self._loop.close()
