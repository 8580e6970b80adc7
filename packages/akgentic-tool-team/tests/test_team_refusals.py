"""Every refusal and failure of hiring and firing, as the model reads it, on a real team.

The model can only act on what the error says: which requests were wrong, which roles and
names it may use, who it may fire and what already happened. So each case compares the
whole answer, every fault and list included; a failure the model cannot see (the traceback)
is checked in the warning an operator gets.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from akgentic_team_testkit import (
    GatedUserProxy,
    profile,
    register_profiles,
    spawn,
    team_names,
    tools_by_name,
)

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_card import AgentCard
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent, spawn_tool_agent
from akgentic.tool.errors import RetriableError
from akgentic.tool.team import HireTeamMember, TeamTool

TEAM_LOGGER = "akgentic.tool.team.team"


def refusal(fn: Any, *args: Any) -> str:
    with pytest.raises(RetriableError) as info:
        fn(*args)
    return str(info.value)


def tools_of(agent: ToolTestAgent, card: TeamTool | None = None) -> dict[str, Any]:
    return tools_by_name(ToolFactory([card or TeamTool()], observer=agent).get_tools())


def unstartable(role: str, agent_class: str) -> AgentCard:
    return AgentCard(
        agent_class=agent_class,
        description="Cannot start.",
        config=BaseConfig(role=role),
        can_be_hired=True,
    )


# -- hiring: what was asked -------------------------------------------------------------------


def test_every_fault_of_a_hire_is_listed_with_the_roles_and_names_left(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    register_profiles(
        actor_system,
        orchestrator,
        [
            profile("Odd", name="#Odd"),  # a profile whose own member name is unusable
            profile("Developer", name="@Developer"),
            profile("Auditor", hireable=False),
        ],
    )
    spawn(actor_system, orchestrator, "@Ann")
    spawn(actor_system, orchestrator, "#SomeToolActor", role="Tool")
    before = team_names(actor_system, orchestrator)
    message = refusal(tools_of(tool_agent)["hire_members"], ["Odd", "Astronaut", "Auditor"])
    assert message == (
        "the 'Odd' profile's member name cannot be used: the name '#Odd' starts with '#', "
        "which marks the team's tool actors; choose a name without it (for example '@Name'); "
        "no profile has the role 'Astronaut'; "
        "the 'Auditor' profile is not open for hiring. "
        "Roles you can hire: Developer, Odd. "
        "Names in use: @Ann, @Tester. Nobody was hired."
    )
    assert tool_agent.hired == []
    assert team_names(actor_system, orchestrator) == before


def test_a_refusal_says_none_when_nothing_can_be_hired_and_no_name_is_visible(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    # A tool actor carrying the card, alone on a team with an empty catalog.
    planner = spawn_tool_agent(actor_system, orchestrator, "#Planner", role="ToolActor")
    message = refusal(tools_of(planner)["hire_members"], ["Developer"])
    assert message == (
        "no profile has the role 'Developer'. Roles you can hire: none. "
        "Names in use: none. Nobody was hired."
    )


def test_an_empty_name_is_refused_by_the_command(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    register_profiles(actor_system, orchestrator, [profile("Developer")])
    commands = ToolFactory([TeamTool()], observer=tool_agent).commands
    message = refusal(commands.call, "hire_member", "Developer", "  ")
    assert message == (
        "a member name cannot be empty. Roles you can hire: Developer. "
        "Names in use: @Tester. Nobody was hired."
    )


def test_malformed_and_oversized_hire_calls(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    register_profiles(actor_system, orchestrator, [profile("Developer")])
    hire = tools_of(tool_agent)["hire_members"]
    assert refusal(hire, "Developer") == "roles must be a list of role names, got str"
    assert refusal(hire, []) == "give at least one role to hire"
    assert refusal(hire, ["Developer"] * 11) == (
        "roles lists 11 members, but one call hires at most 10; hire in smaller batches, "
        "and only the members the work needs. Nobody was hired."
    )
    assert tool_agent.hired == []


def test_a_team_already_past_its_cap_has_room_for_nobody(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    register_profiles(actor_system, orchestrator, [profile("Developer")])
    spawn(actor_system, orchestrator, "@Ann")
    spawn(actor_system, orchestrator, "@Bob")
    card = TeamTool(hire_team_members=HireTeamMember(max_team_size=2))
    message = refusal(tools_of(tool_agent, card)["hire_members"], ["Developer"])
    assert message == (
        "the team has 3 members and holds at most 2; hiring 1 more is refused (room for 0). "
        "Fire members you no longer need (fire_members) or give work to the ones you have. "
        "Nobody was hired."
    )


# -- hiring: what happened before a member failed to start ------------------------------------


def test_a_profile_that_cannot_be_loaded_reports_who_was_already_hired(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    register_profiles(
        actor_system,
        orchestrator,
        [profile("Developer"), profile("Reviewer"), unstartable("Ghost", "no_such.Ghost")],
    )
    hire = tools_of(tool_agent)["hire_members"]
    first = refusal(hire, ["Developer", "Reviewer", "Ghost"])
    assert first.startswith("the 'Ghost' profile cannot be started (")
    assert first.endswith(
        "); hire another role. "
        "Already hired in this call: @Developer (Developer), @Reviewer (Reviewer)"
    )
    assert refusal(hire, ["Ghost"]).endswith("Already hired in this call: none")
    assert [m.name for m in tool_agent.hired] == ["@Developer", "@Reviewer"]


def test_an_agent_that_fails_to_start_is_reported_and_logged(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken = unstartable("Broken", "akgentic_team_testkit.BrokenAgent")
    register_profiles(
        actor_system, orchestrator, [profile("Developer"), profile("Reviewer"), broken]
    )
    hire = tools_of(tool_agent)["hire_members"]
    with caplog.at_level(logging.WARNING, logger=TEAM_LOGGER):
        message = refusal(hire, ["Developer", "Reviewer", "Broken"])
    assert message == (
        "hiring @Broken (Broken) failed: RuntimeError: cannot start: missing credentials. "
        "Already hired in this call: @Developer (Developer), @Reviewer (Reviewer)"
    )
    (record,) = [r for r in caplog.records if r.name == TEAM_LOGGER]
    assert record.levelno == logging.WARNING
    # The log names the member and its role; its wording is free.
    assert "@Broken (Broken)" in record.getMessage()
    assert "fail" in record.getMessage()
    assert record.exc_info is not None  # the operator gets the traceback
    assert record.exc_info[0] is RuntimeError
    assert refusal(hire, ["Broken"]).endswith("Already hired in this call: none")


# -- firing -----------------------------------------------------------------------------------


def test_every_fault_of_a_fire_is_listed_with_who_can_be_fired(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    spawn(actor_system, orchestrator, "@Bob")
    spawn(actor_system, orchestrator, "@Ann")
    spawn(actor_system, orchestrator, "@Human", role="Human", agent_class=GatedUserProxy)
    fire = tools_of(tool_agent)["fire_members"]
    message = refusal(fire, ["@Tester", "@Nobody", "@Human"])
    assert message == (
        "you cannot fire yourself; no team member is named '@Nobody'; "
        "'@Human' is a human participant and cannot be fired. "
        "Members you can fire: @Ann, @Bob."
    )
    assert refusal(fire, "@Ann") == "names must be a list of member names, got str"
    assert refusal(fire, []) == "give at least one member name to fire"
    assert tool_agent.fired == []
    assert {"@Ann", "@Bob"} <= set(team_names(actor_system, orchestrator))


class PicksyBoss(ToolTestAgent):
    """Fires anyone but @Cat: its hook refuses that one."""

    def on_fire(self, member: ActorAddress) -> None:
        if member.name == "@Cat":
            raise PermissionError("@Cat is tenured")
        self.fired.append(member)


def test_a_failing_fire_hook_reports_who_was_already_fired_and_is_logged(
    actor_system: ActorSystem, orchestrator: ActorAddress, caplog: pytest.LogCaptureFixture
) -> None:
    boss = spawn_tool_agent(actor_system, orchestrator, "@Boss", agent_class=PicksyBoss)
    ann, bob = (spawn(actor_system, orchestrator, n).myAddress for n in ("@Ann", "@Bob"))
    spawn(actor_system, orchestrator, "@Cat")
    fire = tools_of(boss)["fire_members"]
    with caplog.at_level(logging.WARNING, logger=TEAM_LOGGER):
        message = refusal(fire, ["@Ann", "@Bob", "@Cat"])
    assert message == (
        "firing @Cat failed: PermissionError: @Cat is tenured. "
        "Already fired in this call: @Ann, @Bob"
    )
    (record,) = [r for r in caplog.records if r.name == TEAM_LOGGER]
    assert record.levelno == logging.WARNING
    assert "@Cat" in record.getMessage()
    assert "fail" in record.getMessage()
    assert record.exc_info is not None
    assert record.exc_info[0] is PermissionError
    assert boss.fired == [ann, bob]
    assert refusal(fire, ["@Cat"]) == (
        "firing @Cat failed: PermissionError: @Cat is tenured. Already fired in this call: none"
    )
    assert "@Cat" in team_names(actor_system, orchestrator)
