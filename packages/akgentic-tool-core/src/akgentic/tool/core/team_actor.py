"""A card's handle on its team's singleton tool actor.

Shared tool state (a plan, a knowledge graph, a notification queue) lives in one tool actor
per team, named with a leading ``#``. Every agent carrying the card must reach the same
one, so a card binds it with the orchestrator's ``getChildrenOrCreate``: one idempotent
call that returns the running actor or creates it, never "look, then create" (two agents
starting together would both create one). :func:`bind_team_actor` does that and returns
an ask proxy typed as the actor class.

While the team stops, the actor may be gone before an agent's last tool call:
:func:`ask_team_actor` runs an ask and turns that case into a ``RetriableError`` telling
the model to try later, so no raw actor exception escapes a tool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import pykka

from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.observer import ActorToolObserver, ToolObserver
from akgentic.tool.errors import RetriableError

__all__ = ["ask_team_actor", "bind_team_actor"]


def bind_team_actor[A: Akgent[Any, Any]](
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
    orchestrator = obs.proxy_ask(obs.orchestrator, Orchestrator)
    address = orchestrator.getChildrenOrCreate(actor_class, config)
    return cast(A, obs.proxy_ask(address, actor_class))


def ask_team_actor[T](ask: Callable[[], T], *, what: str) -> T:
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
