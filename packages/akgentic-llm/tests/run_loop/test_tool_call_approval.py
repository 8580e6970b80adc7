"""Tool calls that wait for a decision: ReactAgent's side of approval gates.

A callable flagged ``requires_approval`` never runs when the model calls it: the run ends with
the call open, ``resume`` runs or refuses it, and the persistent history never keeps a call
without an answer. The tool is a real function writing to a list, so "it did not run" is
observed, not assumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from pydantic_ai import DeferredToolRequests, Tool
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

from akgentic.llm import ReactAgent
from akgentic.llm.approvals import (
    SUPERSEDED_CALL_MESSAGE,
    ApprovalMismatchError,
    args_digest,
    registered_tools,
)
from akgentic.llm.capabilities.healing import dangling_tool_calls
from akgentic.llm.testing import ScriptedCall, ScriptedModel

WRITTEN: list[tuple[str, str]] = []


def write_note(path: str, text: str) -> str:
    """Write a note.

    Args:
        path: Where.
        text: What.
    """
    WRITTEN.append((path, text))
    return f"wrote {path}"


write_note.requires_approval = True  # type: ignore[attr-defined]


def read_note(path: str) -> str:
    """Read a note."""
    return f"content of {path}"


@dataclass(frozen=True)
class Decision:
    call_id: str
    approved: bool
    args_hash: str | None = None
    override_args: dict[str, Any] | None = None
    reason: str | None = None


def _returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    return [part for part in last.parts if isinstance(part, ToolReturnPart)]


def scripted() -> ScriptedModel:
    """Calls write_note; once the call is decided, answers what the tool said."""
    return ScriptedModel(
        ScriptedCall("write_note", {"path": "a.md", "text": "hi"}, "c1"),
        lambda request: f"tool said: {request.results[0].content}",
    )


@pytest.fixture(autouse=True)
def _clean() -> None:
    WRITTEN.clear()


@pytest.fixture
def gated(make_agent: Any) -> ReactAgent:
    agent: ReactAgent = make_agent(tools=[write_note, read_note])
    agent.pydantic_agent.model = scripted()
    return agent


def _approve(agent: ReactAgent, **changes: Any) -> Decision:
    (call,) = agent.pending_tool_calls
    base = {"call_id": call.call_id, "approved": True, "args_hash": call.args_hash}
    return Decision(**{**base, **changes})


def test_a_gated_call_does_not_run_and_stays_open(gated: ReactAgent) -> None:
    output = gated.run_sync("write it")
    assert isinstance(output, DeferredToolRequests)
    assert WRITTEN == []
    (call,) = gated.pending_tool_calls
    assert (call.call_id, call.tool_name, call.args) == (
        "c1",
        "write_note",
        {"path": "a.md", "text": "hi"},
    )
    assert call.args_hash == args_digest({"text": "hi", "path": "a.md"})


def test_an_approval_runs_the_original_arguments(gated: ReactAgent) -> None:
    gated.run_sync("write it")
    answer = gated.resume_sync([_approve(gated)])
    assert WRITTEN == [("a.md", "hi")]
    assert answer == "tool said: wrote a.md"
    assert gated.pending_tool_calls == []
    assert dangling_tool_calls(gated.context.messages) == []


def test_an_edited_approval_runs_the_edited_arguments(gated: ReactAgent) -> None:
    gated.run_sync("write it")
    edited = {"path": "b.md", "text": "bye"}
    gated.resume_sync([_approve(gated, override_args=edited, args_hash=args_digest(edited))])
    assert WRITTEN == [("b.md", "bye")]


def test_a_denial_hands_the_reason_to_the_model_and_runs_nothing(gated: ReactAgent) -> None:
    gated.run_sync("write it")
    answer = gated.resume_sync([Decision("c1", approved=False, reason="not on Fridays")])
    assert WRITTEN == []
    assert answer == "tool said: not on Fridays"
    assert dangling_tool_calls(gated.context.messages) == []


def test_an_approval_bound_to_other_arguments_is_refused(gated: ReactAgent) -> None:
    gated.run_sync("write it")
    stale = args_digest({"path": "a.md", "text": "something else"})
    with pytest.raises(ApprovalMismatchError, match="other arguments"):
        gated.resume_sync([_approve(gated, args_hash=stale)])
    assert WRITTEN == []
    assert [c.call_id for c in gated.pending_tool_calls] == ["c1"]  # still open


def test_a_decision_for_another_call_id_is_refused(gated: ReactAgent) -> None:
    gated.run_sync("write it")
    with pytest.raises(ApprovalMismatchError, match="'c2', which is not open; open calls: c1"):
        gated.resume_sync([_approve(gated, call_id="c2")])
    with pytest.raises(ApprovalMismatchError, match="no decision for open call"):
        gated.resume_sync([])
    assert WRITTEN == []
    assert len(gated.pending_tool_calls) == 1


def test_a_new_prompt_refuses_the_open_calls(gated: ReactAgent) -> None:
    gated.run_sync("write it")
    model = ScriptedModel("ok")
    gated.pydantic_agent.model = model
    assert gated.run_sync("never mind") == "ok"
    assert model.served == 1
    assert WRITTEN == []
    assert gated.pending_tool_calls == []
    assert [p.content for p in _returns(model.seen)] == [SUPERSEDED_CALL_MESSAGE]
    assert dangling_tool_calls(gated.context.messages) == []


def test_ungated_tools_are_not_gated(make_agent: Any) -> None:
    tools, gated_any = registered_tools([read_note])
    # A plain callable is registered as a Tool (its schema shared), calling it, not gated.
    assert [(tool.function, tool.requires_approval) for tool in tools] == [(read_note, False)]
    assert gated_any is False
    explicit = Tool(read_note, requires_approval=True)
    tools, gated_any = registered_tools([explicit])
    assert tools == [explicit]
    assert gated_any is True
    agent: ReactAgent = make_agent(tools=[read_note])
    agent.pydantic_agent.model = ScriptedModel("plain")
    assert agent.run_sync("hello") == "plain"
    assert agent.pending_tool_calls == []


def test_the_readme_example_runs(clean_provider_env: Any) -> None:
    """The README's block runs as written (its own scripted model, no key) and leaves no call
    open."""
    import re
    from pathlib import Path

    readme = Path(__file__).resolve().parents[2] / "README.md"
    section = readme.read_text().split("### Tool calls that wait for approval", 1)[1]
    (block,) = re.findall(r"```python\n(.*?)```", section.split("\n### ", 1)[0], flags=re.S)
    namespace: dict[str, Any] = {}
    exec(block, namespace)
    agent = namespace["agent"]
    assert namespace["published"] == ["v2 is out"]
    assert agent.closed
    assert agent.pending_tool_calls == []
    assert dangling_tool_calls(agent.context.messages) == []


def test_the_persisted_events_replay_to_the_same_history(
    gated: ReactAgent, make_agent: Any, event_recorder: Any
) -> None:
    gated.subscribe_context(event_recorder)
    gated.run_sync("write it")
    gated.resume_sync([Decision("c1", approved=False, reason="no")])
    restored: ReactAgent = make_agent()
    restored.restore_context(event_recorder.events)
    # nothing had to be repaired: the log holds the call and its answer
    assert restored.context.messages == gated.context.messages
