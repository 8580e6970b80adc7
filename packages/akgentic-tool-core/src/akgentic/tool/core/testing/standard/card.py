"""The checks every card must pass, as a class a package subclasses."""

from __future__ import annotations

from abc import ABC, abstractmethod

import pytest

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing.actors import ToolTestAgent
from akgentic.tool.core.testing.conformance import (
    assert_callables_described,
    assert_card_conformance,
    assert_channels_honoured,
)

__all__ = ["CardStandardTests"]


class CardStandardTests(ABC):
    """Card conformance: round trip, described callables, unique names, channels.

    Supply :meth:`make_card`. Set :attr:`check_channels` to ``False`` for a card whose
    variants cannot be bound in a test (each variant is bound to the test agent once per
    capability and channel). Bad calls belong to :class:`BadInputTests`, which also checks
    that they change nothing.
    """

    check_channels: bool = True

    @abstractmethod
    def make_card(self) -> ToolCard:
        """The card under test, configured as a deployment would (no network needed)."""

    def test_card_round_trips_through_json(self) -> None:
        assert_card_conformance(self.make_card())

    def test_every_callable_is_described_under_a_unique_name(
        self, tool_agent: ToolTestAgent
    ) -> None:
        assert_callables_described(self.make_card(), tool_agent)

    def test_each_capability_keeps_to_its_channels(self, tool_agent: ToolTestAgent) -> None:
        if not self.check_channels:
            pytest.skip("this card's variants are not bound in tests (check_channels=False)")
        assert_channels_honoured(self.make_card(), tool_agent)
