"""The team-scale benchmark's quick mode, in-process at three members: it runs and reports.

The figures themselves are the benchmark's business; this checks that the three flavours
assemble, that every member takes its turn (the benchmark counts the notes written and
raises otherwise), that the tables and the chart come out of the rows, and that the
ceiling flavour carries what a member carries and sends what a member sends.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "scripts" / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_team  # noqa: E402


@pytest.fixture(autouse=True)
def _placeholder_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # The members' ReactAgents are configured for OpenAI; the scripted model answers.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")


def test_quick_mode_measures_every_flavour(tmp_path: Path) -> None:
    logged: list[str] = []
    rows = bench_team.run([3], repeats=1, isolate=False, log=logged.append)

    assert [(row.kind, row.members) for row in rows] == [
        ("ours", 3),
        ("anchor", 3),
        ("ceiling", 3),
    ]
    for row in rows:
        assert row.assembly_ms > 0
        assert row.turns_per_s > 0
        assert row.p95_ms > 0
        assert row.turn_cpu_ms > 0  # the whole process's CPU over the burst, per turn
    ours = rows[0]
    assert ours.threads >= 3  # one thread per member actor (plus the team's own)
    assert len(logged) == 3

    table = bench_team.table(rows)
    assert table.splitlines()[2].startswith("| 3 | ")
    assert "CPU ms/turn: ours / anchor" in table.splitlines()[0]
    targets = bench_team.targets_table(rows, at=3)
    assert "| assembly per member | ≤ 5 ms |" in targets
    assert "| (for reference) ceiling: the anchor + the member's other tools" in targets
    ceiling = bench_team.ceiling_table(rows)
    assert ceiling.splitlines()[2].startswith("| 3 | ")
    chart = bench_team.chart(rows, tmp_path / "team.svg")
    assert chart.read_text().lstrip().startswith("<?xml")


def test_sizes_must_be_positive_integers() -> None:
    with pytest.raises(SystemExit):
        bench_team.main(["--sizes", "0,10"])
    with pytest.raises(SystemExit):
        bench_team.main(["--sizes", "ten"])


def test_the_ceiling_sends_one_message_per_event_of_an_observed_react_agent(
    tmp_path: Path,
) -> None:
    from pydantic_ai import Agent

    from akgentic.llm import ModelConfig, ReactAgent, ReactAgentConfig

    events: list[object] = []

    class Observer:
        def notify_event(self, event: object) -> None:
            events.append(event)

    config = ReactAgentConfig(model_cfg=ModelConfig(provider="openai", model="gpt-4o"))
    member = ReactAgent(
        config,
        tools=[bench_team._anchor_write_tool(tmp_path)],
        observer=Observer(),
        model=bench_team.scripted_model("member"),
    )
    member.system_prompt(lambda: "You keep notes.")  # a member always has its cards' prompts
    member.run_sync("write")
    member.close()

    sent: list[object] = []
    anchor = Agent(
        bench_team.scripted_model("anchor"), tools=[bench_team._anchor_write_tool(tmp_path)]
    )
    asyncio.run(bench_team.turn_with_messages(anchor, "write", sent.append))

    assert [type(event).__name__ for event in events].count("LlmSystemPromptEvent") == 1
    assert len(sent) == len(events) == 9
    assert {type(message).__name__ for message in sent} == {"StandIn"}


def test_the_ceiling_carries_every_tool_of_a_member(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pydantic_ai import ModelRetry

    from akgentic.tool import ToolFactory
    from akgentic.tool.planning import PlanningTool
    from akgentic.tool.workspace import WorkspaceTool

    monkeypatch.setenv("AKGENTIC_WORKSPACES_ROOT", str(tmp_path))
    cards = [WorkspaceTool(workspace_id="bench"), PlanningTool()]
    member = {tool.__name__ for tool in ToolFactory(cards, retry_exception=ModelRetry).get_tools()}
    idle = {tool.name for tool in bench_team.idle_member_tools()}
    assert len(member) == 14
    assert idle | {"workspace_write"} == member
