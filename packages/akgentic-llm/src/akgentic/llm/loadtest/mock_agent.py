"""``MockReactAgent``: a ``ReactAgent`` whose model plays a YAML scenario.

For load tests of the layers above this package: no provider, no credentials, no tokens
spent. It is the real ``ReactAgent`` (one constructor, one capability stack) given a
``ScenarioModel`` (``scenario_model.py``) as its ``model=``, so everything around the model
behaves as in production: registered tools really run, messages flow through
``EventSourcingCapability`` into the ``ContextManager`` (observers get the same events, with
the scenario's token counts in ``LlmUsageEvent``), the agent-lifetime budget and the run-tier
limits are enforced, dangling tool calls are healed, and auto-compaction fires on the
scripted input-token counts. What this class adds is choosing the step each run plays.

Differences from ``ReactAgent``, on purpose:

- ``capabilities``, ``limit_recovery`` and ``model`` are accepted and ignored: the scenario is
  the model, and a run-tier breach raises ``RunUsageLimitError`` straight away (the mounted
  recovery policy never asks for a tool-free conclusion).
- The ``summarize`` compaction strategy is answered by the scenario's ``summary`` text
  instead of a summarizer model (``summary_model_cfg`` is never built); other strategies run
  as configured.
- Tools flagged ``requires_approval`` run without waiting: a load test has nobody to approve.
- Structured output is produced through pydantic-ai's output tool, whatever the provider in
  ``config.model_cfg`` (which is never contacted).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.models import Model
from pydantic_ai.tools import RunContext, Tool
from pydantic_ai.toolsets import ApprovalRequiredToolset

from akgentic.llm.agent import ReactAgent, UserPrompt
from akgentic.llm.capabilities.limit_recovery import ConclusionDecision, LimitRecoveryCapability
from akgentic.llm.compaction import CompactionStrategy, create_compaction
from akgentic.llm.config import ReactAgentConfig
from akgentic.llm.event import ContextObserver
from akgentic.llm.loadtest.scenario import (
    SCENARIO_ENV_VAR,
    MockProviderReachedError,
    Scenario,
    ScenarioConfig,
    ScenarioStep,
    load_scenario,
)
from akgentic.llm.loadtest.scenario_model import ScenarioModel, scripted_summarizer

__all__ = ["SCENARIO_ENV_VAR", "MockProviderReachedError", "MockReactAgent", "load_scenario"]

_OLD_SCENARIO_ENV_VAR = "AKGENTIC_LLM_SCENARIO"
"""The variable this package read before adopting the predecessor's name; still honoured."""

_DEFAULT_SCENARIO = Scenario(steps=[ScenarioStep(reply="Mock reply.")])

_REACT_INIT = inspect.signature(ReactAgent.__init__)
"""The constructor parameters the mock shares with ``ReactAgent``."""


class _NeverConclude(LimitRecoveryCapability):
    """The mock's recovery policy: every run-tier breach surfaces as ``RunUsageLimitError``."""

    async def handle_limit_exceeded(
        self, ctx: RunContext[Any], *, error: UsageLimitExceeded
    ) -> ConclusionDecision | None:
        return None


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


def _ungated(tools: Iterable[Any]) -> list[Any]:
    """``tools`` with their ``requires_approval`` flag not honoured."""
    return [_ungated_tool(tool) for tool in tools]


def _ungated_tool(tool: Any) -> Any:
    """``tool`` without its approval gate: the flag of a plain callable, or of a ``Tool``."""
    if isinstance(tool, Tool):
        if not tool.requires_approval:
            return tool
        # A copy, so the caller's Tool (possibly shared with a real agent) keeps its gate.
        ungated = copy.copy(tool)
        ungated.requires_approval = False
        return ungated
    if callable(tool) and getattr(tool, "requires_approval", False) is True:
        return Tool(tool)
    return tool


def _ungated_toolset(toolset: Any) -> Any:
    """``toolset`` without the layers that hold calls for approval: pydantic-ai's
    ``ApprovalRequiredToolset``, or any wrapper flagged ``requires_approval``.

    Wrapper layers (``wrapped``, pydantic-ai dataclasses) are rebuilt around what is below
    them, so an output cap above a gate keeps working once the gate is gone.
    """
    inner = getattr(toolset, "wrapped", None)
    if inner is None:
        return toolset
    if isinstance(toolset, ApprovalRequiredToolset) or (
        getattr(toolset, "requires_approval", False) is True
    ):
        return _ungated_toolset(inner)
    return dataclasses.replace(toolset, wrapped=_ungated_toolset(inner))


