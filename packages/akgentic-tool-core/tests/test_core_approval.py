"""Approval gates, the tool side: which calls are gated, the gate's bookkeeping, the commands.

The gate runs with a controllable clock so that expiry is tested without waiting; the events
go to a real agent of a real actor system (``tool_agent``). The end-to-end flow with a model
is in ``tests-integration/test_approval_gates.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from approval_doubles import Call, Clock

from akgentic.tool import (
    BaseToolParam,
    RetriableError,
    ToolCard,
    ToolFactory,
    resolve_param,
)
from akgentic.tool.core.approval import (
    ApprovalDecidedEvent,
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequestedEvent,
    args_hash,
)
from akgentic.tool.core.commands import CommandRegistry, rest_of_line
from akgentic.tool.core.testing import ToolTestAgent

WRITES: list[tuple[str, str]] = []


class Write(BaseToolParam):
    """The write capability."""


class Read(BaseToolParam):
    """The read capability."""


class SelfDescribed(BaseToolParam):
    """A param whose describe() does not call super(), as some cards' do."""

    def describe(self, fn: Any) -> Any:
        fn.__doc__ = "custom"
        return fn


class NotesTool(ToolCard):
    write: bool | Write = True
    read: bool | Read = True
    custom: bool | SelfDescribed = False

    def get_tools(self) -> list[Callable[..., Any]]:
        tools: list[Callable[..., Any]] = []
        if (param := resolve_param(self.write, Write)) is not None:

            def write_note(path: str, text: str) -> str:
                """Write a note."""
                WRITES.append((path, text))
                return "ok"

            tools.append(param.describe(write_note))
        if (read := resolve_param(self.read, Read)) is not None:

            def read_note(path: str) -> str:
                """Read a note."""
                return path

            tools.append(read.describe(read_note))
        if (custom := resolve_param(self.custom, SelfDescribed)) is not None:

            def custom_note() -> str:
                return "custom"

            tools.append(custom.describe(custom_note))
        return tools


def _gated(tools: list[Callable[..., Any]]) -> dict[str, bool]:
    return {t.__name__: getattr(t, "requires_approval", False) is True for t in tools}


# ------------------------------------------------------------- configuration


def test_unused_settings_leave_the_stored_form_unchanged() -> None:
    assert "requires_approval" not in Write().model_dump()
    assert "approval_required" not in NotesTool().model_dump()
    assert "requires_approval" not in str(NotesTool(write=Write()).model_dump(mode="json"))


def test_stated_settings_round_trip() -> None:
    card = NotesTool(write=Write(requires_approval=True), approval_required={"read_note"})
    dumped = card.model_dump(mode="json")
    assert dumped["approval_required"] == ["read_note"]
    assert dumped["write"]["requires_approval"] is True
    back = NotesTool.model_validate(dumped)
    assert back.approval_required == {"read_note"}
    assert isinstance(back.write, Write)
    assert back.write.requires_approval is True


def test_a_param_gates_its_tool_and_only_it() -> None:
    tools = ToolFactory([NotesTool(write=Write(requires_approval=True))]).get_tools()
    assert _gated(tools) == {"write_note": True, "read_note": False}


def test_the_card_level_set_gates_named_capabilities() -> None:
    tools = ToolFactory([NotesTool(approval_required={"read_note"})]).get_tools()
    assert _gated(tools) == {"write_note": False, "read_note": True}
    # a capability switched off may still be named (a field of the card)
    tools = ToolFactory([NotesTool(write=False, approval_required={"write"})]).get_tools()
    assert _gated(tools) == {"read_note": False}


def test_a_misspelt_capability_name_is_refused() -> None:
    factory = ToolFactory([NotesTool(approval_required={"write_notes"})])
    with pytest.raises(ValueError, match=r"approval_required names write_notes.*read_note"):
        factory.get_tools()


def test_a_describe_override_without_super_still_flags() -> None:
    tools = ToolFactory([NotesTool(custom=SelfDescribed(requires_approval=True))]).get_tools()
    assert _gated(tools)["custom_note"] is True
    assert tools[-1].__doc__ == "custom"


def test_flag_survives_the_retry_wrapper() -> None:
    card = NotesTool(write=Write(requires_approval=True))
    tools = ToolFactory([card], retry_exception=KeyError, max_output_chars=None).get_tools()
    assert _gated(tools)["write_note"] is True


