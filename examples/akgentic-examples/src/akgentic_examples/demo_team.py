"""Glue for running ReactAgents as members of an akgentic-core team.

Neither `akgentic-llm` nor `akgentic-tool-core` may depend on the actor layer's agent
class, so the piece that puts them together lives here, next to the demo that uses it (and
the integration tests, which import it too):

- :class:`LlmMember` is an akgentic-core actor that owns a `ReactAgent`. Its tools come from a
  `ToolFactory` over the cards it is equipped with, with the actor itself as the observer,
  so tool actors (`#PlanningTool`, `#KnowledgeGraphTool`, ...) are real children of the
  team's orchestrator and the LLM events reach the orchestrator's stream.
- :class:`TaskMessage` is what members receive: tasks from the driver, and the
  notifications `NotificationTool` delivers (`type="notification"`); a
  :class:`CommandLine` is a `/` command typed by a person (or a proxy for one), answered
  through the member's command registry (`/approve <id>`, `/deny <id> <reason>`, ...).
- A tool call that needs approval pauses the member's run: the open calls go to the
  factory's approval gate, which announces them on the team's stream; the decision resumes
  the run. A run that fails (no key, an unreachable endpoint) is reported as a
  :class:`MemberFailed` event instead of a traceback in the actor's log.
- :class:`Script` turns a list of steps into akgentic-llm's `ScriptedModel` (a pydantic-ai
  `FunctionModel`), the token-free model the demo and the tests run on.
- :class:`LivePrinter` is an orchestrator subscriber printing what the team does.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from pydantic_ai import ModelRetry
from pydantic_ai.messages import ModelRequest, RetryPromptPart, ToolReturnPart

from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message
from akgentic.core.messages.orchestrator import EventMessage
from akgentic.llm import (
    LlmMessageEvent,
    LlmUsageEvent,
    ModelConfig,
    ReactAgent,
    ReactAgentConfig,
    RuntimeConfig,
    ToolCallEvent,
    ToolReturnEvent,
)
from akgentic.llm.testing import ScriptedCall, ScriptedModel, Turn
from akgentic.tool import ToolCard, ToolFactory, ToolStateEvent
from akgentic.tool.core.approval import (
    ApprovalDecidedEvent,
    ApprovalDecision,
    ApprovalRequestedEvent,
)
from akgentic.tool.core.commands import CommandRegistry
from akgentic.tool.errors import CommandNotRecognized

__all__ = [
    "CommandAnswer",
    "CommandLine",
    "LivePrinter",
    "LlmMember",
    "MemberFailed",
    "MemberReply",
    "Script",
    "Step",
    "TaskMessage",
]


class TaskMessage(Message):
    """Work for a member: a task from the driver, or a notification it scheduled itself."""

    content: str
    type: str = "task"


class CommandLine(Message):
    """A `/` command for a member, as a person (or the driver on their behalf) typed it."""

    line: str


class MemberReply(Message):
    """A member's final answer to one message, put on the team's event stream."""

    member: str
    kind: str
    text: str


class MemberFailed(Message):
    """A member's run failed: ``error`` says how, in one line (no traceback)."""

    member: str
    error: str


class CommandAnswer(Message):
    """What a member's command registry answered to a :class:`CommandLine`."""

    member: str
    line: str
    answer: str


@dataclass(frozen=True)
class Step:
    """One scripted model response: a tool call, or (``tool`` empty) the final answer.

    ``call_id`` names the tool call (pydantic-ai makes one up when it is empty), so that a
    scripted decision can refer to it.
    """

    tool: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    call_id: str = ""


class Script:
    """A scripted, token-free model: each model request takes the next step.

    The steps of one run end with a text step; a script shared by runs simply continues
    where the previous run stopped, which is how a member answers a later notification.
    Once the steps are spent the model answers "Nothing left to do.".
    """

    def __init__(self, name: str, steps: Sequence[Step]) -> None:
        self.name = name
        self._model = ScriptedModel(*map(_turn, steps), model_name=f"scripted-{name}")

    def model(self) -> ScriptedModel:
        return self._model


def _turn(step: Step) -> Turn:
    if step.tool:
        return ScriptedCall(step.tool, step.args, step.call_id or None)
    return step.text


