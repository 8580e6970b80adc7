"""Stored TeamTool configurations of akgentic-tool 1.6.4 load and work.

Each entry of ``fixtures/stored_config.yaml`` is validated (its round trip is a standard
test, in test_standard.py), then bound through ``ToolFactory`` to an agent of a real team, and its callables are used.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from akgentic_team_testkit import profile, register_profiles

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import StoredFormTests, ToolTestAgent
from akgentic.tool.team import (
    ActivitySummarizer,
    AgentActivity,
    FireMembers,
    FireTeamMember,
    GetTeamActivity,
    HireMembers,
    HireTeamMember,
    MemberActivity,
    TeamActivityReport,
    TeamTool,
)

ENTRIES = StoredFormTests.stored_entries(__file__, yaml.safe_load)


@pytest.mark.parametrize("entry", ENTRIES, ids=[str(i) for i in range(len(ENTRIES))])
def test_stored_config_loads_round_trips_and_works(
    entry: dict[str, Any],
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
) -> None:
    assert entry["card"] == "TeamTool"
    # Round trips are a standard test (test_standard.py); here the loaded card works.
    again = TeamTool.model_validate(entry["config"])

    register_profiles(actor_system, orchestrator, [profile("Developer")])
    factory = ToolFactory([again], observer=tool_agent)
    callables = {fn.__name__: fn for fn in factory.get_tools()}
    callables.update({fn.__name__: fn for fn in factory.get_system_prompts()})
    for name in factory.commands.names():
        callables.setdefault(name, factory.commands.get(name))
    assert callables, "every stored entry offers something"
    for name, fn in callables.items():
        if name in ("team_roster", "role_profiles"):
            assert fn().startswith("## ")
        elif name == "team_activity":
            assert isinstance(fn(), TeamActivityReport)
        elif name == "hire_member":
            assert fn("Developer").role == "Developer"


def test_field_values_of_the_predecessor_apply() -> None:
    card = TeamTool.model_validate(
        {"hire_team_members": False, "fire_team_members": {"instructions": "Rarely."}}
    )
    assert card.hire_team_members is False
    assert isinstance(card.fire_team_members, FireTeamMember)
    assert card.get_role_profiles is True
    dumped = card.model_dump()
    assert dumped["hire_team_members"] is False
    assert "hire_members" not in dumped


def test_earlier_names_of_this_package_still_load() -> None:
    """`hire_members` / `fire_members` (this package's first field names) are input aliases."""
    card = TeamTool.model_validate({"hire_members": False, "fire_members": {}})
    assert card.hire_team_members is False
    assert isinstance(card.fire_team_members, FireTeamMember)
    assert TeamTool(hire_members=False).hire_team_members is False
    assert HireMembers is HireTeamMember
    assert FireMembers is FireTeamMember


def test_report_and_summarizer_defaults_of_the_predecessor() -> None:
    assert AgentActivity is MemberActivity
    row = AgentActivity.model_validate(
        {
            "name": "@Ann",
            "role": "Developer",
            "task": "Fix the build",
            "summarized": False,
            "started_at": "2025-01-01T00:00:00Z",
        }
    )
    assert row.suspect is False
    report = TeamActivityReport.model_validate(
        {"generated_at": "2025-01-01T00:00:00Z", "members": [row.model_dump()]}
    )
    assert report.pending_summaries == 0
    assert ActivitySummarizer().model == "openai:gpt-5.2-mini"
    assert GetTeamActivity.model_validate({"summarizer": {}}).summarizer == ActivitySummarizer()
