"""Refusals that say what to fix: bad calls whose message must name the problem.

:class:`~akgentic.tool.core.testing.standard.bad_input.BadInputTests` checks that a bad
call is a retry that changes nothing; a retry whose message only says that the call failed
leaves the model guessing. :class:`RefusalTests` adds calls paired with a text their
refusal must hold (the argument path at fault, the limit broken), checked the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.testing.actors import ToolTestAgent, orchestrator_events
from akgentic.tool.core.testing.binding import bind_card, expect_retry
from akgentic.tool.core.testing.standard.bad_input import BadInputTests
from akgentic.tool.core.testing.waiting import settle

__all__ = ["Refusal", "RefusalTests"]

Refusal = tuple[Mapping[str, Any], str]
"""The keyword arguments of a bad call, and a text its refusal must contain."""


class RefusalTests(BadInputTests):
    """:class:`BadInputTests`, plus :attr:`refusals`: tool name -> the bad calls whose
    refusal must contain a given text.

    Each refusal is a retry caused by a ``RetriableError``; its message holds the text; and
    after them all, the tool's state reads as it did after :meth:`seed` and the team's
    stream has received no ``ToolStateEvent`` since.
    """

    refusals: ClassVar[Mapping[str, Sequence[Refusal]]] = {}

    def seeded_tools(self, agent: ToolTestAgent) -> dict[str, Callable[..., Any]]:
        """The card under test bound to ``agent``, after :meth:`seed`: what the refusals
        are made against, and a fixture of the package's own tests may start from."""
        tools = bind_card(agent, self.make_card())
        self.seed(tools)
        return tools

    def test_refusals_say_what_to_fix(
        self, actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
    ) -> None:
        assert self.refusals, "list at least one refusal"
        tools = self.seeded_tools(tool_agent)
        before = self.read_state(tools)
        settle(actor_system, orchestrator)
        emitted = orchestrator_events(actor_system, orchestrator, ToolStateEvent)
        for name, calls in self.refusals.items():
            assert name in tools, f"no tool named {name!r}: {sorted(tools)}"
            for kwargs, text in calls:
                message = expect_retry(tools[name], **kwargs)
                assert text in message, (
                    f"{name}({dict(kwargs)!r}) was refused with {message!r}, "
                    f"which does not say {text!r}"
                )
        assert self.read_state(tools) == before, "a refusal changed the state"
        settle(actor_system, orchestrator)
        after = orchestrator_events(actor_system, orchestrator, ToolStateEvent)
        assert len(after) == len(emitted), f"refusals emitted {len(after) - len(emitted)} event(s)"
