"""A testing kit for tool authors: real actors, a real orchestrator, a conformance check.

Use it as a pytest plugin from a ``conftest.py``::

    pytest_plugins = ["akgentic.tool.core.testing"]

and ask for the fixtures ``actor_system``, ``orchestrator`` and ``tool_agent``. Everything
runs on akgentic-core's real (Pykka) actor system: a tool actor created with
``getChildrenOrCreate`` is a real child of a real orchestrator, and events a tool emits
really reach the orchestrator's stream. Requires the ``testing`` extra (pytest).
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import math
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Self, cast

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message
from akgentic.core.messages.orchestrator import StartMessage, StateChangedMessage, StopMessage
from akgentic.core.orchestrator import EventSubscriber, Orchestrator
from akgentic.core.utils.deserializer import deserialize_object, import_class
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.core.vector_store import (
    VECTOR_STORE_NAME,
    CollectionConfig,
    CollectionStats,
    UnknownCollectionError,
    UpsertReceipt,
    VectorDocument,
    VectorHit,
    VectorQuery,
    VectorSearchResult,
    validate_collection_name,
)
from akgentic.tool.errors import RetriableError

__all__ = [
    "ConformanceRetry",
    "RecordedTeam",
    "TeamRecorder",
    "ToolTestAgent",
    "actor_system",
    "assert_card_conformance",
    "eventually",
    "orchestrator",
    "orchestrator_events",
    "record_team",
    "resume_team",
    "settle",
    "spawn_tool_agent",
    "stop_team",
    "tool_agent",
]


class ToolTestAgent(Akgent[BaseConfig, BaseState]):
    """A team member that carries tools in tests, the way a real agent does.

    It is a plain akgentic-core agent, so it satisfies ``ActorToolObserver`` as is
    (``notify_event``, ``myAddress``, ``orchestrator``, ``team_id``, ``proxy_ask``), plus the
    team-management hooks ``createActor`` (inherited), ``on_hire`` and ``on_fire``. It keeps
    what it did in ``events``, ``hired`` and ``fired`` so tests can assert on them.
    """

    def on_start(self) -> None:
        self.events: list[object] = []
        self.hired: list[ActorAddress] = []
        self.fired: list[ActorAddress] = []
        self.received: list[object] = []

    def itself(self) -> Self:
        """The actor instance (asked from outside to get a direct reference)."""
        return self

    def notify_event(self, event: object) -> None:
        self.events.append(event)
        super().notify_event(event)

    def on_hire(self, member: ActorAddress) -> None:
        """Record a member hired through this agent."""
        self.hired.append(member)

    def on_fire(self, member: ActorAddress) -> None:
        """Record and stop a member fired through this agent."""
        self.fired.append(member)
        if member.is_alive():
            self.proxy_ask(member, Akgent).stop()

    def receiveMsg_Message(self, message: object) -> None:
        """Keep every message delivered to this agent (e.g. notifications)."""
        self.received.append(message)


def spawn_tool_agent(
    system: ActorSystem,
    orchestrator_address: ActorAddress,
    name: str = "@Tester",
    agent_class: type[ToolTestAgent] = ToolTestAgent,
    role: str = "Tester",
) -> ToolTestAgent:
    """Start ``agent_class`` as a member of the orchestrator's team and return the instance."""
    orch = system.proxy_ask(orchestrator_address, Orchestrator)
    address = orch.createActor(agent_class, config=BaseConfig(name=name, role=role))
    agent: ToolTestAgent = system.proxy_ask(address, agent_class).itself()
    return agent


def orchestrator_events(
    system: ActorSystem, orchestrator_address: ActorAddress, event_class: type | None = None
) -> list[Any]:
    """The domain events that reached the orchestrator's stream, oldest first."""
    orch = system.proxy_ask(orchestrator_address, Orchestrator)
    return [message.event for message in orch.get_events(event_class=event_class)]


def eventually(predicate: Callable[[], Any], timeout: float = 5.0, interval: float = 0.01) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail the test after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(
                f"condition not met within {timeout} s: {_describe(predicate)} "
                f"last returned {_shorten(value)}"
            )
        time.sleep(interval)


