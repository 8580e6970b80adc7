"""bind_team_actor gives every card the same team actor; ask_team_actor survives its stop."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import team_actor
from akgentic.tool.core.team_actor import ask_team_actor, bind_team_actor
from akgentic.tool.core.testing import ToolTestAgent, spawn_tool_agent
from akgentic.tool.errors import RetriableError


class Tally(Akgent[BaseConfig, BaseState]):
    def on_start(self) -> None:
        self.count = 0

    def bump(self) -> int:
        self.count += 1
        return self.count


def _config() -> BaseConfig:
    return BaseConfig(name="#Tally", role="Tally")


def test_every_agent_binds_the_same_actor(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    agents = [spawn_tool_agent(actor_system, orchestrator, f"@A{i}") for i in range(6)]
    proxies: list[Tally] = [None] * len(agents)  # type: ignore[list-item]
    start = threading.Barrier(len(agents))

    def bind(i: int) -> None:
        start.wait()  # bind all at once: check-then-create would make several
        proxies[i] = bind_team_actor(agents[i], Tally, _config(), card="TallyTool")

    threads = [threading.Thread(target=bind, args=(i,)) for i in range(len(agents))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(proxy.bump() for proxy in proxies) == [1, 2, 3, 4, 5, 6]
    team = actor_system.proxy_ask(orchestrator, Orchestrator).get_team()
    assert [m.name for m in team].count("#Tally") == 1


def test_an_agent_outside_a_team_cannot_bind(actor_system: ActorSystem) -> None:
    address = actor_system.createActor(ToolTestAgent, config=BaseConfig(name="@Alone"))
    alone = actor_system.proxy_ask(address, ToolTestAgent).itself()
    with pytest.raises(RuntimeError, match="TallyTool needs an agent that belongs to a team"):
        bind_team_actor(alone, Tally, _config(), card="TallyTool")


def test_a_stopped_actor_becomes_a_retriable_error(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    tally = bind_team_actor(tool_agent, Tally, _config(), card="TallyTool")
    assert ask_team_actor(tally.bump, what="The tally") == 1
    tally.stop()
    with pytest.raises(RetriableError, match=r"^The tally is not running \(the team is stopping\)"):
        ask_team_actor(tally.bump, what="The tally")


# -- the shared ask proxies (one per team actor per process, issue 19) ----------------------


def test_members_share_one_proxy_that_outlives_the_member_that_built_it(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    first, second = (spawn_tool_agent(actor_system, orchestrator, f"@S{i}") for i in range(2))
    mine = bind_team_actor(first, Tally, _config(), card="TallyTool")
    theirs = bind_team_actor(second, Tally, _config(), card="TallyTool")
    # a thousand members binding the plan pay pykka's proxy introspection once, not 2000 times
    assert theirs is mine
    actor_system.proxy_ask(first.myAddress, Akgent).stop()
    assert ask_team_actor(theirs.bump, what="The tally") == 1


def test_a_restarted_team_actor_gets_a_fresh_proxy(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    old = bind_team_actor(tool_agent, Tally, _config(), card="TallyTool")
    assert old.bump() == 1
    old.stop()
    new = bind_team_actor(tool_agent, Tally, _config(), card="TallyTool")
    assert new is not old
    assert new.bump() == 1  # a new actor, reached through a proxy to it, not the dead one


def test_the_kept_proxies_are_bounded(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    kept = team_actor._PROXIES
    size = kept.size
    kept.size = 3
    try:
        for i in range(6):
            config = BaseConfig(name=f"#Tally{i}", role="Tally")
            assert bind_team_actor(tool_agent, Tally, config, card="TallyTool").bump() == 1
        assert len(kept._entries) == 3
    finally:
        kept.size = size


class CountingOrchestrator(Orchestrator):
    """A real orchestrator that counts the get-or-create requests it serves."""

    def on_start(self) -> None:
        super().on_start()
        self.lookups = 0

    def getChildrenOrCreate(
        self, actor_class: type[Akgent[Any, Any]], config: BaseConfig
    ) -> ActorAddress:
        self.lookups += 1
        return super().getChildrenOrCreate(actor_class, config)

    def lookup_count(self) -> int:
        return self.lookups


def test_the_orchestrator_is_asked_once_while_the_team_actor_lives(
    actor_system: ActorSystem,
) -> None:
    address = actor_system.createActor(
        CountingOrchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    counting = actor_system.proxy_ask(address, CountingOrchestrator)
    agents = [spawn_tool_agent(actor_system, address, f"@C{i}") for i in range(5)]
    tallies = [bind_team_actor(agent, Tally, _config(), card="TallyTool") for agent in agents]
    assert sorted(tally.bump() for tally in tallies) == [1, 2, 3, 4, 5]
    assert counting.lookup_count() == 1  # not one scan of the team per member
    tallies[0].stop()
    fresh = bind_team_actor(agents[0], Tally, _config(), card="TallyTool")
    assert fresh.bump() == 1  # a stopped team actor sends the next member to the orchestrator
    assert counting.lookup_count() == 2
