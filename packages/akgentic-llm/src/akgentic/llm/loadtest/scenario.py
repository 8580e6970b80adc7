"""YAML scenarios that script what the mock model answers, run by run.

A scenario is a list of *steps*. Each ``run()`` of a ``MockReactAgent`` consumes one step:
starting from the step after the previous one, the first step whose ``match`` pattern is
absent or found in the prompt is used. A step may first call tools (all in one model
response, as parallel calls), then answers ``reply``. When the end of the list is reached,
``on_exhausted`` decides: start over (``cycle``), keep using the last step
(``repeat_last``), or fail the run (``error``).

Every field is validated when the file is loaded, and errors name the step and field at
fault. See ``examples/support_desk.yaml`` next to this module for a complete file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, Self

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = [
    "EXAMPLE_SCENARIO",
    "Scenario",
    "ScenarioError",
    "ScenarioStep",
    "ScriptedToolCall",
    "load_scenario",
]

EXAMPLE_SCENARIO = Path(__file__).with_name("examples") / "support_desk.yaml"
"""The example scenario shipped with the package."""

_STRICT = ConfigDict(extra="forbid", frozen=True)


class ScenarioError(ValueError):
    """A scenario file that cannot be read or does not validate."""


class ScriptedToolCall(BaseModel):
    """One tool call the mock model makes: the tool's name and its arguments."""

    model_config = _STRICT

    tool: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


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
    steps: list[ScenarioStep] = Field(min_length=1)

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
        if cursor >= count:
            if self.on_exhausted == "error":
                raise ScenarioError(
                    f"scenario {self.name!r} is exhausted after {count} step(s) "
                    "(on_exhausted: error)"
                )
            if self.on_exhausted == "repeat_last":
                step = self.steps[-1]
                if not step.matches(prompt):
                    raise ScenarioError(
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
        raise ScenarioError(f"scenario {self.name!r}: no step matches the prompt {prompt!r}")


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate the scenario file at ``path``."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{file}: cannot read scenario file ({exc})") from exc
    return Scenario.from_yaml(text, source=str(file))
