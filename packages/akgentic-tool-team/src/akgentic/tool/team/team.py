"""TeamTool: the roster, hiring and firing, and who is busy right now.

The roster and the profiles an agent may hire come from the orchestrator: its team (the
members that started and have not stopped) and its catalog of ``AgentCard``s. Hiring
creates a member from a card through the carrying agent, which becomes its parent;
firing tells the carrying agent (``on_fire``) and then stops the member, so it leaves the
team whatever the agent's hook does.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Self, cast

from pydantic import AliasChoices, Field, PrivateAttr

from akgentic.core.actor_address import ActorAddress
from akgentic.core.agent_card import AgentCard
from akgentic.core.agent_config import BaseConfig
from akgentic.core.messages.message import StopRecursively
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.channels import COMMAND, SYSTEM_PROMPT, TOOL_CALL, Channels
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.core.params import BaseToolParam
from akgentic.tool.errors import RetriableError
from akgentic.tool.team._names import NameRules, check_new_name, normalise_name, shown
from akgentic.tool.team.activity import (
    TEAM_ACTIVITY_ACTOR_NAME,
    TEAM_ACTIVITY_ACTOR_ROLE,
    GetTeamActivity,
    SummaryBudget,
    TeamActivityActor,
    TeamActivityReport,
    apply_summaries,
    apply_truncations,
    build_snapshot,
)
from akgentic.tool.team.observer import TeamManagementToolObserver

__all__ = [
    "TEAM_ACTIVITY_ACTOR_ROLE",
    "FireMembers",
    "FireTeamMember",
    "GetRoleProfiles",
    "GetTeamRoster",
    "HireMembers",
    "HireTeamMember",
    "TeamTool",
]

logger = logging.getLogger(__name__)

_CACHE_ASK_TIMEOUT_SECONDS = 5

# How long firing waits for the member to be gone before answering. A member busy in a long
# handler stops only once that handler returns; the answer then says so.
_FIRE_WAIT_SECONDS = 3.0


def _system_prompt_and_command() -> set[Channels]:
    return {SYSTEM_PROMPT, COMMAND}


def _tool_and_command() -> set[Channels]:
    return {TOOL_CALL, COMMAND}


class GetTeamRoster(BaseToolParam):
    """Configuration of the roster (``team_roster``): a system prompt and a command."""

    expose: set[Channels] = Field(default_factory=_system_prompt_and_command)


class GetRoleProfiles(BaseToolParam):
    """Configuration of the hireable profiles (``role_profiles``): a system prompt and a
    command."""

    expose: set[Channels] = Field(default_factory=_system_prompt_and_command)


DEFAULT_MAX_HIRES_PER_CALL = 10
"""Most members one ``hire_members`` call may hire (``HireTeamMember.max_per_call``)."""

DEFAULT_MAX_TEAM_SIZE = 50
"""Most members a team may count before hiring is refused (``HireTeamMember.max_team_size``)."""

DEFAULT_MAX_NAME_CHARS = 64
"""Longest name a new member may get (``HireTeamMember.max_name_chars``)."""

MAX_FIRES_PER_CALL = 100
"""Most names one ``fire_members`` call may list: more than a team holds by default."""


class HireTeamMember(BaseToolParam):
    """Configuration of hiring: ``hire_members(roles)`` as a tool call,
    ``hire_member(role, name=None)`` as a command (which returns the new member's address).

    The bounds keep a looping or prompt-injected model from filling the team: each call
    hires at most ``max_per_call`` members, and no hire takes the team (tool actors not
    counted) past ``max_team_size``.
    """

    expose: set[Channels] = Field(default_factory=_tool_and_command)
    max_per_call: int = Field(
        default=DEFAULT_MAX_HIRES_PER_CALL, ge=1, description="Most members hired by one call."
    )
    max_team_size: int = Field(
        default=DEFAULT_MAX_TEAM_SIZE,
        ge=1,
        description="Most members the team may have (tool actors not counted); hiring past "
        "it is refused.",
    )
    max_name_chars: int = Field(
        default=DEFAULT_MAX_NAME_CHARS, ge=1, description="Longest name a new member may get."
    )


class FireTeamMember(BaseToolParam):
    """Configuration of firing: ``fire_members(names)`` as a tool call,
    ``fire_member(name)`` as a command."""

    expose: set[Channels] = Field(default_factory=_tool_and_command)


HireMembers = HireTeamMember
"""Earlier name of :class:`HireTeamMember` in this package (the same class)."""

FireMembers = FireTeamMember
"""Earlier name of :class:`FireTeamMember` in this package (the same class)."""


class TeamTool(ToolCard):
    """Team management for an agent: see the team, hire and fire, see who is busy.

    Needs a :class:`TeamManagementToolObserver`. ``team_activity`` is on by default and
    only truncates; give ``GetTeamActivity(summarizer=...)`` to allow model summaries,
    which also creates the ``#TeamActivity`` cache actor.
    """

    # Each capability field is built by _build_<field>; hire and fire offer another
    # callable as a command (one member at a time, the address back): their
    # _build_<field>_command.
    get_team_roster: bool | GetTeamRoster = True
    get_role_profiles: bool | GetRoleProfiles = True
    hire_team_members: bool | HireTeamMember = Field(
        default=True,
        validation_alias=AliasChoices("hire_team_members", "hire_members"),
        description="Hiring; `hire_members` is accepted as an input name too.",
    )
    fire_team_members: bool | FireTeamMember = Field(
        default=True,
        validation_alias=AliasChoices("fire_team_members", "fire_members"),
        description="Firing; `fire_members` is accepted as an input name too.",
    )
    get_team_activity: bool | GetTeamActivity = True

    _activity_proxy: TeamActivityActor | None = PrivateAttr(default=None)

    # -- wiring --------------------------------------------------------------------------

    def observer(self, observer: ToolObserver) -> Self:
        """Attach the agent; creates ``#TeamActivity`` only when a summarizer is configured.

        Raises ``ValueError`` when the agent belongs to no team, or when hiring or firing is
        enabled and the agent lacks the team-management calls.
        """
        super().observer(observer)
        obs = self._team_observer()
        if obs.orchestrator is None:
            raise ValueError(
                "TeamTool needs an agent that belongs to a team: its observer has no orchestrator"
            )
        if self.capability_param("hire_team_members") or self.capability_param("fire_team_members"):
            missing = [
                name
                for name in ("createActor", "on_hire", "on_fire")
                if not callable(getattr(observer, name, None))
            ]
            if missing:
                raise ValueError(
                    f"TeamTool's hiring and firing need a TeamManagementToolObserver; "
                    f"{type(observer).__name__} lacks {', '.join(missing)} "
                    "(or disable hire_team_members and fire_team_members)"
                )
        activity = self.capability_param("get_team_activity")
        if isinstance(activity, GetTeamActivity) and activity.summarizer is not None:
            orchestrator = obs.proxy_ask(obs.orchestrator, Orchestrator)
            address = orchestrator.getChildrenOrCreate(
                TeamActivityActor,
                BaseConfig(name=TEAM_ACTIVITY_ACTOR_NAME, role=TEAM_ACTIVITY_ACTOR_ROLE),
            )
            # Bounded asks: the cache only does dict work, so hitting this bound means it is
            # wedged or gone, and team_activity then falls back to truncation.
            self._activity_proxy = obs.proxy_ask(
                address, TeamActivityActor, _CACHE_ASK_TIMEOUT_SECONDS
            )
        return self

    def _team_observer(self) -> TeamManagementToolObserver:
        return cast(TeamManagementToolObserver, self.get_observer())

    def _orchestrator(self) -> Orchestrator:
        obs = self._team_observer()
        if obs.orchestrator is None:
            raise RuntimeError("TeamTool's agent has no orchestrator")
        orchestrator: Orchestrator = obs.proxy_ask(obs.orchestrator, Orchestrator)
        return orchestrator

    # -- roster --------------------------------------------------------------------------

    def _build_get_team_roster(self, param: GetTeamRoster) -> Callable[[], str]:
        card = self

        def team_roster() -> str:
            """Your team's current members."""
            me = card._team_observer().myAddress
            members = _regular_members(card._orchestrator().get_team())
            return _render_roster(me, members)

        return team_roster

    def _build_get_role_profiles(self, param: GetRoleProfiles) -> Callable[[], str]:
        card = self

        def role_profiles() -> str:
            """The profiles you can hire, by role."""
            catalog = card._orchestrator().get_agent_catalog()
            return _render_profiles([c for c in catalog if c.can_be_hired])

        return role_profiles

    # -- hiring --------------------------------------------------------------------------

    def _hire(
        self, param: HireTeamMember, requests: list[tuple[Any, Any]]
    ) -> list[tuple[ActorAddress, str]]:
        """Hire one member per ``(role, name)``; validates everything before hiring anyone.

        Returns each new member's address with its ``"name (role)"`` label.
        """
        _check_batch(param, requests)
        orchestrator = self._orchestrator()
        catalog = {c.role: c for c in orchestrator.get_agent_catalog()}
        team = orchestrator.get_team()
        _check_team_size(param, team, len(requests))
        plan = self._plan(param, requests, catalog, team)
        return self._start_members(plan)

    def _plan(
        self,
        param: HireTeamMember,
        requests: list[tuple[Any, Any]],
        catalog: dict[str, AgentCard],
        team: list[ActorAddress],
    ) -> list[tuple[AgentCard, str]]:
        """Profile and final name of each request; ``RetriableError`` listing every fault."""
        in_use = [m.name for m in team] + self._reserved_names()
        rules = NameRules(in_use, param.max_name_chars)
        errors: list[str] = []
        plan: list[tuple[AgentCard, str]] = []
        for role, name in requests:
            profile = catalog.get(role)
            if profile is None:
                errors.append(f"no profile has the role {shown(role)}")
            elif not profile.can_be_hired:
                errors.append(f"the {role!r} profile is not open for hiring")
            else:
                chosen, problem = _pick_name(profile, name, rules)
                if problem is not None:
                    errors.append(problem)
                    continue
                rules.reserve(chosen)
                plan.append((profile, chosen))
        if errors:
            hireable = sorted(role for role, c in catalog.items() if c.can_be_hired)
            visible = sorted(n for n in (m.name for m in team) if not n.startswith("#"))
            raise RetriableError(
                "; ".join(errors)
                + f". Roles you can hire: {', '.join(hireable) if hireable else 'none'}. "
                + f"Names in use: {', '.join(visible) or 'none'}. Nobody was hired."
            )
        return plan

    def _reserved_names(self) -> list[str]:
        """Names no member may take besides the team's own: the orchestrator's."""
        orchestrator = self._team_observer().orchestrator
        return [orchestrator.name] if orchestrator is not None else []

    def _start_members(self, plan: list[tuple[AgentCard, str]]) -> list[tuple[ActorAddress, str]]:
        obs = self._team_observer()
        hired: list[str] = []
        addresses: list[tuple[ActorAddress, str]] = []
        for profile, name in plan:
            try:
                agent_class = profile.get_agent_class()
            except (ImportError, AttributeError, ValueError) as exc:
                raise RetriableError(
                    f"the {profile.role!r} profile cannot be started ({exc}); "
                    f"hire another role. Already hired in this call: {', '.join(hired) or 'none'}"
                ) from exc
            config = profile.get_config_copy()
            config.name = name
            try:
                address = obs.createActor(agent_class, config=config)
                obs.on_hire(address)
            except Exception as exc:  # a failing agent class must not crash the caller's loop
                logger.warning("hiring %s (%s) failed", name, profile.role, exc_info=True)
                raise RetriableError(
                    f"hiring {name} ({profile.role}) failed: {type(exc).__name__}: {exc}. "
                    f"Already hired in this call: {', '.join(hired) or 'none'}"
                ) from exc
            hired.append(f"{name} ({profile.role})")
            addresses.append((address, hired[-1]))
        return addresses

    def _build_hire_team_members(self, param: HireTeamMember) -> Callable[[list[str]], str]:
        card = self

        def hire_members(roles: list[str]) -> str:
            """Hire new team members, one per role listed.

            Args:
                roles: Roles of the profiles to hire (one member per entry; repeat a role
                    to hire it several times). See the hireable profiles in your context.
            """
            if not isinstance(roles, list):
                raise RetriableError(
                    f"roles must be a list of role names, got {type(roles).__name__}"
                )
            hired = card._hire(param, [(role, None) for role in roles])
            return f"Hired {', '.join(label for _, label in hired)}."

        return hire_members

    def _build_hire_team_members_command(
        self, param: HireTeamMember
    ) -> Callable[..., ActorAddress]:
        card = self

        def hire_member(role: str, name: str | None = None) -> ActorAddress:
            """Hire one team member; returns the new member's address.

            Args:
                role: Role of the profile to hire.
                name: Name of the new member (default: the profile's name, made unique).
            """
            ((address, _),) = card._hire(param, [(role, name)])
            return address

        return hire_member

    # -- firing --------------------------------------------------------------------------

    def _fire(self, names: list[str]) -> str:
        """Fire the members named; validates every name before firing anyone."""
        _check_fire_names(names)
        obs = self._team_observer()
        me = obs.myAddress
        members = {m.name: m for m in _regular_members(self._orchestrator().get_team())}
        # Only members this call could really fire are offered: not yourself, not a human.
        firable = sorted(
            n for n, m in members.items() if m.agent_id != me.agent_id and not m.is_user_proxy
        )
        errors: list[str] = []
        targets: list[ActorAddress] = []
        for name in dict.fromkeys(normalise_name(n) for n in names):
            member = members.get(name)
            if member is None:
                errors.append(f"no team member is named {shown(name)}")
            elif member.agent_id == me.agent_id:
                errors.append("you cannot fire yourself")
            elif member.is_user_proxy:
                errors.append(f"{name!r} is a human participant and cannot be fired")
            else:
                targets.append(member)
        if errors:
            raise RetriableError(
                "; ".join(errors)
                + f". Members you can fire: {', '.join(firable) if firable else 'none'}."
            )
        fired: list[str] = []
        for member in targets:
            try:
                obs.on_fire(member)
            except Exception as exc:
                logger.warning("firing %s failed", member.name, exc_info=True)
                raise RetriableError(
                    f"firing {member.name} failed: {type(exc).__name__}: {exc}. "
                    f"Already fired in this call: {', '.join(fired) or 'none'}"
                ) from exc
            _stop_member(member)
            fired.append(member.name)
        deadline = time.monotonic() + _FIRE_WAIT_SECONDS
        while any(m.is_alive() for m in targets) and time.monotonic() < deadline:
            time.sleep(0.02)
        still = [m.name for m in targets if m.is_alive()]
        answer = f"Fired {', '.join(fired)}."
        if still:
            verb = "it finishes" if len(still) == 1 else "they finish"
            answer += f" {', '.join(still)} will stop once {verb} the message in hand."
        return answer

    def _build_fire_team_members(self, param: FireTeamMember) -> Callable[[list[str]], str]:
        card = self

        def fire_members(names: list[str]) -> str:
            """Remove members from the team; they stop working immediately.

            Args:
                names: Names of the members to fire, as shown in the team roster.
            """
            return card._fire(names)

        return fire_members

    def _build_fire_team_members_command(self, param: FireTeamMember) -> Callable[[str], str]:
        card = self

        def fire_member(name: str) -> str:
            """Remove one member from the team.

            Args:
                name: Name of the member to fire.
            """
            return card._fire([name])

        return fire_member

    # -- team activity -------------------------------------------------------------------

    def _report(self, param: GetTeamActivity, summarize_over: int | None) -> TeamActivityReport:
        obs = self._team_observer()
        snapshot = build_snapshot(
            self._orchestrator(), obs.myAddress.agent_id, param.stale_after_seconds
        )
        pending = 0
        if summarize_over is not None and param.summarizer is not None:
            members, pending = apply_summaries(
                snapshot.rows,
                snapshot.texts,
                summarize_over,
                SummaryBudget.from_params(param),
                self._activity_proxy,
            )
        else:
            members = apply_truncations(snapshot.rows, snapshot.texts, param.max_task_chars)
        return TeamActivityReport(
            generated_at=snapshot.generated_at, members=members, pending_summaries=pending
        )

    def _build_get_team_activity(self, param: GetTeamActivity) -> Callable[..., TeamActivityReport]:
        card = self
        if param.summarizer is None:
            # No summarizer: `summarize_over` must not even appear in the tool's schema.

            def team_activity() -> TeamActivityReport:
                """Who in your team is busy right now, and on what (you are not listed).

                Each row gives the member, its role, its current task (shortened), and
                when it started; `suspect` flags inconsistent telemetry.
                """
                return card._report(param, None)

            return team_activity

        def team_activity_summarized(summarize_over: int | None = None) -> TeamActivityReport:
            """Who in your team is busy right now, and on what (you are not listed).

            Each row gives the member, its role, its current task, and when it started;
            `suspect` flags inconsistent telemetry.

            Args:
                summarize_over: Leave unset to get task text shortened by truncation (no
                    model call). Set it to a length in characters to have every task longer
                    than that summarized by a model instead (`summarized` is then true).
            """
            if summarize_over is not None and summarize_over < 0:
                raise RetriableError(
                    f"summarize_over must be a length in characters (0 or more), "
                    f"got {summarize_over}; leave it unset for no summaries"
                )
            return card._report(param, summarize_over)

        team_activity_summarized.__name__ = "team_activity"
        team_activity_summarized.__qualname__ = "team_activity"
        return team_activity_summarized


# -- helpers ------------------------------------------------------------------------------------


def _stop_member(member: ActorAddress) -> None:
    """Ask a fired member to stop (with its children), unless the agent's hook already did.

    A tell, not an ask: the member may be busy in a handler, and the caller must not wait
    on it. The stop is queued behind that handler.
    """
    if not member.is_alive():
        return
    try:
        member.tell(StopRecursively())
    except Exception:  # it stopped between the check and the tell: nothing left to do
        logger.debug("fired member %s was already gone", member.name, exc_info=True)


def _regular_members(team: list[ActorAddress]) -> list[ActorAddress]:
    """The team without tool actors (``#`` names)."""
    return [m for m in team if not m.name.startswith("#")]


def _check_batch(param: HireTeamMember, requests: list[tuple[Any, Any]]) -> None:
    """Refuse an empty or oversized call, and roles or names that are not text."""
    if not requests:
        raise RetriableError("give at least one role to hire")
    if len(requests) > param.max_per_call:
        raise RetriableError(
            f"roles lists {len(requests)} members, but one call hires at most "
            f"{param.max_per_call}; hire in smaller batches, and only the members the work "
            "needs. Nobody was hired."
        )
    for role, name in requests:
        if not isinstance(role, str):
            raise RetriableError(f"a role must be text, got {type(role).__name__}")
        if name is not None and not isinstance(name, str):
            raise RetriableError(f"name must be text, got {type(name).__name__}")


def _check_fire_names(names: Any) -> None:
    """Refuse an empty, oversized or non-text list of names to fire."""
    if not isinstance(names, list):
        raise RetriableError(f"names must be a list of member names, got {type(names).__name__}")
    if not names:
        raise RetriableError("give at least one member name to fire")
    if len(names) > MAX_FIRES_PER_CALL:
        raise RetriableError(
            f"names lists {len(names)} members, but one call fires at most "
            f"{MAX_FIRES_PER_CALL}; fire in smaller batches. Nobody was fired."
        )
    for name in names:
        if not isinstance(name, str):
            raise RetriableError(f"a member name must be text, got {type(name).__name__}")


def _check_team_size(param: HireTeamMember, team: list[ActorAddress], wanted: int) -> None:
    """Refuse a hire that would take the team (tool actors not counted) past its cap."""
    size = len(_regular_members(team))
    if size + wanted > param.max_team_size:
        room = max(param.max_team_size - size, 0)
        raise RetriableError(
            f"the team has {size} members and holds at most {param.max_team_size}; "
            f"hiring {wanted} more is refused (room for {room}). Fire members you no longer "
            "need (fire_members) or give work to the ones you have. Nobody was hired."
        )


def _pick_name(
    profile: AgentCard, requested: str | None, rules: NameRules
) -> tuple[str, str | None]:
    """The new member's name, and why it cannot be had (``None`` when it can).

    A requested name is taken as given (normalised) or refused; without one, the profile's
    name is made unique with ``-2``, ``-3``, ... against the names in use and look-alikes.
    """
    if requested is not None:
        name = normalise_name(requested)
        return name, check_new_name(name, rules)
    base = normalise_name(profile.config.name or f"@{profile.role}")
    problem = check_new_name(base, rules)
    if problem is None:
        return base, None
    if rules.resembles(base) is None:  # not a clash: the profile's own name is unusable
        return base, f"the {profile.role!r} profile's member name cannot be used: {problem}"
    n = 2
    while rules.resembles(f"{base}-{n}") is not None:
        n += 1
    candidate = f"{base}-{n}"
    return candidate, check_new_name(candidate, rules)


def _render_roster(me: ActorAddress, members: list[ActorAddress]) -> str:
    lines = ["## Your team", f"You are {me.name} ({me.role})."]
    others = [m for m in members if m.agent_id != me.agent_id]
    if others:
        lines.append("Members:")
        for m in others:
            human = ", human" if m.is_user_proxy else ""
            lines.append(f"- {m.name} ({m.role}{human})")
    else:
        lines.append("No other members yet.")
    return "\n".join(lines)


def _render_profiles(hireable: list[AgentCard]) -> str:
    lines = ["## Profiles you can hire"]
    if hireable:
        for c in hireable:
            skills = f" Skills: {', '.join(c.skills)}." if c.skills else ""
            lines.append(f"- {c.role}: {c.description}{skills}")
    else:
        lines.append("None.")
    return "\n".join(lines)
