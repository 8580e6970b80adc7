"""Configurations stored by the predecessor load, round-trip and drive a working ReactAgent.

Every entry of ``fixtures/stored_config.yaml`` is validated into the model it names, dumped
and validated again, then placed into a ``ReactAgentConfig`` (a sub-configuration at its
field) from which a real ``ReactAgent`` is built. Its model is replaced by a pydantic-ai
``FunctionModel`` after construction, and one run (a tool call, then the answer) is made.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import RunContext

from akgentic.llm import (
    AgentUsageLimits,
    CompactionConfig,
    LlmUsageEvent,
    ModelConfig,
    PromptTemplate,
    ReactAgent,
    ReactAgentConfig,
    RuntimeConfig,
    RunUsageLimits,
    UsageLimits,
)

FIXTURE = Path(__file__).parent / "fixtures" / "stored_config.yaml"
ENTRIES: list[dict[str, Any]] = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))

MODELS: dict[str, type[BaseModel]] = {
    cls.__name__: cls
    for cls in (
        ReactAgentConfig,
        ModelConfig,
        RuntimeConfig,
        RunUsageLimits,
        UsageLimits,
        AgentUsageLimits,
        CompactionConfig,
        PromptTemplate,
    )
}

# Where a sub-configuration goes in a ReactAgentConfig.
FIELD = {
    "ModelConfig": "model_cfg",
    "RuntimeConfig": "runtime_cfg",
    "RunUsageLimits": "run_usage_limits",
    "UsageLimits": "run_usage_limits",
    "AgentUsageLimits": "agent_usage_limits",
    "CompactionConfig": "compaction_cfg",
}


class Observer:
    def __init__(self) -> None:
        self.events: list[object] = []

    def notify_event(self, event: object) -> None:
        self.events.append(event)


def _validate(name: str, data: dict[str, Any]) -> BaseModel:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # UsageLimits is the old name
        return MODELS[name].model_validate(data)


def _assert_kept(stored: Any, dumped: Any) -> None:
    if isinstance(stored, dict):
        for key, value in stored.items():
            _assert_kept(value, dumped[key])
    elif isinstance(stored, list):
        assert len(stored) == len(dumped)
        for value, kept in zip(stored, dumped, strict=True):
            _assert_kept(value, kept)
    else:
        assert dumped == stored


def _agent_config(model: BaseModel) -> tuple[ReactAgentConfig, PromptTemplate | None]:
    if isinstance(model, ReactAgentConfig):
        return model, None
    if isinstance(model, PromptTemplate):
        return ReactAgentConfig(model_cfg=ModelConfig(model="gpt-4o")), model
    return ReactAgentConfig(**{FIELD[type(model).__name__]: model}), None


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{i}-{e['model']}" for i, e in enumerate(ENTRIES)])
def test_stored_entry_loads_round_trips_and_runs(
    entry: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-used")
    model = _validate(entry["model"], entry["config"])
    dumped = model.model_dump()
    assert _validate(entry["model"], dumped) == model
    # every value the predecessor stored is kept (none accepted and dropped)
    renamed = {
        "run_request_limit" if k == "request_limit" else k: v for k, v in entry["config"].items()
    }
    _assert_kept(renamed, dumped)

    config, template = _agent_config(model)
    seen_system: list[str] = []

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        first, last = messages[0], messages[-1]
        if isinstance(first, ModelRequest) and not seen_system:
            seen_system.extend(
                str(p.content) for p in first.parts if p.part_kind == "system-prompt"
            )
        if isinstance(last, ModelRequest) and any(p.part_kind == "tool-return" for p in last.parts):
            return ModelResponse(parts=[TextPart("looked it up")])
        return ModelResponse(parts=[ToolCallPart("lookup", {"key": "k1"})])

    looked_up: list[str] = []

    def lookup(ctx: RunContext[None], key: str) -> str:
        looked_up.append(key)
        return f"value of {key}"

    observer = Observer()
    agent = ReactAgent(config=config, tools=[lookup], observer=observer)
    try:
        agent.pydantic_agent.model = FunctionModel(script)
        if template is not None:

            @agent.system_prompt
            def backstory() -> str:
                return template.render()

        assert agent.run_sync("find k1") == "looked it up"
        assert looked_up == ["k1"]
        assert [e for e in observer.events if isinstance(e, LlmUsageEvent)]
        if template is not None:
            assert seen_system == [template.render()]
    finally:
        agent.close()
