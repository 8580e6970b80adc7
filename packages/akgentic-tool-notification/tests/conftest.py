"""Fixtures for the notification tests: a manual clock, delivery classes, team helpers."""

# ruff: noqa: F811
from __future__ import annotations

import sys
import types
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Self

import pytest
from pydantic import field_validator, model_validator

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.messages.message import Message
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core import ToolFactory

# Core's testing kit fixtures, imported rather than declared with `pytest_plugins`: pytest
# refuses `pytest_plugins` in a conftest below the rootdir when the whole workspace runs.
# Fixture parameters below reuse these names, as pytest requires (hence F811 off here).
from akgentic.tool.core.testing import (  # noqa: F401
    RecordedTeam,
    TeamRecorder,
    ToolTestAgent,
    actor_system,
    agent_at,
    eventually,
    orchestrator,
    record_team,
    team_tool_actor,
    tool_agent,
)
from akgentic.tool.errors import RetriableError
from akgentic.tool.notification import NotificationActor, NotificationConfig, NotificationTool

# Everything defined here is also published as the module ``akgentic_notification_testkit``:
# test files import their helpers from it (pytest's importlib mode puts no test directory on
# sys.path), and a card names the delivery classes below by dotted path through it, the way
# a deployment names its own message class.
MESSAGES_MODULE = "akgentic_notification_testkit"
_module = types.ModuleType(MESSAGES_MODULE)


class ReminderMessage(Message):
    """A delivery class accepting any ``type`` string."""

    content: str
    type: str = "message"


class StrictReminder(Message):
    """A delivery class whose ``type`` Literal includes 'notification'."""

    content: str
    type: Literal["message", "notification"] = "message"


class ChatOnlyMessage(Message):
    """Its ``type`` Literal excludes 'notification'."""

    content: str
    type: Literal["message", "question"] = "message"


class NoTypeMessage(Message):
    content: str


class NoContentMessage(Message):
    type: str = "message"


class NeedsTopicMessage(Message):
    """Has a required field a notification cannot fill."""

    content: str
    type: str = "message"
    topic: str


class NeedsTopicAndPriorityMessage(Message):
    """Two required fields a notification cannot fill."""

    content: str
    type: str = "message"
    topic: str
    priority: int


class FragileReminder(Message):
    """Valid at bind time; refuses to be built for content starting with 'boom'."""

    content: str
    type: str = "message"

    @field_validator("content")
    @classmethod
    def _no_boom(cls, value: str) -> str:
        if value.startswith("boom"):
            raise ValueError("this content cannot be delivered")
        return value


class TypeRequiredReminder(Message):
    """Both fields required: delivery fills both, so this class can carry a notification."""

    content: str
    type: str


class RefusesNotifications(Message):
    """Declares what is needed, but its own validation refuses every notification."""

    content: str
    type: str = "message"

    @model_validator(mode="after")
    def _no_notifications(self) -> Self:
        if self.type == "notification":
            raise ValueError("this channel does not take notifications")
        return self


NotAMessage = BaseConfig

for _cls in (
    ReminderMessage,
    StrictReminder,
    ChatOnlyMessage,
    NoTypeMessage,
    NoContentMessage,
    NeedsTopicMessage,
    NeedsTopicAndPriorityMessage,
    FragileReminder,
    TypeRequiredReminder,
    RefusesNotifications,
):
    _cls.__module__ = MESSAGES_MODULE
    setattr(_module, _cls.__name__, _cls)
_module.NotAMessage = NotAMessage  # type: ignore[attr-defined]


def message_path(cls: type | str) -> str:
    name = cls if isinstance(cls, str) else cls.__name__
    return f"{MESSAGES_MODULE}.{name}"


REMINDER = message_path(ReminderMessage)


class ManualClock:
    """A clock that moves only when the test says so."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def notification_actor(system: ActorSystem, orchestrator: ActorAddress) -> NotificationActor:
    """An ask proxy to the team's #NotificationTool, created first if missing.

    Created here, it gets a ticker that practically never fires: tests scan with explicit
    ``tick()`` calls, so a background scan can never deliver an entry between a clock move
    and the scan a test asserts on. Cards attached later bind to this same actor by name.
    """
    return team_tool_actor(
        system, orchestrator, NotificationActor, NotificationConfig(tick_seconds=3600)
    )


@pytest.fixture
def notifier(
    actor_system: ActorSystem, orchestrator: ActorAddress, clock: ManualClock
) -> NotificationActor:
    """#NotificationTool created up front and driven by the manual clock."""
    proxy = notification_actor(actor_system, orchestrator)
    proxy.set_clock(clock)
    return proxy


