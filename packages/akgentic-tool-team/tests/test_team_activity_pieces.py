"""The steps of team_activity, one by one and through the tool, on a real team.

build_snapshot (who is busy), apply_truncations (cut task text), apply_summaries (summaries
within a SummaryBudget), SummarizePayload and the one-argument SummarizerWorker.produce.
"""

from __future__ import annotations

import inspect
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from akgentic_team_testkit import Gates, spawn
from pydantic import ValidationError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.messages.orchestrator import ReceivedMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.deferred import DeferredPayload
from akgentic.tool.core.testing import ToolTestAgent, card_callables, eventually
from akgentic.tool.team import ActivitySummarizer, GetTeamActivity, TeamActivityReport, TeamTool
from akgentic.tool.team.activity import (
    SUMMARY_INSTRUCTION,
    TEAM_ACTIVITY_ACTOR_NAME,
    UNRESOLVED_TASK,
    ActivitySnapshot,
    AgentActivity,
    MemberRow,
    SummarizePayload,
    SummarizerWorker,
    SummaryBudget,
    TeamActivityActor,
    apply_summaries,
    apply_truncations,
    build_snapshot,
    register_summarizer_model,
    unregister_summarizer_model,
)

LONG = "Reconcile the quarterly ledger with the bank exports " + "and flag every mismatch " * 20
SHORT = "Reply to the auditor"
STARTED = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class Summarizer:
    """A FunctionModel body: records prompts and instructions; answers, fails or stalls."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.instructions: list[str | None] = []
        self.mode = "answer"
        self.release = threading.Event()

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = "".join(
            str(part.content) for part in messages[-1].parts if part.part_kind == "user-prompt"
        )
        self.prompts.append(prompt)
        self.instructions.append(info.instructions)
        if self.mode == "fail":
            raise RuntimeError("summarizer down")
        if self.mode == "stall":
            self.release.wait(5)
        return ModelResponse(parts=[TextPart(f"Summary {len(self.prompts)}: ledger work.")])


@pytest.fixture
def summarizer() -> Iterator[Summarizer]:
    model = Summarizer()
    register_summarizer_model("pieces", FunctionModel(model.respond))
    try:
        yield model
    finally:
        model.release.set()
        unregister_summarizer_model("pieces")


def budget(attempts: int = 60, delay: float = 0.05, max_chars: int = 40) -> SummaryBudget:
    return SummaryBudget(
        model="pieces", max_chars=max_chars, poll_attempts=attempts, poll_delay_seconds=delay
    )


def row(name: str, message_id: uuid.UUID | None = None, *, suspect: bool = False) -> MemberRow:
    return MemberRow(
        agent_id=uuid.uuid4(),
        name=name,
        role="Accountant",
        message_id=message_id or uuid.uuid4(),
        started_at=STARTED,
        suspect=suspect,
    )


def summary_cache(system: ActorSystem, orchestrator: ActorAddress) -> TeamActivityActor:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(
        TeamActivityActor, BaseConfig(name=TEAM_ACTIVITY_ACTOR_NAME, role="ToolActor")
    )
    cache: TeamActivityActor = system.proxy_ask(address, TeamActivityActor)
    return cache


def three_rows() -> tuple[list[MemberRow], dict[uuid.UUID, str]]:
    """A long task, a short one, and one whose text was never found."""
    ann, bob, cat = row("@Ann"), row("@Bob", suspect=True), row("@Cat")
    return [ann, bob, cat], {ann.message_id: LONG, bob.message_id: SHORT}


# -- values and models ------------------------------------------------------------------------


def test_predecessor_values() -> None:
    assert UNRESOLVED_TASK == "<task text unavailable>"
    assert SUMMARY_INSTRUCTION == (
        "Summarize what the following task asks for, in at most {max_chars} characters. "
        "Answer with the summary only: no preamble, no quotes, no trailing commentary."
    )


def test_summary_budget_comes_from_the_params() -> None:
    params = GetTeamActivity(
        max_task_chars=120,
        summarizer=ActivitySummarizer(model="pieces", poll_attempts=3, poll_delay_seconds=0.1),
    )
    assert SummaryBudget.from_params(params) == SummaryBudget(
        model="pieces", max_chars=120, poll_attempts=3, poll_delay_seconds=0.1
    )
    with pytest.raises(ValueError) as info:
        SummaryBudget.from_params(GetTeamActivity())
    assert str(info.value) == "GetTeamActivity has no summarizer: there is no summary budget"
    with pytest.raises(ValidationError):
        SummaryBudget(model="pieces", max_chars=0, poll_attempts=1, poll_delay_seconds=0)


def test_summarize_payload_is_a_deferred_payload_keyed_by_message() -> None:
    key = uuid.uuid4()
    payload = SummarizePayload(deferred_key=key, text=LONG, model="pieces", max_chars=50)
    assert isinstance(payload, DeferredPayload)
    again = SummarizePayload.model_validate(payload.model_dump())
    assert again == payload
    assert again.deferred_key == key
    with pytest.raises(ValidationError):
        SummarizePayload(text=LONG, model="pieces", max_chars=50)  # type: ignore[call-arg]


def test_produce_takes_the_payload_alone() -> None:
    assert list(inspect.signature(SummarizerWorker.produce).parameters) == ["self", "payload"]


# -- apply_truncations ----------------------------------------------------------------------


def test_apply_truncations_cuts_each_task_and_marks_unresolved_ones() -> None:
    rows, texts = three_rows()
    members = apply_truncations(rows, texts, 30)
    assert [type(m) for m in members] == [AgentActivity] * 3
    assert [(m.name, m.role, m.started_at) for m in members] == [
        (r.name, "Accountant", STARTED) for r in rows
    ]
    ann, bob, cat = members
    assert len(ann.task) == 30
    assert ann.task.endswith("…")
    assert LONG.startswith(ann.task[:-1])
    assert (bob.task, bob.suspect) == (SHORT, True)
    assert cat.task == UNRESOLVED_TASK
    assert not any(m.summarized for m in members)
    assert apply_truncations([], {}, 10) == []


# -- apply_summaries --------------------------------------------------------------------------


def test_apply_summaries_without_threshold_or_cache_only_truncates(
    actor_system: ActorSystem, orchestrator: ActorAddress, summarizer: Summarizer
) -> None:
    rows, texts = three_rows()
    cache = summary_cache(actor_system, orchestrator)
    expected = apply_truncations(rows, texts, 40)
    assert apply_summaries(rows, texts, None, budget(), cache) == (expected, 0)
    assert apply_summaries(rows, texts, 10, budget(), None) == (expected, 0)
    time.sleep(0.1)
    assert summarizer.prompts == []
    with pytest.raises(ValueError, match="summarize_over"):
        apply_summaries(rows, texts, -1, budget(), cache)
    with pytest.raises(ValueError, match="summarize_over"):
        apply_summaries(rows, texts, -1, budget(), None)


def test_apply_summaries_summarizes_only_longer_tasks_and_caches_them(
    actor_system: ActorSystem, orchestrator: ActorAddress, summarizer: Summarizer
) -> None:
    rows, texts = three_rows()
    cache = summary_cache(actor_system, orchestrator)
    members, pending = apply_summaries(rows, texts, 0, budget(), cache)
    ann, bob, cat = members
    assert pending == 0
    # Short tasks are summarized too above a threshold of 0; the unresolved one never is.
    assert ann.summarized is True
    assert bob.summarized is True
    # The two summaries are written concurrently, so either may be the model's first answer.
    assert {ann.task, bob.task} == {"Summary 1: ledger work.", "Summary 2: ledger work."}
    assert (cat.task, cat.summarized) == (UNRESOLVED_TASK, False)
    assert sorted(summarizer.prompts) == sorted([LONG, SHORT])
    assert summarizer.instructions[0] == SUMMARY_INSTRUCTION.format(max_chars=40)
    assert cache.get(rows[0].message_id) == ann.task

    # Over 100 characters only the long task qualifies, and its summary is already cached.
    members, pending = apply_summaries(rows, texts, 100, budget(), cache)
    assert [m.summarized for m in members] == [True, False, False]
    assert members[1].task == SHORT
    assert len(summarizer.prompts) == 2


def test_summaries_still_being_written_are_counted_as_pending(
    actor_system: ActorSystem, orchestrator: ActorAddress, summarizer: Summarizer
) -> None:
    rows, texts = three_rows()
    cache = summary_cache(actor_system, orchestrator)
    summarizer.mode = "stall"
    members, pending = apply_summaries(rows, texts, 100, budget(attempts=2), cache)
    assert pending == 1
    assert members == apply_truncations(rows, texts, 40)
    summarizer.release.set()
    members, pending = eventually(
        lambda: next(
            (r for r in [apply_summaries(rows, texts, 100, budget(), cache)] if r[1] == 0), None
        )
    )
    assert members[0].summarized is True
    assert len(summarizer.prompts) == 1


def test_a_failed_summary_is_truncated_and_not_pending(
    actor_system: ActorSystem, orchestrator: ActorAddress, summarizer: Summarizer
) -> None:
    rows, texts = three_rows()
    cache = summary_cache(actor_system, orchestrator)
    summarizer.mode = "fail"
    members, pending = apply_summaries(rows, texts, 100, budget(), cache)
    assert (members, pending) == (apply_truncations(rows, texts, 40), 0)
    assert cache.failure(rows[0].message_id) is not None


def test_summaries_already_cached_or_failed_are_not_waited_for(
    actor_system: ActorSystem, orchestrator: ActorAddress, summarizer: Summarizer
) -> None:
    rows, texts = three_rows()
    cache = summary_cache(actor_system, orchestrator)
    apply_summaries(rows[:1], texts, 0, budget(), cache)  # @Ann's summary is now cached
    summarizer.mode = "fail"
    apply_summaries(rows[1:2], texts, 0, budget(), cache)  # @Bob's failed
    assert cache.failure(rows[1].message_id) is not None
    pauses: list[float] = []
    members, pending = apply_summaries(rows, texts, 0, budget(), cache, sleep=pauses.append)
    assert [(m.summarized, pending) for m in members] == [(True, 0), (False, 0), (False, 0)]
    assert pauses == []  # nothing left to wait for: no poll delay at all
    assert len(summarizer.prompts) == 2  # neither was asked of the model again


def summarized_once(
    system: ActorSystem, orchestrator: ActorAddress, model: str
) -> tuple[bool, str]:
    """Whether a new long task got a summary from ``model``, and the task shown."""
    ann = row("@Ann")
    limits = SummaryBudget(model=model, max_chars=100, poll_attempts=60, poll_delay_seconds=0.05)
    cache = summary_cache(system, orchestrator)
    ((member,), _) = apply_summaries([ann], {ann.message_id: LONG}, 0, limits, cache)
    return member.summarized, member.task


def test_a_registered_factory_builds_a_model_per_summary(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    built: list[FunctionModel] = []
    answer = Summarizer()

    def factory() -> FunctionModel:
        built.append(FunctionModel(answer.respond))
        return built[-1]

    register_summarizer_model("built", factory)
    try:
        assert summarized_once(actor_system, orchestrator, "built") == (
            True,
            "Summary 1: ledger work.",
        )
        assert summarized_once(actor_system, orchestrator, "built")[0] is True
        assert len(built) == 2
    finally:
        unregister_summarizer_model("built")


def test_an_unregistered_name_is_a_pydantic_ai_model_string(
    actor_system: ActorSystem, orchestrator: ActorAddress, summarizer: Summarizer
) -> None:
    # "test" is pydantic-ai's own offline model; no name of ours shadows it.
    assert summarized_once(actor_system, orchestrator, "test") == (
        True,
        "success (no tool calls)",
    )
    unregister_summarizer_model("pieces")
    unregister_summarizer_model("pieces")  # forgetting an unknown name is no error
    summarized, task = summarized_once(actor_system, orchestrator, "pieces")
    assert summarized is False  # "pieces" is no model string: the summary fails
    assert task.endswith("…")
    assert summarizer.prompts == []


class DirectCache(TeamActivityActor):
    """#TeamActivity plus a way to start a worker and TELL it its payload."""

    def spawn_direct(self, payload: SummarizePayload) -> None:
        self._in_flight.add(payload.deferred_key)
        worker = self.createActor(
            SummarizerWorker, config=BaseConfig(name="#defer-direct", role="ToolActor")
        )
        worker.tell(payload)


