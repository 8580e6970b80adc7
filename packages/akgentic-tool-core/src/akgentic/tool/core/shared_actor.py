"""A card's handle on a team-wide singleton actor (one per team and name, shared by every
member), such as the plan or the vector store.

This module was ``team_actor``; that path and the names ``bind_team_actor`` and
``ask_team_actor`` still work (the actor is not "the team tool", it is the one actor the
whole team shares).

Shared tool state (a plan, a knowledge graph, a notification queue) lives in one tool actor
per team, named with a leading ``#``. Every agent carrying the card must reach the same
one, so a card binds it with the orchestrator's ``getChildrenOrCreate``: one idempotent
call that returns the running actor or creates it, never "look, then create" (two agents
starting together would both create one). :func:`bind_shared_actor` does that and returns
an ask proxy typed as the actor class.

While the team stops, the actor may be gone before an agent's last tool call:
:func:`ask_shared_actor` runs an ask and turns that case into a ``RetriableError`` telling
the model to try later, so no raw actor exception escapes a tool.

Building an ask proxy is not free: pykka introspects every attribute of the target actor
(a few milliseconds for the orchestrator). A team of a thousand members binding the same
plan would pay that twice per member, so the proxies :func:`bind_shared_actor` builds are
kept per target actor and shared by every agent of the process (see :class:`_AskProxies`),
and the shared actor a name resolved to is remembered while it lives (see :class:`_TeamActors`).
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, cast

import pykka

from akgentic.core.actor_address import ActorAddress
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.observer import ActorToolObserver, ToolObserver
from akgentic.tool.errors import RetriableError

__all__ = ["ask_shared_actor", "ask_team_actor", "bind_shared_actor", "bind_team_actor"]


def bind_shared_actor[A: Akgent[Any, Any]](
    observer: ToolObserver, actor_class: type[A], config: BaseConfig, *, card: str
) -> A:
    """Get or create the team's ``actor_class`` actor configured by ``config`` (its
    ``name`` is the actor name) and return an ask proxy to it.

    ``observer`` is the agent carrying the card; one outside a team (no orchestrator)
    raises ``RuntimeError`` naming ``card``, a wiring error rather than a model mistake.
    """
    obs = cast(ActorToolObserver, observer)
    if obs.orchestrator is None:
        raise RuntimeError(f"{card} needs an agent that belongs to a team (no orchestrator)")
    key = (obs.orchestrator.agent_id, config.name, actor_class)
    address = _TEAM_ACTORS.live(key)
    if address is None:
        orchestrator = _PROXIES.get(obs, obs.orchestrator, Orchestrator)
        address = orchestrator.getChildrenOrCreate(actor_class, config)
        _TEAM_ACTORS.keep(key, address)
    return _PROXIES.get(obs, address, actor_class)


class _TeamActors:
    """The shared actor each (orchestrator, name, class) resolved to, while it is alive.

    ``getChildrenOrCreate`` is a round trip to the orchestrator's thread and scans every
    child of the team, so a thousand members binding the plan would cost a million checks
    while the orchestrator is busy starting them. It returns the first live child with
    the name, which stays the same actor until it stops: the one found before is reused
    while it is alive, and the orchestrator is asked again once it is not. Bounded like
    :class:`_AskProxies`; ``enabled = False`` asks every time.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.enabled = True
        self._entries: OrderedDict[tuple[Any, ...], ActorAddress] = OrderedDict()
        self._lock = threading.Lock()

    def live(self, key: tuple[Any, ...]) -> ActorAddress | None:
        if not self.enabled:
            return None
        with self._lock:
            found = self._entries.get(key)
            if found is not None and found.is_alive():
                self._entries.move_to_end(key)
                return found
            return None

    def keep(self, key: tuple[Any, ...], address: ActorAddress) -> None:
        with self._lock:
            self._entries[key] = address
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


class _AskProxies:
    """Ask proxies (no timeout) by target actor, shared across agents and threads.

    An ask proxy holds nothing of the agent that built it (it only forwards calls to the
    target's mailbox), so one per target serves every agent. A cached proxy is used only
    while its target is alive: a stopped actor's entry is dropped and the proxy built again,
    which raises for a dead target exactly as building it uncached would. At most
    ``size`` targets are kept (least recently used first out), so stopped teams do not
    accumulate. ``enabled = False`` builds a proxy per call (the benchmark's "before").
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.enabled = True
        self._entries: OrderedDict[uuid.UUID, tuple[ActorAddress, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get[A](self, obs: ActorToolObserver, address: ActorAddress, actor_class: type[A]) -> A:
        if not self.enabled:
            return cast(A, obs.proxy_ask(address, actor_class))
        key = address.agent_id
        with self._lock:
            found = self._entries.get(key)
            if found is not None and found[0].is_alive():
                self._entries.move_to_end(key)
                return cast(A, found[1])
        proxy = obs.proxy_ask(address, actor_class)  # raises for a dead target
        with self._lock:
            self._entries[key] = (address, proxy)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return cast(A, proxy)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_PROXIES = _AskProxies(size=256)
_TEAM_ACTORS = _TeamActors(size=256)


def ask_shared_actor[T](ask: Callable[[], T], *, what: str) -> T:
    """Run ``ask`` (a call through the actor's proxy) and return its answer.

    A stopped actor raises ``RetriableError("<what> is not running (the team is
    stopping); try again later.")``; ``what`` names the state, e.g. ``"The team plan"``.
    """
    try:
        return ask()
    except pykka.ActorDeadError as exc:
        raise RetriableError(
            f"{what} is not running (the team is stopping); try again later."
        ) from exc


# The names this module had as ``team_actor``.
bind_team_actor = bind_shared_actor
ask_team_actor = ask_shared_actor
