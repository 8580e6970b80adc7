"""Tool calls that wait for a decision: ReactAgent's side of approval gates.

A callable flagged ``requires_approval`` never runs when the model calls it: the run ends with
the call open, ``resume`` runs or refuses it, and the persistent history never keeps a call
without an answer. The tool is a real function writing to a list, so "it did not run" is
observed, not assumed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import ApprovalRequired, DeferredToolRequests, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.toolsets import FunctionToolset, WrapperToolset

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
    # the message names the call and says what to do instead
    with pytest.raises(ApprovalMismatchError, match="'c1'.*approve it with edited arguments$"):
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
    tools = registered_tools([read_note])
    # A plain callable is registered as a Tool (its schema shared), calling it, not gated.
    assert [(tool.function, tool.requires_approval) for tool in tools] == [(read_note, False)]
    explicit = Tool(read_note, requires_approval=True)
    assert registered_tools([explicit]) == [explicit]
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


# ---------------------------------------------------------------- decisions in detail


def test_the_digest_is_sha256_of_compact_sorted_utf8_json() -> None:
    # The digest is documented (sorted keys, no spaces, UTF-8): a client computing it on its
    # own side must get the same value, non-ASCII text included.
    expected = hashlib.sha256('{"a":[1,2],"b":"é"}'.encode()).hexdigest()
    assert args_digest({"b": "é", "a": [1, 2]}) == expected


def test_a_denial_without_a_reason_tells_the_model_it_was_denied(gated: ReactAgent) -> None:
    gated.run_sync("write it")
    answer = gated.resume_sync([Decision("c1", approved=False)])
    assert WRITTEN == []
    assert answer == "tool said: The tool call was denied."


def test_edited_arguments_must_match_the_digest_given_with_them(gated: ReactAgent) -> None:
    gated.run_sync("write it")
    edited = {"path": "b.md", "text": "bye"}
    original = gated.pending_tool_calls[0].args_hash
    with pytest.raises(ApprovalMismatchError, match="'c1'"):
        gated.resume_sync([_approve(gated, override_args=edited, args_hash=original)])
    assert WRITTEN == []
    assert [c.call_id for c in gated.pending_tool_calls] == ["c1"]


def test_edited_arguments_without_a_digest_run_as_edited(gated: ReactAgent) -> None:
    gated.run_sync("write it")
    edited = {"path": "b.md", "text": "bye"}
    gated.resume_sync([_approve(gated, override_args=edited, args_hash=None)])
    assert WRITTEN == [("b.md", "bye")]


def test_a_call_decided_twice_is_refused_naming_it(gated: ReactAgent) -> None:
    gated.run_sync("write it")
    with pytest.raises(ApprovalMismatchError, match="'c1'"):
        gated.resume_sync([_approve(gated), _approve(gated)])
    assert WRITTEN == []


@pytest.fixture
def two_open(make_agent: Any) -> ReactAgent:
    agent: ReactAgent = make_agent(tools=[write_note])
    agent.pydantic_agent.model = ScriptedModel(
        [
            ScriptedCall("write_note", {"path": "a.md", "text": "1"}, "c1"),
            ScriptedCall("write_note", {"path": "b.md", "text": "2"}, "c2"),
        ],
        "done",
    )
    agent.run_sync("write both")
    return agent


def test_mismatch_errors_list_every_open_call(two_open: ReactAgent) -> None:
    # The message tells the caller which calls still need a decision.
    with pytest.raises(ApprovalMismatchError, match="open calls: c1, c2$"):
        two_open.resume_sync([Decision("c3", approved=False)])
    with pytest.raises(ApprovalMismatchError, match="open call\\(s\\) c1, c2:"):
        two_open.resume_sync([])
    (first, _) = two_open.pending_tool_calls
    with pytest.raises(ApprovalMismatchError, match="open call\\(s\\) c2:"):
        two_open.resume_sync([Decision("c1", approved=True, args_hash=first.args_hash)])
    assert WRITTEN == []


class Note(BaseModel):
    text: str


def test_a_gated_agent_keeps_its_structured_result_type(make_agent: Any) -> None:
    agent: ReactAgent = make_agent(tools=[write_note], result_type=Note)
    agent.pydantic_agent.model = ScriptedModel(
        ScriptedCall("write_note", {"path": "a.md", "text": "hi"}, "c1"), '{"text": "written"}'
    )
    assert isinstance(agent.run_sync("write it"), DeferredToolRequests)
    assert agent.resume_sync([_approve(agent)]) == Note(text="written")


def test_a_gated_agent_accepts_a_list_of_output_types(make_agent: Any) -> None:
    agent: ReactAgent = make_agent(tools=[write_note])
    model = ScriptedModel('{"text": "listed"}')
    agent.pydantic_agent.model = model
    assert agent.run_sync("x", output_type=[Note, DeferredToolRequests]) == Note(text="listed")


def stamp(ctx: RunContext[str], text: str) -> str:
    """Stamp a text with the caller's name.

    Args:
        text: What to stamp.
    """
    return f"{ctx.deps}:{text}"


stamp.requires_approval = True  # type: ignore[attr-defined]


@pytest.fixture
def stamping(make_agent: Any) -> ReactAgent:
    agent: ReactAgent = make_agent(tools=[stamp], deps_type=str)
    agent.pydantic_agent.model = ScriptedModel(
        ScriptedCall("stamp", {"text": "hi"}, "c1"),
        when_done=lambda request: json.dumps({"text": str(request.results[0].content)}),
    )
    agent.run_sync("stamp it", deps="alice")
    return agent


def test_resume_sync_hands_its_deps_and_output_type_to_the_run(stamping: ReactAgent) -> None:
    answer = stamping.resume_sync([_approve(stamping)], deps="bob", output_type=Note)
    assert answer == Note(text="bob:hi")


async def test_resume_hands_its_deps_and_output_type_to_the_run(stamping: ReactAgent) -> None:
    answer = await stamping.resume([_approve(stamping)], deps="carol", output_type=Note)
    assert answer == Note(text="carol:hi")


def test_clearing_the_context_leaves_no_call_waiting(gated: ReactAgent) -> None:
    gated.run_sync("write it")
    assert gated.clear_context().startswith("Cleared")
    assert gated.pending_tool_calls == []
    with pytest.raises(ApprovalMismatchError, match="no tool call is waiting.*see pending_tool"):
        gated.resume_sync([])


def _raw_write_note(path: str, text: str) -> str:
    """Write a note, unflagged: the toolsets below hold it by pydantic-ai's own means."""
    WRITTEN.append((path, text))
    return f"wrote {path}"