def start_member(
    system: ActorSystem,
    orchestrator: ActorAddress,
    name: str,
    agent_id: uuid.UUID | None = None,
) -> ToolTestAgent:
    """A team member, optionally with a fixed agent_id (a resumed agent keeps its id)."""
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.createActor(
        ToolTestAgent, agent_id=agent_id, config=BaseConfig(name=name, role="Tester")
    )
    return agent_at(system, address)


def stop_member(system: ActorSystem, orchestrator: ActorAddress, agent: ToolTestAgent) -> None:
    """Stop ``agent`` and wait until the orchestrator no longer lists it."""
    address = agent.myAddress
    system.proxy_ask(address, ToolTestAgent).stop()
    orch = system.proxy_ask(orchestrator, Orchestrator)
    eventually(lambda: all(m.agent_id != address.agent_id for m in orch.get_team()))


def new_team(system: ActorSystem) -> tuple[ActorAddress, TeamRecorder]:
    """A fresh orchestrator (a new team, or a resumed one) and core's recorder on it."""
    address = system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    return address, record_team(system, address)


def resume_notifier(
    system: ActorSystem, orchestrator: ActorAddress, persisted: RecordedTeam, clock: ManualClock
) -> NotificationActor:
    """Recreate #NotificationTool in ``orchestrator`` from its last state in ``persisted``
    (what core's recorder kept of the previous life)."""
    state = persisted.state_of("#NotificationTool")
    proxy = notification_actor(system, orchestrator)
    proxy.set_clock(clock)
    proxy.init_state(state)
    return proxy


def tools_of(card: NotificationTool, agent: Any) -> dict[str, Any]:
    """The callables ``card`` gives ``agent`` once bound, by name."""
    factory = ToolFactory([card], observer=agent)
    return {tool.__name__: tool for tool in factory.get_tools()}


def bind(agent: Any, **card: Any) -> dict[str, Any]:
    """The callables of a card delivering ``ReminderMessage`` (plus ``card`` fields), bound to
    ``agent``: the set-up nearly every test starts from."""
    return tools_of(NotificationTool(message_class=REMINDER, **card), agent)


@pytest.fixture
def tools(tool_agent: ToolTestAgent, notifier: NotificationActor) -> dict[str, Any]:
    """``tool_agent``'s callables of a ``ReminderMessage`` card, bound after #NotificationTool
    was created on the manual clock (so the card joins that actor)."""
    return bind(tool_agent)


@pytest.fixture
def other(
    actor_system: ActorSystem, orchestrator: ActorAddress, notifier: NotificationActor
) -> ToolTestAgent:
    """A second member, @Other, in ``tool_agent``'s team (whose #NotificationTool exists)."""
    return start_member(actor_system, orchestrator, "@Other")


def refusal(fn: Any, *args: Any, **kwargs: Any) -> str:
    """The text of the ``RetriableError`` that calling ``fn`` must raise."""
    with pytest.raises(RetriableError) as info:
        fn(*args, **kwargs)
    return str(info.value)


def contents(notifier: NotificationActor) -> list[str]:
    """The texts #NotificationTool holds, in the order it lists them."""
    return [e.content for e in notifier.pending().entries]


def persisted(record: RecordedTeam) -> list[str]:
    """The texts of the last state #NotificationTool published into ``record``."""
    return [e.content for e in record.state_of("#NotificationTool").pending.values()]


def clocked_team(
    system: ActorSystem, clock: ManualClock
) -> tuple[ActorAddress, TeamRecorder, NotificationActor]:
    """A fresh team, core's recorder on it, and its #NotificationTool driven by ``clock``."""
    team, recorder = new_team(system)
    notifier = notification_actor(system, team)
    notifier.set_clock(clock)
    return team, recorder, notifier


def notifications(agent: ToolTestAgent) -> list[Message]:
    """What #NotificationTool delivered to ``agent``, in arrival order."""
    return [
        m
        for m in list(agent.received)
        if isinstance(m, Message) and getattr(m, "type", None) == "notification"
    ]


_module.__dict__.update({k: v for k, v in globals().items() if not k.startswith("__")})
sys.modules[MESSAGES_MODULE] = _module
