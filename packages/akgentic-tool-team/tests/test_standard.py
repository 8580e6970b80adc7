"""Core's standard tests, applied to the team card: conformance, bad calls that hire or
fire nobody, stored forms, and the package's public names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from akgentic_team_testkit import profile, register_profiles

import akgentic.tool.team as team
from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import (
    BadInputTests,
    CardStandardTests,
    PublicSurfaceTests,
    StoredFormTests,
    Tools,
)
from akgentic.tool.team import HireMembers, TeamTool

FIXTURES = Path(__file__).parent / "fixtures"
STORED = StoredFormTests.stored_entries(__file__, yaml.safe_load)


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
    stored_models = StoredFormTests.models_of(STORED, [TeamTool])


class TestTeamSurface(PublicSurfaceTests):
    module = team
    public_names = PublicSurfaceTests.names_listed_in(FIXTURES / "public_names.txt")
    aliases: ClassVar[Mapping[str, object]] = {
        "akgentic.tool.team.observer:TeamManagementToolObserver": team.TeamManagementToolObserver,
    }
