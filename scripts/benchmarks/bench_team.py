"""Team-scale benchmark (issue 19): what a member costs as the team grows.

Usage::

    python scripts/benchmarks/bench_team.py               # 10, 100, 500, 1000 members
    python scripts/benchmarks/bench_team.py --quick       # 10, 50 (a smoke run)
    python scripts/benchmarks/bench_team.py --sizes 10,200 --no-chart

The workload, at each size N, in three flavours measured in the same run:

- **ours**: N akgentic-core actors (``BenchMember``), children of one team's orchestrator,
  each owning a ``ToolFactory`` over ``WorkspaceTool`` + ``PlanningTool`` (no vector store)
  and a ``ReactAgent`` whose model is a pydantic-ai ``FunctionModel`` that makes one
  ``workspace_write`` call and then answers. All members are sent their task at once.
- **anchor**: N bare pydantic-ai ``Agent``s with one equivalent ``workspace_write`` tool and
  the same scripted model, each taking the same turn in its own thread, all at once.
- **ceiling**: the anchor again, carrying the member's other thirteen tools as well (never
  called, so only pydantic-ai's per-tool work runs for them), and sending a team's
  orchestrator nine one-field akgentic-core messages a turn, at the moments an observed
  ``ReactAgent`` sends its nine events. None of our code runs in its turn, so its turns per
  second are the most a member with those tools, whose events go through akgentic-core
  one message each, could reach.

Reported per size: assembly ms per member, resident memory (RSS) per member, turns per
second with every member busy, and the p95 latency of one turn. Each measurement runs in a
fresh Python process (so the memory of one run does not hide in the next one's arenas);
sizes up to 500 are repeated three times, the flavours taking turns, and the medians are
kept. The tables go to stdout as Markdown, the chart to ``scripts/benchmarks/team.svg``.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CHART = HERE / "team.svg"
SIZES = (10, 100, 500, 1000)
QUICK_SIZES = (10, 50)
KINDS = ("ours", "anchor", "ceiling")
REPEATS_UP_TO = 500  # sizes at most this large are measured `repeats` times
TURN_TIMEOUT_S = 600.0
TARGET_ASSEMBLY_MS = 5.0  # issue 19, at 500 members
TARGET_RSS_MB = 0.25
TARGET_TURNS_RATIO = 0.8  # of the anchor's turns per second
WARM_UP = "@warmup"  # a member built and run before measuring; not counted


@dataclass
class Row:
    """One measurement (or the median of repeated ones) of one flavour at one size."""

    kind: str
    members: int
    assembly_ms: float  # per member
    rss_mb: float  # per member: after assembly minus before
    turns_per_s: float
    p95_ms: float
    threads: int  # live threads once the team is assembled
    assembly_cpu_ms: float = 0.0  # per member: CPU time of the whole process (all threads)
    turn_cpu_ms: float = 0.0  # per turn: CPU time of the whole process over the burst
    repeats: int = 1


# ----------------------------------------------------------------------- measuring tools


def rss_mb() -> float:
    """Resident memory of this process, from /proc/self/statm (Linux)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


class Finishes:
    """Collects when each member finished its turn; waits until all have."""

    def __init__(self) -> None:
        self._times: dict[str, float] = {}
        self._failures: list[str] = []
        self._cond = threading.Condition()

    def record(self, name: str, failure: BaseException | None = None) -> None:
        with self._cond:
            self._times[name] = time.perf_counter()
            if failure is not None:
                self._failures.append(f"{name}: {failure!r}")
            self._cond.notify_all()

    def clear(self) -> None:
        with self._cond:
            self._times.clear()

    def wait(self, count: int, timeout: float) -> dict[str, float]:
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._times) >= count, timeout):
                raise RuntimeError(f"only {len(self._times)} of {count} reported in {timeout} s")
            if self._failures:
                raise RuntimeError("members failed: " + "; ".join(self._failures[:3]))
            return dict(self._times)


def _turn_figures(sent: dict[str, float], done: dict[str, float]) -> tuple[float, float]:
    """Turns per second over the whole burst, and the p95 latency (ms) of one turn."""
    latencies = sorted(done[name] - sent[name] for name in sent)
    span = max(done.values()) - min(sent.values())
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    return len(sent) / span, p95 * 1000.0


