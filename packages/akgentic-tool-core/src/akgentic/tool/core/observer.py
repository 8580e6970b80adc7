"""The observer protocols: how a card reaches the running system.

Two levels live here because every tool may use them. A third, for changing a team's
membership, belongs to the team tool's own package.
"""

from __future__ import annotations

import uuid
from typing import Any, Protocol, runtime_checkable

from akgentic.core.actor_address import ActorAddress

__all__ = ["ActorToolObserver", "ToolObserver"]


@runtime_checkable
class ToolObserver(Protocol):
    """The least a tool can ask for: putting an event on the orchestrator's stream."""

    def notify_event(self, event: object) -> None:
        """Emit ``event`` onto the team's event stream."""
        ...


@runtime_checkable
class ActorToolObserver(ToolObserver, Protocol):
    """An observer that can also reach other actors, tool actors included.

    An akgentic-core ``Akgent`` satisfies it as is, which is why agents pass themselves.
    """

    @property
    def myAddress(self) -> ActorAddress:
        """The carrying agent's own address."""
        ...

    @property
    def orchestrator(self) -> ActorAddress | None:
        """The team orchestrator's address (``None`` outside a team)."""
        ...

    @property
    def team_id(self) -> uuid.UUID:
        """The id of the carrying agent's team."""
        ...

    def proxy_ask(
        self,
        actor: ActorAddress,
        actor_type: Any = None,
        timeout: int | None = None,
    ) -> Any:
        """A blocking (ask) proxy to ``actor``."""
        ...
