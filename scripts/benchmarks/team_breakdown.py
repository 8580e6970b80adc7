"""Where a team member's cost goes (issue 19): the pieces of bench_team.py measured one by one.

Usage::

    python scripts/benchmarks/team_breakdown.py              # 150 agents per step, 3 rounds
    python scripts/benchmarks/team_breakdown.py --agents 50 --rounds 1

Everything runs in the main thread, one agent after another, so each figure is the CPU
time (``time.process_time()``, every thread of the process) that one piece costs, without
the contention of hundreds of threads that bench_team.py measures on top. Each step of a
round builds fresh agents; the table keeps the median over the rounds.

Assembly, per member:

- *empty member*: an akgentic-core ``Akgent`` with nothing in it, created by the team's
  orchestrator (the actor runtime's own cost: thread, proxy to the orchestrator, start
  message);
- *equipment*: the member's ``ToolFactory`` over WorkspaceTool + PlanningTool and its
  ``ReactAgent`` registering ``get_tools()`` (what a member builds when it starts).

One turn (the scripted ``workspace_write`` call, then the answer), each step adding one
thing to the one before:

1. bare pydantic-ai ``Agent``, one plain ``workspace_write`` tool (bench_team's anchor);
2. bare ``Agent`` with the member's tools, toolsets and system prompts;
3. ``ReactAgent`` with the same (its capabilities), no observer;
4. the same, observed by a team member (every event goes to the orchestrator);
5. the same again, but the observer forwards a one-field stand-in in place of each event:
   what the orchestrator path costs per message whatever the event carries.

The ceiling, bench_team's third flavour taken apart: the anchor's own turn driven node by
node; the same carrying the member's other thirteen tools (never called: pydantic-ai's
per-tool work only); and the same again sending the member nine one-field messages for the
orchestrator at the moments an observed ``ReactAgent`` sends its nine events. The first
over the last is the best turns-per-second ratio a member whose own code cost nothing
could reach, as long as akgentic-core carries each event as one message.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # bench_team.py, next to this file
    sys.path.insert(0, str(HERE))

import bench_team  # noqa: E402

TURN_STEPS = (
    "bare Agent, 1 tool",
    "+ member's tools and prompts",
    "+ ReactAgent",
    "+ observer",
    "observer sends a one-field stand-in per event",
)


class _Team:
    """One actor system, its orchestrator and a warm member whose runtime the steps borrow."""

    def __init__(self, root: Path) -> None:
        from akgentic.core.actor_system_impl import ActorSystem
        from akgentic.core.agent_config import BaseConfig
        from akgentic.core.orchestrator import Orchestrator
        from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV
        from akgentic.tool.planning import PlanningTool
        from akgentic.tool.workspace import WorkspaceTool

        os.environ[WORKSPACES_ROOT_ENV] = str(root)
        os.environ.setdefault("OPENAI_API_KEY", "not-used-by-the-benchmark")
        self.root = root
        self.cards: Callable[[], list[Any]] = lambda: [
            WorkspaceTool(workspace_id="bench"),
            PlanningTool(),
        ]
        bench_team._RUN = bench_team._Run(cards=self.cards)
        self.system = ActorSystem()
        address = self.system.createActor(
            Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        self.orchestrator = self.system.proxy_ask(address, Orchestrator)
        warm = self.orchestrator.createActor(
            bench_team._member_class(), config=BaseConfig(name="@warm", role="Member")
        )
        bench_team._RUN.ready.wait(1, bench_team.TURN_TIMEOUT_S)
        self.system.tell(warm, bench_team._task_class()(content="warm up"))
        bench_team._RUN.done.wait(1, bench_team.TURN_TIMEOUT_S)
        self.member: Any = warm._actor_ref._actor_weakref()  # type: ignore[attr-defined]

    def close(self) -> None:
        self.system.shutdown(timeout=60)
        bench_team._RUN = None


def _cpu_per_item(count: int, make: Callable[[int], Any], use: Callable[[Any], Any]) -> float:
    """CPU ms per item of ``use`` over ``count`` items built by ``make`` (not timed)."""
    items = [make(index) for index in range(count)]
    gc.collect()
    started = time.process_time()
    for item in items:
        use(item)
    return (time.process_time() - started) / count * 1e3


def _empty_members(team: _Team, count: int) -> float:
    """CPU ms per empty member created by the orchestrator, until it has started."""
    from akgentic.core.agent import Akgent
    from akgentic.core.agent_config import BaseConfig
    from akgentic.core.agent_state import BaseState

    started = threading.Semaphore(0)

    class Empty(Akgent[BaseConfig, BaseState]):
        def on_start(self) -> None:
            started.release()

    gc.collect()
    cpu = time.process_time()
    for index in range(count):
        team.orchestrator.createActor(Empty, config=BaseConfig(name=f"@e{index}", role="Empty"))
    for _ in range(count):
        started.acquire()
    return (time.process_time() - cpu) / count * 1e3


def _turn_makers(team: _Team) -> dict[str, Callable[[int], Any]]:
    from pydantic_ai import Agent, ModelRetry

    from akgentic.llm import ModelConfig, ReactAgent, ReactAgentConfig
    from akgentic.tool import ToolFactory

    config = ReactAgentConfig(model_cfg=ModelConfig(provider="openai", model="gpt-4o"))
    anchor_root = (team.root / "bench").resolve()

    def bare(index: int) -> Any:
        tool = bench_team._anchor_write_tool(anchor_root)
        return Agent(bench_team.scripted_model(f"a{index}"), tools=[tool])

    def bare_tools(index: int) -> Any:
        factory = ToolFactory(team.cards(), observer=team.member, retry_exception=ModelRetry)
        agent = Agent(
            bench_team.scripted_model(f"t{index}"),
            tools=factory.get_pydantic_ai_tools(),
            toolsets=factory.get_toolsets(),
        )
        for prompt in factory.get_system_prompts():
            agent.system_prompt(dynamic=True)(prompt)
        return agent

    def react(index: int, observer: Any = None) -> Any:
        factory = ToolFactory(team.cards(), observer=team.member, retry_exception=ModelRetry)
        agent = ReactAgent(
            config,
            tools=factory.get_tools(),
            toolsets=factory.get_toolsets(),
            observer=observer,
            model=bench_team.scripted_model(f"r{index}"),
        )
        for prompt in factory.get_system_prompts():
            agent.system_prompt(prompt)
        return agent

    def observed(index: int) -> Any:
        return react(index, observer=team.member)

    def stand_ins(index: int) -> Any:
        return react(index, observer=_StandInForwarder(team.member))

    makers = (bare, bare_tools, react, observed, stand_ins)
    return dict(zip(TURN_STEPS, makers, strict=True))


class _StandInForwarder:
    """An observer that sends the member one ``StandIn`` for each event of the turn.

    The same number of messages reach the orchestrator at the same moments of the turn as
    with the real observer; only their content differs. Equal figures mean the cost is per
    message (akgentic-core's event path), not in what our events carry.
    """

    def __init__(self, member: Any) -> None:
        self._member = member

    def notify_event(self, event: object) -> None:
        self._member.notify_event(bench_team.stand_in_class()())


CEILING_STEPS = (
    "anchor, node by node",
    "+ the member's other 13 tools, idle",
    "+ nine core messages",
)


def _ceiling(team: _Team, agents: int) -> dict[str, float]:
    """CPU ms per turn of the three ceiling steps, each agent driven with ``Agent.iter``."""
    from pydantic_ai import Agent

    root = (team.root / "bench").resolve()
    idle = bench_team.idle_member_tools()
    loop = asyncio.new_event_loop()

    def drive(extra: Sequence[Any], notify: Callable[[object], None] | None) -> float:
        def make(index: int) -> Any:
            tools = [bench_team._anchor_write_tool(root), *extra]
            return Agent(bench_team.scripted_model(f"c{index}"), tools=tools)

        def use(agent: Any) -> None:
            loop.run_until_complete(bench_team.turn_with_messages(agent, "write", notify))

        return _cpu_per_item(agents, make, use)

    try:
        costs = (drive((), None), drive(idle, None), drive(idle, team.member.notify_event))
    finally:
        loop.close()
    return dict(zip(CEILING_STEPS, costs, strict=True))


def measure(agents: int, rounds: int) -> dict[str, float]:
    """Median CPU ms of every piece, over ``rounds`` rounds of ``agents`` agents each."""
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="team-breakdown-") as tmp:
        team = _Team(Path(tmp))
        try:
            makers = _turn_makers(team)
            for _ in range(rounds):
                equip = _cpu_per_item(
                    agents,
                    lambda i: bench_team.scripted_model(f"e{i}"),
                    lambda model: team.member._equip(team.cards(), model),
                )
                samples.setdefault("empty member", []).append(_empty_members(team, agents))
                samples.setdefault("equipment", []).append(equip)
                for step, make in makers.items():
                    cost = _cpu_per_item(agents, make, lambda agent: agent.run_sync("write"))
                    samples.setdefault(step, []).append(cost)
                for step, cost in _ceiling(team, agents).items():
                    samples.setdefault(step, []).append(cost)
        finally:
            team.close()
    return {name: statistics.median(values) for name, values in samples.items()}


def table(figures: dict[str, float]) -> str:
    """Markdown: assembly pieces, then the turn steps with what each step adds."""
    lines = ["| piece | CPU ms | added by this step |", "|---|---:|---:|"]
    lines += [
        f"| assembly: {name} | {figures[name]:.2f} | |" for name in ("empty member", "equipment")
    ]
    previous: float | None = None
    for step in TURN_STEPS:
        added = "" if previous is None else f"{figures[step] - previous:+.2f}"
        lines.append(f"| turn: {step} | {figures[step]:.2f} | {added} |")
        previous = figures[step]
    previous = None
    for step in CEILING_STEPS:
        added = "" if previous is None else f"{figures[step] - previous:+.2f}"
        lines.append(f"| ceiling: {step} | {figures[step]:.2f} | {added} |")
        previous = figures[step]
    first, last = figures[CEILING_STEPS[0]], figures[CEILING_STEPS[-1]]
    observed = figures[TURN_STEPS[0]] / figures[TURN_STEPS[3]]
    lines += [
        "",
        f"Ceiling of the turns-per-second ratio (first ceiling step over the last): "
        f"{first / last:.2f}x;",
        f"observed member against the anchor here: {observed:.2f}x.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Where a team member's cost goes (issue 19).")
    parser.add_argument("--agents", type=int, default=150, help="agents per step and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (medians are kept)")
    args = parser.parse_args(argv)
    print(table(measure(args.agents, args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
