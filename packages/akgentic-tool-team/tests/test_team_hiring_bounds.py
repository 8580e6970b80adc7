"""Hiring is bounded and new names cannot impersonate anyone (issue 20, finding 4).

Each test reproduces the attack on a real team (real orchestrator, real agents started
from the catalog) and checks the refusal leaves the team exactly as it was.
"""

from __future__ import annotations

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
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.errors import RetriableError
from akgentic.tool.team import HireTeamMember, TeamTool
from akgentic.tool.team.team import (
    DEFAULT_MAX_HIRES_PER_CALL,
    DEFAULT_MAX_NAME_CHARS,
    DEFAULT_MAX_TEAM_SIZE,
    MAX_FIRES_PER_CALL,
)


@pytest.fixture
def catalog(actor_system: ActorSystem, orchestrator: ActorAddress) -> None:
    register_profiles(
        actor_system,
        orchestrator,
        [profile("Developer", name="@Developer"), profile("Reviewer")],
    )


def bind(agent: ToolTestAgent, hire: HireTeamMember | None = None) -> ToolFactory:
    return ToolFactory([TeamTool(hire_team_members=hire or True)], observer=agent)


def refusal(fn: Any, *args: Any) -> str:
    with pytest.raises(RetriableError) as info:
        fn(*args)
    return str(info.value)


def test_defaults_are_the_documented_values() -> None:
    hire = HireTeamMember()
    assert (hire.max_per_call, hire.max_team_size, hire.max_name_chars) == (10, 50, 64)
    assert (DEFAULT_MAX_HIRES_PER_CALL, DEFAULT_MAX_TEAM_SIZE, DEFAULT_MAX_NAME_CHARS) == (
        10,
        50,
        64,
    )
    assert MAX_FIRES_PER_CALL == 100


def test_hiring_300_members_in_one_call_is_refused_at_once(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, catalog: None
) -> None:
    hire = tools_by_name(bind(tool_agent).get_tools())["hire_members"]
    before = team_names(actor_system, orchestrator)
    message = refusal(hire, ["Developer"] * 300)
    assert message == (
        "roles lists 300 members, but one call hires at most 10; hire in smaller batches, "
        "and only the members the work needs. Nobody was hired."
    )
    assert tool_agent.hired == []
    assert team_names(actor_system, orchestrator) == before
    # At the limit the call goes through.
    assert hire(["Developer"] * DEFAULT_MAX_HIRES_PER_CALL).count("(Developer)") == 10


def test_the_team_size_is_capped(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, catalog: None
) -> None:
    spawn(actor_system, orchestrator, "#SomeToolActor", role="ToolActor")  # not counted
    factory = bind(tool_agent, HireTeamMember(max_team_size=4, max_per_call=5))
    hire = tools_by_name(factory.get_tools())["hire_members"]
    hire(["Developer", "Reviewer"])  # with @Tester: 3 members
    before = team_names(actor_system, orchestrator)
    message = refusal(hire, ["Developer", "Developer"])
    assert message == (
        "the team has 3 members and holds at most 4; hiring 2 more is refused (room for 1). "
        "Fire members you no longer need (fire_members) or give work to the ones you have. "
        "Nobody was hired."
    )
    assert team_names(actor_system, orchestrator) == before
    # The command path is bound by the same cap; a full team has room for nobody.
    factory.commands.execute("/hire_member Reviewer @Rita")
    message = refusal(factory.commands.execute, "/hire_member Reviewer @Rose")
    assert message.startswith(
        "the team has 4 members and holds at most 4; hiring 1 more is refused (room for 0)."
    )
    assert [m.name for m in tool_agent.hired] == ["@Developer", "@Reviewer", "@Rita"]


# Each name, and the fault the model reads for it (the answer goes on with what it may use).
@pytest.mark.parametrize(
    ("name", "fault"),
    [
        (
            "#VectorStore",
            "the name '#VectorStore' starts with '#', which marks the team's tool actors; "
            "choose a name without it (for example '@Name')",
        ),
        ("@Orchestrator", "the name '@Orchestrator' is already taken"),
        ("@Human", "the name '@Human' is already taken"),
        ("@human", "the name '@human' looks like '@Human', which is already taken"),
        (
            "@Hum\u0430n",
            "the name '@Hum\u0430n' mixes letters of several scripts (CYRILLIC, LATIN); "
            "write it in one script",
        ),
        # All Greek: Alpha, eta, eta.
        (
            "@\u0391\u03b7\u03b7",
            "the name '@\u0391\u03b7\u03b7' looks like '@Ann', which is already taken",
        ),
        (
            "@Hu\u200bman",
            "the name '@Hu\\u200bman' contains the invisible or control character U+200B",
        ),
        ("@Ann\u202e", "the name '@Ann\\u202e' contains the invisible or control character U+202E"),
        # A newline inside the name (around it, it would be trimmed).
        ("@Hu\nman", "the name '@Hu\\nman' contains the invisible or control character U+000A"),
        ("@Ann\x07", "the name '@Ann\\x07' contains the invisible or control character U+0007"),
        # Tangut letters have no Unicode character name: their script counts as UNKNOWN.
        (
            "@Ann\U00017000",
            "the name '@Ann\U00017000' mixes letters of several scripts (LATIN, UNKNOWN); "
            "write it in one script",
        ),
        ("@Ann\n", "the name '@Ann' is already taken"),  # trimmed, then it is taken
        ("\uff20Ann", "the name '\uff20Ann' looks like '@Ann', which is already taken"),
        (
            "@" + "x" * 64,
            "the name '@" + "x" * 39 + "'... (65 characters) is 65 characters long, "
            "the most allowed is 64",
        ),
        ("", "a member name cannot be empty"),
    ],
)
def test_hire_member_refuses_names_that_squat_or_impersonate(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
    catalog: None,
    name: str,
    fault: str,
) -> None:
    spawn(actor_system, orchestrator, "@Ann")
    spawn(actor_system, orchestrator, "@Human", role="Human", agent_class=GatedUserProxy)
    commands = bind(tool_agent).commands
    before = team_names(actor_system, orchestrator)
    message = refusal(commands.call, "hire_member", "Developer", name)
    assert message == (
        f"{fault}. Roles you can hire: Developer, Reviewer. "
        "Names in use: @Ann, @Human, @Tester. Nobody was hired."
    )
    assert tool_agent.hired == []
    assert team_names(actor_system, orchestrator) == before


