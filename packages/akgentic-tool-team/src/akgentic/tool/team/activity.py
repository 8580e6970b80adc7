"""Team activity: who is busy right now, and on what.

The answer is derived from the orchestrator's own telemetry. Every agent reports a
``ReceivedMessage`` when a handler starts and a ``ProcessedMessage`` when it ends, and the
sender of the message reports a ``SentMessage`` carrying it, so an agent with a received
message and no matching processed one is mid-handler, working on that message's text.

Task text is cut to ``max_task_chars`` by default. With an :class:`ActivitySummarizer`
configured, a caller may ask for long tasks to be summarized by a model instead; the
summaries are produced off-thread by :class:`SummarizerWorker`s and cached, by message id,
in the ``#TeamActivity`` actor (:class:`TeamActivityActor`), so a repeated call costs
nothing and a slow model never blocks the team.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, override

from pydantic import BaseModel, ConfigDict, Field
from pydantic_ai import Agent
from pydantic_ai.models import Model, infer_model

from akgentic.core.actor_address import ActorAddress
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message
from akgentic.core.messages.orchestrator import (
    HandledMessage,
    ProcessedMessage,
    ReceivedMessage,
    SentMessage,
)
from akgentic.tool.core.channels import COMMAND, TOOL_CALL, Channels
from akgentic.tool.core.deferred import DeferredResultActor, DeferredWorker
from akgentic.tool.core.params import BaseToolParam

__all__ = [
    "DEFAULT_SUMMARIZER_MODEL",
    "TEAM_ACTIVITY_ACTOR_NAME",
    "TEAM_ACTIVITY_ACTOR_ROLE",
    "ActivitySummarizer",
    "AgentActivity",
    "GetTeamActivity",
    "MemberActivity",
    "SummarizerWorker",
    "SummaryRequest",
    "TeamActivityActor",
    "TeamActivityReport",
    "register_summarizer_model",
    "unregister_summarizer_model",
]

logger = logging.getLogger(__name__)

TEAM_ACTIVITY_ACTOR_NAME = "#TeamActivity"
"""Name of the summary-cache actor, created only when a summarizer is configured."""

TEAM_ACTIVITY_ACTOR_ROLE = "ToolActor"
"""Role of the summary-cache actor (the role tool actors carry in a team)."""

DEFAULT_SUMMARIZER_MODEL = "openai:gpt-5.2-mini"
"""Model of an :class:`ActivitySummarizer` that names none."""


# -- the report -------------------------------------------------------------------------------


class MemberActivity(BaseModel):
    """One busy member. Kept to six fields on purpose: the calling model reads every one."""

    name: str
    role: str
    task: str = Field(description="What the member is working on, truncated or summarized.")
    summarized: bool = Field(description="True when `task` is a model-written summary.")
    started_at: datetime = Field(description="When the member started on this task (UTC).")
    suspect: bool = Field(
        default=False,
        description="More than one open message for this member: the telemetry is unbalanced.",
    )


AgentActivity = MemberActivity
"""The name akgentic-tool 1.6.4 gave :class:`MemberActivity` (the same class)."""


class TeamActivityReport(BaseModel):
    """Who is busy at ``generated_at``; an idle team gives an empty ``members`` list."""

    generated_at: datetime
    members: list[MemberActivity] = Field(default_factory=list)
    pending_summaries: int = Field(
        default=0,
        ge=0,
        description="Summaries asked for but not ready yet: those tasks are shown truncated; "
        "ask again shortly to get them summarized.",
    )


# -- configuration ----------------------------------------------------------------------------


class ActivitySummarizer(BaseModel):
    """The model that may summarize long tasks, and how long a caller waits for it.

    ``model`` is a pydantic-ai model string (``"openai:gpt-5.2-mini"``, ``"test"``) or a
    name given to :func:`register_summarizer_model`. Its tokens are spent outside the
    agent's own model loop, so they are not counted in the agent's usage or cost.
    """

    model_config = ConfigDict(extra="forbid")

    model: str = Field(default=DEFAULT_SUMMARIZER_MODEL, min_length=1)
    poll_attempts: int = Field(default=5, ge=1)
    poll_delay_seconds: float = Field(default=0.4, ge=0)


def _tool_and_command() -> set[Channels]:
    return {TOOL_CALL, COMMAND}


class GetTeamActivity(BaseToolParam):
    """Configuration of ``team_activity``.

    Without ``summarizer`` the capability only truncates, creates no actor and never calls
    a model, and its signature has no ``summarize_over`` argument.
    """

    expose: set[Channels] = Field(default_factory=_tool_and_command)
    max_task_chars: int = Field(default=200, ge=1)
    stale_after_seconds: float = Field(default=300.0, gt=0)
    summarizer: ActivitySummarizer | None = None


# -- deriving who is busy ---------------------------------------------------------------------


@dataclass(frozen=True)
class BusyMember:
    """A busy member as derived from telemetry, before the report drops its keys."""

    agent_id: uuid.UUID
    name: str
    role: str
    message_id: uuid.UUID
    text: str
    started_at: datetime
    suspect: bool


def busy_members(
    messages: Iterable[Message],
    team: Iterable[ActorAddress],
    *,
    now: datetime,
    exclude: Iterable[uuid.UUID] = (),
    stale_after_seconds: float = 300.0,
) -> list[BusyMember]:
    """Members of ``team`` that are mid-handler according to ``messages``.

    A received message with no processed (or handled) counterpart is open. Open messages
    older than ``stale_after_seconds`` are ignored (unbalanced history replayed by a
    resumed team). A member with more than one open message is reported ``suspect``, with
    the most recent one as its task. Tool actors (``#`` names), user proxies and the ids in
    ``exclude`` are never reported. Ordered by start time, oldest first.
    """
    excluded = set(exclude)
    members = {
        m.agent_id: m
        for m in team
        if not m.name.startswith("#") and not m.is_user_proxy and m.agent_id not in excluded
    }
    sent: dict[uuid.UUID, Message] = {}
    opened: dict[tuple[uuid.UUID, uuid.UUID], datetime] = {}
    # A message is closed by a ProcessedMessage (it had its turn) or by a HandledMessage (a
    # running handler absorbed it from the mailbox): core's ledger has both terminators.
    closed: set[uuid.UUID] = set()
    for msg in messages:
        if isinstance(msg, SentMessage):
            sent[msg.message.id] = msg.message
        elif isinstance(msg, ProcessedMessage | HandledMessage):
            closed.add(msg.message_id)
        elif isinstance(msg, ReceivedMessage):
            sender = msg.sender
            if sender is not None and sender.agent_id in members:
                opened[(sender.agent_id, msg.message_id)] = msg.timestamp or now

    oldest = now - timedelta(seconds=stale_after_seconds)
    open_by_agent: dict[uuid.UUID, list[tuple[datetime, uuid.UUID]]] = {}
    for (agent_id, message_id), started in opened.items():
        if message_id in closed:
            continue
        if started < oldest:
            continue
        open_by_agent.setdefault(agent_id, []).append((started, message_id))

    found: list[BusyMember] = []
    for agent_id, entries in open_by_agent.items():
        entries.sort()
        started, message_id = entries[-1]
        member = members[agent_id]
        found.append(
            BusyMember(
                agent_id=agent_id,
                name=member.name,
                role=member.role,
                message_id=message_id,
                text=_task_text(sent.get(message_id)),
                started_at=started,
                suspect=len(entries) > 1,
            )
        )
    found.sort(key=lambda b: (b.started_at, b.name))
    return found


def _task_text(message: Message | None) -> str:
    if message is None:
        return "(task text unavailable: the message was not sent by a team member)"
    content = getattr(message, "content", None)
    if isinstance(content, str) and content.strip():
        return " ".join(content.split())
    return f"({type(message).__name__})"


def truncate(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, marked with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + "…"


# -- summaries ----------------------------------------------------------------------------------


class SummaryRequest(BaseModel):
    """What a summarizer worker needs for one task: the text, the model, the budget."""

    text: str
    model: str
    max_chars: int = Field(ge=1)


_SUMMARIZER_INSTRUCTIONS = (
    "You summarize what a team member is currently working on, for a colleague who wants "
    "a one-glance status. Reply with the summary only: one sentence, present tense, no "
    "preamble, at most {max_chars} characters."
)

_registered_models: dict[str, Callable[[], Model]] = {}
_registry_lock = threading.Lock()


def register_summarizer_model(name: str, model: Model | Callable[[], Model]) -> None:
    """Make ``ActivitySummarizer(model=name)`` use a pydantic-ai model built in code.

    Useful for models a string cannot describe (a custom client, a local
    ``FunctionModel``). ``model`` is a model instance or a factory called per summary.
    """
    factory: Callable[[], Model] = (lambda: model) if isinstance(model, Model) else model
    with _registry_lock:
        _registered_models[name] = factory


def unregister_summarizer_model(name: str) -> None:
    """Forget a name given to :func:`register_summarizer_model` (no error if unknown)."""
    with _registry_lock:
        _registered_models.pop(name, None)


def _resolve_model(spec: str) -> Model:
    with _registry_lock:
        factory = _registered_models.get(spec)
    return factory() if factory is not None else infer_model(spec)


class SummarizerWorker(DeferredWorker[uuid.UUID, str]):
    """Writes the summary of one task with the configured model, then stops."""

    @override
    def produce(self, key: uuid.UUID, payload: Any) -> str:
        request = SummaryRequest.model_validate(payload)
        agent: Agent[None, str] = Agent(
            _resolve_model(request.model),
            instructions=_SUMMARIZER_INSTRUCTIONS.format(max_chars=request.max_chars),
        )
        # The budget goes to the model client itself: a thread cannot be cancelled.
        result = agent.run_sync(request.text, model_settings={"timeout": self.timeout_seconds})
        summary = " ".join(result.output.split())
        if not summary:
            raise ValueError("the summarizer model returned an empty summary")
        return truncate(summary, request.max_chars)


@dataclass(frozen=True)
class SummaryProgress:
    """Answer of :meth:`TeamActivityActor.progress`: what is ready and what has failed."""

    ready: dict[uuid.UUID, str]
    failed: frozenset[uuid.UUID]


class TeamActivityActor(DeferredResultActor[BaseConfig, BaseState, uuid.UUID, str]):
    """``#TeamActivity``: the team's cache of task summaries, keyed by message id."""

    @override
    def worker_class(self) -> type[DeferredWorker[Any, Any]]:
        return SummarizerWorker

    def progress(self, keys: list[uuid.UUID]) -> SummaryProgress:
        """Cached summaries among ``keys`` and the keys whose production recently failed.

        One ask for a whole report, instead of one ``get`` per busy member.
        """
        ready: dict[uuid.UUID, str] = {}
        failed: set[uuid.UUID] = set()
        for key in keys:
            value = self.get(key)
            if value is not None:
                ready[key] = value
            elif self.failure(key) is not None:
                failed.add(key)
        return SummaryProgress(ready=ready, failed=frozenset(failed))


def collect_summaries(
    cache: TeamActivityActor,
    requests: dict[uuid.UUID, SummaryRequest],
    *,
    attempts: int,
    delay: float,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[uuid.UUID, str]:
    """Summaries for ``requests`` that arrive within ``attempts`` polls of ``delay`` seconds.

    Missing keys are requested (the cache de-duplicates and skips recent failures), then
    the cache is polled until every key is either ready or failed, or the budget is spent.
    Whatever is still missing is simply absent from the result: the caller truncates.
    """
    if not requests:
        return {}
    keys = list(requests)
    progress = cache.progress(keys)
    ready = dict(progress.ready)
    waiting = [k for k in keys if k not in ready and k not in progress.failed]
    for key in waiting:
        cache.request(key, requests[key])
    for _ in range(attempts):
        if not waiting:
            break
        sleep(delay)
        progress = cache.progress(waiting)
        ready.update(progress.ready)
        waiting = [k for k in waiting if k not in ready and k not in progress.failed]
    return ready
