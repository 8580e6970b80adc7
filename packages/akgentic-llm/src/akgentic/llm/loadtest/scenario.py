"""YAML scenarios that script what the mock model answers, run by run.

A scenario is a list of *steps*. Each ``run()`` of a ``MockReactAgent`` consumes one step:
starting from the step after the previous one, the first step whose ``match`` pattern is
absent or found in the prompt is used. A step may first call tools (all in one model
response, as parallel calls), then answers ``reply``. When the end of the list is reached,
``on_exhausted`` decides: start over (``cycle``), keep using the last step
(``repeat_last``), or fail the run (``error``).

Every field is validated when the file is loaded, and errors name the step and field at
fault. See ``examples/support_desk.yaml`` next to this module for a complete file.

The predecessor's per-agent format (``ScenarioConfig``: ``name``, ``default_latency_ms`` and
``agents`` mapping an agent name to an ``AgentScript`` of ``states``) is read too:
``load_scenario`` returns it as a ``ScenarioConfig`` and ``ScenarioConfig.for_agent(name)``
turns one agent's script into a ``Scenario`` (see each model's docstring for the mapping).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Self

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

__all__ = [
    "EXAMPLE_SCENARIO",
    "SCENARIO_ENV_VAR",
    "AgentScript",
    "MatchSpec",
    "MockProviderReachedError",
    "ResponseRequest",
    "ResponseSpec",
    "Scenario",
    "ScenarioConfig",
    "ScenarioError",
    "ScenarioState",
    "ScenarioStep",
    "ScriptedToolCall",
    "ToolStub",
    "load_scenario",
]

SCENARIO_ENV_VAR = "AKGENTIC_MOCK_SCENARIO"
"""Environment variable naming the scenario file (the name akgentic-agent reads)."""

EXAMPLE_SCENARIO = Path(__file__).with_name("examples") / "support_desk.yaml"
"""The example scenario shipped with the package."""

_STRICT = ConfigDict(extra="forbid", frozen=True)


class ScenarioError(ValueError):
    """A scenario file that cannot be read or does not validate, or a run it cannot answer."""


class MockProviderReachedError(ScenarioError, RuntimeError):
    """The mock was asked for a model answer its scenario does not script.

    Raised instead of ever contacting a provider: no step matches the prompt, the scenario is
    exhausted with ``on_exhausted: error``, or a ``ScenarioConfig`` has no script for the
    agent. A ``ScenarioError`` (and a ``RuntimeError``, as in the predecessor).
    """


class ScriptedToolCall(BaseModel):
    """One tool call the mock model makes: the tool's name and its arguments."""

    model_config = _STRICT

    tool: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)
    returns: str | None = None
    """Result of a stub tool: used only when the agent has no tool called ``tool``, in which
    case the mock provides one for the run that answers this text."""

    @model_validator(mode="before")
    @classmethod
    def _stub_spelling(cls, data: Any) -> Any:
        # The predecessor's ToolStub spelling: ``name`` for the tool, ``args`` as JSON text.
        if isinstance(data, dict):
            data = dict(data)
            if "name" in data and "tool" not in data:
                data["tool"] = data.pop("name")
            if isinstance(data.get("args"), str):
                try:
                    data["args"] = json.loads(data["args"] or "{}")
                except ValueError as exc:
                    raise ValueError(f"args is not valid JSON: {exc}") from exc
        return data


class ScenarioStep(BaseModel):
    """What the mock model does during one run."""

    model_config = _STRICT

    match: str | None = None
    """Regular expression searched in the run's prompt; ``None`` matches every prompt."""
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    """Tools called (in parallel, in one response) before the reply."""
    reply: str | dict[str, Any] = ""
    """The final answer: text, or a mapping for a structured ``output_type``."""
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    latency_s: float | None = Field(default=None, ge=0)
    """Simulated model latency for each response of this step (overrides the default)."""
    name: str | None = None
    """Label used in error messages (defaults to the step's position)."""

    @model_validator(mode="before")
    @classmethod
    def _tools_alias(cls, data: Any) -> Any:
        # ``tools`` (the predecessor's key for a state's calls) is read as ``tool_calls``.
        if isinstance(data, dict) and "tools" in data:
            if "tool_calls" in data:
                raise ValueError("give either tools or tool_calls, not both")
            data = dict(data)
            data["tool_calls"] = data.pop("tools")
        return data

    @field_validator("match")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from exc
        return value

    def matches(self, prompt: str) -> bool:
        """Whether this step applies to ``prompt``."""
        return self.match is None or re.search(self.match, prompt) is not None


