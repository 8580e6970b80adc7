"""team_activity with an ActivitySummarizer: #TeamActivity, FunctionModel, failure paths."""

from __future__ import annotations

import inspect
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from akgentic_team_testkit import AskActivity, Gates, caller_class, spawn, team_names
from pydantic_ai import Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.messages.orchestrator import StartMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent, eventually
from akgentic.tool.team import (
    TEAM_ACTIVITY_ACTOR_ROLE,
    ActivitySummarizer,
    GetTeamActivity,
    SummarizerWorker,
    TeamActivityActor,
    TeamActivityReport,
    TeamTool,
    register_summarizer_model,
    unregister_summarizer_model,
)
from akgentic.tool.team import team as team_module

LONG = "Migrate the payments service to the new ledger API, " + "then backfill history " * 30
SHORT = "Answer the support ticket"


class SummarizerStub:
    """A FunctionModel body that records calls and answers, fails, or stalls on demand."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.settings: list[Any] = []
        self.mode = "answer"
        self.release = threading.Event()

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = "".join(
            str(part.content) for part in messages[-1].parts if part.part_kind == "user-prompt"
        )
        self.calls.append(prompt)
        self.settings.append(info.model_settings)
        if self.mode == "fail":
            raise RuntimeError("summarizer model is down")
        if self.mode == "stall":
            self.release.wait(5)
        if self.mode == "empty":
            return ModelResponse(parts=[TextPart("   ")])
        return ModelResponse(parts=[TextPart(f"Summary #{len(self.calls)}: migrating payments.")])


@pytest.fixture
def model() -> Iterator[SummarizerStub]:
    scripted = SummarizerStub()
    register_summarizer_model("scripted", FunctionModel(scripted.respond))
    try:
        yield scripted
    finally:
        scripted.release.set()
        unregister_summarizer_model("scripted")


def summarized_card(attempts: int = 60, delay: float = 0.05, max_chars: int = 200) -> TeamTool:
    return TeamTool(
        get_team_activity=GetTeamActivity(
            max_task_chars=max_chars,
            summarizer=ActivitySummarizer(
                model="scripted", poll_attempts=attempts, poll_delay_seconds=delay
            ),
        )
    )


def activity(agent: ToolTestAgent, card: TeamTool) -> Any:
    return {t.__name__: t for t in ToolFactory([card], observer=agent).get_tools()}["team_activity"]


def busy_pair(
    system: ActorSystem, orchestrator: ActorAddress, driver: ToolTestAgent, gates: Gates
) -> None:
    ann = spawn(system, orchestrator, "@Ann", role="Developer")
    bob = spawn(system, orchestrator, "@Bob", role="Support")
    gates.hold(driver, ann.myAddress, LONG)
    gates.hold(driver, bob.myAddress, SHORT)


def test_summarizer_creates_the_actor_and_adds_summarize_over(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, model: Any
) -> None:
    tool = activity(tool_agent, summarized_card())
    assert tool.__name__ == "team_activity"
    assert list(inspect.signature(tool).parameters) == ["summarize_over"]
    assert inspect.signature(tool).parameters["summarize_over"].default is None
    schema = Tool(tool).tool_def.parameters_json_schema
    assert set(schema["properties"]) == {"summarize_over"}
    cache = actor_system.proxy_ask(orchestrator, Orchestrator).get_team_member("#TeamActivity")
    assert cache is not None
    assert cache.role == TEAM_ACTIVITY_ACTOR_ROLE == "ToolActor"  # as tool actors carry


def test_summarize_over_none_makes_no_model_call_and_zero_summarizes_every_task(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    gates: Gates,
    model: SummarizerStub,
) -> None:
    busy_pair(actor_system, orchestrator, tool_agent, gates)
    report: TeamActivityReport = activity(tool_agent, summarized_card())()
    assert {m.name: m.summarized for m in report.members} == {"@Ann": False, "@Bob": False}
    assert next(m for m in report.members if m.name == "@Ann").task.endswith("…")
    time.sleep(0.1)
    assert model.calls == []
    report = activity(tool_agent, summarized_card())(summarize_over=0)
    assert {m.name: m.summarized for m in report.members} == {"@Ann": True, "@Bob": True}
    assert sorted(model.calls) == sorted([" ".join(LONG.split()), SHORT])


def test_only_longer_tasks_are_summarized_and_cached_by_message(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    gates: Gates,
    model: SummarizerStub,
) -> None:
    from akgentic.tool.core.testing import spawn_tool_agent

    busy_pair(actor_system, orchestrator, tool_agent, gates)
    caller = spawn_tool_agent(actor_system, orchestrator, "@Lead", agent_class=caller_class())
    caller.activity = activity(caller, summarized_card())
    caller.send(caller.myAddress, AskActivity(summarize_over=100))
    report: TeamActivityReport = eventually(lambda: caller.reports and caller.reports[0])
    rows = {m.name: m for m in report.members}
    assert rows["@Ann"].summarized is True
    assert rows["@Ann"].task == "Summary #1: migrating payments."
    assert rows["@Bob"].summarized is False
    assert rows["@Bob"].task == SHORT
    assert len(model.calls) == 1
    assert model.calls[0].startswith("Migrate the payments service")
    # The worker handed its timeout to the model client.
    assert model.settings[0]["timeout"] == SummarizerWorker.timeout_seconds

    # A second caller (another card instance, same team) gets the cached summary: no call.
    again: TeamActivityReport = activity(tool_agent, summarized_card())(summarize_over=100)
    assert {m.name: m.task for m in again.members}["@Ann"] == "Summary #1: migrating payments."
    assert len(model.calls) == 1

    # Workers are tool actors named "#defer-…", so teardown treats them as such.
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    started_names = [m.sender.name for m in orch.get_messages(message_type=StartMessage)]
    assert any(name.startswith("#defer-") for name in started_names)


def test_concurrent_callers_share_one_model_call(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    gates: Gates,
    model: SummarizerStub,
) -> None:
    busy_pair(actor_system, orchestrator, tool_agent, gates)
    model.mode = "stall"
    tools = [activity(tool_agent, summarized_card(attempts=40, delay=0.05)) for _ in range(3)]
    results: list[TeamActivityReport] = []
    threads = [
        threading.Thread(target=lambda t=t: results.append(t(summarize_over=100))) for t in tools
    ]
    for thread in threads:
        thread.start()
    eventually(lambda: model.calls)
    time.sleep(0.1)
    model.release.set()
    for thread in threads:
        thread.join(5)
    assert len(model.calls) == 1
    assert len(results) == 3
    assert all(next(m for m in r.members if m.name == "@Ann").summarized for r in results)


def test_model_failure_degrades_to_truncation_within_the_budget(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    gates: Gates,
    model: SummarizerStub,
) -> None:
    busy_pair(actor_system, orchestrator, tool_agent, gates)
    model.mode = "fail"
    tool = activity(tool_agent, summarized_card(attempts=4, delay=0.5))
    started = time.monotonic()
    report: TeamActivityReport = tool(summarize_over=100)
    elapsed = time.monotonic() - started
    ann = next(m for m in report.members if m.name == "@Ann")
    assert ann.summarized is False
    assert len(ann.task) == 200
    assert ann.task.endswith("…")
    # Generous on purpose (a loaded runner): without the budget the call would not end.
    assert elapsed < 4 * 0.5 + 10.0
    assert len(model.calls) == 1

    # The failure is cached: the next call neither calls the model again nor waits for a
    # summary. Asked with a 100 x 0.5 s budget it answers at once; polling would take 50 s.
    started = time.monotonic()
    report = activity(tool_agent, summarized_card(attempts=100, delay=0.5))(summarize_over=100)
    assert time.monotonic() - started < 10.0
    assert not any(m.summarized for m in report.members)
    assert report.pending_summaries == 0
    assert len(model.calls) == 1


def test_empty_summary_counts_as_a_failure(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    gates: Gates,
    model: SummarizerStub,
) -> None:
    busy_pair(actor_system, orchestrator, tool_agent, gates)
    model.mode = "empty"
    report: TeamActivityReport = activity(tool_agent, summarized_card())(summarize_over=100)
    ann = next(m for m in report.members if m.name == "@Ann")  # the roster is not empty
    assert ann.summarized is False
    assert ann.task.endswith("…")  # shown truncated, as after any failed summary
    assert len(model.calls) == 1


def test_slow_model_answers_later_without_blocking_the_caller(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    gates: Gates,
    model: SummarizerStub,
) -> None:
    busy_pair(actor_system, orchestrator, tool_agent, gates)
    model.mode = "stall"
    tool = activity(tool_agent, summarized_card(attempts=3, delay=0.2))
    started = time.monotonic()
    report: TeamActivityReport = tool(summarize_over=100)
    # The model stalls until released: only the budget can end the call.
    assert time.monotonic() - started < 3 * 0.2 + 10.0
    assert not any(m.summarized for m in report.members)
    model.release.set()
    later = eventually(
        lambda: next(
            (r for r in [tool(summarize_over=100)] if any(m.summarized for m in r.members)), None
        )
    )
    assert len(model.calls) == 1
    assert next(m for m in later.members if m.name == "@Ann").task.startswith("Summary #1")


def test_summary_is_clipped_to_the_task_budget(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    gates: Gates,
    model: SummarizerStub,
) -> None:
    busy_pair(actor_system, orchestrator, tool_agent, gates)
    report: TeamActivityReport = activity(tool_agent, summarized_card(max_chars=12))(
        summarize_over=100
    )
    ann = next(m for m in report.members if m.name == "@Ann")
    assert ann.summarized is True
    assert ann.task == "Summary #1:…"


def test_unknown_model_string_degrades(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, gates: Gates
) -> None:
    busy_pair(actor_system, orchestrator, tool_agent, gates)
    card = TeamTool(
        get_team_activity=GetTeamActivity(
            summarizer=ActivitySummarizer(model="nonexistent-provider:x", poll_delay_seconds=0.05)
        )
    )
    report: TeamActivityReport = activity(tool_agent, card)(summarize_over=100)
    assert not any(m.summarized for m in report.members)


def test_negative_summarize_over_is_retriable(
    tool_agent: ToolTestAgent, model: SummarizerStub
) -> None:
    from akgentic.tool.errors import RetriableError

    with pytest.raises(RetriableError, match="summarize_over"):
        activity(tool_agent, summarized_card())(summarize_over=-1)


def test_summary_cache_actor_is_not_listed_and_is_shared(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, model: Any
) -> None:
    activity(tool_agent, summarized_card())
    activity(tool_agent, summarized_card())
    assert team_names(actor_system, orchestrator).count("#TeamActivity") == 1


def test_command_line_can_ask_for_summaries(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    gates: Gates,
    model: SummarizerStub,
) -> None:
    busy_pair(actor_system, orchestrator, tool_agent, gates)
    commands = ToolFactory([summarized_card()], observer=tool_agent).commands
    report = commands.execute("/team_activity summarize_over=100")
    assert {m.name: m.summarized for m in report.members} == {"@Ann": True, "@Bob": False}
    plain = commands.execute("/team_activity")
    assert not any(m.summarized for m in plain.members)


def test_summary_cache_gone_degrades_to_truncation(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    gates: Gates,
    model: SummarizerStub,
) -> None:
    busy_pair(actor_system, orchestrator, tool_agent, gates)
    tool = activity(tool_agent, summarized_card())
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    cache = orch.get_team_member("#TeamActivity")
    assert cache is not None
    actor_system.proxy_ask(cache, TeamActivityActor).stop()
    eventually(lambda: "#TeamActivity" not in team_names(actor_system, orchestrator))
    report: TeamActivityReport = tool(summarize_over=100)
    assert {m.name for m in report.members} == {"@Ann", "@Bob"}
    assert not any(m.summarized for m in report.members)
    assert model.calls == []


class WedgedCache(TeamActivityActor):
    """A #TeamActivity that hangs on every progress ask until the test lets it go."""

    released = threading.Event()

    def progress(self, keys: list[Any]) -> Any:
        WedgedCache.released.wait(10)
        return super().progress(keys)


def test_a_wedged_summary_cache_costs_a_bounded_wait_then_truncation(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    gates: Gates,
    model: SummarizerStub,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The card's asks to the cache are bounded (5 s); shortened here to keep the test fast.
    monkeypatch.setattr(team_module, "_CACHE_ASK_TIMEOUT_SECONDS", 0.5)
    busy_pair(actor_system, orchestrator, tool_agent, gates)
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    orch.getChildrenOrCreate(WedgedCache, BaseConfig(name="#TeamActivity", role="ToolActor"))
    WedgedCache.released.clear()
    try:
        tool = activity(tool_agent, summarized_card())  # finds the wedged one by its name
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="akgentic.tool.team.activity"):
            report: TeamActivityReport = tool(summarize_over=100)
        # Without the bound the call would hang for the whole 10 s wedge.
        assert time.monotonic() - started < 8.0
    finally:
        WedgedCache.released.set()
    assert {m.name for m in report.members} == {"@Ann", "@Bob"}
    assert not any(m.summarized for m in report.members)
    (record,) = caplog.records
    # The warning says summaries were skipped, and why: the ask's timeout error ("0.5 seconds").
    assert "summaries unavailable" in record.getMessage()
    assert record.getMessage().endswith("0.5 seconds")
