"""Approval gating in the factory and the gate: which calls wait, and what the gate says.

A card's toolsets are gated on the names in ``approval_required`` that are not the card's
own tools or fields; a real pydantic-ai agent (``FunctionModel``) calls the tools to show
which calls are held and which run. The gate's own bookkeeping is driven through its
commands with a controllable clock, its events going to a real agent (``tool_agent``).
"""

import asyncio
import hashlib
import inspect
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from approval_doubles import Call, Clock
from one_call_run import run_one_call
from pydantic import PrivateAttr
from pydantic_ai import DeferredToolRequests
from pydantic_ai.exceptions import UserError
from pydantic_ai.toolsets import FunctionToolset

from akgentic.tool import BaseToolParam, RetriableError, ToolCard, ToolFactory, resolve_param
from akgentic.tool.core.approval import (
    ApprovalDecidedEvent,
    ApprovalGate,
    args_hash,
    flag_requires_approval,
    gate_toolset,
)
from akgentic.tool.core.commands import CommandRegistry
from akgentic.tool.core.testing import ToolTestAgent


class Shell(BaseToolParam):
    """The local shell capability."""


def _deploy(target: str) -> str:
    """Deploy to ``target``."""
    return f"deployed {target}"


def _status() -> str:
    """Report the status."""
    return "all green"


def _logs() -> str:
    """Show the logs."""
    return "no errors"


class RemoteTool(ToolCard):
    """A card with one tool of its own and one or two toolsets (remote tools)."""

    shell: bool | Shell = True
    split: bool = False
    _builds: int = PrivateAttr(0)

    def get_tools(self) -> list[Callable[..., Any]]:
        self._builds += 1
        tools: list[Callable[..., Any]] = []
        if (param := resolve_param(self.shell, Shell)) is not None:

            def run_local(command: str) -> str:
                """Run ``command`` locally."""
                return f"ran {command}"

            tools.append(param.describe(run_local))
        return tools

    def get_toolsets(self) -> list[Any]:
        if self.split:
            return [FunctionToolset([_deploy, _status]), FunctionToolset([_logs])]
        return [FunctionToolset([_deploy, _status])]


def _held(output: Any) -> list[str]:
    assert isinstance(output, DeferredToolRequests)
    return [call.tool_name for call in output.approvals]


# ------------------------------------------------------------- the factory's toolsets


def test_a_toolset_is_gated_only_on_names_that_are_not_the_cards_own() -> None:
    card = RemoteTool(approval_required={"run_local", "shell", "_deploy"})
    toolsets = ToolFactory([card]).get_toolsets()
    assert _held(run_one_call(toolsets, "_deploy", {"target": "prod"})) == ["_deploy"]
    assert run_one_call(toolsets, "_status") == "all green"


def test_the_cards_own_gated_tool_is_flagged_and_known_to_the_gate() -> None:
    factory = ToolFactory([RemoteTool(approval_required={"run_local", "_deploy"})])
    (tool,) = factory.get_tools()
    assert tool.requires_approval is True  # type: ignore[attr-defined]
    assert factory.approvals.gated_tools == ["run_local"]


def test_the_cards_tools_are_built_once_for_its_toolsets() -> None:
    card = RemoteTool(approval_required={"_deploy"})
    factory = ToolFactory([card])
    factory.get_toolsets()
    factory.get_toolsets()
    assert card._builds == 1

    after = RemoteTool(approval_required={"_deploy"})
    factory = ToolFactory([after])
    factory.get_tools()
    factory.get_toolsets()
    assert after._builds == 1


def test_a_toolset_without_gated_names_is_left_as_is() -> None:
    card = RemoteTool(approval_required={"run_local"})
    factory = ToolFactory([card])
    toolsets = factory.get_toolsets()
    assert run_one_call(toolsets, "_deploy", {"target": "dev"}) == "deployed dev"


def test_a_misspelt_toolset_name_is_refused_naming_the_card() -> None:
    toolsets = ToolFactory([RemoteTool(approval_required={"_deplyo"})]).get_toolsets()
    with pytest.raises(UserError, match=r"RemoteTool\.approval_required names _deplyo"):
        run_one_call(toolsets, "_status")


def test_with_several_toolsets_a_gated_name_needs_to_be_in_one_only() -> None:
    toolsets = ToolFactory([RemoteTool(split=True, approval_required={"_logs"})]).get_toolsets()
    assert len(toolsets) == 2
    assert _held(run_one_call(toolsets, "_logs")) == ["_logs"]
    assert run_one_call(toolsets, "_status") == "all green"


def test_a_gated_param_offers_the_approval_commands() -> None:
    plain = ToolFactory([RemoteTool()]).get_command_registry()
    assert "approve" not in plain
    gated = ToolFactory([RemoteTool(shell=Shell(requires_approval=True))])
    assert {"approve", "deny", "pending_approvals"} <= set(gated.get_command_registry().names())


# ------------------------------------------------------------------- gate_toolset


def test_gate_toolset_without_names_returns_the_toolset_itself() -> None:
    toolset = FunctionToolset([_deploy])
    assert gate_toolset(toolset, [], owner="Card", check_names=True) is toolset


def test_gate_toolset_holds_the_named_tools_and_runs_the_others() -> None:
    held = gate_toolset(
        FunctionToolset([_deploy, _status]), ["_deploy"], owner="Card", check_names=True
    )
    assert held.requires_approval is True
    assert _held(run_one_call([held], "_deploy", {"target": "prod"})) == ["_deploy"]
    assert run_one_call([held], "_status") == "all green"