def _describe(predicate: Callable[[], Any]) -> str:
    """The predicate's source line when it is a lambda, so a failure says what was awaited."""
    name = getattr(predicate, "__name__", repr(predicate))
    if name != "<lambda>":
        return name
    try:
        source = inspect.getsource(predicate).strip()
    except (OSError, TypeError):
        return repr(predicate)
    return _shorten(source, 160)


@pytest.fixture
def actor_system() -> Iterator[ActorSystem]:
    """A real akgentic-core actor system, shut down after the test."""
    system = ActorSystem()
    try:
        yield system
    finally:
        system.shutdown(timeout=10)


@pytest.fixture
def orchestrator(actor_system: ActorSystem) -> ActorAddress:
    """A real orchestrator: the team every tool actor is created in."""
    return actor_system.createActor(
        Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
    )


@pytest.fixture
def tool_agent(actor_system: ActorSystem, orchestrator: ActorAddress) -> ToolTestAgent:
    """A running team member to attach cards to (``ToolFactory(cards, observer=tool_agent)``)."""
    return spawn_tool_agent(actor_system, orchestrator)


class ConformanceRetry(Exception):  # noqa: N818 - stands for the framework's retry signal
    """The retry exception the conformance check injects into ``ToolFactory``."""


def assert_card_conformance(
    card: ToolCard,
    *,
    observer: ToolObserver | None = None,
    bad_calls: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> None:
    """Check the rules every card must keep; raise ``AssertionError`` naming the broken one.

    - the card's class does not allow arbitrary types, and the card survives a JSON
      round-trip unchanged;
    - with an ``observer``, each call in ``bad_calls`` (tool name -> list of keyword
      arguments) asks the model to retry (raises the factory's retry exception): a bad call
      that returns as if it had worked fails the check, and so does a raw exception.
    """
    cls = type(card)
    if cls.model_config.get("arbitrary_types_allowed"):
        raise AssertionError(f"{cls.__name__} allows arbitrary types")
    try:
        text = card.model_dump_json()
        json.loads(text)
        again = cls.model_validate_json(text)
    except Exception as exc:
        raise AssertionError(f"{cls.__name__} does not round-trip through JSON: {exc}") from exc
    if again.model_dump() != card.model_dump():
        raise AssertionError(f"{cls.__name__} changed across a JSON round-trip")

    if not bad_calls:
        return
    if observer is None:
        raise AssertionError("bad_calls needs an observer to attach the card to")
    factory = ToolFactory([card], observer=observer, retry_exception=ConformanceRetry)
    tools = {getattr(tool, "__name__", ""): tool for tool in factory.get_tools()}
    for name, calls in bad_calls.items():
        if name not in tools:
            raise AssertionError(f"{cls.__name__} exposes no tool named {name!r}: {sorted(tools)}")
        for kwargs in calls:
            try:
                result = tools[name](**kwargs)
                if inspect.isawaitable(result):
                    asyncio.run(_await(result))
            except ConformanceRetry:
                continue
            except Exception as exc:
                raise AssertionError(
                    f"{cls.__name__}.{name}({dict(kwargs)!r}) let a raw "
                    f"{type(exc).__name__} escape: {exc}"
                ) from exc
            raise AssertionError(
                f"{cls.__name__}.{name}({dict(kwargs)!r}) is listed as a bad call but "
                f"succeeded (returned {_shorten(result)}); a bad call must raise RetriableError"
            )


def _shorten(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


async def _await(awaitable: Any) -> Any:
    return await awaitable


# -- stop and resume -------------------------------------------------------------------
#
# A team layer persists what the orchestrator publishes and, to resume, replays it into a
# new orchestrator and recreates the members. These helpers do exactly that with
# akgentic-core's own API, through JSON, so a tool's persistence is tested the way it runs.


@dataclass
class RecordedTeam:
    """What a persistence layer holds for a team: its messages and latest state per agent."""

    team_id: uuid.UUID
    events: list[str] = field(default_factory=list)
    states: dict[str, str] = field(default_factory=dict)
    state_count: dict[str, int] = field(default_factory=dict)

    def copy(self) -> RecordedTeam:
        """A frozen copy, as read from the store at one moment."""
        return RecordedTeam(
            self.team_id, list(self.events), dict(self.states), dict(self.state_count)
        )

    def messages(self) -> list[Message]:
        """The recorded history, deserialized, oldest first."""
        return [deserialize_object(json.loads(text)) for text in self.events]

    def state_of(self, name: str) -> Any:
        """The latest recorded state of the agent called ``name``."""
        for text in self.states.values():
            message = deserialize_object(json.loads(text))
            if message.sender is not None and message.sender.name == name:
                return message.state
        raise KeyError(f"no state recorded for {name!r}")


class TeamRecorder:
    """Orchestrator subscriber storing each message as JSON, as a real event store would.

    State snapshots are kept latest-per-agent (and counted); everything else is appended.
    """

    def __init__(self, team_id: uuid.UUID) -> None:
        self.record = RecordedTeam(team_id)

    def on_message(self, msg: Message) -> None:
        text = msg.model_dump_json()
        if isinstance(msg, StateChangedMessage) and msg.sender is not None:
            key = str(msg.sender.agent_id)
            self.record.states[key] = text
            self.record.state_count[key] = self.record.state_count.get(key, 0) + 1
        else:
            self.record.events.append(text)


def record_team(system: ActorSystem, orchestrator_address: ActorAddress) -> TeamRecorder:
    """Subscribe a :class:`TeamRecorder` to the team's orchestrator."""
    recorder = TeamRecorder(orchestrator_address.team_id)
    # Only on_message matters here; the orchestrator skips lifecycle hooks a subscriber lacks.
    orch = system.proxy_ask(orchestrator_address, Orchestrator)
    orch.subscribe(cast(EventSubscriber, recorder))
    return recorder


def settle(system: ActorSystem, orchestrator_address: ActorAddress) -> None:
    """Return once the orchestrator has processed every message sent to it so far."""
    system.proxy_ask(orchestrator_address, Orchestrator).get_team()


def stop_team(system: ActorSystem, orchestrator_address: ActorAddress) -> None:
    """Stop the team (members first, then tool actors) and wait until it is down."""
    system.proxy_ask(orchestrator_address, Orchestrator).stop().wait()


def resume_team(
    system: ActorSystem, recorded: RecordedTeam, *, restore_states: bool = True
) -> tuple[ActorAddress, dict[str, ActorAddress]]:
    """Bring a recorded team back the way a team layer does.

    A new orchestrator with the same team id replays the history; every member that had
    started and not stopped is recreated with its class, agent id and configuration; with
    ``restore_states`` each gets its latest recorded state through ``init_state``. Returns
    the new orchestrator and the recreated members by name.
    """
    address = system.createActor(
        Orchestrator,
        config=BaseConfig(name="@Orchestrator", role="Orchestrator"),
        team_id=recorded.team_id,
    )
    orch = system.proxy_ask(address, Orchestrator)
    history = recorded.messages()
    for message in history:
        orch.restore_message(message)
    stopped = {m.sender.agent_id for m in history if isinstance(m, StopMessage) and m.sender}
    states = {
        message.sender.agent_id: message.state
        for message in (deserialize_object(json.loads(t)) for t in recorded.states.values())
    }
    members: dict[str, ActorAddress] = {}
    for message in history:
        if not isinstance(message, StartMessage) or message.sender is None:
            continue
        sender = message.sender
        if sender.agent_id in stopped or sender.role == "Orchestrator":
            continue
        actor_class = import_class(sender.serialize()["__actor_type__"])
        member = orch.createActor(actor_class, agent_id=sender.agent_id, config=message.config)
        if restore_states and sender.agent_id in states:
            system.proxy_ask(member, Akgent).init_state(states[sender.agent_id])
        members[sender.name] = member
    orch.end_restoration()
    return address, members


# -- binding cards the way an agent does ---------------------------------------------------


class ToolRetry(Exception):  # noqa: N818 - stands for the agent framework's retry signal
    """The retry exception :func:`bind_card` injects into ``ToolFactory``.

    A tool raising ``RetriableError`` reaches the test as ``ToolRetry`` (the original error
    is its ``__cause__``), exactly as it reaches pydantic-ai as ``ModelRetry``.
    """


def card_callables(factory: ToolFactory) -> dict[str, Callable[..., Any]]:
    """A factory's tools and system prompts, by function name."""
    found = {getattr(fn, "__name__", ""): fn for fn in factory.get_tools()}
    found.update({getattr(fn, "__name__", ""): fn for fn in factory.get_system_prompts()})
    return found


def bind_card(observer: ToolObserver, card: ToolCard) -> dict[str, Callable[..., Any]]:
    """Attach ``card`` to ``observer`` as an agent would; return its callables by name."""
    return card_callables(ToolFactory([card], observer=observer, retry_exception=ToolRetry))


def expect_retry(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """Call a tool bound by :func:`bind_card` that must ask for a retry; return the message.

    Fails the test when the call succeeds or raises anything but a retry caused by a
    ``RetriableError``.
    """
    with pytest.raises(ToolRetry) as info:
        fn(*args, **kwargs)
    if not isinstance(info.value.__cause__, RetriableError):
        raise AssertionError(f"retry not caused by a RetriableError: {info.value.__cause__!r}")
    return str(info.value)


# -- a local vector store ----------------------------------------------------------------
#
# Consumers of the team's vector store (planning, the knowledge graph, third-party tools)
# may not import the package that implements it, and their tests must not call an
# embedding provider. LocalVectorStore is a real actor that speaks core's VectorStore
# protocol and embeds synchronously with a deterministic function, so a test can tell a
# semantic match from a keyword one without a network.

LOCAL_EMBEDDING_CONCEPTS: Final[Mapping[str, str]] = {
    "dog": "canine",
    "puppy": "canine",
    "hound": "canine",
    "canine": "canine",
    "car": "vehicle",
    "automobile": "vehicle",
    "vehicle": "vehicle",
}
"""Words :func:`concept_embedding` folds onto one concept: ``"puppy"`` is near ``"dog"``,
``"automobile"`` near ``"car"``, though they share no letters."""


def concept_embedding(text: str, dimension: int) -> list[float]:
    """A deterministic bag-of-concepts embedding, L2-normalised.

    Each lower-cased word (or the concept it folds onto, see
    :data:`LOCAL_EMBEDDING_CONCEPTS`) adds one to a bucket chosen by its SHA-256, so the
    cosine of two texts grows with the concepts they share. The same text always gives
    the same vector, in every process.
    """
    vector = [0.0] * dimension
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        token = LOCAL_EMBEDDING_CONCEPTS.get(word, word)
        bucket = int(hashlib.sha256(token.encode()).hexdigest(), 16) % dimension
        vector[bucket] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class LocalVectorStore(Akgent[BaseConfig, BaseState]):
    """A team vector store for tests: a real actor implementing core's ``VectorStore``.

    Every document is embedded with :func:`concept_embedding` during ``upsert``, so
    searches answer ``"ok"`` at once, with vector hits scored by cosine similarity. Two
    test controls go beyond the protocol: :meth:`set_degraded` makes every search answer
    ``"degraded"`` with no hits (an embedding provider that is down), and :meth:`refs`
    lists what a collection holds. Start one with :func:`spawn_local_vector_store`.
    """

    def on_start(self) -> None:
        self._configs: dict[str, CollectionConfig] = {}
        self._docs: dict[str, dict[str, tuple[str, list[float]]]] = {}
        self._degraded: str | None = None

    def create_collection(self, name: str, config: CollectionConfig) -> CollectionStats:
        validate_collection_name(name)
        if name in self._configs and self._configs[name] != config:
            raise ValueError(f"collection {name!r} exists with another config")
        self._configs.setdefault(name, config)
        self._docs.setdefault(name, {})
        return self.collection_stats(name)

    def drop_collection(self, name: str) -> bool:
        self._docs.pop(name, None)
        return self._configs.pop(name, None) is not None

    def list_collections(self) -> list[str]:
        return sorted(self._configs)

    def collection_stats(self, name: str) -> CollectionStats:
        docs = self._collection(name)
        return CollectionStats(
            name=name,
            config=self._configs[name],
            documents=len(docs),
            embedded=len(docs),
            pending=0,
            failed=0,
        )

    def upsert(self, collection: str, documents: list[VectorDocument]) -> UpsertReceipt:
        docs = self._collection(collection)
        dimension = self._configs[collection].dimension
        for doc in documents:
            docs[doc.ref] = (doc.text, concept_embedding(doc.text, dimension))
        return UpsertReceipt(collection=collection, accepted=len(documents), pending=0)

    def delete(self, collection: str, refs: list[str]) -> int:
        docs = self._collection(collection)
        return sum(1 for ref in refs if docs.pop(ref, None) is not None)

    def search(self, collection: str, query: VectorQuery) -> VectorSearchResult:
        docs = self._collection(collection)
        if self._degraded is not None:
            return VectorSearchResult(status="degraded", hits=[], reason=self._degraded)
        if query.text is None:
            raise ValueError("LocalVectorStore searches by text only")
        q = concept_embedding(query.text, self._configs[collection].dimension)
        scored = [
            (sum(a * b for a, b in zip(q, vec, strict=True)), ref, text)
            for ref, (text, vec) in docs.items()
        ]
        scored = [s for s in scored if s[0] >= query.score_threshold]
        scored.sort(key=lambda s: -s[0])
        hits = [VectorHit(ref=ref, score=score, text=text) for score, ref, text in scored]
        return VectorSearchResult(status="ok", hits=hits[: query.top_k])

    def set_degraded(self, reason: str | None) -> None:
        """Answer every search ``"degraded"`` with ``reason`` (``None`` restores service)."""
        self._degraded = reason

    def refs(self, collection: str) -> list[str]:
        """The refs stored in ``collection``, sorted."""
        return sorted(self._collection(collection))

    def _collection(self, name: str) -> dict[str, tuple[str, list[float]]]:
        if name not in self._docs:
            raise UnknownCollectionError(name)
        return self._docs[name]


def spawn_local_vector_store(
    system: ActorSystem, orchestrator_address: ActorAddress, name: str = VECTOR_STORE_NAME
) -> LocalVectorStore:
    """Put a :class:`LocalVectorStore` called ``name`` in the team; return an ask proxy.

    Created through the orchestrator's ``getChildrenOrCreate``, like the real store, so a
    consumer finds it with ``lookup_vector_store`` and the team stops it as a tool actor.
    """
    return team_tool_actor(
        system, orchestrator_address, LocalVectorStore, BaseConfig(name=name, role="VectorStore")
    )


__all__ += [
    "LOCAL_EMBEDDING_CONCEPTS",
    "LocalVectorStore",
    "ToolRetry",
    "bind_card",
    "card_callables",
    "concept_embedding",
    "expect_retry",
    "spawn_local_vector_store",
]


# -- reaching team actors from a test ------------------------------------------------------


def team_tool_actor[A: Akgent[Any, Any]](
    system: ActorSystem,
    orchestrator_address: ActorAddress,
    actor_class: type[A],
    config: BaseConfig,
) -> A:
    """An ask proxy to the team's tool actor named by ``config``, created if missing.

    Goes through the orchestrator's ``getChildrenOrCreate`` as cards do, so when the actor
    runs already (a card bound it, or ``resume_team`` recreated it) the test reaches that
    same live instance.
    """
    orch = system.proxy_ask(orchestrator_address, Orchestrator)
    address = orch.getChildrenOrCreate(actor_class, config)
    actor: A = system.proxy_ask(address, actor_class)
    return actor


def agent_at(system: ActorSystem, address: ActorAddress) -> ToolTestAgent:
    """The :class:`ToolTestAgent` instance at ``address`` (e.g. a member ``resume_team``
    recreated), to bind cards to it."""
    agent: ToolTestAgent = system.proxy_ask(address, ToolTestAgent).itself()
    return agent


def recorded_tool_events(
    recorded: RecordedTeam, tool_id: str | None = None
) -> list[ToolStateEvent]:
    """The ``ToolStateEvent``s of a recorded history (of ``tool_id`` only, when given),
    deserialized from the stored JSON and ordered by ``seq``: what a client rebuilding a
    tool's state from the persisted stream would read."""
    events: list[ToolStateEvent] = []
    for message in recorded.messages():
        event = getattr(message, "event", None)
        if isinstance(event, ToolStateEvent) and (tool_id is None or event.tool_id == tool_id):
            events.append(event)
    return sorted(events, key=lambda event: event.seq)


__all__ += ["agent_at", "recorded_tool_events", "team_tool_actor"]