def _asks_for_approval(ctx: RunContext[Any], path: str, text: str) -> str:
    """Write a note once approved (pydantic-ai's in-body approval request)."""
    if not ctx.tool_call_approved:
        raise ApprovalRequired
    WRITTEN.append((path, text))
    return f"wrote {path}"


def _ways_to_hold_a_call() -> dict[str, tuple[list[Any], list[Any]]]:
    """(tools, toolsets) that hold ``write_note`` for approval, one way each."""
    held = FunctionToolset([_raw_write_note]).renamed({"write_note": "_raw_write_note"})
    renamed = Tool(_asks_for_approval, name="write_note", takes_ctx=True)
    return {
        "approval_required()": ([], [held.approval_required()]),
        "approval_required(), wrapped": ([], [WrapperToolset(held.approval_required())]),
        "Tool(requires_approval=True) in a toolset": (
            [],
            [FunctionToolset([Tool(_raw_write_note, name="write_note", requires_approval=True)])],
        ),
        "ApprovalRequired raised by the tool": ([renamed], []),
    }


@pytest.mark.parametrize("way", list(_ways_to_hold_a_call()))
def test_every_way_pydantic_ai_holds_a_call_ends_the_run_with_it_open(
    make_agent: Any, way: str
) -> None:
    # Before, only a flagged toolset was seen: the others failed the run with pydantic-ai's
    # "DeferredToolRequests is not among output types".
    tools, toolsets = _ways_to_hold_a_call()[way]
    agent: ReactAgent = make_agent(tools=tools, toolsets=toolsets)
    agent.pydantic_agent.model = scripted()
    assert isinstance(agent.run_sync("write it"), DeferredToolRequests)
    assert WRITTEN == []
    assert [call.call_id for call in agent.pending_tool_calls] == ["c1"]
    assert agent.resume_sync([_approve(agent)]) == "tool said: wrote a.md"
    assert WRITTEN == [("a.md", "hi")]
    assert dangling_tool_calls(agent.context.messages) == []


def test_a_new_agent_has_no_call_waiting_and_a_closed_one_says_so(make_agent: Any) -> None:
    agent: ReactAgent = make_agent(tools=[write_note])
    assert agent.pending_tool_calls == []
    agent.close()
    with pytest.raises(RuntimeError) as info:
        agent.run_sync("hello")
    assert str(info.value) == "this ReactAgent is closed; build a new one"
