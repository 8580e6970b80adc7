"""The public testing kit: its fixtures are real actors, its conformance check bites."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import UserMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import RetriableError, ToolCard
from akgentic.tool.core.testing import (
    ToolTestAgent,
    assert_card_conformance,
    eventually,
    spawn_tool_agent,
)
from akgentic.tool.core.workspace_dir import resolve_workspace_dir


class GoodTool(ToolCard):
    limit: int = 3

    def get_tools(self) -> list[Callable[..., Any]]:
        def count(n: int) -> str:
            """Count to n."""
            if n > self.limit:
                raise RetriableError(f"n must be at most {self.limit}")
            return " ".join(str(i) for i in range(1, n + 1))

        async def later(n: int) -> str:
            """Count later."""
            if n < 0:
                raise RetriableError("n must be positive")
            return str(n)

        return [count, later]


class LeakyTool(ToolCard):
    def get_tools(self) -> list[Callable[..., Any]]:
        def read(path: str) -> str:
            """Read a file."""
            with open(path) as handle:
                return handle.read()

        return [read]


class Member(Akgent[BaseConfig, BaseState]):
    pass


def test_fixtures_are_a_real_team(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    assert tool_agent.orchestrator == orchestrator
    eventually(lambda: [m.name for m in orch.get_team()] == ["@Tester"])
    second = spawn_tool_agent(actor_system, orchestrator, name="@Second")
    assert second.team_id == tool_agent.team_id
    eventually(lambda: len(orch.get_team()) == 2)


def test_workspaces_root_is_a_fresh_root_under_the_tests_own_folder(
    workspaces_root: Path, tmp_path: Path
) -> None:
    assert workspaces_root.is_dir()
    assert not any(workspaces_root.iterdir())
    assert workspaces_root.is_relative_to(tmp_path)
    assert resolve_workspace_dir("team") == (workspaces_root / "team").resolve()


def test_agent_records_hires_fires_and_deliveries(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    member = tool_agent.createActor(Member, config=BaseConfig(name="@Member"))
    tool_agent.on_hire(member)
    assert tool_agent.hired == [member]
    tool_agent.on_fire(member)
    assert tool_agent.fired == [member]
    assert not member.is_alive()
    actor_system.tell(tool_agent.myAddress, UserMessage(content="hello"))
    (message,) = eventually(lambda: tool_agent.received)
    assert isinstance(message, UserMessage)
    assert message.content == "hello"


def test_conformance_passes_a_good_card(tool_agent: ToolTestAgent) -> None:
    assert_card_conformance(
        GoodTool(limit=2),
        observer=tool_agent,
        bad_calls={"count": [{"n": 9}], "later": [{"n": -1}]},
    )


def test_conformance_fails_a_bad_call_that_succeeds(tool_agent: ToolTestAgent) -> None:
    # {"n": 1} is a good call: listing it as bad must not pass silently.
    with pytest.raises(AssertionError, match=r"count\(\{'n': 1\}\) is listed as a bad call but"):
        assert_card_conformance(
            GoodTool(limit=2), observer=tool_agent, bad_calls={"count": [{"n": 1}]}
        )


def test_eventually_says_what_it_waited_for() -> None:
    flags: list[int] = []
    with pytest.raises(AssertionError) as failure:
        eventually(lambda: len(flags) > 0, timeout=0.05)
    assert "eventually(lambda: len(flags) > 0" in str(failure.value)
    assert "last returned False" in str(failure.value)
    assert "<function" not in str(failure.value)


def test_conformance_catches_a_raw_exception(tool_agent: ToolTestAgent, tmp_path: Any) -> None:
    with pytest.raises(AssertionError, match="let a raw FileNotFoundError escape"):
        assert_card_conformance(
            LeakyTool(), observer=tool_agent, bad_calls={"read": [{"path": str(tmp_path / "no")}]}
        )


def test_conformance_reports_misuse(tool_agent: ToolTestAgent) -> None:
    with pytest.raises(AssertionError, match="exposes no tool named 'nope'"):
        assert_card_conformance(GoodTool(), observer=tool_agent, bad_calls={"nope": [{}]})
    with pytest.raises(AssertionError, match="needs an observer"):
        assert_card_conformance(GoodTool(), bad_calls={"count": [{"n": 9}]})


class Drifting(ToolCard):
    value: str = "a"

    def model_post_init(self, context: Any) -> None:
        # Appends on every validation: not stable across a round-trip.
        self.value = self.value + "!"


def test_conformance_catches_a_card_that_drifts_across_json() -> None:
    with pytest.raises(AssertionError, match="changed across a JSON round-trip"):
        assert_card_conformance(Drifting())