def test_a_worker_told_a_summarize_payload_reports_to_its_cache(
    actor_system: ActorSystem, orchestrator: ActorAddress, summarizer: Summarizer
) -> None:
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(DirectCache, BaseConfig(name="#DirectCache"))
    cache = actor_system.proxy_ask(address, DirectCache)
    key = uuid.uuid4()
    cache.spawn_direct(SummarizePayload(deferred_key=key, text=LONG, model="pieces", max_chars=12))
    assert eventually(lambda: cache.get(key)) == "Summary 1:…"
    assert summarizer.prompts == [LONG]


# -- build_snapshot and the tool, on a real team ---------------------------------------------


def replay_open_message(system: ActorSystem, orchestrator: ActorAddress, member: Any) -> uuid.UUID:
    """A handler start with no SentMessage behind it, as a resumed team can replay."""
    msg = ReceivedMessage(message_id=uuid.uuid4())
    msg.init(member.myAddress, member.myAddress.team_id)
    msg.timestamp = datetime.now(UTC) - timedelta(seconds=5)
    system.proxy_ask(orchestrator, Orchestrator).restore_message(msg)
    return msg.message_id


def test_build_snapshot_reads_the_team_from_the_orchestrator(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, gates: Gates
) -> None:
    ann = spawn(actor_system, orchestrator, "@Ann", role="Accountant")
    bob = spawn(actor_system, orchestrator, "@Bob")
    gates.hold(tool_agent, ann.myAddress, "  close the\n books ")
    lost = replay_open_message(actor_system, orchestrator, bob)
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)

    before = datetime.now(UTC)
    snapshot = build_snapshot(orch, tool_agent.myAddress.agent_id, 300.0)
    assert isinstance(snapshot, ActivitySnapshot)
    assert before <= snapshot.generated_at <= datetime.now(UTC)
    by_name = {r.name: r for r in snapshot.rows}
    assert set(by_name) == {"@Ann", "@Bob"}
    assert by_name["@Ann"].agent_id == ann.myAddress.agent_id
    assert by_name["@Ann"].role == "Accountant"
    assert snapshot.texts[by_name["@Ann"].message_id] == "close the books"
    assert by_name["@Bob"].message_id == lost
    assert lost not in snapshot.texts

    # The caller is left out by agent_id; stale entries by age.
    assert [r.name for r in build_snapshot(orch, ann.myAddress.agent_id, 300.0).rows] == ["@Bob"]
    assert [r.name for r in build_snapshot(orch, None, 1.0).rows] == ["@Ann"]


