"""A card's ``input_limits`` lowered: bounds that only go down, stated, and enforced.

A tool whose card carries a :class:`~akgentic.tool.core.input_limits.LowerableLimits`
model promises three things: each bound defaults to the schema's ceiling and cannot be set
above it; the tool's description tells the model which bounds a team lowered (and says
nothing of the kind when none is); and a call past a lowered bound is refused whole, the
refusal naming the argument and the setting. :class:`LoweredLimitsTests` checks the first
two and, through :class:`~akgentic.tool.core.testing.standard.refusals.RefusalTests`, the
third.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import ClassVar

import pytest
from pydantic import ValidationError

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.input_limits import LowerableLimits
from akgentic.tool.core.testing.actors import ToolTestAgent
from akgentic.tool.core.testing.binding import bind_card
from akgentic.tool.core.testing.standard.refusals import RefusalTests

__all__ = ["LoweredLimitsTests"]


class LoweredLimitsTests(RefusalTests):
    """The card's tools under :attr:`lowered` limits, against the same card on the defaults.

    Supply :meth:`card_with` (the card carrying given limits), :attr:`lowered`,
    :attr:`ceilings` (each setting -> the schema's limit it defaults to), :attr:`described`
    (tool name -> texts its description states under :attr:`lowered`, and not under the
    defaults), and what :class:`RefusalTests` asks: :meth:`read_state`, optionally
    :meth:`seed`, and the calls past the lowered bounds as :attr:`bad_calls` and
    :attr:`refusals`.
    """

    lowered: ClassVar[LowerableLimits]
    ceilings: ClassVar[Mapping[str, int]]
    described: ClassVar[Mapping[str, Sequence[str]]]

    @abstractmethod
    def card_with(self, limits: LowerableLimits) -> ToolCard:
        """The card under test, carrying ``limits``."""

    def make_card(self) -> ToolCard:
        return self.card_with(self.lowered)

    def test_each_bound_defaults_to_its_ceiling_and_goes_no_higher(self) -> None:
        limits_class = type(self.lowered)
        assert set(limits_class.model_fields) == set(self.ceilings), "ceilings: one per setting"
        defaults = limits_class()
        for setting, ceiling in self.ceilings.items():
            field = limits_class.model_fields[setting]
            # pydantic keeps Field(le=...) as a metadata entry with an ``le`` attribute
            declared = [rule.le for rule in field.metadata if hasattr(rule, "le")]
            assert declared == [ceiling], f"{setting} may go up to {declared}, not {ceiling}"
            assert getattr(defaults, setting) == ceiling, f"{setting} is not {ceiling} by default"
            with pytest.raises(ValidationError, match=setting):
                limits_class.model_validate({setting: ceiling + 1})

    def test_descriptions_state_the_lowered_bounds_only(self, tool_agent: ToolTestAgent) -> None:
        lowered = bind_card(tool_agent, self.card_with(self.lowered))
        default = bind_card(tool_agent, self.card_with(type(self.lowered)()))
        assert self.described, "list what at least one description states"
        for name, texts in self.described.items():
            for text in texts:
                assert text in (lowered[name].__doc__ or ""), f"{name} does not say {text!r}"
                assert text not in (default[name].__doc__ or ""), f"{name} says {text!r} anyway"