class Scenario(BaseModel):
    """A complete script for a ``MockReactAgent``."""

    model_config = _STRICT

    name: str = "scenario"
    model_name: str = "mock-model"
    """Reported as the responses' model name (and so in ``LlmUsageEvent``)."""
    input_tokens: int = Field(default=100, ge=0)
    output_tokens: int = Field(default=20, ge=0)
    latency_s: float = Field(default=0.0, ge=0)
    conclusion: str = "I have to stop here; this is what I could establish so far."
    """Answer of a tool-free conclusion (``conclude_without_tools``)."""
    summary: str = "Summary of the earlier conversation, as scripted by the load-test scenario."
    """What the ``summarize`` compaction strategy answers (no summarizer model is called)."""
    on_exhausted: Literal["cycle", "repeat_last", "error"] = "cycle"
    selection: Literal["sequence", "first_match"] = "sequence"
    """``sequence``: scan forward from the step after the previous one (the default).
    ``first_match``: every run takes the first matching step from the top (a state table;
    ``on_exhausted`` is not consulted)."""
    steps: list[ScenarioStep] = Field(min_length=1)

    def describe(self, step: ScenarioStep) -> str:
        """``step N`` (1-based) with its name or ``match`` pattern, for error messages."""
        index = next((i for i, s in enumerate(self.steps) if s is step), None)
        where = f"step {index + 1}" if index is not None else "the conclusion step"
        label = step.name or (f"match {step.match!r}" if step.match else None)
        return f"{where} ({label})" if label else where

    @classmethod
    def from_yaml(cls, text: str, *, source: str = "<string>") -> Self:
        """Parse and validate a scenario from YAML text."""
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ScenarioError(f"{source}: not valid YAML: {exc}") from exc
        if not isinstance(data, dict):
            raise ScenarioError(f"{source}: a scenario must be a mapping with a 'steps' list")
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
            )
            raise ScenarioError(f"{source}: {problems}") from exc

    def pick(self, cursor: int, prompt: str) -> tuple[int, ScenarioStep]:
        """The step to play for ``prompt`` when ``cursor`` steps were already consumed.

        Returns the new cursor and the step. Raises ``ScenarioError`` when no step applies.
        """
        count = len(self.steps)
        if self.selection == "first_match":
            for step in self.steps:
                if step.matches(prompt):
                    return cursor, step
            raise MockProviderReachedError(
                f"scenario {self.name!r}: no step matches the prompt {prompt!r}"
            )
        if cursor >= count:
            if self.on_exhausted == "error":
                raise MockProviderReachedError(
                    f"scenario {self.name!r} is exhausted after {count} step(s) "
                    "(on_exhausted: error)"
                )
            if self.on_exhausted == "repeat_last":
                step = self.steps[-1]
                if not step.matches(prompt):
                    raise MockProviderReachedError(
                        f"scenario {self.name!r}: the last step does not match {prompt!r}"
                    )
                return cursor, step
            cursor %= count
        # cycle (or not yet exhausted): scan forward, wrapping once when cycling
        order = list(range(cursor, count))
        if self.on_exhausted == "cycle":
            order += list(range(cursor))
        for index in order:
            step = self.steps[index]
            if step.matches(prompt):
                return index + 1, step
        raise MockProviderReachedError(
            f"scenario {self.name!r}: no step matches the prompt {prompt!r}"
        )


# ------------------------------------------------------- the predecessor's format

_LEGACY = ConfigDict(extra="forbid")


class MatchSpec(BaseModel):
    """When a state applies: every condition given must hold (none given: always).

    ``contains`` is a substring of the prompt, ``regex`` a regular expression searched in it,
    ``from_sender`` a name (``@Human``) the prompt mentions, as akgentic-agent's prompts
    name the sender of the message being answered.
    """

    model_config = _LEGACY

    contains: str | None = None
    regex: str | None = None
    from_sender: str | None = None

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        return ScenarioStep._compiles(value)

    def to_pattern(self) -> str | None:
        """One regular expression equivalent to the conditions (``None``: matches all)."""
        parts = []
        if self.contains is not None:
            parts.append(f"(?=[\\s\\S]*{re.escape(self.contains)})")
        if self.regex is not None:
            parts.append(f"(?=[\\s\\S]*?(?:{self.regex}))")
        if self.from_sender is not None:
            parts.append(f"(?=[\\s\\S]*{re.escape(self.from_sender)}(?![\\w-]))")
        return "^" + "".join(parts) if parts else None


