"""Approval gates end to end: a person decides on a gated tool call before it runs.

A real akgentic-core team: a member actor owns a ``ReactAgent`` (its model a scripted
akgentic-llm ``ScriptedModel``) and a ``ToolFactory`` over a real ``WorkspaceTool`` whose
``workspace_write`` needs approval. Prompts and `/` commands reach the member as actor
messages, as a human proxy or the orchestrator would send them; the approval requests reach
the orchestrator's event stream. "The tool did not run" is checked on the disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Self

import pytest
from pydantic_ai import ModelRetry

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message
from akgentic.core.orchestrator import Orchestrator
from akgentic.llm import ModelConfig, ReactAgent, ReactAgentConfig
from akgentic.llm.capabilities.healing import dangling_tool_calls
from akgentic.llm.testing import ScriptedCall, ScriptedModel
from akgentic.tool import ToolCard, ToolFactory
from akgentic.tool.core.approval import (
    ApprovalDecidedEvent,
    ApprovalDecision,
    ApprovalRequestedEvent,
    args_hash,
)
from akgentic.tool.core.testing import eventually, orchestrator_events
from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV
from akgentic.tool.workspace import WorkspaceTool

WORKSPACE = "gates"


class Prompt(Message):
    """Work for the member."""

    content: str


class CommandLine(Message):
    """A `/` command typed by a person (or sent by the orchestrator)."""

    line: str


def _script(*calls: tuple[str, dict[str, Any]]) -> ScriptedModel:
    """The model: asks for the writes in ``calls`` (call id, arguments) on a prompt, then
    reports what it got."""
    writes = [ScriptedCall("workspace_write", args, call_id) for call_id, args in calls]
    return ScriptedModel(
        writes, lambda request: " | ".join(str(r.content) for r in request.results)
    )


def _returns(script: ScriptedModel) -> list[str]:
    """What the tools sent back to the model, in order."""
    return [str(result.content) for result in script.tool_results()]


class GatedMember(Akgent[BaseConfig, BaseState]):
    """A member whose ReactAgent's gated calls wait for `/approve` or `/deny`."""

    def on_start(self) -> None:
        self.react: ReactAgent | None = None
        self.factory: ToolFactory | None = None
        self.answers: list[str] = []
        self.command_answers: list[str] = []

    def itself(self) -> Self:
        return self

    def equip(self, cards: Sequence[ToolCard], model: ScriptedModel, ttl: timedelta) -> None:
        factory = ToolFactory(cards, observer=self, retry_exception=ModelRetry, approval_ttl=ttl)
        react = ReactAgent(
            ReactAgentConfig(model_cfg=ModelConfig(provider="openai", model="gpt-4o")),
            tools=factory.get_tools(),
            observer=self,
        )
        react.pydantic_agent.model = model
        factory.approvals.bind(self._resume)
        self.registry = factory.get_command_registry()
        self.factory, self.react = factory, react

    def receiveMsg_Prompt(self, message: Prompt) -> None:
        assert self.react is not None
        self._settle(self.react.run_sync(message.content))

    def receiveMsg_CommandLine(self, message: CommandLine) -> None:
        self.command_answers.append(self.registry.dispatch(message.line))

    def _resume(self, decisions: list[ApprovalDecision]) -> str | None:
        assert self.react is not None
        return self._settle(self.react.resume_sync(decisions))

    def _settle(self, output: Any) -> str | None:
        # Whatever the run left open is what now waits for a person.
        assert self.react is not None
        assert self.factory is not None
        self.factory.approvals.request(self.react.pending_tool_calls)
        if isinstance(output, str):
            self.answers.append(output)
            return output
        return None

    def on_stop(self) -> None:
        if self.react is not None:
            self.react.close()
        super().on_stop()


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(WORKSPACES_ROOT_ENV, str(tmp_path / "workspaces"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # the model is replaced


def _member(
    system: ActorSystem,
    orchestrator: ActorAddress,
    script: ScriptedModel,
    ttl: timedelta = timedelta(minutes=15),
) -> tuple[ActorAddress, GatedMember]:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.createActor(GatedMember, config=BaseConfig(name="@Writer", role="Writer"))
    member: GatedMember = system.proxy_ask(address, GatedMember).itself()
    card = WorkspaceTool(workspace_id=WORKSPACE, approval_required={"workspace_write"})
    system.proxy_ask(address, GatedMember).equip([card], script, ttl)
    return address, member


def _requested(system: ActorSystem, orchestrator: ActorAddress) -> list[ApprovalRequestedEvent]:
    return orchestrator_events(system, orchestrator, ApprovalRequestedEvent)


def _ask_and_wait(
    system: ActorSystem, orchestrator: ActorAddress, address: ActorAddress, count: int = 1
) -> list[ApprovalRequestedEvent]:
    system.tell(address, Prompt(content="write the plan"))
    eventually(lambda: len(_requested(system, orchestrator)) >= count, timeout=10)
    return _requested(system, orchestrator)


def _command(system: ActorSystem, address: ActorAddress, member: GatedMember, line: str) -> str:
    before = len(member.command_answers)
    system.tell(address, CommandLine(line=line))
    eventually(lambda: len(member.command_answers) > before, timeout=10)
    return member.command_answers[before]


def _no_open_call(member: GatedMember) -> bool:
    assert member.react is not None
    return not dangling_tool_calls(member.react.context.messages)


PLAN = {"path": "plan.md", "content": "v1\n"}


def test_a_gated_call_waits_and_an_approval_runs_its_original_args(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> None:
    script = _script(("call-1", PLAN))
    address, member = _member(actor_system, orchestrator, script)
    (event,) = _ask_and_wait(actor_system, orchestrator, address)

    written = tmp_path / "workspaces" / WORKSPACE / "plan.md"
    assert not written.exists()  # the call did not run
    assert (event.call_id, event.tool_name, event.args) == ("call-1", "workspace_write", PLAN)
    assert event.args_hash == args_hash(PLAN)
    listing = _command(actor_system, address, member, "/pending_approvals")
    assert '"call_id": "call-1"' in listing

    answer = _command(actor_system, address, member, "/approve call-1")
    assert answer.startswith("Approved workspace_write (call call-1) as requested.")
    assert written.read_text() == "v1\n"
    assert len(_returns(script)) == 1
    assert member.answers == _returns(script)
    assert _no_open_call(member)
    decided = orchestrator_events(actor_system, orchestrator, ApprovalDecidedEvent)
    assert [(d.call_id, d.outcome, d.args) for d in decided] == [("call-1", "approved", PLAN)]


def test_an_approval_with_edited_args_runs_the_edited_args(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> None:
    script = _script(("call-1", PLAN))
    address, member = _member(actor_system, orchestrator, script)
    _ask_and_wait(actor_system, orchestrator, address)

    line = '/approve call-1 {"path": "plan.md", "content": "v2, reviewed\\n"}'
    answer = _command(actor_system, address, member, line)
    assert "with the edited arguments" in answer
    assert (tmp_path / "workspaces" / WORKSPACE / "plan.md").read_text() == "v2, reviewed\n"
    assert _no_open_call(member)


def test_a_denial_gives_the_model_the_reason_and_the_tool_never_runs(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> None:
    script = _script(("call-1", PLAN))
    address, member = _member(actor_system, orchestrator, script)
    _ask_and_wait(actor_system, orchestrator, address)

    answer = _command(actor_system, address, member, "/deny call-1 the plan is frozen until Monday")
    assert answer.startswith("Denied workspace_write (call call-1).")
    assert _returns(script) == ["Denied by a person: the plan is frozen until Monday"]
    assert not (tmp_path / "workspaces" / WORKSPACE / "plan.md").exists()
    assert _no_open_call(member)


def test_a_late_approval_is_refused_and_the_call_is_denied(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> None:
    script = _script(("call-1", PLAN))
    address, member = _member(actor_system, orchestrator, script, ttl=timedelta(seconds=0.2))
    (event,) = _ask_and_wait(actor_system, orchestrator, address)
    eventually(lambda: datetime.now(UTC) >= event.expires_at, timeout=2)

    answer = _command(actor_system, address, member, "/approve call-1")
    assert answer.startswith("/approve failed: the approval request for call 'call-1'")
    assert "expired" in answer
    assert not (tmp_path / "workspaces" / WORKSPACE / "plan.md").exists()
    assert len(_returns(script)) == 1
    assert "expired" in _returns(script)[0]
    assert _no_open_call(member)


def test_an_approval_for_one_call_cannot_approve_another(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> None:
    other = {"path": "other.md", "content": "x\n"}
    script = _script(("call-1", PLAN), ("call-2", other))
    address, member = _member(actor_system, orchestrator, script)
    _ask_and_wait(actor_system, orchestrator, address, count=2)
    root = tmp_path / "workspaces" / WORKSPACE

    wrong = _command(actor_system, address, member, "/approve call-9")
    assert "no tool call 'call-9' waits for approval; waiting: call-1, call-2" in wrong
    _command(actor_system, address, member, "/approve call-1")
    # the batch resumes once both are decided: nothing ran yet, and call-2 still waits
    assert not (root / "plan.md").exists()
    again = _command(actor_system, address, member, "/approve call-1")
    assert "already decided" in again
    _command(actor_system, address, member, "/deny call-2 not that file")

    assert (root / "plan.md").read_text() == "v1\n"
    assert not (root / "other.md").exists()
    wrote, denied = _returns(script)
    assert "plan.md" in wrote
    assert denied == "Denied by a person: not that file"
    assert _no_open_call(member)
