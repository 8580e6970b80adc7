"""What NotificationTool costs, against baselines measured in the same run.

1. ``register_notification`` through the tool (one ask to ``#NotificationTool``) against a
   bare ask of a no-op method on the same actor: the actor round trip is the floor.
2. An idle scan (``tick`` with 1,000 entries pending, none due), the price paid once a
   second by every team using the tool, against the same bare ask.
3. A scan delivering 1,000 due entries to 20 owners, against 1,000 raw tells of the same
   messages straight to the owners' mailboxes (delivery with no bookkeeping at all).
4. ``register_notification`` with 20,000 entries pending, against the same call on an
   empty actor (1.): registering must not cost more as the actor fills up.

Run: .venv/bin/python packages/akgentic-tool-notification/benchmarks/bench_notification.py
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent, team_tool_actor
from akgentic.tool.core.testing.benchmark import bench_row, median_seconds
from akgentic.tool.core.testing.published_module import publish_module
from akgentic.tool.notification import (
    PENDING_MAX_PER_AGENT,
    NotificationActor,
    NotificationConfig,
    NotificationTool,
)

MODULE = "akgentic_notification_bench"
OWNERS = 20
ENTRIES = 1_000
CROWD = 20_000


class BenchReminder(Message):
    content: str
    type: str = "message"


class _Owner(Akgent[BaseConfig, BaseState]):
    def on_start(self) -> None:
        self.count = 0

    def receiveMsg_BenchReminder(self, message: BenchReminder) -> None:
        self.count += 1

    def itself(self) -> _Owner:
        return self


class _Clock:
    def __init__(self) -> None:
        self.now_value = datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> datetime:
        return self.now_value


def _median_register(
    register: Callable[..., Any], notifier: NotificationActor, repeat: int
) -> float:
    """Median of ``repeat`` registrations by one agent, cleared (untimed) whenever it reaches
    the per-agent limit on pending entries."""

    def clear_when_full(index: int) -> None:
        if index and index % PENDING_MAX_PER_AGENT == 0:
            for entry in notifier.pending().entries:
                notifier.cancel(entry.notification_id, entry.owner_id)

    return median_seconds(lambda: register("benchmark entry", 300), repeat, before=clear_when_full)


def _crowded_register(system: ActorSystem, empty: float) -> float:
    """Median registration through a card while ``CROWD`` entries are pending, in a team of
    its own whose actor allows that many (the defaults stop at 5,000)."""
    orchestrator = system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    orch = system.proxy_ask(orchestrator, Orchestrator)
    config = NotificationConfig(
        tick_seconds=3600, max_pending_per_agent=2 * CROWD, max_pending_total=2 * CROWD
    )
    notifier = team_tool_actor(system, orchestrator, NotificationActor, config)
    carrier = system.proxy_ask(
        orch.createActor(ToolTestAgent, config=BaseConfig(name="@Crowd")), ToolTestAgent
    ).itself()
    for i in range(CROWD):
        notifier.schedule(carrier.myAddress, f"crowd {i}", 3600, f"{MODULE}.BenchReminder")
    card = NotificationTool(message_class=f"{MODULE}.BenchReminder")
    register = ToolFactory([card], observer=carrier).commands.get("register_notification")
    return median_seconds(lambda: register("benchmark entry", 300), 201)


def _wait(predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError("benchmark delivery did not complete")
        time.sleep(0.001)


def _bench(workload: str, seconds: float, base: float, baseline: str) -> None:
    """One machine-readable row for scripts/bench.py (this issue sets no target here)."""
    bench_row(workload, seconds, ratio=seconds / base, baseline=baseline)


def main() -> None:
    # Cards name the delivery class by dotted path; a script's own module is __main__.
    publish_module(MODULE, {"BenchReminder": BenchReminder}, rehome=[BenchReminder])

    system = ActorSystem()
    try:
        orchestrator = system.createActor(
            Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        orch = system.proxy_ask(orchestrator, Orchestrator)
        notifier = team_tool_actor(system, orchestrator, NotificationActor, NotificationConfig())
        clock = _Clock()
        notifier.set_clock(clock)
        owners = [
            system.proxy_ask(
                orch.createActor(_Owner, config=BaseConfig(name=f"@O{i}", role="Owner")), _Owner
            ).itself()
            for i in range(OWNERS)
        ]
        carrier = system.proxy_ask(
            orch.createActor(ToolTestAgent, config=BaseConfig(name="@Carrier")), ToolTestAgent
        ).itself()
        card = NotificationTool(message_class=f"{MODULE}.BenchReminder")
        register = ToolFactory([card], observer=carrier).commands.get("register_notification")

        bare_ask = median_seconds(notifier.now, 501)
        reg = _median_register(register, notifier, 501)
        print(
            f"register_notification   {reg * 1e6:8.0f} us   bare ask {bare_ask * 1e6:6.0f} us"
            f"   ratio {reg / bare_ask:5.1f}x"
        )
        _bench("register_notification", reg, bare_ask, "bare ask to the actor")
        for entry in notifier.pending().entries:
            notifier.cancel(entry.notification_id, entry.owner_id)

        # 1,000 entries, one per (owner, k), all due at the same later instant.
        # One card per owner: a card captures the agent it is attached to, so sharing one
        # would register every entry for the last owner bound.
        regs = [
            ToolFactory(
                [NotificationTool(message_class=card.message_class)],
                observer=owner,
            ).commands.get("register_notification")
            for owner in owners
        ]
        for k in range(ENTRIES // OWNERS):
            for reg_fn in regs:
                reg_fn(f"entry {k}", 60)
        idle = median_seconds(notifier.tick, 51)
        print(
            f"idle scan, {ENTRIES} pending {idle * 1e6:8.0f} us   bare ask {bare_ask * 1e6:6.0f} us"
            f"   ratio {idle / bare_ask:5.1f}x"
        )
        _bench(f"idle scan, {ENTRIES} pending", idle, bare_ask, "bare ask to the actor")

        clock.now_value += timedelta(seconds=60)
        started = time.perf_counter()
        delivered = notifier.tick()
        _wait(lambda: sum(o.count for o in owners) == ENTRIES)
        scan = time.perf_counter() - started
        assert len(delivered) == ENTRIES

        started = time.perf_counter()
        for k in range(ENTRIES // OWNERS):
            for owner in owners:
                owner.actor_ref.tell(BenchReminder(content=f"raw {k}", type="notification"))
        _wait(lambda: sum(o.count for o in owners) == 2 * ENTRIES)
        raw = time.perf_counter() - started
        print(
            f"deliver {ENTRIES} due entries   {scan * 1e3:6.1f} ms   raw tells {raw * 1e3:6.1f} ms"
            f"   ratio {scan / raw:5.1f}x"
        )
        _bench(f"deliver {ENTRIES} due entries", scan, raw, f"{ENTRIES} raw tells")

        crowded = _crowded_register(system, reg)
        print(
            f"register, {CROWD} pending {crowded * 1e6:8.0f} us   empty actor {reg * 1e6:6.0f} us"
            f"   ratio {crowded / reg:5.1f}x"
        )
        _bench(f"register_notification, {CROWD} pending", crowded, reg, "empty actor")
    finally:
        system.shutdown(timeout=10)


if __name__ == "__main__":
    main()
