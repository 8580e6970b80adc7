"""team_activity without a summarizer: busy members from real telemetry, truncation only."""

from __future__ import annotations

import inspect
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from akgentic_team_testkit import (
    AskActivity,
    GatedUserProxy,
    Gates,
    caller_class,
    spawn,
    team_names,
)
from pydantic_ai import Tool

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.messages.orchestrator import ReceivedMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent, card_callables, eventually
from akgentic.tool.team import (
    GetTeamActivity,
    MemberActivity,
    TeamActivityReport,
    TeamTool,
)


def activity_tool(agent: ToolTestAgent, card: TeamTool | None = None) -> object:
    return card_callables(ToolFactory([card or TeamTool()], observer=agent))["team_activity"]


def test_default_is_truncate_only_with_no_actor_and_no_summarize_over(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    tool = activity_tool(tool_agent)
    assert list(inspect.signature(tool).parameters) == []  # type: ignore[arg-type]
    schema = Tool(tool).tool_def.parameters_json_schema  # type: ignore[arg-type]
    assert schema["properties"] == {}
    assert "summarize_over" not in str(schema)
    report = tool()  # type: ignore[operator]
    assert isinstance(report, TeamActivityReport)
    assert report.members == []
    assert not any(n.startswith("#") for n in team_names(actor_system, orchestrator))


def test_disabled_capability_is_not_exposed(tool_agent: ToolTestAgent) -> None:
    factory = ToolFactory([TeamTool(get_team_activity=False)], observer=tool_agent)
    assert "team_activity" not in [t.__name__ for t in factory.get_tools()]
    assert "team_activity" not in factory.commands.names()


def test_rows_carry_six_fields_and_no_derivation_keys() -> None:
    assert set(MemberActivity.model_fields) == {
        "name",
        "role",
        "task",
        "summarized",
        "started_at",
        "suspect",
    }
    assert set(TeamActivityReport.model_fields) == {
        "generated_at",
        "members",
        "pending_summaries",
    }


def test_members_busy_in_a_handler_are_reported_while_the_caller_is_busy_too(
    actor_system: ActorSystem, orchestrator: ActorAddress, gates: Gates
) -> None:
    from akgentic.tool.core.testing import spawn_tool_agent

    caller = spawn_tool_agent(actor_system, orchestrator, "@Lead", agent_class=caller_class())
    caller.activity = activity_tool(caller)
    ann = spawn(actor_system, orchestrator, "@Ann", role="Developer")
    bob = spawn(actor_system, orchestrator, "@Bob", role="Reviewer")
    spawn(actor_system, orchestrator, "@Idle", role="Developer")
    long_task = "Refactor the billing module " + "and its tests " * 40
    gates.hold(caller, ann.myAddress, long_task)
    release_bob = gates.hold(caller, bob.myAddress, "Review   pull request\n #42")

    before = datetime.now(UTC)
    # The caller runs team_activity from inside its own handler: it is busy, and excluded.
    caller.send(caller.myAddress, AskActivity())
    report: TeamActivityReport = eventually(lambda: caller.reports and caller.reports[0])
    rows = {m.name: m for m in report.members}
    assert set(rows) == {"@Ann", "@Bob"}
    assert rows["@Ann"].role == "Developer"
    assert len(rows["@Ann"].task) == 200
    assert rows["@Ann"].task.endswith("…")
    assert rows["@Ann"].task.startswith("Refactor the billing module and its tests")
    assert rows["@Bob"].task == "Review pull request #42"  # whitespace collapsed
    assert not any(m.summarized or m.suspect for m in report.members)
    assert rows["@Ann"].started_at <= rows["@Bob"].started_at <= before
    assert report.generated_at >= before
    assert [m.name for m in report.members] == ["@Ann", "@Bob"]  # oldest first
    dumped = report.model_dump_json()
    assert "agent_id" not in dumped
    assert "message_id" not in dumped

    release_bob.set()
    eventually(lambda: [m.name for m in activity_tool(caller)().members] == ["@Ann"])  # type: ignore[operator]


def test_max_task_chars_is_the_budget(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, gates: Gates
) -> None:
    ann = spawn(actor_system, orchestrator, "@Ann")
    bob = spawn(actor_system, orchestrator, "@Bob")
    gates.hold(tool_agent, ann.myAddress, "x" * 100)
    gates.hold(tool_agent, bob.myAddress, "y" * 10)  # exactly the budget: kept whole
    tool = activity_tool(tool_agent, TeamTool(get_team_activity=GetTeamActivity(max_task_chars=10)))
    assert {m.name: m.task for m in tool().members} == {  # type: ignore[operator]
        "@Ann": "x" * 9 + "…",
        "@Bob": "y" * 10,
    }


def test_tool_actors_and_user_proxies_are_never_listed(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, gates: Gates
) -> None:
    tool_actor = spawn(actor_system, orchestrator, "#Busy", role="Tool")
    human = spawn(actor_system, orchestrator, "@Human", role="Human", agent_class=GatedUserProxy)
    ann = spawn(actor_system, orchestrator, "@Ann")
    gates.hold(tool_agent, tool_actor.myAddress, "tool work")
    gates.hold(tool_agent, human.myAddress, "waiting for a human answer")
    gates.hold(tool_agent, ann.myAddress, "real work")
    assert [m.name for m in activity_tool(tool_agent)().members] == ["@Ann"]  # type: ignore[operator]


def test_caller_is_excluded_by_agent_id_even_if_another_member_shares_its_name(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, gates: Gates
) -> None:
    twin = spawn(actor_system, orchestrator, "@Tester")  # same name as the caller
    gates.hold(tool_agent, twin.myAddress, "twin's work")
    (row,) = activity_tool(tool_agent)().members  # type: ignore[operator]
    assert row.name == "@Tester"
    assert row.task == "twin's work"


def test_stale_open_messages_are_dropped_and_fresh_duplicates_are_suspect(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, gates: Gates
) -> None:
    ann = spawn(actor_system, orchestrator, "@Ann")
    bob = spawn(actor_system, orchestrator, "@Bob")
    gates.hold(tool_agent, ann.myAddress, "current task")
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)

    def replay_received(member: ActorAddress, age_seconds: float) -> None:
        # What a resumed team replays: a handler start whose end was never recorded.
        msg = ReceivedMessage(message_id=uuid.uuid4())
        msg.init(member, member.team_id)
        msg.timestamp = datetime.now(UTC) - timedelta(seconds=age_seconds)
        orch.restore_message(msg)

    replay_received(bob.myAddress, 301)  # older than stale_after_seconds: a phantom
    replay_received(ann.myAddress, 30)  # a second open message for a busy member
    report = activity_tool(tool_agent)()  # type: ignore[operator]
    (row,) = report.members
    assert row.name == "@Ann"
    assert row.suspect is True
    assert row.task == "current task"  # the most recent open message is the task

    strict = TeamTool(get_team_activity=GetTeamActivity(stale_after_seconds=10))
    (row,) = activity_tool(tool_agent, strict)().members  # type: ignore[operator]
    assert row.suspect is False  # the 30 s old one is now stale too


def test_command_channel_returns_the_same_report(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, gates: Gates
) -> None:
    ann = spawn(actor_system, orchestrator, "@Ann")
    gates.hold(tool_agent, ann.myAddress, "via command")
    commands = ToolFactory([TeamTool()], observer=tool_agent).commands
    report = commands.execute("/team_activity")
    assert [m.task for m in report.members] == ["via command"]


@pytest.mark.parametrize("limit", [1, 2, 5])
def test_truncate_never_exceeds_the_budget(limit: int) -> None:
    from akgentic.tool.team.activity import truncate

    assert len(truncate("abcdefghij", limit)) <= limit
    assert truncate("abc", 5) == "abc"
