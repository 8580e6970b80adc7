"""Team activity: who is busy right now, and on what.

The answer is derived from the orchestrator's own telemetry. Every agent reports a
``ReceivedMessage`` when a handler starts and a ``ProcessedMessage`` when it ends, and the
sender of the message reports a ``SentMessage`` carrying it, so an agent with a received
message and no matching processed one is mid-handler, working on that message's text.

A ``team_activity`` call goes through three steps, each a function of this module:

1. :func:`build_snapshot` reads the team and its telemetry from the orchestrator and
   returns an :class:`ActivitySnapshot`: one :class:`MemberRow` per busy member, and the
   full task texts keyed by message id (:func:`snapshot_from_messages` is the same
   derivation on a given history);
2. :func:`apply_truncations` turns the rows into report rows whose task text is cut to
   ``max_task_chars``; or, when the caller asked for summaries,
3. :func:`apply_summaries` does the same but replaces tasks longer than ``summarize_over``
   by model-written summaries, within a :class:`SummaryBudget`. The summaries are produced
   off-thread by :class:`SummarizerWorker`s (one :class:`SummarizePayload` each) and cached,
   by message id, in the ``#TeamActivity`` actor (:class:`TeamActivityActor`), so a repeated
   call costs nothing and a slow model never blocks the team.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
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
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.channels import COMMAND, TOOL_CALL, Channels
from akgentic.tool.core.deferred import DeferredPayload, DeferredResultActor, DeferredWorker
from akgentic.tool.core.params import BaseToolParam

__all__ = [
    "DEFAULT_SUMMARIZER_MODEL",
    "SUMMARY_INSTRUCTION",
    "TEAM_ACTIVITY_ACTOR_NAME",
    "TEAM_ACTIVITY_ACTOR_ROLE",
    "UNRESOLVED_TASK",
    "ActivitySnapshot",
    "ActivitySummarizer",
    "AgentActivity",
    "GetTeamActivity",
    "MemberActivity",
    "MemberRow",
    "SummarizePayload",
    "SummarizerWorker",
    "SummaryBudget",
    "SummaryProgress",
    "TeamActivityActor",
    "TeamActivityReport",
    "apply_summaries",
    "apply_truncations",
    "build_snapshot",
    "register_summarizer_model",
    "snapshot_from_messages",
    "truncate",
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
        description="Summaries still being written: those tasks are shown truncated; "
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

UNRESOLVED_TASK = "<task text unavailable>"
"""Task shown for a busy member whose message was not recorded as sent within the team."""


@dataclass(frozen=True)
class MemberRow:
    """One busy member as the telemetry shows it, keys included, text kept apart.

    ``agent_id`` and ``message_id`` never reach the report: the first identifies the
    member, the second is the key of its task text in :attr:`ActivitySnapshot.texts` and
    of its summary in the ``#TeamActivity`` cache.
    """

    agent_id: uuid.UUID
    name: str
    role: str
    message_id: uuid.UUID
    started_at: datetime
    suspect: bool


@dataclass(frozen=True)
class ActivitySnapshot:
    """Who was busy at ``generated_at``, oldest start first, and the text of their tasks.

    ``texts`` maps a row's ``message_id`` to its full task text (whitespace collapsed). A
    row whose message has no entry is reported with :data:`UNRESOLVED_TASK`.
    """

    generated_at: datetime
    rows: list[MemberRow]
    texts: dict[uuid.UUID, str]


def snapshot_from_messages(
    messages: Iterable[Message],
    team: Iterable[ActorAddress],
    *,
    now: datetime,
    exclude: Iterable[uuid.UUID] = (),
    stale_after_seconds: float = 300.0,
) -> ActivitySnapshot:
    """The busy members of ``team`` according to the telemetry ``messages``, at ``now``.

    A received message with no processed (or handled) counterpart is open. Open messages
    older than ``stale_after_seconds`` are ignored (unbalanced history replayed by a
    resumed team). A member with more than one open message is reported ``suspect``, with
    the most recent one as its task. Tool actors (``#`` names), user proxies and the ids in
    ``exclude`` are never reported. Rows are ordered by start time, oldest first.
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

    rows: list[MemberRow] = []
    texts: dict[uuid.UUID, str] = {}
    for agent_id, entries in open_by_agent.items():
        entries.sort()
        started, message_id = entries[-1]
        member = members[agent_id]
        rows.append(
            MemberRow(
                agent_id=agent_id,
                name=member.name,
                role=member.role,
                message_id=message_id,
                started_at=started,
                suspect=len(entries) > 1,
            )
        )
        message = sent.get(message_id)
        if message is not None:
            texts[message_id] = _task_text(message)
    rows.sort(key=lambda r: (r.started_at, r.name))
    return ActivitySnapshot(generated_at=now, rows=rows, texts=texts)


def build_snapshot(
    orchestrator_proxy: Orchestrator,
    caller_id: uuid.UUID | None,
    stale_after_seconds: float,
) -> ActivitySnapshot:
    """Read the team and its telemetry from the orchestrator and derive who is busy now.

    ``orchestrator_proxy`` is an ask proxy of the team's ``Orchestrator``; ``caller_id`` is
    the ``agent_id`` of the asking agent, which is left out of the rows (``None`` leaves
    nobody out). See :func:`snapshot_from_messages` for the rules.
    """
    team = orchestrator_proxy.get_team()
    # The orchestrator hands back its live history list: copy it at once.
    history = list(orchestrator_proxy.get_messages())
    return snapshot_from_messages(
        history,
        team,
        now=datetime.now(UTC),
        exclude=() if caller_id is None else (caller_id,),
        stale_after_seconds=stale_after_seconds,
    )


def _task_text(message: Message) -> str:
    content = getattr(message, "content", None)
    if isinstance(content, str) and content.strip():
        return " ".join(content.split())
    return f"({type(message).__name__})"


def truncate(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, marked with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + "…"


def _row_activity(row: MemberRow, task: str, *, summarized: bool) -> MemberActivity:
    return MemberActivity(
        name=row.name,
        role=row.role,
        task=task,
        summarized=summarized,
        started_at=row.started_at,
        suspect=row.suspect,
    )


def apply_truncations(
    rows: Iterable[MemberRow], texts: dict[uuid.UUID, str], max_chars: int
) -> list[MemberActivity]:
    """The report rows for ``rows``, each task cut to ``max_chars`` characters. No model call."""
    return [
        _row_activity(
            row, truncate(texts.get(row.message_id, UNRESOLVED_TASK), max_chars), summarized=False
        )
        for row in rows
    ]


# -- summaries ----------------------------------------------------------------------------------

SUMMARY_INSTRUCTION = (
    "Summarize what the following task asks for, in at most {max_chars} characters. "
    "Answer with the summary only: no preamble, no quotes, no trailing commentary."
)
"""Instructions of the summarizer model; ``{max_chars}`` is the task budget."""


class SummaryBudget(BaseModel):
    """What one ``team_activity`` call may spend on summaries: model, length, poll budget."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(min_length=1)
    max_chars: int = Field(ge=1)
    poll_attempts: int = Field(ge=1)
    poll_delay_seconds: float = Field(ge=0)

    @classmethod
    def from_params(cls, params: GetTeamActivity) -> SummaryBudget:
        """The budget a :class:`GetTeamActivity` with a summarizer allows.

        Raises ``ValueError`` when ``params`` has no summarizer: nothing may be summarized.
        """
        summarizer = params.summarizer
        if summarizer is None:
            raise ValueError("GetTeamActivity has no summarizer: there is no summary budget")
        return cls(
            model=summarizer.model,
            max_chars=params.max_task_chars,
            poll_attempts=summarizer.poll_attempts,
            poll_delay_seconds=summarizer.poll_delay_seconds,
        )


class SummarizePayload(DeferredPayload):
    """The work order of one :class:`SummarizerWorker`: the task, the model, the length.

    ``deferred_key`` is the ``message_id`` of the task, the key of its cached summary.
    """

    deferred_key: uuid.UUID
    text: str
    model: str = Field(min_length=1)
    max_chars: int = Field(ge=1)


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
    """Writes the summary of one task with the configured model, then stops.

    Started by ``#TeamActivity`` for each requested message; it can also be told a
    :class:`SummarizePayload` directly, and reports to the cache actor that started it.
    """

    @override
    def produce(self, payload: SummarizePayload) -> str:  # type: ignore[override]
        """The summary of ``payload.text``, at most ``payload.max_chars`` characters."""
        if not isinstance(payload, SummarizePayload):
            raise TypeError(
                f"SummarizerWorker needs a SummarizePayload, got {type(payload).__name__}"
            )
        agent: Agent[None, str] = Agent(
            _resolve_model(payload.model),
            instructions=SUMMARY_INSTRUCTION.format(max_chars=payload.max_chars),
        )
        # The budget goes to the model client itself: a thread cannot be cancelled.
        result = agent.run_sync(payload.text, model_settings={"timeout": self.timeout_seconds})
        summary = " ".join(result.output.split())
        if not summary:
            raise ValueError("the summarizer model returned an empty summary")
        return truncate(summary, payload.max_chars)


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


def apply_summaries(
    rows: Iterable[MemberRow],
    texts: dict[uuid.UUID, str],
    summarize_over: int | None,
    budget: SummaryBudget,
    activity_proxy: TeamActivityActor | None,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[list[MemberActivity], int]:
    """The report rows for ``rows``, with tasks longer than ``summarize_over`` summarized.

    Returns the rows and the number of summaries still being produced. Every task longer
    than ``summarize_over`` characters is requested from the ``#TeamActivity`` cache
    (``activity_proxy``, an ask proxy), which de-duplicates by message id and skips keys
    whose production failed recently; the cache is then polled at most
    ``budget.poll_attempts`` times, ``budget.poll_delay_seconds`` apart, until each is ready
    or failed. Tasks without a summary in time (not ready, failed, cache gone), shorter
    ones, and all of them when ``summarize_over`` is ``None`` or there is no cache, are
    truncated to ``budget.max_chars``, exactly as :func:`apply_truncations` does.
    """
    rows = list(rows)
    if summarize_over is not None and summarize_over < 0:
        raise ValueError(f"summarize_over must be 0 or more, got {summarize_over}")
    if summarize_over is None or activity_proxy is None:
        return apply_truncations(rows, texts, budget.max_chars), 0
    payloads = {
        row.message_id: SummarizePayload(
            deferred_key=row.message_id,
            text=texts[row.message_id],
            model=budget.model,
            max_chars=budget.max_chars,
        )
        for row in rows
        if len(texts.get(row.message_id, "")) > summarize_over
    }
    ready: dict[uuid.UUID, str] = {}
    waiting: list[uuid.UUID] = []
    if payloads:
        try:
            ready, waiting = _poll_summaries(activity_proxy, payloads, budget, sleep)
        except Exception as exc:  # the cache is gone or wedged: degrade to truncation
            logger.warning("team_activity: summaries unavailable: %s", exc)
    members = [
        _row_activity(row, ready[row.message_id], summarized=True)
        if row.message_id in ready
        else _row_activity(
            row,
            truncate(texts.get(row.message_id, UNRESOLVED_TASK), budget.max_chars),
            summarized=False,
        )
        for row in rows
    ]
    return members, len(waiting)


def _poll_summaries(
    cache: TeamActivityActor,
    payloads: dict[uuid.UUID, SummarizePayload],
    budget: SummaryBudget,
    sleep: Callable[[float], None],
) -> tuple[dict[uuid.UUID, str], list[uuid.UUID]]:
    """Summaries ready within the poll budget, and the keys still being produced."""
    keys = list(payloads)
    progress = cache.progress(keys)
    ready = dict(progress.ready)
    waiting = [k for k in keys if k not in ready and k not in progress.failed]
    for key in waiting:
        cache.request(key, payloads[key])
    for _ in range(budget.poll_attempts):
        if not waiting:
            break
        sleep(budget.poll_delay_seconds)
        progress = cache.progress(waiting)
        ready.update(progress.ready)
        waiting = [k for k in waiting if k not in ready and k not in progress.failed]
    return ready, waiting
