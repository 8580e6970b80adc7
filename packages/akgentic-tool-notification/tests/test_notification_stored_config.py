"""Stored NotificationTool data of akgentic-tool 1.6.4 loads, round-trips and works.

``fixtures/stored_config.yaml`` holds cards, actor configs and a persisted actor state
written with that version's field names. Each loads (the round trips of cards and configs
are standard tests, in test_standard.py), the cards are bound through ``ToolFactory`` in a
real team and used; the state round-trips and its entries are delivered.
"""

from __future__ import annotations

import sys
import uuid
from typing import Any

import pytest
import yaml
from akgentic_notification_testkit import ManualClock, notification_actor, notifications

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import StoredFormTests, ToolTestAgent, eventually
from akgentic.tool.notification import (
    DEFAULT_MAX_DELAY_SECONDS,
    NotificationActor,
    NotificationConfig,
    NotificationState,
    NotificationTool,
    PendingNotification,
)

ENTRIES = StoredFormTests.stored_entries(__file__, yaml.safe_load)
CARDS = [e for e in ENTRIES if e.get("card") == "NotificationTool"]
CONFIGS = [e for e in ENTRIES if e.get("config_model") == "NotificationConfig"]
(STATE,) = [e for e in ENTRIES if e.get("state_model") == "NotificationState"]

pytest.importorskip("akgentic.agent.messages", reason="the default delivery class")


@pytest.mark.parametrize("entry", CARDS, ids=[str(i) for i in range(len(CARDS))])
def test_stored_card_loads_round_trips_and_works(
    entry: dict[str, Any], tool_agent: ToolTestAgent, notifier: NotificationActor
) -> None:
    # Round trips are a standard test (test_standard.py); here the loaded card works.
    card = NotificationTool.model_validate(entry["config"])
    factory = ToolFactory([card], observer=tool_agent)
    callables = {fn.__name__: fn for fn in factory.get_tools()}
    for name in factory.commands.names():
        callables.setdefault(name, factory.commands.get(name))
    answer = callables["register_notification"]("stored card works", 30)
    assert answer.startswith("Scheduled notification 1:")
    assert [e.content for e in notifier.pending().entries] == ["stored card works"]
    assert callables["cancel_notification"](1).startswith("Cancelled notification 1")


@pytest.mark.parametrize("entry", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_stored_actor_config_loads_with_the_default_message_class(entry: dict[str, Any]) -> None:
    # Its round trip is a standard test (test_standard.py).
    config = NotificationConfig.model_validate(entry["config"])
    assert config.message_class == "akgentic.agent.messages.AgentMessage"


def test_stored_state_loads_round_trips_and_its_entries_are_delivered(
    actor_system: ActorSystem, orchestrator: ActorAddress, clock: ManualClock
) -> None:
    state = NotificationState.model_validate(STATE["config"])
    assert state.next_id == 3
    assert sorted(state.pending) == [1, 2]
    first = state.pending[1]
    assert isinstance(first, PendingNotification)
    assert first.owner.name == "@Developer"
    assert first.owner_id == uuid.UUID("6f1c2a52-9a56-4a3b-8f7e-0d3c1b7a9e11")
    assert first.message_class == "akgentic.agent.messages.AgentMessage"
    again = NotificationState.model_validate(state.model_dump())
    assert again.pending[2].content == "look at the nightly run"
    assert again.pending[2].fire_at == state.pending[2].fire_at
    assert again.next_id == 3

    # The owner is back in the team (same agent_id): the overdue entries are delivered to it,
    # as AgentMessage notifications, and the next registration continues the numbering.
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.createActor(
        ToolTestAgent, agent_id=first.owner_id, config=BaseConfig(name="@Developer", role="Dev")
    )
    owner = actor_system.proxy_ask(address, ToolTestAgent).itself()
    notifier = notification_actor(actor_system, orchestrator)
    notifier.set_clock(clock)
    notifier.init_state(again)
    assert notifier.tick() == [1, 2]
    received = eventually(lambda: len(notifications(owner)) == 2 and notifications(owner))
    assert [m.content for m in received] == ["check CI", "look at the nightly run"]
    assert type(received[0]).__name__ == "AgentMessage"
    tools = {t.__name__: t for t in ToolFactory([NotificationTool()], observer=owner).get_tools()}
    assert tools["register_notification"]("next", 10).startswith("Scheduled notification 3:")


def test_default_card_delivers_an_agent_message(
    tool_agent: ToolTestAgent, notifier: NotificationActor, clock: ManualClock
) -> None:
    """With akgentic-agent installed, `NotificationTool()` works with its default class."""
    from akgentic.agent.messages import AgentMessage

    card = NotificationTool()
    assert card.max_delay_seconds == DEFAULT_MAX_DELAY_SECONDS
    assert "akgentic.agent" in sys.modules  # resolved when bound, not before
    tools = {t.__name__: t for t in ToolFactory([card], observer=tool_agent).get_tools()}
    tools["register_notification"]("check CI", 5)
    clock.advance(5)
    assert notifier.tick() == [1]
    (message,) = eventually(lambda: notifications(tool_agent))
    assert isinstance(message, AgentMessage)
    assert (message.content, message.type) == ("check CI", "notification")
