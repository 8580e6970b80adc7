"""The specification's observer examples, run against a real ReactAgent with a test model."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.models.test import TestModel

from akgentic.llm import (
    ContextObserver,
    LlmContextClearedEvent,
    LlmContextCompactedEvent,
    LlmMessageEvent,
    LlmSystemPromptEvent,
    LlmUsageEvent,
    ToolCallEvent,
    ToolReturnEvent,
)


class MyObserver:
    def notify_event(self, event: object) -> None:
        if isinstance(event, ToolCallEvent):
            print(f"Tool called: {event.tool_name} ({event.tool_call_id})")
        elif isinstance(event, ToolReturnEvent):
            status = "success" if event.success else "error"
            print(f"Tool returned: {event.tool_name} ({status})")
        elif isinstance(event, LlmUsageEvent):
            print(f"Usage: {event.model_name} — {event.input_tokens}in/{event.output_tokens}out")
        elif isinstance(event, LlmSystemPromptEvent):
            print(f"System prompt for run {event.run_id} ({event.content_hash[:8]}):")
            for part in event.parts:
                print(f"  [{part.dynamic_ref or 'static'}] {part.content}")
        elif isinstance(event, LlmMessageEvent):
            print(f"New message: {event.message}")
        elif isinstance(event, LlmContextCompactedEvent):
            print(f"Compacted {event.replaced_message_count} msg(s) via '{event.strategy_id}'")
        elif isinstance(event, LlmContextClearedEvent):
            print(f"Cleared {event.cleared_message_count} msg(s)")


class SystemPromptTracer:
    def notify_event(self, event: object) -> None:
        if not isinstance(event, LlmSystemPromptEvent):
            return
        print(f"System prompt @ run {event.run_id} (hash {event.content_hash[:8]})")
        for snapshot in event.parts:
            label = snapshot.dynamic_ref or "static"
            print(f"  [{label}] {snapshot.content}")


def get_current_workspace() -> str:
    return "/srv/workspace"


def search_docs(query: str) -> str:
    """Search the documentation."""
    return f"3 hits for {query}"


def test_observer_pattern_example(make_agent: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert isinstance(MyObserver(), ContextObserver)
    agent = make_agent(observer=MyObserver(), tools=[search_docs])

    @agent.system_prompt
    def workspace_context(ctx: Any) -> str:
        return f"Working directory: {get_current_workspace()}"

    agent.subscribe_context(SystemPromptTracer())
    with agent.pydantic_agent.override(model=TestModel(model_name="test-model")):
        agent.run_sync("Find the install guide")
    agent.context.clear_context()

    out = capsys.readouterr().out.splitlines()
    assert "Tool called: search_docs (pyd_ai_tool_call_id__search_docs)" in out
    assert "Tool returned: search_docs (success)" in out
    assert any(line.startswith("Usage: test-model — ") for line in out)
    assert sum(line.startswith("New message: ") for line in out) == 4
    tracer_header = [line for line in out if line.startswith("System prompt @ run ")]
    assert len(tracer_header) == 1
    ref = "test_observer_pattern_example.<locals>.workspace_context"
    assert f"  [{ref}] Working directory: /srv/workspace" in out
    assert out[-1] == "Cleared 4 msg(s)"
    # the tool call is announced after its message, the usage after the tool events
    first_message = next(i for i, line in enumerate(out) if line.startswith("New message"))
    assert first_message < out.index("Tool called: search_docs (pyd_ai_tool_call_id__search_docs)")