def test_the_tool_reports_unresolved_tasks_with_the_predecessor_text(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, gates: Gates
) -> None:
    ann = spawn(actor_system, orchestrator, "@Ann")
    bob = spawn(actor_system, orchestrator, "@Bob")
    gates.hold(tool_agent, ann.myAddress, "x" * 300)
    replay_open_message(actor_system, orchestrator, bob)
    tool = card_callables(ToolFactory([TeamTool()], observer=tool_agent))["team_activity"]
    report: TeamActivityReport = tool()
    tasks = {m.name: m.task for m in report.members}
    assert tasks == {"@Ann": "x" * 199 + "…", "@Bob": UNRESOLVED_TASK}
    assert report.pending_summaries == 0


def test_the_tool_reports_pending_summaries(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    gates: Gates,
    summarizer: Summarizer,
) -> None:
    ann = spawn(actor_system, orchestrator, "@Ann")
    gates.hold(tool_agent, ann.myAddress, LONG)
    summarizer.mode = "stall"
    card = TeamTool(
        get_team_activity=GetTeamActivity(
            summarizer=ActivitySummarizer(model="pieces", poll_attempts=2, poll_delay_seconds=0.05)
        )
    )
    tool = card_callables(ToolFactory([card], observer=tool_agent))["team_activity"]
    report: TeamActivityReport = tool(summarize_over=100)
    assert report.pending_summaries == 1
    assert report.members[0].summarized is False
    assert tool().pending_summaries == 0  # no summaries asked: nothing pending
    summarizer.release.set()
    done: TeamActivityReport = eventually(
        lambda: next((r for r in [tool(summarize_over=100)] if r.pending_summaries == 0), None)
    )
    assert done.members[0].task == "Summary 1: ledger work."
    assert summarizer.instructions[0] == SUMMARY_INSTRUCTION.format(max_chars=200)
