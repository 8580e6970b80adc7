"""Core's standard tests, applied to the team card: conformance, bad calls that hire or
fire nobody, stored forms, and the package's public names."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from akgentic_team_testkit import profile, register_profiles
from pydantic import BaseModel

import akgentic.tool.team as team
from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import (
    BadInputTests,
    CardStandardTests,
    PublicSurfaceTests,
    StoredFormTests,
)
from akgentic.tool.team import HireMembers, TeamTool

Tools = dict[str, Callable[..., Any]]

STORED: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "fixtures" / "stored_config.yaml").read_text()
)


class TestTeamCard(CardStandardTests):
    def make_card(self) -> ToolCard:
        return TeamTool(hire_members=HireMembers(instructions="Hire sparingly."))


class TestTeamBadInput(BadInputTests):
    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {
        "hire_members": [{"roles": []}, {"roles": ["Nope"]}, {"roles": ["Auditor"]}],
        "fire_members": [{"names": []}, {"names": ["@Nobody"]}, {"names": ["@Tester"]}],
    }

    @pytest.fixture(autouse=True)
    def _catalog(self, actor_system: ActorSystem, orchestrator: ActorAddress) -> None:
        register_profiles(
            actor_system,
            orchestrator,
            [profile("Developer"), profile("Auditor", hireable=False)],
        )

    def make_card(self) -> ToolCard:
        return TeamTool()

    def seed(self, tools: Tools) -> None:
        tools["hire_members"](roles=["Developer"])

    def read_state(self, tools: Tools) -> Any:
        return tools["team_roster"]()


class TestTeamStoredForms(StoredFormTests):
    stored_models: ClassVar[Sequence[BaseModel]] = [
        TeamTool.model_validate(entry["config"]) for entry in STORED
    ]


class TestTeamSurface(PublicSurfaceTests):
    module = team
    public_names: ClassVar[Sequence[str]] = [
        "DEFAULT_SUMMARIZER_MODEL",
        "TEAM_ACTIVITY_ACTOR_NAME",
        "TEAM_ACTIVITY_ACTOR_ROLE",
        "ActivitySummarizer",
        "AgentActivity",
        "FireMembers",
        "FireTeamMember",
        "GetRoleProfiles",
        "GetTeamActivity",
        "GetTeamRoster",
        "HireMembers",
        "HireTeamMember",
        "MemberActivity",
        "SummarizePayload",
        "SummarizerWorker",
        "TeamActivityActor",
        "TeamActivityReport",
        "TeamManagementToolObserver",
        "TeamTool",
        "register_summarizer_model",
        "unregister_summarizer_model",
    ]
    aliases: ClassVar[Mapping[str, object]] = {
        "akgentic.tool.team.observer:TeamManagementToolObserver": team.TeamManagementToolObserver,
    }