# ------------------------------------------------------------------ commands


def test_approval_commands_appear_only_when_something_is_gated() -> None:
    assert "approve" not in ToolFactory([NotesTool()]).get_command_registry()
    gated = ToolFactory([NotesTool(approval_required={"write_note"})])
    registry = gated.get_command_registry()
    assert {"approve", "deny", "pending_approvals"} <= set(registry.names())
    described = {d.name: d for d in registry.descriptors()}
    assert described["approve"].tool_card == "ApprovalGate"


def test_rest_of_line_keeps_json_and_sentences_whole() -> None:
    seen: list[tuple[Any, ...]] = []

    @rest_of_line
    def approve(call_id: str, args: str | None = None) -> None:
        seen.append((call_id, args))

    registry = CommandRegistry([approve])
    registry.execute('/approve c1 {"path": "a b.md", "text": "it\'s"}')
    registry.execute("/approve c2")
    assert seen == [("c1", '{"path": "a b.md", "text": "it\'s"}'), ("c2", None)]
    assert "missing required argument(s): call_id" in registry.dispatch("/approve")


# ---------------------------------------------------------------------- gate


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def gate(tool_agent: ToolTestAgent, clock: Clock) -> tuple[ApprovalGate, list[Any]]:
    resumed: list[Any] = []
    gate = ApprovalGate(tool_agent, ttl=timedelta(minutes=15), clock=clock)

    def write_note(path: str, text: str) -> str:
        return "ok"

    gate.gate_tool("write_note", write_note)
    gate.bind(lambda decisions: resumed.append(decisions) or "done")
    gate.request([Call("c1", "write_note", {"path": "a.md", "text": "hi"})])
    return gate, resumed


def test_a_request_announces_the_call_and_its_exact_args(
    gate: tuple[ApprovalGate, list[Any]], tool_agent: ToolTestAgent, clock: Clock
) -> None:
    (event,) = [e for e in tool_agent.events if isinstance(e, ApprovalRequestedEvent)]
    assert (event.call_id, event.tool_name) == ("c1", "write_note")
    assert event.args == {"path": "a.md", "text": "hi"}
    assert event.args_hash == args_hash({"text": "hi", "path": "a.md"})
    assert event.expires_at == clock.now + timedelta(minutes=15)
    assert "/approve c1" in event.how


def test_an_approval_carries_the_digest_of_the_original_args(
    gate: tuple[ApprovalGate, list[Any]],
) -> None:
    approvals, resumed = gate
    answer = approvals.approve("c1")
    assert answer == "Approved write_note (call c1) as requested. The run resumed: done"
    ((decision,),) = resumed
    assert decision == ApprovalDecision(
        call_id="c1",
        tool_name="write_note",
        approved=True,
        args_hash=args_hash({"path": "a.md", "text": "hi"}),
    )
    assert approvals.pending() == []


def test_an_edited_approval_is_checked_against_the_tool_signature(
    gate: tuple[ApprovalGate, list[Any]], tool_agent: ToolTestAgent
) -> None:
    approvals, resumed = gate
    registry = CommandRegistry(approvals.commands())
    bad = registry.dispatch('/approve c1 {"path": "b.md", "colour": "red"}')
    assert "do not fit write_note" in bad
    assert "nothing was approved" in bad
    assert "not valid JSON" in registry.dispatch("/approve c1 {path: b.md}")
    assert "JSON object" in registry.dispatch('/approve c1 ["b.md"]')
    assert resumed == []
    assert [p.call_id for p in approvals.pending()] == ["c1"]  # unchanged

    registry.dispatch('/approve c1 {"path": "b.md", "text": "edited"}')
    ((decision,),) = resumed
    assert decision.override_args == {"path": "b.md", "text": "edited"}
    assert decision.args_hash == args_hash({"path": "b.md", "text": "edited"})
    decided = [e for e in tool_agent.events if isinstance(e, ApprovalDecidedEvent)]
    assert decided[-1].outcome == "edited"
    assert decided[-1].args == {"path": "b.md", "text": "edited"}


