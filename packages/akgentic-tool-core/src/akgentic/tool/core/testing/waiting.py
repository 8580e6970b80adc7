"""Waiting for actors: poll a condition, or let the orchestrator drain its mailbox."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.testing._text import describe, shorten

__all__ = ["eventually", "settle"]


def eventually(
    predicate: Callable[[], Any],
    timeout: float = 5.0,
    interval: float = 0.01,
    *,
    what: str | None = None,
) -> Any:
    """Poll ``predicate`` until it returns something truthy, and return that value.

    After ``timeout`` seconds the test fails with ``what`` (or the predicate's source when
    it is a lambda, its name otherwise) and the last value it returned.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(
                f"condition not met within {timeout} s: {what or describe(predicate)} "
                f"last returned {shorten(value)}"
            )
        time.sleep(interval)


def settle(system: ActorSystem, orchestrator_address: ActorAddress) -> None:
    """Return once the orchestrator has processed every message sent to it so far."""
    system.proxy_ask(orchestrator_address, Orchestrator).get_team()
