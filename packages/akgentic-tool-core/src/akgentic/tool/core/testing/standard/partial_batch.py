"""A batch mixing valid and invalid changes: the valid part applied, the rest named.

A batch-update tool (see :mod:`akgentic.tool.core.batch_update`) applies each valid
change of a call even when others are rejected: refusing the whole call would make the
model resend what was fine. The model must then learn which changes were rejected and why,
and that the others are in; the team must see the applied part as one state event, sent
before the refusal reaches the model.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing.actors import ToolTestAgent
from akgentic.tool.core.testing.binding import Tools, bind_card, expect_retry
from akgentic.tool.core.testing.tool_events import tool_state_events

__all__ = ["PartialBatchTests"]


class PartialBatchTests(ABC):
    """One call of :attr:`batch_tool` with :attr:`mixed_batch`: :attr:`changes` changes, of
    which those named by :attr:`rejected` fail.

    The call asks for a retry whose message holds each text of :attr:`rejected` (the
    change's position and the reason), says "<rejected> of <changes> change(s) rejected"
    and "Applied: <applied>" (the summary of the valid part). By the time the refusal
    arrives, the tool actor :attr:`tool_id` has sent exactly one state event for the call,
    and :meth:`check_applied` finds the valid part in it. Supply :meth:`make_card` and
    :meth:`check_applied`, and :attr:`seed_batch` when the mixed batch refers to items.
    """

    batch_tool: ClassVar[str]
    tool_id: ClassVar[str]
    mixed_batch: ClassVar[Mapping[str, Any]]
    changes: ClassVar[int]
    rejected: ClassVar[Sequence[str]]
    applied: ClassVar[str]
    seed_batch: ClassVar[Mapping[str, Any]] = {}
    """An earlier call of :attr:`batch_tool` making what the mixed batch refers to."""

    @abstractmethod
    def make_card(self) -> ToolCard:
        """The card under test."""

    @abstractmethod
    def check_applied(self, tools: Tools, delta: BaseModel) -> None:
        """Check that ``delta`` (the call's event payload) and the state hold the valid
        changes, and only them."""

    def test_valid_changes_apply_and_rejected_ones_are_named(
        self, actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
    ) -> None:
        tools = bind_card(tool_agent, self.make_card())
        if self.seed_batch:
            tools[self.batch_tool](**self.seed_batch)
        sent = len(tool_state_events(actor_system, orchestrator, self.tool_id))
        message = expect_retry(tools[self.batch_tool], **self.mixed_batch)
        for text in self.rejected:
            assert text in message, f"the refusal does not name {text!r}: {message!r}"
        count = f"{len(self.rejected)} of {self.changes} change(s) rejected"
        assert count in message, f"the refusal does not say {count!r}: {message!r}"
        applied = f"Applied: {self.applied}"
        assert applied in message, f"the refusal does not say {applied!r}: {message!r}"
        # No waiting: the event must have gone out before the refusal came back.
        events = tool_state_events(actor_system, orchestrator, self.tool_id)
        assert len(events) == sent + 1, f"{len(events) - sent} state event(s) for one call"
        self.check_applied(tools, events[-1].payload)
