"""TeamManagementToolObserver: what an agent must offer for TeamTool to change its team.

This is the third observer level. It extends core's ``ActorToolObserver`` with the three
calls that create and remove members. It belongs to TeamTool, its only consumer, rather
than to the core contracts every tool is written against.
"""

from __future__ import annotations

import uuid
from typing import Any, Protocol, runtime_checkable

from akgentic.core.actor_address import ActorAddress
from akgentic.core.agent import Akgent
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.observer import ActorToolObserver

__all__ = ["TeamManagementToolObserver"]


@runtime_checkable
class TeamManagementToolObserver(ActorToolObserver, Protocol):
    """An agent that can create actors and hire or fire team members.

    An akgentic-core ``Akgent`` already provides ``createActor``; the agent class adds the
    two membership hooks.
    """

    def createActor(
        self,
        actor_class: type[Akgent[Any, Any]],
        agent_id: uuid.UUID | None = None,
        config: BaseConfig | None = None,
    ) -> ActorAddress:
        """Start ``actor_class`` as a child of this agent, in the same team."""
        ...

    def on_hire(self, address: ActorAddress) -> None:
        """Called once the member at ``address`` has been created by a hire."""
        ...

    def on_fire(self, address: ActorAddress) -> None:
        """Called as the member at ``address`` is fired, before TeamTool stops it.

        A notification: the implementation may record or announce the departure (or stop
        the member itself); TeamTool stops the member afterwards in any case.
        """
        ...
