"""Glue for running ReactAgents as members of an akgentic-core team.

Neither `akgentic-llm` nor `akgentic-tool-core` may depend on the actor layer's agent
class, so the piece that puts them together lives here, next to the demo that uses it (and
the integration tests, which import it too):

- :class:`LlmMember` is an akgentic-core actor that owns a `ReactAgent`. Its tools come from a
  `ToolFactory` over the cards it is equipped with, with the actor itself as the observer,
  so tool actors (`#PlanningTool`, `#KnowledgeGraphTool`, ...) are real children of the
  team's orchestrator and the LLM events reach the orchestrator's stream.
- :class:`TaskMessage` is what members receive: tasks from the driver, and the
  notifications `NotificationTool` delivers (`type="notification"`).
- :class:`Script` turns a list of steps into a pydantic-ai `FunctionModel`, the token-free
  model the demo and the tests run on.
- :class:`LivePrinter` is an orchestrator subscriber printing what the team does.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from pydantic_ai import ModelRetry
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

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
    ToolCallEvent,
    ToolReturnEvent,
)
from akgentic.tool import ToolCard, ToolFactory, ToolStateEvent

__all__ = ["LivePrinter", "LlmMember", "MemberReply", "Script", "Step", "TaskMessage"]


class TaskMessage(Message):
    """Work for a member: a task from the driver, or a notification it scheduled itself."""

    content: str
    type: str = "task"


class MemberReply(Message):
    """A member's final answer to one message, put on the team's event stream."""

    member: str
    kind: str
    text: str


@dataclass(frozen=True)
class Step:
    """One scripted model response: a tool call, or (``tool`` empty) the final answer."""

    tool: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    text: str = ""


class Script:
    """A scripted, token-free model: each model request takes the next step.

    The steps of one run end with a text step; a script shared by runs simply continues
    where the previous run stopped, which is how a member answers a later notification.
    """

    def __init__(self, name: str, steps: Sequence[Step]) -> None:
        self.name = name
        self._steps = list(steps)
        self._next = 0
        self._lock = threading.Lock()

    def model(self) -> FunctionModel:
        return FunctionModel(self._respond, model_name=f"scripted-{self.name}")

    def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        with self._lock:
            if self._next >= len(self._steps):
                return ModelResponse(parts=[TextPart("Nothing left to do.")])
            step = self._steps[self._next]
            self._next += 1
        if step.tool:
            return ModelResponse(parts=[ToolCallPart(step.tool, step.args)])
        return ModelResponse(parts=[TextPart(step.text)])


class LlmMember(Akgent[BaseConfig, BaseState]):
    """A team member whose reasoning is a ReactAgent and whose tools are cards."""

    def on_start(self) -> None:
        self._react: ReactAgent | None = None
        self._factory: ToolFactory | None = None
        self.replies: list[str] = []

    def itself(self) -> Self:
        return self

    def equip(
        self,
        cards: Sequence[ToolCard],
        model_cfg: ModelConfig,
        instructions: str,
        script: Script | None = None,
    ) -> list[str]:
        """Attach ``cards`` (this actor is their observer) and build the ReactAgent.

        With a ``script`` the model is replaced by the scripted one before any request.
        Returns the names of the tools the model can call.
        """
        self._factory = ToolFactory(cards, observer=self, retry_exception=ModelRetry)
        tools = self._factory.get_tools()
        react = ReactAgent(
            ReactAgentConfig(model_cfg=model_cfg),
            tools=tools,
            toolsets=self._factory.get_toolsets(),
            observer=self,
        )
        react.system_prompt(lambda: instructions)
        for prompt in self._factory.get_system_prompts():
            react.system_prompt(prompt)
        if script is not None:
            react.pydantic_agent.model = script.model()
        self._react = react
        return [tool.__name__ for tool in tools]

    def receiveMsg_TaskMessage(self, message: TaskMessage) -> None:
        if self._react is None:
            raise RuntimeError(f"{self.config.name} received work before equip()")
        answer = str(self._react.run_sync(message.content))
        self.replies.append(answer)
        self.notify_event(MemberReply(member=self.config.name, kind=message.type, text=answer))

    def on_stop(self) -> None:
        if self._react is not None:
            self._react.close()
        super().on_stop()


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LivePrinter:
    """Orchestrator subscriber: prints tool calls, plan and graph changes, files, replies.

    It also keeps the usage events for the closing cost summary.
    """

    def __init__(self, write: Callable[[str], None] = print) -> None:
        self.write = write
        self.usage: list[LlmUsageEvent] = []
        self.replies: list[MemberReply] = []
        self.files: list[str] = []

    def on_message(self, msg: Message) -> None:
        if not isinstance(msg, EventMessage):
            return
        who = msg.sender.name if msg.sender is not None else "?"
        self._show(who, msg.event)

    def _show(self, who: str, event: object) -> None:
        if isinstance(event, ToolCallEvent):
            self._tool_call(who, event)
        elif isinstance(event, ToolReturnEvent) and not event.success:
            self.write(f"      {who} ← {event.tool_name} asked for a retry")
        elif isinstance(event, LlmUsageEvent):
            self.usage.append(event)
        elif isinstance(event, MemberReply):
            self.replies.append(event)
            label = "after its notification" if event.kind == "notification" else "answers"
            self.write(f"  {event.member} {label}: {_short(event.text, 120)}")
        elif isinstance(event, ToolStateEvent):
            self._state(event)
        elif isinstance(event, LlmMessageEvent) and isinstance(event.message, ModelRequest):
            for part in event.message.parts:
                if isinstance(part, ToolReturnPart) and part.tool_name == "exec_command":
                    for line in str(part.content).strip().splitlines()[:6]:
                        self.write(f"      [sandbox] {_short(line, 100)}")

    def _tool_call(self, who: str, event: ToolCallEvent) -> None:
        try:
            args = json.loads(event.arguments or "{}")
        except json.JSONDecodeError:
            args = {}
        shown = ", ".join(f"{k}={_short(json.dumps(v), 40)}" for k, v in args.items())
        self.write(f"    {who} → {event.tool_name}({shown})")
        if event.tool_name in ("workspace_write", "workspace_edit") and "path" in args:
            self.files.append(str(args["path"]))
            self.write(f"      [file] {args['path']} written")

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