class ToolStub(BaseModel):
    """A tool call a state makes: ``args`` is a JSON object as text; ``returns`` answers the
    call when the agent has no tool of that name (a registered tool really runs)."""

    model_config = _LEGACY

    name: str = Field(min_length=1)
    args: str = "{}"
    returns: str = ""

    @field_validator("args")
    @classmethod
    def _json_object(cls, value: str) -> str:
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            raise ValueError(f"args is not valid JSON: {exc}") from exc
        if not isinstance(parsed, dict):
            raise ValueError("args must be a JSON object")
        return value

    def to_call(self) -> ScriptedToolCall:
        return ScriptedToolCall(tool=self.name, args=json.loads(self.args), returns=self.returns)


class ResponseRequest(BaseModel):
    """One team message of a structured reply (akgentic-agent's ``StructuredOutput`` item)."""

    model_config = _LEGACY

    recipient: str
    message_type: str
    message: str


class ResponseSpec(BaseModel):
    """A state's answer: ``messages`` (a structured reply ``{"messages": [...]}``) or
    ``text``; with both, the messages win for a structured run and the text for a text run.
    """

    model_config = _LEGACY

    text: str | None = None
    messages: list[ResponseRequest] = Field(default_factory=list)

    def to_reply(self) -> str | dict[str, Any]:
        if self.messages:
            return {"messages": [m.model_dump() for m in self.messages]}
        return self.text or ""


class ScenarioState(BaseModel):
    """One row of an agent's state table: when it applies, its tool calls and its answer."""

    model_config = _LEGACY

    id: str = "default"
    when: MatchSpec | None = None
    tools: list[ToolStub] = Field(default_factory=list)
    respond: ResponseSpec = Field(default_factory=ResponseSpec)
    latency_ms: int | None = Field(default=None, ge=0)

    def to_step(self) -> ScenarioStep:
        return ScenarioStep(
            name=self.id,
            match=self.when.to_pattern() if self.when is not None else None,
            tool_calls=[stub.to_call() for stub in self.tools],
            reply=self.respond.to_reply(),
            latency_s=self.latency_ms / 1000 if self.latency_ms is not None else None,
        )


class AgentScript(BaseModel):
    """An agent's states, tried in order for every run; ``default`` answers the rest."""

    model_config = _LEGACY

    states: list[ScenarioState] = Field(default_factory=list)
    default: ScenarioState = Field(default_factory=ScenarioState)


class ScenarioConfig(BaseModel):
    """The predecessor's scenario file: one ``AgentScript`` per agent name."""

    model_config = _LEGACY

    name: str
    agents: dict[str, AgentScript] = Field(default_factory=dict)
    default_latency_ms: int = Field(default=0, ge=0)

    def for_agent(self, *names: str | None) -> Scenario:
        """The ``Scenario`` of the first of ``names`` that has a script (``"*"`` or
        ``"default"`` keys serve any agent); ``MockProviderReachedError`` when none does.

        The states become ``first_match`` steps in order, the default state last.
        """
        script = None
        for key in (*names, "*", "default"):
            if key is not None and key in self.agents:
                script = self.agents[key]
                break
        if script is None:
            wanted = ", ".join(repr(n) for n in names if n) or "this agent"
            raise MockProviderReachedError(
                f"scenario {self.name!r} has no script for {wanted} "
                f"(scripted agents: {', '.join(sorted(self.agents)) or 'none'})"
            )
        default = script.default.to_step().model_copy(update={"match": None})
        return Scenario(
            name=self.name,
            latency_s=self.default_latency_ms / 1000,
            selection="first_match",
            steps=[*(state.to_step() for state in script.states), default],
        )


def _parse(text: str, source: str) -> Scenario | ScenarioConfig:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{source}: not valid YAML: {exc}") from exc
    if isinstance(data, dict) and "steps" not in data and "agents" in data:
        try:
            return ScenarioConfig.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
            )
            raise ScenarioError(f"{source}: {problems}") from exc
    return Scenario.from_yaml(text, source=source)


@lru_cache(maxsize=64)
def _load_cached(path: str, mtime_ns: int, size: int) -> Scenario | ScenarioConfig:
    del mtime_ns, size  # cache keys only: an edited file is read again
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{file}: cannot read scenario file ({exc})") from exc
    return _parse(text, str(file))


def load_scenario(path: str | Path) -> Scenario | ScenarioConfig:
    """Read and validate the scenario file at ``path``: a ``Scenario`` (``steps`` format) or
    a ``ScenarioConfig`` (the predecessor's ``agents`` format).

    Parsed files are cached (both models are frozen or treated as read-only) and re-read
    when the file's modification time or size changes, so a load test building many agents
    parses its scenario once.
    """
    file = Path(path)
    try:
        stat = file.stat()
    except OSError as exc:
        raise ScenarioError(f"{file}: cannot read scenario file ({exc})") from exc
    return _load_cached(str(file.resolve()), stat.st_mtime_ns, stat.st_size)