class LlmMember(Akgent[BaseConfig, BaseState]):
    """A team member whose reasoning is a ReactAgent and whose tools are cards."""

    def on_start(self) -> None:
        self._react: ReactAgent | None = None
        self._factory: ToolFactory | None = None
        self._registry: CommandRegistry | None = None
        self._paused_kind = "task"
        self.replies: list[str] = []

    def itself(self) -> Self:
        return self

    def equip(
        self,
        cards: Sequence[ToolCard],
        model_cfg: ModelConfig,
        instructions: str,
        script: Script | None = None,
        runtime_cfg: RuntimeConfig | None = None,
    ) -> list[str]:
        """Attach ``cards`` (this actor is their observer) and build the ReactAgent.

        With a ``script`` the scripted model is used instead of the configured provider (no
        key, no network). ``runtime_cfg`` sets the HTTP timeouts and retries of a real
        provider. Returns the names of the tools the model can call.
        """
        self._factory = ToolFactory(cards, observer=self, retry_exception=ModelRetry)
        # pydantic-ai Tools whose schemas every member with an equal tool shares (built once
        # per process rather than once per member).
        tools = self._factory.get_pydantic_ai_tools()
        config = ReactAgentConfig(model_cfg=model_cfg)
        if runtime_cfg is not None:
            config = ReactAgentConfig(model_cfg=model_cfg, runtime_cfg=runtime_cfg)
        react = ReactAgent(
            config,
            tools=tools,
            toolsets=self._factory.get_toolsets(),
            observer=self,
            model=script.model() if script is not None else None,
        )
        react.system_prompt(lambda: instructions)
        for prompt in self._factory.get_system_prompts():
            react.system_prompt(prompt)
        # A decided batch of gated calls resumes the run that asked for them.
        self._factory.approvals.bind(self._resume)
        self._registry = self._factory.get_command_registry()
        self._react = react
        return [tool.name for tool in tools]

    def receiveMsg_TaskMessage(self, message: TaskMessage) -> None:
        if self._react is None:
            raise RuntimeError(f"{self.config.name} received work before equip()")
        self._paused_kind = message.type
        try:
            output = self._react.run_sync(message.content)
        except Exception as exc:  # reported on the stream, in one line (no traceback)
            self._fail(exc)
            return
        self._settle(output)

    def receiveMsg_CommandLine(self, message: CommandLine) -> None:
        if self._registry is None:
            raise RuntimeError(f"{self.config.name} received a command before equip()")
        try:
            answer = self._registry.dispatch(message.line)
        except CommandNotRecognized as exc:
            answer = str(exc)
        self.notify_event(CommandAnswer(member=self.config.name, line=message.line, answer=answer))

    def _resume(self, decisions: list[ApprovalDecision]) -> str | None:
        """Called by the approval gate (in the command's thread) once every call is decided."""
        assert self._react is not None
        try:
            output = self._react.resume_sync(decisions)
        except Exception as exc:  # reported on the stream, in one line (no traceback)
            self._fail(exc)
            return None
        return self._settle(output)

    def _settle(self, output: Any) -> str | None:
        """Announce what the run left waiting for approval, else post its answer."""
        assert self._react is not None
        assert self._factory is not None
        pending = self._react.pending_tool_calls
        if pending:
            # Paused: the gate's ApprovalRequestedEvent says what waits; no reply yet.
            self._factory.approvals.request(pending)
            return None
        answer = str(output)
        self.replies.append(answer)
        self.notify_event(MemberReply(member=self.config.name, kind=self._paused_kind, text=answer))
        return answer

    def _fail(self, exc: Exception) -> None:
        error = " ".join(f"{type(exc).__name__}: {exc}".split())
        self.notify_event(MemberFailed(member=self.config.name, error=error))

    def on_stop(self) -> None:
        if self._react is not None:
            self._react.close()
        super().on_stop()