class MockReactAgent(ReactAgent):
    """A ``ReactAgent`` whose model answers from a scenario; see the module docstring.

    Its constructor takes ``ReactAgent``'s parameters, plus the keyword ``scenario``.
    """

    def __init__(
        self,
        *args: Any,
        scenario: Scenario | ScenarioConfig | str | Path | None = None,
        **kwargs: Any,
    ) -> None:
        # ReactAgent's parameters, bound against ReactAgent's own signature (not restated
        # here, so the two cannot drift apart); ``capabilities``, ``limit_recovery`` and
        # ``model`` are accepted and deliberately not used: see the module docstring.
        given = _REACT_INIT.bind(self, *args, **kwargs)
        given.apply_defaults()
        react = given.arguments
        config, observer = react["config"], react["observer"]
        self._scenario = _resolve_scenario(scenario, config, observer)
        self._cursor = 0
        self._player = ScenarioModel(self._scenario)
        super().__init__(
            config,
            deps_type=react["deps_type"],
            tools=_ungated(react["tools"] or ()),
            toolsets=[
                *(_ungated_toolset(toolset) for toolset in react["toolsets"] or ()),
                self._player.stub_toolset(self._registered_tools),
            ],
            result_type=react["result_type"],
            observer=observer,
            limit_recovery=_NeverConclude(),
            model=self._player,
        )

    # ------------------------------------------------- ReactAgent's construction seams

    def _lease_http_client(self, config: ReactAgentConfig) -> None:
        return None  # the scenario answers: nothing is ever sent

    def _build_models(
        self, config: ReactAgentConfig, model: Model | str | None
    ) -> tuple[Model, CompactionStrategy]:
        # ``summarize`` talks to a summarizer that answers the scenario's ``summary``; a
        # configured ``summary_model_cfg`` would reach a provider, so it is not built.
        compaction_cfg = config.compaction_cfg.model_copy(update={"summary_model_cfg": None})
        strategy = create_compaction(
            compaction_cfg, config.model_cfg, model=scripted_summarizer(self._scenario)
        )
        return self._player, strategy

    def _registered_tools(self) -> set[str]:
        """Names of the tools the agent has of its own (its function tools and any toolset
        that lists its tools), which a scenario stub never shadows."""
        names = set(self._agent._function_toolset.tools)
        for toolset in self._agent.toolsets:
            tools = getattr(toolset, "tools", None)
            if isinstance(tools, dict):
                names.update(tools)
        return names

    # ---------------------------------------------------------------- running

    async def run(self, user_prompt: UserPrompt, deps: Any = None, output_type: Any = None) -> Any:
        """Play the next matching scenario step as one ``ReactAgent`` run."""
        self._ensure_open()
        prompt = self._fold_pending_prompts(user_prompt)
        self._cursor, step = self._scenario.pick(self._cursor, _prompt_text(prompt))
        with self._player.playing(step):
            return await super().run(prompt, deps, output_type)

    async def _conclude(self, reason: str, deps: Any, output_type: Any) -> Any:
        # Every tool-free conclusion answers the scenario's ``conclusion`` text.
        with self._player.playing(ScenarioStep(reply=self._scenario.conclusion), concluding=True):
            return await super()._conclude(reason, deps, output_type)

    @property
    def scenario(self) -> Scenario:
        """The scenario being played."""
        return self._scenario


def _with_scenario(react: inspect.Signature, mock: inspect.Signature) -> inspect.Signature:
    """``react``'s parameters followed by the mock's own keyword-only ones (``scenario``)."""
    extra = [p for p in mock.parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    return react.replace(parameters=[*react.parameters.values(), *extra])


# What ``inspect.signature`` (and so an IDE, ``help()`` or a surface check) reports for the
# constructor: ReactAgent's parameter list with ``scenario`` appended, exactly as written
# out before, while the code above states neither list twice.
MockReactAgent.__init__.__signature__ = _with_scenario(  # type: ignore[attr-defined]
    _REACT_INIT, inspect.signature(MockReactAgent.__init__)
)