def test_a_denial_carries_the_reason(gate: tuple[ApprovalGate, list[Any]]) -> None:
    approvals, resumed = gate
    registry = CommandRegistry(approvals.commands())
    assert "missing required argument(s): reason" in registry.dispatch("/deny c1")
    with pytest.raises(RetriableError, match="give a reason"):
        approvals.deny("c1", "   ")
    answer = registry.dispatch("/deny c1 not before the release, it's frozen")
    assert answer.startswith("Denied write_note (call c1).")
    ((decision,),) = resumed
    assert decision.approved is False
    assert decision.reason == "Denied by a person: not before the release, it's frozen"


def test_a_late_approval_is_refused_and_the_call_denied(
    gate: tuple[ApprovalGate, list[Any]], clock: Clock, tool_agent: ToolTestAgent
) -> None:
    approvals, resumed = gate
    clock.now += timedelta(minutes=15)
    with pytest.raises(RetriableError, match=r"call 'c1' \(write_note\) expired at .*denied"):
        approvals.approve("c1")
    ((decision,),) = resumed
    assert decision.approved is False
    assert "expired" in (decision.reason or "")
    decided = [e for e in tool_agent.events if isinstance(e, ApprovalDecidedEvent)]
    assert decided[-1].outcome == "expired"


def test_expire_overdue_denies_what_nobody_decided(
    gate: tuple[ApprovalGate, list[Any]], clock: Clock
) -> None:
    approvals, resumed = gate
    assert approvals.expire_overdue() == []
    clock.now += timedelta(minutes=16)
    assert approvals.expire_overdue() == ["c1"]
    assert resumed[0][0].approved is False


def test_an_approval_names_one_call_and_cannot_stand_for_another(
    tool_agent: ToolTestAgent, clock: Clock
) -> None:
    resumed: list[Any] = []
    approvals = ApprovalGate(tool_agent, clock=clock)
    approvals.bind(resumed.append)
    approvals.request(
        [
            Call("c1", "write_note", {"path": "a.md", "text": "1"}),
            Call("c2", "write_note", {"path": "b.md", "text": "2"}),
        ]
    )
    with pytest.raises(RetriableError, match=r"no tool call 'c3' waits.*waiting: c1, c2"):
        approvals.approve("c3")
    approvals.approve("c1")
    assert resumed == []  # c2 still waits: the run resumes once the batch is decided
    with pytest.raises(RetriableError, match="already decided"):
        approvals.deny("c1", "changed my mind")
    assert [p.call_id for p in approvals.pending_approvals()] == ["c2"]
    approvals.deny("c2", "no")
    ((first, second),) = resumed
    assert (first.call_id, first.approved, second.call_id, second.approved) == (
        "c1",
        True,
        "c2",
        False,
    )
    assert first.args_hash == args_hash({"path": "a.md", "text": "1"})


def test_a_new_batch_replaces_the_old_one(gate: tuple[ApprovalGate, list[Any]]) -> None:
    approvals, _ = gate
    approvals.request([Call("c9", "write_note", {"path": "z", "text": ""})])
    with pytest.raises(RetriableError, match="no tool call 'c1'"):
        approvals.approve("c1")


def test_without_a_resume_callback_decisions_wait_to_be_taken(clock: Clock) -> None:
    approvals = ApprovalGate(clock=clock)
    approvals.request([Call("c1", "t", {})])
    assert approvals.take_decisions() == []
    assert approvals.approve("c1") == "Approved t (call c1) as requested."
    assert [d.call_id for d in approvals.take_decisions()] == ["c1"]
    assert approvals.take_decisions() == []


def test_a_ttl_must_be_positive() -> None:
    with pytest.raises(ValueError, match="ttl must be positive"):
        ApprovalGate(ttl=timedelta(0))


def test_a_failing_resume_is_reported_as_text_not_a_traceback(clock: Clock) -> None:
    approvals = ApprovalGate(clock=clock)

    def resume(decisions: list[ApprovalDecision]) -> None:
        raise ConnectionError("model unreachable")

    approvals.bind(resume)
    approvals.request([Call("c1", "t", {})])
    answer = CommandRegistry(approvals.commands()).dispatch("/approve c1")
    assert answer == (
        "/approve failed: the decisions were recorded, but resuming the run failed "
        "(ConnectionError: model unreachable); ask the agent again"
    )
    assert approvals.pending() == []
