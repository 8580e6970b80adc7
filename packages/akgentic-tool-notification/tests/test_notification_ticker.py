"""The background ticker: a daemon thread that ends with its actor and never lets scan
requests pile up behind a busy actor."""

from __future__ import annotations

import threading
import time
from datetime import datetime

from akgentic_notification_testkit import ManualClock

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import eventually, team_tool_actor
from akgentic.tool.notification import NotificationActor, NotificationConfig

TICK = 0.05


class HoldingClock(ManualClock):
    """Records when each scan reads it; while ``held`` is set, the reading scan blocks."""

    def __init__(self) -> None:
        super().__init__()
        self.readings: list[float] = []
        self.held = threading.Event()
        self.release = threading.Event()

    def now(self) -> datetime:
        self.readings.append(time.monotonic())
        if self.held.is_set():
            self.release.wait(3)  # freed by the test, or after 3 s
        return super().now()


def tickers() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("notification-ticker-")}


def fast_notifier(system: ActorSystem, orchestrator: ActorAddress) -> NotificationActor:
    return team_tool_actor(
        system, orchestrator, NotificationActor, NotificationConfig(tick_seconds=TICK)
    )


def test_the_ticker_is_a_daemon_that_ends_with_its_actor(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    before = tickers()
    notifier = fast_notifier(actor_system, orchestrator)
    started = eventually(lambda: tickers() - before)
    # A team left running never keeps the process from exiting.
    assert all(ticker.daemon for ticker in started)
    notifier.stop()
    eventually(lambda: not any(ticker.is_alive() for ticker in started))


def test_scan_requests_do_not_pile_up_behind_a_busy_actor(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    clock = HoldingClock()
    clock.held.set()
    notifier = fast_notifier(actor_system, orchestrator)
    notifier.set_clock(clock)
    try:
        eventually(lambda: clock.readings)  # a scan is now stuck on the clock
        time.sleep(20 * TICK)  # twenty beats pass while the actor is busy
        clock.held.clear()
        released = time.monotonic()
        clock.release.set()
        time.sleep(5 * TICK)
    finally:
        clock.held.clear()
        clock.release.set()
    burst = [t for t in clock.readings if released <= t < released + 4 * TICK]
    # At most one request was waiting, then the normal pace: about four scans, not twenty.
    assert len(burst) <= 10, len(burst)