def test_gate_toolset_checks_names_only_when_asked() -> None:
    checked = gate_toolset(FunctionToolset([_status]), ["nope"], owner="Ops", check_names=True)
    with pytest.raises(UserError, match=r"Ops\.approval_required names nope") as info:
        run_one_call([checked], "_status")
    assert "its tools: _status" in str(info.value)
    unchecked = gate_toolset(FunctionToolset([_status]), ["nope"], owner="Ops", check_names=False)
    assert run_one_call([unchecked], "_status") == "all green"


# --------------------------------------------------------------- flags and digests


def test_args_hash_is_sha256_of_compact_sorted_unescaped_json() -> None:
    canonical = '{"a":[1,2],"b":"café"}'
    expected = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert args_hash({"b": "café", "a": [1, 2]}) == expected


class _Service:
    def fetch(self, key: str) -> str:
        """Fetch ``key``."""
        return f"value of {key}"

    async def fetch_later(self, key: str) -> str:
        """Fetch ``key``, asynchronously."""
        return f"later {key}"


def test_a_bound_method_is_wrapped_and_flagged() -> None:
    flagged = flag_requires_approval(_Service().fetch)
    assert flagged.requires_approval is True  # type: ignore[attr-defined]
    assert flagged("k") == "value of k"
    assert flagged.__name__ == "fetch"


def test_a_bound_coroutine_method_stays_a_coroutine_function() -> None:
    flagged = flag_requires_approval(_Service().fetch_later)
    assert flagged.requires_approval is True  # type: ignore[attr-defined]
    assert inspect.iscoroutinefunction(flagged)
    assert asyncio.run(flagged("k")) == "later k"


def test_a_plain_function_is_flagged_in_place() -> None:
    def act() -> str:
        return "done"

    assert flag_requires_approval(act) is act
    assert act.requires_approval is True  # type: ignore[attr-defined]


# ------------------------------------------------------------------------ the gate


def test_the_default_clock_is_timezone_aware() -> None:
    gate = ApprovalGate()
    (entry,) = gate.request([Call("c1", "t", {})])
    assert entry.requested_at.tzinfo is not None
    assert entry.expires_at - entry.requested_at == timedelta(minutes=15)


def test_a_tool_without_a_signature_is_gated_without_one() -> None:
    gate = ApprovalGate()
    gate.gate_tool("no_signature", getattr)
    gate.gate_tool("not_callable", 42)  # type: ignore[arg-type]
    assert gate.gated_tools == []


def _gate(tool_agent: ToolTestAgent, clock: Clock, resume: Any = "done") -> ApprovalGate:
    gate = ApprovalGate(tool_agent, ttl=timedelta(minutes=5), clock=clock)

    def write_note(path: str, text: str) -> str:
        return "ok"

    gate.gate_tool("write_note", write_note)
    gate.bind(lambda decisions: resume)
    gate.request([Call("c1", "write_note", {"path": "a.md", "text": "hi"})])
    return gate


def _decided(tool_agent: ToolTestAgent) -> list[ApprovalDecidedEvent]:
    return [e for e in tool_agent.events if isinstance(e, ApprovalDecidedEvent)]


def test_a_plain_approval_announces_the_models_arguments(tool_agent: ToolTestAgent) -> None:
    gate = _gate(tool_agent, Clock())
    gate.approve("c1")
    (event,) = _decided(tool_agent)
    assert event.outcome == "approved"
    assert event.args == {"path": "a.md", "text": "hi"}
    assert event.reason is None


def test_a_denial_announces_the_reason_and_no_arguments(tool_agent: ToolTestAgent) -> None:
    gate = _gate(tool_agent, Clock())
    gate.deny("c1", "not today")
    (event,) = _decided(tool_agent)
    assert event.outcome == "denied"
    assert event.args is None
    assert event.reason is not None
    assert "not today" in event.reason


def test_a_request_expires_at_its_expiry_instant(tool_agent: ToolTestAgent) -> None:
    clock = Clock()
    gate = _gate(tool_agent, clock)
    clock.now += timedelta(minutes=5)
    assert gate.expire_overdue() == ["c1"]
    (event,) = _decided(tool_agent)
    assert event.outcome == "expired"
    assert event.reason is not None
    assert "before anyone approved it" in event.reason


def test_an_unknown_call_id_says_that_nothing_waits(tool_agent: ToolTestAgent) -> None:
    gate = _gate(tool_agent, Clock())
    with pytest.raises(RetriableError, match="waiting: c1 ") as info:
        gate.approve("c9")
    assert "(see /pending_approvals)" in str(info.value)
    gate.approve("c1")
    gate.request([])
    with pytest.raises(RetriableError, match="waiting: none"):
        gate.deny("c1", "late")


def test_bad_edited_arguments_name_the_call(tool_agent: ToolTestAgent) -> None:
    gate = _gate(tool_agent, Clock())
    answer = CommandRegistry(gate.commands()).dispatch("/approve c1 {oops}")
    assert "/approve c1: edited args are not valid JSON" in answer


@pytest.mark.parametrize("resumed", [["one"], 1, True])
def test_a_resume_that_returns_no_text_is_reported_plainly(
    tool_agent: ToolTestAgent, resumed: object
) -> None:
    gate = _gate(tool_agent, Clock(), resume=resumed)
    assert gate.approve("c1") == "Approved write_note (call c1) as requested. The run resumed."


def test_a_resume_returning_nothing_is_reported_plainly(tool_agent: ToolTestAgent) -> None:
    gate = _gate(tool_agent, Clock(), resume=None)
    assert gate.deny("c1", "no").endswith(" The run resumed.")