def test_a_name_is_stored_nfc_normalised(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, catalog: None
) -> None:
    commands = bind(tool_agent).commands
    decomposed = "@Jose\u0301"
    jose = commands.call("hire_member", "Developer", decomposed)
    assert jose.name == "@Jos\u00e9"
    # The precomposed spelling is the same name, so it is taken.
    assert "already taken" in refusal(commands.call, "hire_member", "Reviewer", "@Jos\u00e9")
    # Scripts that are written together (Japanese) and Latin with them are fine.
    assert commands.call("hire_member", "Reviewer", "@レビュー太郎").name == "@レビュー太郎"
    assert commands.call("hire_member", "Reviewer", "@Dev-太郎").name == "@Dev-太郎"


def test_names_at_the_limits_are_accepted(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, catalog: None
) -> None:
    commands = bind(tool_agent).commands
    longest = "@" + "x" * (DEFAULT_MAX_NAME_CHARS - 1)
    assert commands.call("hire_member", "Developer", longest).name == longest
    # A name in one script that has no character names (Tangut) is still one script.
    tangut = "@\U00017000\U00017001"
    assert commands.call("hire_member", "Reviewer", tangut).name == tangut


def test_an_automatic_name_steps_around_look_alikes(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent, catalog: None
) -> None:
    spawn(actor_system, orchestrator, "@developer")
    hire = tools_by_name(bind(tool_agent).get_tools())["hire_members"]
    assert hire(["Developer", "Developer"]) == (
        "Hired @Developer-2 (Developer), @Developer-3 (Developer)."
    )


def test_a_huge_role_is_not_echoed_and_wrong_types_are_retriable(
    tool_agent: ToolTestAgent, catalog: None
) -> None:
    factory = bind(tool_agent)
    hire = tools_by_name(factory.get_tools())["hire_members"]
    message = refusal(hire, ["R" * 1_000_000])
    assert "no profile has the role" in message
    assert "(1000000 characters)" in message
    assert len(message) < 400
    # Up to 40 characters a role is echoed whole.
    assert "no profile has the role '" + "R" * 40 + "'. Roles" in refusal(hire, ["R" * 40])
    assert refusal(hire, "Developer") == "roles must be a list of role names, got str"
    assert "a role must be text, got dict" in refusal(hire, [{"role": "Developer"}])
    assert "name must be text, got int" in refusal(factory.commands.call, "hire_member", "X", 7)
    assert tool_agent.hired == []


def test_fire_lists_are_bounded_and_typed(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    spawn(actor_system, orchestrator, "@Ann")
    fire = tools_by_name(bind(tool_agent).get_tools())["fire_members"]
    message = refusal(fire, ["@Nobody"] * (MAX_FIRES_PER_CALL + 1))
    assert "one call fires at most 100" in message
    # Exactly the limit is allowed: the names are then checked one by one.
    message = refusal(fire, ["@Nobody"] * MAX_FIRES_PER_CALL)
    assert message.startswith("no team member is named '@Nobody'")
    assert "names must be a list" in refusal(fire, "@Ann")
    assert "a member name must be text, got int" in refusal(fire, [3])
    assert len(refusal(fire, ["N" * 1_000_000])) < 300
    assert "@Ann" in team_names(actor_system, orchestrator)
    assert tool_agent.fired == []


def test_fire_refusal_offers_only_members_that_can_be_fired(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    spawn(actor_system, orchestrator, "@Human", role="Human", agent_class=GatedUserProxy)
    fire = tools_by_name(bind(tool_agent).get_tools())["fire_members"]
    message = refusal(fire, ["@Human"])
    assert "'@Human' is a human participant and cannot be fired" in message
    assert message.endswith("Members you can fire: none.")
    message = refusal(fire, ["@Orchestrator"])
    assert "no team member is named '@Orchestrator'" in message
    assert "Orchestrator." not in message.split("Members you can fire:")[1]
