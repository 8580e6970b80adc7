"""Test helpers: a protocol-conformant vector store, tool binding, team persistence/resume.

The vector store here is a small real actor implementing core's ``VectorStore`` protocol
(this package must not import the vector-store package). Its embedding is deterministic:
words hashed into buckets, with a few synonyms folded onto one concept so that tests can
tell a semantic match from a keyword one.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.core.messages.message import Message
from akgentic.core.messages.orchestrator import StartMessage, StateChangedMessage, StopMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.core.utils.deserializer import deserialize_object, import_class
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.vector_store import (
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

if TYPE_CHECKING:
    from akgentic.tool.core.testing import ToolTestAgent

TEST_DIMENSION = 64
_CONCEPTS = {
    "dog": "canine",
    "puppy": "canine",
    "hound": "canine",
    "canine": "canine",
    "car": "vehicle",
    "automobile": "vehicle",
    "vehicle": "vehicle",
}


def embed(text: str, dimension: int) -> list[float]:
    """Deterministic bag-of-concepts embedding, L2-normalised."""
    vector = [0.0] * dimension
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        token = _CONCEPTS.get(word, word)
        bucket = int(hashlib.sha256(token.encode()).hexdigest(), 16) % dimension
        vector[bucket] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class LocalVectorStore(Akgent[BaseConfig, BaseState]):
    """A vector store actor speaking core's protocol, embedding synchronously."""

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
            docs[doc.ref] = (doc.text, embed(doc.text, dimension))
        return UpsertReceipt(collection=collection, accepted=len(documents), pending=0)

    def delete(self, collection: str, refs: list[str]) -> int:
        docs = self._collection(collection)
        return sum(1 for ref in refs if docs.pop(ref, None) is not None)

    def search(self, collection: str, query: VectorQuery) -> VectorSearchResult:
        docs = self._collection(collection)
        if self._degraded is not None:
            return VectorSearchResult(status="degraded", hits=[], reason=self._degraded)
        assert query.text is not None
        q = embed(query.text, self._configs[collection].dimension)
        scored = [
            (sum(a * b for a, b in zip(q, vec, strict=True)), ref, text)
            for ref, (text, vec) in docs.items()
        ]
        scored = [s for s in scored if s[0] >= query.score_threshold]
        scored.sort(key=lambda s: -s[0])
        hits = [VectorHit(ref=ref, score=score, text=text) for score, ref, text in scored]
        return VectorSearchResult(status="ok", hits=hits[: query.top_k])

    # test helpers
    def set_degraded(self, reason: str | None) -> None:
        self._degraded = reason

    def refs(self, collection: str) -> list[str]:
        return sorted(self._collection(collection))

    def _collection(self, name: str) -> dict[str, tuple[str, list[float]]]:
        if name not in self._docs:
            raise UnknownCollectionError(name)
        return self._docs[name]


def tools_of(factory: ToolFactory) -> dict[str, Callable[..., Any]]:
    """The factory's tools and system prompts by name."""
    found = {fn.__name__: fn for fn in factory.get_tools()}
    found.update({fn.__name__: fn for fn in factory.get_system_prompts()})
    return found


class ToolRetry(Exception):  # noqa: N818 - stands for pydantic-ai's ModelRetry
    """Retry exception injected into factories, as an agent framework would."""


def bind(agent: ToolTestAgent, card: Any) -> dict[str, Callable[..., Any]]:
    """Attach ``card`` to ``agent`` as an agent would, and return its callables by name."""
    return tools_of(ToolFactory([card], observer=agent, retry_exception=ToolRetry))


@dataclass
class PersistedTeam:
    """What a persistence layer holds for a team: its events and latest state per agent."""

    team_id: uuid.UUID
    events: list[str] = field(default_factory=list)
    states: dict[str, str] = field(default_factory=dict)
    state_count: dict[str, int] = field(default_factory=dict)

    def copy(self) -> PersistedTeam:
        return PersistedTeam(
            self.team_id, list(self.events), dict(self.states), dict(self.state_count)
        )

    def state_of(self, name: str) -> Any:
        """The latest persisted state of the agent called ``name`` (deserialized)."""
        for text in self.states.values():
            message = deserialize_object(json.loads(text))
            if message.sender is not None and message.sender.name == name:
                return message.state
        raise KeyError(name)

    def messages(self) -> list[Message]:
        return [deserialize_object(json.loads(text)) for text in self.events]


class PersistingSubscriber:
    """An orchestrator subscriber that stores each message as JSON, as a real store would.

    State snapshots are kept latest-per-agent; everything else is appended in order.
    """

    def __init__(self, team_id: uuid.UUID) -> None:
        self.store = PersistedTeam(team_id)

    def on_message(self, msg: Message) -> None:
        text = msg.model_dump_json()
        if isinstance(msg, StateChangedMessage):
            assert msg.sender is not None
            key = str(msg.sender.agent_id)
            self.store.states[key] = text
            self.store.state_count[key] = self.store.state_count.get(key, 0) + 1
        else:
            self.store.events.append(text)


def persist(system: ActorSystem, orchestrator: ActorAddress) -> PersistingSubscriber:
    """Subscribe a persisting subscriber to the team's orchestrator."""
    subscriber = PersistingSubscriber(orchestrator.team_id)
    system.proxy_ask(orchestrator, Orchestrator).subscribe(subscriber)
    return subscriber


def sync(system: ActorSystem, orchestrator: ActorAddress) -> None:
    """Wait until the orchestrator processed everything sent to it so far."""
    system.proxy_ask(orchestrator, Orchestrator).get_team()


def resume(
    system: ActorSystem, persisted: PersistedTeam, *, restore_states: bool = True
) -> tuple[ActorAddress, dict[str, ActorAddress]]:
    """Bring a persisted team back the way a team layer does, with akgentic-core's API.

    A new orchestrator (same team id) replays the persisted history; every member that had
    started and not stopped is recreated with its class, agent id and configuration; and,
    with ``restore_states``, each gets its latest persisted state through ``init_state``.
    Returns the orchestrator and the recreated members by name.
    """
    address = system.createActor(
        Orchestrator,
        config=BaseConfig(name="@Orchestrator", role="Orchestrator"),
        team_id=persisted.team_id,
    )
    orch = system.proxy_ask(address, Orchestrator)
    history = persisted.messages()
    for message in history:
        orch.restore_message(message)
    stopped = {m.sender.agent_id for m in history if isinstance(m, StopMessage) and m.sender}
    states = {
        message.sender.agent_id: message.state
        for message in (deserialize_object(json.loads(t)) for t in persisted.states.values())
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


def expect_retry(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """Call a factory-wrapped tool that must fail with a retry; return the message."""
    with pytest.raises(ToolRetry) as info:
        fn(*args, **kwargs)
    assert isinstance(info.value.__cause__, RetriableError)
    return str(info.value)