_FILE_WRITERS = {"workspace_write": "written", "workspace_edit": "edited"}
_REFUSAL_LINES = 24


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LivePrinter:
    """Orchestrator subscriber: prints tool calls, plan and graph changes, files, replies,
    refusals, approval requests and decisions, command answers and failures.

    It also keeps what the driver waits on (replies, approval requests, command answers,
    failures) and the usage events for the closing cost summary.
    """

    def __init__(self, write: Callable[[str], None] = print) -> None:
        self.write = write
        self.usage: list[LlmUsageEvent] = []
        self.replies: list[MemberReply] = []
        self.files: list[str] = []
        self.approvals: list[tuple[str, ApprovalRequestedEvent]] = []
        self.answers: list[CommandAnswer] = []
        self.failures: list[MemberFailed] = []
        self.refusals: list[str] = []
        self._writes: dict[str, str] = {}  # call id -> path of a pending write or edit

    # The orchestrator's subscriber hooks the demo has no use for.
    def set_restoring(self, team_id: uuid.UUID, restoring: bool) -> None:
        return None

    def on_stop_request(self, team_id: uuid.UUID) -> None:
        return None

    def on_stop(self, team_id: uuid.UUID) -> None:
        return None

    def on_message(self, msg: Message) -> None:
        if not isinstance(msg, EventMessage):
            return
        who = msg.sender.name if msg.sender is not None else "?"
        self._show(who, msg.event)

    def _show(self, who: str, event: object) -> None:
        if isinstance(event, ToolCallEvent):
            self._tool_call(who, event)
        elif isinstance(event, ToolReturnEvent):
            self._tool_return(event)
        elif isinstance(event, LlmUsageEvent):
            self.usage.append(event)
        elif isinstance(event, MemberReply):
            self.replies.append(event)
            label = "after its notification" if event.kind == "notification" else "answers"
            self.write(f"  {event.member} {label}: {_short(event.text, 120)}")
        elif isinstance(event, ToolStateEvent):
            self._state(event)
        elif isinstance(event, LlmMessageEvent) and isinstance(event.message, ModelRequest):
            self._request(who, event.message)
        else:
            self._control(who, event)

    def _control(self, who: str, event: object) -> None:
        """Approvals, command answers and failures: what a person would watch for."""
        if isinstance(event, ApprovalRequestedEvent):
            # The exact arguments, in full: this is what the person approves.
            self.write(
                f"    ⏸ {who}'s {event.tool_name} waits for approval (call {event.call_id}) "
                f"with arguments {json.dumps(event.args, sort_keys=True)}"
            )
            self.approvals.append((who, event))
        elif isinstance(event, ApprovalDecidedEvent):
            self.write(f"    ✔ call {event.call_id} ({event.tool_name}) {event.outcome}")
        elif isinstance(event, CommandAnswer):
            self.answers.append(event)
            self.write(f"  {event.member} ← {event.line}: {_short(event.answer, 120)}")
        elif isinstance(event, MemberFailed):
            self.failures.append(event)

    def _tool_call(self, who: str, event: ToolCallEvent) -> None:
        try:
            args = json.loads(event.arguments or "{}")
        except json.JSONDecodeError:
            args = {}
        shown = ", ".join(f"{k}={_short(json.dumps(v), 40)}" for k, v in args.items())
        self.write(f"    {who} → {event.tool_name}({shown})")
        if event.tool_name in _FILE_WRITERS and "path" in args:
            self._writes[event.tool_call_id] = str(args["path"])

    def _tool_return(self, event: ToolReturnEvent) -> None:
        # A file counts as written once the tool says so: a refused write writes nothing.
        path = self._writes.pop(event.tool_call_id, None)
        if path is not None and event.success:
            self.files.append(path)
            self.write(f"      [file] {path} {_FILE_WRITERS[event.tool_name]}")

    def _request(self, who: str, request: ModelRequest) -> None:
        for part in request.parts:
            if isinstance(part, ToolReturnPart) and part.tool_name == "exec_command":
                for line in str(part.content).strip().splitlines()[:6]:
                    self.write(f"      [sandbox] {_short(line, 100)}")
            elif isinstance(part, RetryPromptPart) and isinstance(part.content, str):
                self._refusal(who, part.tool_name or "?", part.content)

    def _refusal(self, who: str, tool: str, text: str) -> None:
        """A tool refused the call: its whole message (a stale write's diff included)."""
        self.refusals.append(text)
        self.write(f"    ✘ {who}'s {tool} was refused; the model is told:")
        lines = text.splitlines()
        for line in lines[:_REFUSAL_LINES]:
            self.write(f"      │ {line}".rstrip())
        if len(lines) > _REFUSAL_LINES:
            self.write(f"      │ [... {len(lines) - _REFUSAL_LINES} more lines]")

    def _state(self, event: ToolStateEvent) -> None:
        payload = event.payload
        name = type(payload).__name__
        if name == "PlanningStateEvent":
            for task in [*payload.tasks_added, *payload.tasks_modified]:  # type: ignore[attr-defined]
                self.write(f"      [plan #{event.seq}] {task.line()}")
            for task_id in payload.tasks_removed:  # type: ignore[attr-defined]
                self.write(f"      [plan #{event.seq}] task {task_id} removed")
        elif name == "KnowledgeGraphStateEvent":
            for entity in payload.entities_added:  # type: ignore[attr-defined]
                self.write(f"      [graph #{event.seq}] + {entity.name} ({entity.entity_type})")
            for entity in payload.entities_modified:  # type: ignore[attr-defined]
                self.write(f"      [graph #{event.seq}] ~ {entity.name}")
            for relation in payload.relations_added:  # type: ignore[attr-defined]
                self.write(f"      [graph #{event.seq}] + {relation.label()}")
            for entity_name in payload.entities_removed:  # type: ignore[attr-defined]
                self.write(f"      [graph #{event.seq}] - {entity_name}")
        elif name == "VectorStoreStateEvent":
            # Only what shows that search by meaning works: vectors arriving.
            embedded = payload.embedded  # type: ignore[attr-defined]
            if embedded:
                collection = payload.collection  # type: ignore[attr-defined]
                self.write(
                    f"      [{event.tool_id} #{event.seq}] {collection}: "
                    f"{len(embedded)} embedded ({_short(', '.join(embedded), 60)})"
                )
        else:
            self.write(f"      [{event.tool_id} #{event.seq}] {name}")
