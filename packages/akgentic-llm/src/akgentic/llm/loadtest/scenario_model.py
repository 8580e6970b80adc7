"""``ScenarioModel``: a pydantic-ai model that plays a load-test scenario.

It is an ordinary ``FunctionModel`` as far as pydantic-ai and ``ReactAgent`` are concerned:
the agent around it (capabilities, tools, events, limits) is the production one. What it
answers depends on the step being played, which the caller sets per run with ``playing()``.
The step lives in a context variable, so concurrent runs (on one agent or many) never read
each other's step, and a model request made outside a played run fails instead of guessing.

Within a run the model first sends the step's tool calls (all in one response), then, once
their results are back, the step's reply; every response carries the scripted token usage
and waits the scripted latency. ``stub_toolset`` answers the calls that carry ``returns`` and
name a tool the agent lacks; ``scripted_summarizer`` is the summarizer the ``summarize``
compaction strategy talks to.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    ModelResponsePart,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import RunContext, Tool
from pydantic_ai.toolsets import AbstractToolset, DynamicToolset, FunctionToolset
from pydantic_ai.usage import RequestUsage

from akgentic.llm.loadtest.scenario import Scenario, ScenarioError, ScenarioStep
from akgentic.llm.testing import ScriptedModel, tool_results

__all__ = ["ScenarioModel", "scripted_summarizer"]


@dataclass(frozen=True, slots=True)
class _Play:
    """What the model plays during one run."""

    model: ScenarioModel
    step: ScenarioStep
    call_prefix: str
    concluding: bool


# One per task: the step of the run this task is in (set by ``ScenarioModel.playing``).
_PLAY: ContextVar[_Play | None] = ContextVar("akgentic_llm_scenario_play", default=None)


class ScenarioModel(FunctionModel):
    """A ``FunctionModel`` whose answers are the steps of ``scenario``."""

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(self._respond, model_name=scenario.model_name)
        self.scenario = scenario
        # Call ids carry a per-run prefix, so a run only counts its own calls as answered.
        self._serials = itertools.count(1)

    @contextmanager
    def playing(self, step: ScenarioStep, *, concluding: bool = False) -> Iterator[None]:
        """Answer from ``step`` for the model requests made inside the ``with`` block.

        ``concluding``: the run is a tool-free conclusion, answered by the scenario's
        ``conclusion`` text whatever the step says.
        """
        play = _Play(self, step, f"mock-{next(self._serials)}-", concluding)
        token = _PLAY.set(play)
        try:
            yield
        finally:
            _PLAY.reset(token)

    def stub_toolset(self, registered: Callable[[], Collection[str]]) -> AbstractToolset[Any]:
        """A toolset, evaluated at the start of each run, holding a stub for every call of the
        step being played that carries ``returns`` and names none of ``registered()`` (a
        registered tool always runs for real)."""

        def build(ctx: RunContext[Any]) -> AbstractToolset[Any] | None:
            play = _PLAY.get()
            if play is None or play.model is not self or play.concluding:
                return None
            return _stubs(play.step, set(registered()))

        return DynamicToolset(build, per_run_step=False)

    # ----------------------------------------------------------------- answers

    async def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        play = _PLAY.get()
        if play is None or play.model is not self:
            raise ScenarioError("the scenario model was called outside a MockReactAgent run")
        step, scenario = play.step, self.scenario
        latency = step.latency_s if step.latency_s is not None else scenario.latency_s
        if latency:
            await asyncio.sleep(latency)
        parts: list[ModelResponsePart]
        if play.concluding:
            parts = self._answer(scenario.conclusion, info, step)
        elif step.tool_calls and not _answered(messages, play.call_prefix):
            parts = self._tool_calls(step, info, play.call_prefix)
        else:
            parts = self._answer(step.reply, info, step)
        return ModelResponse(parts=parts, usage=self._usage(step), model_name=scenario.model_name)

    def _usage(self, step: ScenarioStep) -> RequestUsage:
        scenario = self.scenario
        return RequestUsage(
            input_tokens=scenario.input_tokens if step.input_tokens is None else step.input_tokens,
            output_tokens=(
                scenario.output_tokens if step.output_tokens is None else step.output_tokens
            ),
        )

    def _tool_calls(
        self, step: ScenarioStep, info: AgentInfo, call_prefix: str
    ) -> list[ModelResponsePart]:
        registered = {tool.name for tool in info.function_tools}
        parts: list[ModelResponsePart] = []
        for index, call in enumerate(step.tool_calls):
            if call.tool not in registered:
                raise ScenarioError(
                    f"scenario {self.scenario.name!r}: tool {call.tool!r} is not registered on "
                    f"this agent (registered: {', '.join(sorted(registered)) or 'none'})"
                )
            parts.append(
                ToolCallPart(call.tool, dict(call.args), tool_call_id=f"{call_prefix}{index}")
            )
        return parts

    def _answer(
        self, reply: str | dict[str, Any], info: AgentInfo, step: ScenarioStep
    ) -> list[ModelResponsePart]:
        """The final answer: text for a text run; for a structured run, the reply (a mapping,
        or text holding JSON) as the output tool's arguments or as native JSON output,
        validated by pydantic-ai into the requested type like a real model's answer."""
        output = _structured_output_name(info)
        if output is None:
            return [TextPart(reply if isinstance(reply, str) else json.dumps(reply))]
        args = reply if isinstance(reply, dict) else self._json_object(reply, output, step)
        if info.output_tools:
            return [ToolCallPart(output, args)]
        return [TextPart(json.dumps(args))]

    def _json_object(self, reply: str, output: str, step: ScenarioStep) -> dict[str, Any]:
        """``reply`` parsed as a JSON object, or a ``ScenarioError`` naming the step."""
        try:
            parsed = json.loads(reply)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
        kind = "JSON that is not an object" if parsed is not None else "plain text"
        raise ScenarioError(
            f"scenario {self.scenario.name!r}, {self.scenario.describe(step)}: the run expects "
            f"structured output ({output}) but the scripted reply is {kind}: {reply!r}; "
            "script the reply as a mapping or as a JSON object"
        )


def _structured_output_name(info: AgentInfo) -> str | None:
    """The name of the structured output the run asks for (tool or native), else ``None``."""
    if info.output_tools:
        return info.output_tools[0].name
    params = info.model_request_parameters
    if params.output_mode in ("native", "prompted"):
        named = params.output_object.name if params.output_object is not None else None
        return named or "structured output"
    return None


def _answered(messages: list[ModelMessage], call_prefix: str) -> bool:
    """Whether this run's scripted tool calls already came back (in the latest request)."""
    return any(
        result.tool_call_id.startswith(call_prefix) for result in tool_results(messages[-1:])
    )


def _stubs(step: ScenarioStep, registered: set[str]) -> FunctionToolset[Any] | None:
    wanted = {call.tool: call.returns for call in step.tool_calls if call.returns is not None}
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
    return FunctionToolset(stubs) if stubs else None


def scripted_summarizer(scenario: Scenario) -> FunctionModel:
    """The summarizer of the ``summarize`` strategy: it answers the scenario's ``summary``
    to every request (an empty script whose ``when_done`` is the summary)."""
    return ScriptedModel(when_done=scenario.summary, model_name=scenario.model_name)
