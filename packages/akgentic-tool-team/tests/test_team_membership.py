"""TeamTool's roster prompt, hiring and firing, in a real team."""

from __future__ import annotations

import gc
import logging
from typing import Any

import pytest
from akgentic_team_testkit import (
    GatedUserProxy,
    WorkerAgent,
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
from akgentic.tool.core import COMMAND, SYSTEM_PROMPT, ToolFactory
from akgentic.tool.core.testing import ToolTestAgent, assert_card_conformance, eventually
from akgentic.tool.errors import CommandNotRecognized, RetriableError, ToolObserverGone
from akgentic.tool.team import (
    GetTeamRoster,
    HireMembers,
    TeamManagementToolObserver,
    TeamTool,
)


@pytest.fixture
def catalog(actor_system: ActorSystem, orchestrator: ActorAddress) -> None:
    register_profiles(
        actor_system,
        orchestrator,
        [
            profile("Developer", name="@Developer", skills=["python", "testing"]),
            profile("Reviewer"),
            profile("Auditor", hireable=False),
        ],
    )


def factory_for(agent: ToolTestAgent, card: TeamTool | None = None) -> ToolFactory:
    return ToolFactory([card or TeamTool()], observer=agent)


def test_kit_agent_satisfies_the_observer_protocol(tool_agent: ToolTestAgent) -> None:
    assert isinstance(tool_agent, TeamManagementToolObserver)
    # A plain akgentic agent has createActor but no membership hooks.
    plain = WorkerAgent.__new__(WorkerAgent)
    assert not isinstance(plain, TeamManagementToolObserver)


# -- roster -----------------------------------------------------------------------------------


def test_roster_prompt_lists_members_and_hireable_profiles(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    catalog: None,
) -> None:
    spawn(actor_system, orchestrator, "@Ann", role="Developer")
    spawn(actor_system, orchestrator, "#SomeToolActor", role="Tool")
    spawn(actor_system, orchestrator, "@Human", role="Human", agent_class=GatedUserProxy)
    roster, profiles = factory_for(tool_agent).get_system_prompts()
    assert (roster.__name__, profiles.__name__) == ("team_roster", "role_profiles")
    # Yourself once, at the top; the tool actor is left out; the human is marked.
    assert roster() == (
        "## Your team\n"
        "You are @Tester (Tester).\n"
        "Members:\n"
        "- @Ann (Developer)\n"
        "- @Human (Human, human)"
    )
    # Skills only where the profile has some; the closed Auditor profile is not offered.
    assert profiles() == (
        "## Profiles you can hire\n"
        "- Developer: Does developer work. Skills: python, testing.\n"
        "- Reviewer: Does reviewer work."
    )


def test_roster_prompt_for_an_empty_team(tool_agent: ToolTestAgent) -> None:
    roster, profiles = factory_for(tool_agent).get_system_prompts()
    assert roster() == "## Your team\nYou are @Tester (Tester).\nNo other members yet."
    assert profiles() == "## Profiles you can hire\nNone."


def test_role_profiles_can_be_switched_off(tool_agent: ToolTestAgent, catalog: None) -> None:
    factory = factory_for(tool_agent, TeamTool(get_role_profiles=False))
    assert [p.__name__ for p in factory.get_system_prompts()] == ["team_roster"]
    assert "Developer" not in factory.get_system_prompts()[0]()
    assert "role_profiles" not in factory.commands.names()


# -- hiring -----------------------------------------------------------------------------------


def test_hire_members_creates_children_and_notifies_the_agent(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, catalog: None
) -> None:
    hire = tools_by_name(factory_for(tool_agent).get_tools())["hire_members"]
    answer = hire(["Developer", "Developer", "Reviewer"])
    assert answer == (
        "Hired @Developer (Developer), @Developer-2 (Developer), @Reviewer (Reviewer)."
    )
    assert [m.name for m in tool_agent.hired] == ["@Developer", "@Developer-2", "@Reviewer"]
    assert {"@Developer", "@Developer-2", "@Reviewer"} <= set(
        team_names(actor_system, orchestrator)
    )
    # The hired members are the agent's own children, running the profile's class.
    assert {c.name for c in tool_agent._children} >= {"@Developer", "@Developer-2", "@Reviewer"}
    dev = actor_system.proxy_ask(tool_agent.hired[0], WorkerAgent).itself()
    assert isinstance(dev, WorkerAgent)
    assert dev.config.role == "Developer"


def test_hire_with_an_unknown_role_hires_nobody_and_lists_roles(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, catalog: None
) -> None:
    # A profile whose own member name is unusable, next to the catalog's.
    register_profiles(actor_system, orchestrator, [profile("Odd", name="#Odd")])
    spawn(actor_system, orchestrator, "@Ann")
    spawn(actor_system, orchestrator, "#SomeToolActor", role="Tool")
    hire = tools_by_name(factory_for(tool_agent).get_tools())["hire_members"]
    before = team_names(actor_system, orchestrator)
    with pytest.raises(RetriableError) as info:
        hire(["Developer", "Odd", "Astronaut", "Auditor"])
    # Every fault is listed, then what the model may use instead (tool actors not shown).
    assert str(info.value) == (
        "the 'Odd' profile's member name cannot be used: the name '#Odd' starts with '#', "
        "which marks the team's tool actors; choose a name without it (for example '@Name'); "
        "no profile has the role 'Astronaut'; "
        "the 'Auditor' profile is not open for hiring. "
        "Roles you can hire: Developer, Odd, Reviewer. "
        "Names in use: @Ann, @Tester. Nobody was hired."
    )
    assert tool_agent.hired == []
    assert team_names(actor_system, orchestrator) == before


def test_a_refusal_says_none_when_nothing_can_be_hired_and_no_name_is_visible(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    from akgentic.tool.core.testing import spawn_tool_agent

    # A tool actor carrying the card, alone on a team with an empty catalog.
    planner = spawn_tool_agent(actor_system, orchestrator, "#Planner", role="ToolActor")
    hire = tools_by_name(factory_for(planner).get_tools())["hire_members"]
    with pytest.raises(RetriableError) as info:
        hire(["Developer"])
    assert str(info.value) == (
        "no profile has the role 'Developer'. Roles you can hire: none. "
        "Names in use: none. Nobody was hired."
    )


def test_hire_a_profile_closed_for_hiring(tool_agent: ToolTestAgent, catalog: None) -> None:
    hire = tools_by_name(factory_for(tool_agent).get_tools())["hire_members"]
    with pytest.raises(RetriableError, match="'Auditor' profile is not open for hiring"):
        hire(["Auditor"])
    with pytest.raises(RetriableError) as info:
        hire([])
    assert str(info.value) == "give at least one role to hire"
    assert tool_agent.hired == []


def test_hire_a_profile_whose_class_cannot_be_loaded(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, catalog: None
) -> None:
    broken = AgentCard(
        agent_class="no_such_package.agents.Ghost",
        description="Cannot start.",
        config=BaseConfig(role="Ghost"),
        can_be_hired=True,
    )
    register_profiles(actor_system, orchestrator, [broken])
    hire = tools_by_name(factory_for(tool_agent).get_tools())["hire_members"]
    with pytest.raises(RetriableError) as info:
        hire(["Ghost"])
    text = str(info.value)
    assert text.startswith("the 'Ghost' profile cannot be started (")
    assert text.endswith("); hire another role. Already hired in this call: none")
    assert tool_agent.hired == []
    # The members started before it in the same call stay hired, and the answer says so.
    with pytest.raises(RetriableError) as info:
        hire(["Developer", "Reviewer", "Ghost"])
    assert str(info.value).endswith(
        "Already hired in this call: @Developer (Developer), @Reviewer (Reviewer)"
    )
    assert [m.name for m in tool_agent.hired] == ["@Developer", "@Reviewer"]


def test_hire_member_command_with_a_name(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, catalog: None
) -> None:
    commands = factory_for(tool_agent).commands
    rita = commands.execute("/hire_member Reviewer @Rita")
    assert isinstance(rita, ActorAddress)
    assert (rita.name, rita.role) == ("@Rita", "Reviewer")
    assert rita.is_alive()
    reviewer = commands.call("hire_member", "Reviewer")
    assert reviewer.name == "@Reviewer"
    with pytest.raises(RetriableError, match="the name '@Rita' is already taken"):
        commands.execute("/hire_member Developer name=@Rita")
    assert tool_agent.hired == [rita, reviewer]


# -- firing -----------------------------------------------------------------------------------


def test_fire_members_takes_them_off_the_team(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, catalog: None
) -> None:
    tools = tools_by_name(factory_for(tool_agent).get_tools())
    tools["hire_members"](["Developer", "Reviewer"])
    assert tools["fire_members"](["@Developer"]) == "Fired @Developer."
    assert [m.name for m in tool_agent.fired] == ["@Developer"]
    eventually(lambda: "@Developer" not in team_names(actor_system, orchestrator))
    assert "@Reviewer" in team_names(actor_system, orchestrator)


def test_fire_errors_fire_nobody_and_list_who_can_be_fired(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    spawn(actor_system, orchestrator, "@Bob")
    spawn(actor_system, orchestrator, "@Ann")
    spawn(actor_system, orchestrator, "@Human", role="Human", agent_class=GatedUserProxy)
    fire = tools_by_name(factory_for(tool_agent).get_tools())["fire_members"]
    with pytest.raises(RetriableError) as info:
        fire(["@Ann", "@Tester", "@Nobody", "@Human"])
    # Every fault is listed; the human proxy cannot be fired, so it is not offered.
    assert str(info.value) == (
        "you cannot fire yourself; no team member is named '@Nobody'; "
        "'@Human' is a human participant and cannot be fired. "
        "Members you can fire: @Ann, @Bob."
    )
    with pytest.raises(RetriableError) as info:
        fire([])
    assert str(info.value) == "give at least one member name to fire"
    with pytest.raises(RetriableError) as info:
        fire("@Ann")
    assert str(info.value) == "names must be a list of member names, got str"
    assert tool_agent.fired == []
    assert {"@Ann", "@Bob"} <= set(team_names(actor_system, orchestrator))


def test_tool_actors_cannot_be_fired(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    spawn(actor_system, orchestrator, "#PlanningTool", role="Tool")
    fire = tools_by_name(factory_for(tool_agent).get_tools())["fire_members"]
    with pytest.raises(RetriableError, match="no team member is named '#PlanningTool'"):
        fire(["#PlanningTool"])


def test_fire_member_command(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    spawn(actor_system, orchestrator, "@Ann")
    commands = factory_for(tool_agent).commands
    assert commands.execute("/fire_member @Ann") == "Fired @Ann."
    eventually(lambda: "@Ann" not in team_names(actor_system, orchestrator))


# -- configuration and conformance -----------------------------------------------------------


def test_channel_configuration(tool_agent: ToolTestAgent) -> None:
    card = TeamTool(
        get_team_roster=GetTeamRoster(expose={SYSTEM_PROMPT, COMMAND}, instructions="Be frugal."),
        get_role_profiles=False,
        hire_members=HireMembers(expose={COMMAND}),
        fire_members=False,
        get_team_activity=False,
    )
    factory = factory_for(tool_agent, card)
    assert factory.get_tools() == []
    assert factory.commands.names() == ["team_roster", "hire_member"]
    (prompt,) = factory.get_system_prompts()
    assert (prompt.__doc__ or "").endswith("Be frugal.")
    with pytest.raises(CommandNotRecognized):
        factory.commands.execute("/fire_member @Ann")


def test_default_surface(tool_agent: ToolTestAgent) -> None:
    factory = factory_for(tool_agent)
    assert [t.__name__ for t in factory.get_tools()] == [
        "hire_members",
        "fire_members",
        "team_activity",
    ]
    assert factory.commands.names() == [
        "team_roster",
        "role_profiles",
        "hire_member",
        "fire_member",
        "team_activity",
    ]
    assert [p.__name__ for p in factory.get_system_prompts()] == ["team_roster", "role_profiles"]


def test_card_round_trips_and_keeps_raw_errors_in(tool_agent: ToolTestAgent, catalog: None) -> None:
    bad: dict[str, Any] = {
        "hire_members": [{"roles": []}, {"roles": ["Nope"]}, {"roles": ["Auditor"]}],
        "fire_members": [{"names": []}, {"names": ["@Nobody"]}, {"names": ["@Tester"]}],
    }
    assert_card_conformance(
        TeamTool(hire_members=HireMembers(instructions="Hire sparingly.")),
        observer=tool_agent,
        bad_calls=bad,
    )


def test_agent_outside_a_team_is_refused_at_bind_time(actor_system: ActorSystem) -> None:
    from akgentic.tool.core.testing import ToolTestAgent as Kit

    lone = actor_system.proxy_ask(
        actor_system.createActor(Kit, config=BaseConfig(name="@Lone")), Kit
    ).itself()
    with pytest.raises(ValueError) as info:
        ToolFactory([TeamTool()], observer=lone)
    assert str(info.value) == (
        "TeamTool needs an agent that belongs to a team: its observer has no orchestrator"
    )


def test_tools_after_the_agent_stopped(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    from akgentic.tool.core.testing import spawn_tool_agent

    agent = spawn_tool_agent(actor_system, orchestrator, "@Short")
    tools = tools_by_name(factory_for(agent).get_tools())
    actor_system.proxy_ask(agent.myAddress, type(agent)).stop()
    eventually(lambda: "@Short" not in team_names(actor_system, orchestrator))
    del agent
    gc.collect()
    with pytest.raises(ToolObserverGone):
        tools["team_activity"]()


def test_agent_without_membership_hooks_is_refused_when_hiring_is_on(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    worker = spawn(actor_system, orchestrator, "@Plain")  # an Akgent without on_hire/on_fire
    refused = (
        "TeamTool's hiring and firing need a TeamManagementToolObserver; WorkerAgent lacks "
        "on_hire, on_fire (or disable hire_team_members and fire_team_members)"
    )
    # Either capability alone needs the hooks.
    for card in (TeamTool(), TeamTool(fire_members=False), TeamTool(hire_members=False)):
        with pytest.raises(ValueError) as info:
            ToolFactory([card], observer=worker)
        assert str(info.value) == refused
    # Read-only use needs no team-management calls.
    factory = ToolFactory([TeamTool(hire_members=False, fire_members=False)], observer=worker)
    assert [t.__name__ for t in factory.get_tools()] == ["team_activity"]


def failed_call(
    caplog: pytest.LogCaptureFixture,
    call: Any,
    arg: list[str],
    error: type[BaseException],
    failed: str,
) -> str:
    """Run a hire or fire that fails on ``error`` for ``failed``; return the model's answer.

    The operator gets one warning that names ``failed`` and carries the traceback (its
    wording is free).
    """
    caplog.clear()
    with caplog.at_level(logging.WARNING), pytest.raises(RetriableError) as info:
        call(arg)
    (record,) = [r for r in caplog.records if r.name == "akgentic.tool.team.team"]
    assert record.levelno == logging.WARNING
    assert failed in record.getMessage()
    assert "fail" in record.getMessage()
    assert record.exc_info is not None
    assert record.exc_info[0] is error
    return str(info.value)


def test_hire_whose_agent_fails_to_start_is_retriable(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken = AgentCard(
        agent_class="akgentic_team_testkit.BrokenAgent",
        description="Fails on start.",
        config=BaseConfig(role="Broken"),
        can_be_hired=True,
    )
    register_profiles(
        actor_system, orchestrator, [profile("Developer"), profile("Reviewer"), broken]
    )
    hire = tools_by_name(factory_for(tool_agent).get_tools())["hire_members"]
    broken_member = "@Broken (Broken)"  # the log names the member and its role
    answer = failed_call(
        caplog, hire, ["Developer", "Reviewer", "Broken"], RuntimeError, broken_member
    )
    assert answer == (
        "hiring @Broken (Broken) failed: RuntimeError: cannot start: missing credentials. "
        "Already hired in this call: @Developer (Developer), @Reviewer (Reviewer)"
    )
    answer = failed_call(caplog, hire, ["Broken"], RuntimeError, broken_member)
    assert answer.endswith("Already hired in this call: none")


class PickyBoss(ToolTestAgent):
    """Fires anyone but @Cat: its hook refuses that one."""

    def on_fire(self, member: ActorAddress) -> None:
        if member.name == "@Cat":
            raise PermissionError("@Cat is tenured")
        self.fired.append(member)


def test_fire_whose_hook_fails_is_retriable(
    actor_system: ActorSystem, orchestrator: ActorAddress, caplog: pytest.LogCaptureFixture
) -> None:
    from akgentic.tool.core.testing import spawn_tool_agent

    boss = spawn_tool_agent(actor_system, orchestrator, "@Boss", agent_class=PickyBoss)
    ann, bob = (spawn(actor_system, orchestrator, n).myAddress for n in ("@Ann", "@Bob"))
    spawn(actor_system, orchestrator, "@Cat")
    fire = tools_by_name(factory_for(boss).get_tools())["fire_members"]
    answer = failed_call(caplog, fire, ["@Ann", "@Bob", "@Cat"], PermissionError, "@Cat")
    # The members fired before the failing one stay fired, and the answer says so.
    assert answer == (
        "firing @Cat failed: PermissionError: @Cat is tenured. "
        "Already fired in this call: @Ann, @Bob"
    )
    assert boss.fired == [ann, bob]
    answer = failed_call(caplog, fire, ["@Cat"], PermissionError, "@Cat")
    assert answer.endswith("Already fired in this call: none")
    assert "@Cat" in team_names(actor_system, orchestrator)