def _row(
    kind: str,
    root: Path,
    sent: dict[str, float],
    done: dict[str, float],
    figures: tuple[float, float, float, int, float],
) -> Row:
    """One measurement's row, once every member is known to have written its notes.

    ``figures``: assembly and its CPU (s per member), RSS (MB per member), live threads,
    and CPU per turn (s).
    """
    size = len(sent)
    if _written(root) != size:
        raise RuntimeError(f"{kind}: {_written(root)} notes written by {size} members")
    assembly, assembly_cpu, memory, threads, turn_cpu = figures
    turns, p95 = _turn_figures(sent, done)
    return Row(
        kind, size, assembly * 1e3, memory, turns, p95, threads, assembly_cpu * 1e3, turn_cpu * 1e3
    )


# ----------------------------------------------------------------------- the scripted model


def scripted_model(name: str) -> Any:
    """A FunctionModel: one ``workspace_write`` of ``notes/<name>.md``, then an answer."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    path = f"notes/{name.strip('@')}.md"

    def respond(messages: list[Any], info: Any) -> ModelResponse:
        if any(isinstance(part, ToolReturnPart) for part in messages[-1].parts):
            return ModelResponse(parts=[TextPart(f"{path} written")])
        args = {"path": path, "content": f"notes of {name}\n"}
        return ModelResponse(parts=[ToolCallPart("workspace_write", args)])

    return FunctionModel(respond, model_name=f"scripted-{name}")


def _written(root: Path) -> int:
    """Notes written by the measured members (the warm-up's excluded)."""
    return sum(1 for path in root.rglob("notes/*.md") if path.stem != WARM_UP.strip("@"))


# ----------------------------------------------------------------------- ours


@dataclass
class _Run:
    """What the members of the running measurement read: their cards, where to report."""

    cards: Callable[[], list[Any]]
    ready: Finishes = field(default_factory=Finishes)
    done: Finishes = field(default_factory=Finishes)


_RUN: _Run | None = None  # one measurement at a time per process


@functools.cache
def _task_class() -> type[Any]:
    """The message handing a member its task (built lazily, like the member class)."""
    from akgentic.core.messages.message import Message

    class BenchTask(Message):
        """Work for one member: the prompt of its turn."""

        content: str

    return BenchTask


def _member_class() -> type[Any]:
    """The actor class; built lazily so that importing this module stays light."""
    import inspect

    from pydantic_ai import ModelRetry

    from akgentic.core.agent import Akgent
    from akgentic.core.agent_config import BaseConfig
    from akgentic.core.agent_state import BaseState
    from akgentic.llm import ModelConfig, ReactAgent, ReactAgentConfig
    from akgentic.tool import ToolCard, ToolFactory

    # ReactAgent(config, model=...) skips building the configured provider's model; a
    # version without it builds that model, and the script's replaces it before any request.
    takes_model = "model" in inspect.signature(ReactAgent.__init__).parameters
    config = ReactAgentConfig(model_cfg=ModelConfig(provider="openai", model="gpt-4o"))

    class BenchMember(Akgent[BaseConfig, BaseState]):
        """A member that equips itself when it starts, as a configured agent does.

        Its cards go through a ToolFactory (the actor observes them), its ReactAgent runs
        the scripted model. It reports to the run's ``Finishes`` when it is ready and
        when its turn ends. Building in ``on_start`` (in the member's own thread) spares
        the driver an actor proxy per member, which pykka builds by introspection.
        """

        def on_start(self) -> None:
            self._react: Any = None
            run = _RUN
            if run is None:
                raise RuntimeError("BenchMember started outside measure_ours()")
            try:
                self._react = self._equip(run.cards(), scripted_model(self.config.name))
            except Exception as exc:
                run.ready.record(self.config.name, failure=exc)
                raise
            run.ready.record(self.config.name)

        def _equip(self, cards: Sequence[ToolCard], model: Any) -> Any:
            factory = ToolFactory(cards, observer=self, retry_exception=ModelRetry)
            extra = {"model": model} if takes_model else {}
            # The plain callables of get_tools(), as akgentic-agent's BaseAgent passes
            # them: ReactAgent registers them over schemas shared by the whole process.
            react = ReactAgent(
                config,
                tools=factory.get_tools(),
                toolsets=factory.get_toolsets(),
                observer=self,
                **extra,
            )
            for prompt in factory.get_system_prompts():
                react.system_prompt(prompt)
            if not takes_model:
                react.pydantic_agent.model = model
            return react

        def receiveMsg_BenchTask(self, message: Any) -> None:
            self._react.run_sync(message.content)
            if _RUN is not None:
                _RUN.done.record(self.config.name)

        def on_stop(self) -> None:
            if self._react is not None:
                self._react.close()
            super().on_stop()

    return BenchMember


def measure_ours(size: int, root: Path) -> Row:
    """Assemble ``size`` members in one team, then send every one its task at once."""
    from akgentic.core.actor_system_impl import ActorSystem
    from akgentic.core.agent_config import BaseConfig
    from akgentic.core.orchestrator import Orchestrator
    from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV
    from akgentic.tool.planning import PlanningTool
    from akgentic.tool.workspace import WorkspaceTool

    os.environ[WORKSPACES_ROOT_ENV] = str(root)
    # The ReactAgents are configured for OpenAI, whose client needs some key to be built
    # (it is never contacted: the scripted model answers).
    os.environ.setdefault("OPENAI_API_KEY", "not-used-by-the-benchmark")
    member_class, task = _member_class(), _task_class()
    global _RUN
    _RUN = _Run(cards=lambda: [WorkspaceTool(workspace_id="bench"), PlanningTool()])
    system = ActorSystem()
    try:
        orchestrator = system.createActor(
            Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        orch = system.proxy_ask(orchestrator, Orchestrator)

        def join(name: str) -> Any:
            return orch.createActor(member_class, config=BaseConfig(name=name, role="Member"))

        # A warm-up member takes one turn first: imports, the team's #PlanningTool actor and
        # pydantic-ai's lazy set-up are one-time costs, not per-member ones.
        warm_up = join(WARM_UP)
        _RUN.ready.wait(1, TURN_TIMEOUT_S)
        system.tell(warm_up, task(content="warm up"))
        _RUN.done.wait(1, TURN_TIMEOUT_S)
        _RUN = _Run(cards=_RUN.cards)
        gc.collect()
        before, started, cpu = rss_mb(), time.perf_counter(), time.process_time()
        members = {f"@m{index:04d}": join(f"@m{index:04d}") for index in range(size)}
        _RUN.ready.wait(size, TURN_TIMEOUT_S)  # assembled: every member equipped
        assembly = (time.perf_counter() - started) / size
        assembly_cpu = (time.process_time() - cpu) / size
        gc.collect()
        memory, threads = (rss_mb() - before) / size, threading.active_count()

        sent: dict[str, float] = {}
        cpu = time.process_time()
        for name, address in members.items():
            sent[name] = time.perf_counter()
            system.tell(address, task(content=f"write your notes, {name}"))
        done = _RUN.done.wait(size, TURN_TIMEOUT_S)
        turn_cpu = (time.process_time() - cpu) / size
    finally:
        system.shutdown(timeout=60)
        _RUN = None
    return _row("ours", root, sent, done, (assembly, assembly_cpu, memory, threads, turn_cpu))


# ----------------------------------------------------------------------- the anchor


def _anchor_write_tool(root: Path) -> Callable[[str, str], str]:
    def workspace_write(path: str, content: str) -> str:
        """Write ``content`` to ``path`` (relative to the workspace), creating folders.

        Args:
            path: File path relative to the workspace root.
            content: The text to write.
        """
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            raise ValueError(f"path {path!r} leaves the workspace")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return f"wrote {len(content)} characters to {path}"

    return workspace_write


def measure_anchor(size: int, root: Path) -> Row:
    """Build ``size`` bare pydantic-ai agents, then run every one's turn in its own thread."""

    def turn(name: str, agent: Any) -> None:
        agent.run_sync(f"write your notes, {name}")

    return _measure_agents("anchor", size, root, turn)


def _measure_agents(
    kind: str,
    size: int,
    root: Path,
    turn: Callable[[str, Any], None],
    extra_tools: Sequence[Any] = (),
) -> Row:
    """Build ``size`` bare agents (the anchor's write tool and ``extra_tools``), then run
    ``turn(name, agent)`` for each in its own thread."""
    from pydantic_ai import Agent

    root = root.resolve() / "bench"
    finishes = Finishes()

    def build(name: str) -> Agent[None, str]:
        return Agent(scripted_model(name), tools=[_anchor_write_tool(root), *extra_tools])

    def take_turn(name: str, agent: Agent[None, str]) -> None:
        turn(name, agent)
        finishes.record(name)

    # The same warm-up as ours: one agent built and run before anything is measured.
    take_turn(WARM_UP, build(WARM_UP))
    finishes.clear()
    gc.collect()
    before, started, cpu = rss_mb(), time.perf_counter(), time.process_time()
    agents = {f"@m{index:04d}": build(f"@m{index:04d}") for index in range(size)}
    assembly = (time.perf_counter() - started) / size
    assembly_cpu = (time.process_time() - cpu) / size
    gc.collect()
    memory, threads = (rss_mb() - before) / size, threading.active_count()

    workers = {
        name: threading.Thread(target=take_turn, args=(name, agent))
        for name, agent in agents.items()
    }
    sent: dict[str, float] = {}
    cpu = time.process_time()
    for name, worker in workers.items():
        sent[name] = time.perf_counter()
        worker.start()
    done = finishes.wait(size, TURN_TIMEOUT_S)
    turn_cpu = (time.process_time() - cpu) / size
    for worker in workers.values():
        worker.join()
    return _row(kind, root, sent, done, (assembly, assembly_cpu, memory, threads, turn_cpu))


# ----------------------------------------------------------------------- the ceiling

# Messages an observed ReactAgent sends once each node of its turn has run, by the index of
# the node pydantic-ai yields next: the system prompt and the request after the user prompt;
# the response, its tool call and its usage after the first model request; the tool return
# and its request after the tool call; the answer and its usage after the second request.
EVENTS_BEFORE_NODE = (0, 2, 3, 2, 2, 0)


@functools.cache
def stand_in_class() -> type[Any]:
    """The smallest event a member can send: one integer field (built lazily)."""
    from pydantic import BaseModel

    class StandIn(BaseModel):
        seq: int = 0

    return StandIn


async def turn_with_messages(
    agent: Any, prompt: str, notify: Callable[[object], None] | None
) -> None:
    """The anchor's turn driven node by node; ``notify`` is handed a ``StandIn`` wherever an
    observed ``ReactAgent`` would send an event (nothing is sent when it is ``None``)."""
    stand_in = stand_in_class()
    async with agent.iter(prompt) as run:
        index = 0
        async for _node in run:
            if notify is not None:
                for _ in range(EVENTS_BEFORE_NODE[index]):
                    notify(stand_in())
            index += 1


@functools.cache
def idle_member_tools() -> tuple[Any, ...]:
    """A member's tools other than ``workspace_write``, as pydantic-ai ``Tool``s built once.

    The scripted model never calls them, so none of their code runs; an agent carrying them
    pays what pydantic-ai spends on every tool of every request (a definition, a run
    context). Needs ``AKGENTIC_WORKSPACES_ROOT`` set, as any workspace card does.
    """
    from pydantic_ai import ModelRetry

    from akgentic.tool import ToolFactory
    from akgentic.tool.planning import PlanningTool
    from akgentic.tool.workspace import WorkspaceTool

    cards = [WorkspaceTool(workspace_id="bench"), PlanningTool()]
    tools = ToolFactory(cards, retry_exception=ModelRetry).get_pydantic_ai_tools()
    return tuple(tool for tool in tools if tool.name != "workspace_write")


def team_sender(system: Any) -> Any:
    """A team (orchestrator and one empty member) in ``system``; returns the member itself,
    whose ``notify_event`` sends an event to the orchestrator as every member's does."""
    from akgentic.core.agent import Akgent
    from akgentic.core.agent_config import BaseConfig
    from akgentic.core.agent_state import BaseState
    from akgentic.core.orchestrator import Orchestrator

    started = threading.Event()

    class Sender(Akgent[BaseConfig, BaseState]):
        def on_start(self) -> None:
            started.set()

    orchestrator = system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.createActor(Sender, config=BaseConfig(name="@sender", role="Member"))
    if not started.wait(TURN_TIMEOUT_S):
        raise RuntimeError("the sending member did not start")
    return address._actor_ref._actor_weakref()


def measure_ceiling(size: int, root: Path) -> Row:
    """The anchor's measurement with the member's idle tools, each turn also sending the nine
    messages to a team."""
    from akgentic.core.actor_system_impl import ActorSystem
    from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV

    os.environ[WORKSPACES_ROOT_ENV] = str(root)
    idle = idle_member_tools()
    system = ActorSystem()
    try:
        notify = team_sender(system).notify_event

        def turn(name: str, agent: Any) -> None:
            loop = asyncio.new_event_loop()
            try:
                loop.run_until_complete(
                    turn_with_messages(agent, f"write your notes, {name}", notify)
                )
            finally:
                loop.close()

        return _measure_agents("ceiling", size, root, turn, idle)
    finally:
        system.shutdown(timeout=60)


MEASURES: dict[str, Callable[[int, Path], Row]] = {
    "ours": measure_ours,
    "anchor": measure_anchor,
    "ceiling": measure_ceiling,
}


def measure(kind: str, size: int) -> Row:
    """One measurement of ``kind`` at ``size`` members, in this process."""
    with tempfile.TemporaryDirectory(prefix=f"bench-team-{kind}-") as tmp:
        return MEASURES[kind](size, Path(tmp))


def _measure_isolated(kind: str, size: int) -> Row:
    """One measurement in a fresh interpreter (its own RSS, threads and actor registry)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--one", kind, str(size)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{kind} at {size} members failed:\n{done.stderr[-3000:]}")
    return Row(**json.loads(done.stdout.strip().splitlines()[-1]))


def _median(rows: list[Row]) -> Row:
    first = rows[0]
    return Row(
        first.kind,
        first.members,
        statistics.median(r.assembly_ms for r in rows),
        statistics.median(r.rss_mb for r in rows),
        statistics.median(r.turns_per_s for r in rows),
        statistics.median(r.p95_ms for r in rows),
        max(r.threads for r in rows),
        statistics.median(r.assembly_cpu_ms for r in rows),
        statistics.median(r.turn_cpu_ms for r in rows),
        len(rows),
    )


def run(
    sizes: Sequence[int],
    repeats: int = 3,
    isolate: bool = True,
    log: Callable[[str], None] = print,
) -> list[Row]:
    """Measure every flavour at every size; medians over ``repeats`` for sizes <= 500.

    The repeats take the flavours in turn (ours, anchor, ceiling, ours, ...), so a change in
    the machine's load during a size's measurements reaches every flavour alike.
    """
    rows: list[Row] = []
    one = _measure_isolated if isolate else measure
    for size in sizes:
        times = repeats if size <= REPEATS_UP_TO else 1
        samples: dict[str, list[Row]] = {kind: [] for kind in KINDS}
        for _ in range(times):
            for kind in KINDS:
                samples[kind].append(one(kind, size))
        for kind in KINDS:
            rows.append(_median(samples[kind]))
            log(f"  {kind:7} {size:5} members: {json.dumps(asdict(rows[-1]))}")
    return rows


# ----------------------------------------------------------------------- output


def table(rows: Sequence[Row]) -> str:
    """The Markdown table: per size, ours vs anchor and the ratio ours / anchor."""
    lines = [
        "| members | assembly ms/member: ours / anchor (ratio) "
        "| assembly CPU ms/member: ours / anchor "
        "| RSS MB/member: ours / anchor | turns/s: ours / anchor (ratio) "
        "| CPU ms/turn: ours / anchor | p95 turn ms: ours / anchor | threads (ours) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for ours, anchor in _pairs(rows):
        lines.append(
            f"| {ours.members} "
            f"| {ours.assembly_ms:.2f} / {anchor.assembly_ms:.2f} "
            f"({ours.assembly_ms / anchor.assembly_ms:.1f}×) "
            f"| {ours.assembly_cpu_ms:.2f} / {anchor.assembly_cpu_ms:.2f} "
            f"| {ours.rss_mb:.3f} / {anchor.rss_mb:.3f} "
            f"| {ours.turns_per_s:.0f} / {anchor.turns_per_s:.0f} "
            f"({ours.turns_per_s / anchor.turns_per_s:.2f}×) "
            f"| {ours.turn_cpu_ms:.1f} / {anchor.turn_cpu_ms:.1f} "
            f"| {ours.p95_ms:.0f} / {anchor.p95_ms:.0f} | {ours.threads} |"
        )
    return "\n".join(lines)


def targets_table(rows: Sequence[Row], at: int = 500) -> str:
    """The issue's targets at ``at`` members (Markdown), when that size was measured."""
    pairs = {ours.members: (ours, anchor) for ours, anchor in _pairs(rows)}
    if at not in pairs:
        return f"(no measurement at {at} members)"
    ours, anchor = pairs[at]
    ratio = ours.turns_per_s / anchor.turns_per_s
    checks = (
        (
            "assembly per member",
            f"≤ {TARGET_ASSEMBLY_MS:g} ms",
            f"{ours.assembly_ms:.2f} ms",
            ours.assembly_ms <= TARGET_ASSEMBLY_MS,
        ),
        (
            "RSS per member",
            f"≤ {TARGET_RSS_MB:g} MB",
            f"{ours.rss_mb:.3f} MB",
            ours.rss_mb <= TARGET_RSS_MB,
        ),
        (
            "turns per second",
            f"≥ {TARGET_TURNS_RATIO:g}× anchor",
            f"{ratio:.2f}× ({ours.turns_per_s:.0f} vs {anchor.turns_per_s:.0f})",
            ratio >= TARGET_TURNS_RATIO,
        ),
    )
    lines = [f"| at {at} members | target | measured | met |", "|---|---|---|---|"]
    lines += [
        f"| {what} | {target} | {got} | {'yes' if ok else 'no'} |"
        for what, target, got, ok in checks
    ]
    cpu_ok = "yes" if ours.assembly_cpu_ms <= TARGET_ASSEMBLY_MS else "no"
    lines.append(
        f"| (for reference) CPU per member during assembly | ≤ {TARGET_ASSEMBLY_MS:g} ms | "
        f"{ours.assembly_cpu_ms:.2f} ms | {cpu_ok} |"
    )
    ceiling = next((r for r in rows if r.kind == "ceiling" and r.members == at), None)
    if ceiling is not None:
        reach = ceiling.turns_per_s / anchor.turns_per_s
        lines.append(
            "| (for reference) ceiling: the anchor + the member's other tools + nine core "
            "messages a turn, none of our code "
            f"| ≥ {TARGET_TURNS_RATIO:g}× anchor | {reach:.2f}× "
            f"| {'yes' if reach >= TARGET_TURNS_RATIO else 'no'} |"
        )
    if 1000 in pairs:  # a run only gets here when every member took its turn
        lines.append("| 1,000 members assemble and all take a turn | yes | yes | yes |")
    return "\n".join(lines)


def ceiling_table(rows: Sequence[Row]) -> str:
    """Turns per second of the anchor, the ceiling and ours, with their ratios to the anchor."""
    by_key = {(row.kind, row.members): row for row in rows}
    lines = [
        "| members | turns/s: anchor | turns/s: ceiling, the anchor + the member's other tools "
        "+ nine core messages a turn (ratio) "
        "| turns/s: ours (ratio) |",
        "|---:|---:|---:|---:|",
    ]
    for ours, anchor in _pairs(rows):
        ceiling = by_key.get(("ceiling", ours.members))
        if ceiling is None:
            continue
        lines.append(
            f"| {ours.members} | {anchor.turns_per_s:.0f} "
            f"| {ceiling.turns_per_s:.0f} ({ceiling.turns_per_s / anchor.turns_per_s:.2f}×) "
            f"| {ours.turns_per_s:.0f} ({ours.turns_per_s / anchor.turns_per_s:.2f}×) |"
        )
    return "\n".join(lines)


def _pairs(rows: Sequence[Row]) -> list[tuple[Row, Row]]:
    by_key = {(row.kind, row.members): row for row in rows}
    sizes = sorted({row.members for row in rows})
    return [(by_key[("ours", size)], by_key[("anchor", size)]) for size in sizes]


def chart(rows: Sequence[Row], path: Path = CHART) -> Path:
    """Three panels against the member count (log x): assembly, RSS, turns per second.

    The issue's targets are drawn as dotted lines: 5 ms and 0.25 MB per member, and 0.8
    times the anchor's turns per second.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = (
        ("assembly_ms", "assembly, ms per member"),
        ("rss_mb", "resident memory, MB per member"),
        ("turns_per_s", "turns per second, all at once"),
    )
    figure, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for axis, (metric, title) in zip(axes, panels, strict=True):
        for kind, style, label in (
            ("ours", "o-", "akgentic member"),
            ("anchor", "s--", "bare pydantic-ai Agent"),
            ("ceiling", "^-.", "ceiling: + member's tools, nine core messages a turn"),
        ):
            if kind == "ceiling" and metric != "turns_per_s":
                continue  # its assembly and memory are the anchor's
            mine = sorted((r for r in rows if r.kind == kind), key=lambda r: r.members)
            values = [getattr(r, metric) for r in mine]
            axis.plot([r.members for r in mine], values, style, label=label)
        axis.set_xscale("log")
        axis.set_title(title, fontsize=10)
        axis.set_xlabel("members")
        axis.grid(True, which="both", alpha=0.3)
    _targets(axes, rows)
    axes[0].legend(fontsize=8)
    figure.tight_layout()
    # No date in the SVG: a rerun with the same figures gives the same file.
    figure.savefig(path, format="svg", metadata={"Date": None})
    plt.close(figure)
    return path


def _targets(axes: Any, rows: Sequence[Row]) -> None:
    """The issue's targets on the three panels (dotted, grey)."""
    style = {"color": "grey", "linestyle": ":", "linewidth": 1}
    axes[0].axhline(TARGET_ASSEMBLY_MS, label=f"target {TARGET_ASSEMBLY_MS:g} ms", **style)
    axes[1].axhline(TARGET_RSS_MB, label=f"target {TARGET_RSS_MB:g} MB", **style)
    anchor = sorted((r for r in rows if r.kind == "anchor"), key=lambda r: r.members)
    axes[2].plot(
        [r.members for r in anchor],
        [TARGET_TURNS_RATIO * r.turns_per_s for r in anchor],
        label=f"target {TARGET_TURNS_RATIO:g}x anchor",
        **style,
    )
    for axis in axes:  # from zero, and high enough to show the target line
        axis.set_ylim(0, max(axis.get_ylim()[1], 1.15 * _highest_target(axis)))
    for axis in axes[1:]:
        axis.legend(fontsize=8)


def _highest_target(axis: Any) -> float:
    lines = [line for line in axis.get_lines() if str(line.get_label()).startswith("target")]
    return max((max(line.get_ydata()) for line in lines), default=0.0)


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"--sizes takes positive integers (10,100), got {text!r}")
    return sizes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Team-scale benchmark (issue 19).")
    parser.add_argument("--sizes", type=_sizes, help="comma-separated member counts")
    parser.add_argument("--quick", action="store_true", help="10 and 50 members, one repeat")
    parser.add_argument("--repeats", type=int, default=3, help="repeats for sizes <= 500")
    parser.add_argument("--no-chart", action="store_true", help="do not write team.svg")
    parser.add_argument("--in-process", action="store_true", help="no fresh process per run")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:  # the child process of _measure_isolated
        print(json.dumps(asdict(measure(args.one[0], int(args.one[1])))))
        return 0
    sizes = args.sizes or list(QUICK_SIZES if args.quick else SIZES)
    repeats = 1 if args.quick else args.repeats
    rows = run(sizes, repeats=repeats, isolate=not args.in_process)
    print()
    print(table(rows))
    print()
    print(targets_table(rows))
    print()
    print(ceiling_table(rows))
    if not args.no_chart:
        print(f"\nchart: {chart(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
