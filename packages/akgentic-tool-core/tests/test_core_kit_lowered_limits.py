"""The kit's LoweredLimitsTests, on a small card with lowerable limits written here: it
passes for a card that keeps its promises, and each broken promise fails it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import pytest
from pydantic import Field, PrivateAttr

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.input_limits import (
    LowerableLimits,
    lowerable,
    refuse_problems,
    tighter_limits,
    too_long,
)
from akgentic.tool.core.testing import LoweredLimitsTests, Refusal, ToolTestAgent

LABEL_CEILING = 30


class LabelLimits(LowerableLimits):
    label_max_chars: int = lowerable(LABEL_CEILING)


class LabelTool(ToolCard):
    limits: LabelLimits = LabelLimits()
    _labels: list[str] = PrivateAttr(default_factory=list)

    def describe(self) -> str | None:
        return tighter_limits(
            [("labels {} characters", self.limits.label_max_chars, LABEL_CEILING)]
        )

    def get_tools(self) -> list[Callable[..., Any]]:
        def label(text: str) -> str:
            """Add a label."""
            refuse_problems(too_long("text", text, self.limits, "label_max_chars"), "shorten it")
            self._labels.append(text)
            return "added"

        def labels() -> list[str]:
            """The labels."""
            return list(self._labels)

        label.__doc__ = f"{label.__doc__} {self.describe() or ''}"
        return [label, labels]


class TestLabelLoweredLimits(LoweredLimitsTests):
    lowered: ClassVar[LowerableLimits] = LabelLimits(label_max_chars=5)
    ceilings: ClassVar[Mapping[str, int]] = {"label_max_chars": LABEL_CEILING}
    described: ClassVar[Mapping[str, Sequence[str]]] = {"label": ["labels 5 characters"]}
    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {"label": [{"text": "x" * 6}]}
    refusals: ClassVar[Mapping[str, Sequence[Refusal]]] = {
        "label": [
            ({"text": "x" * 6}, "text: 6 characters, at most 5 (input_limits.label_max_chars)")
        ]
    }

    def card_with(self, limits: LowerableLimits) -> ToolCard:
        assert isinstance(limits, LabelLimits)
        return LabelTool(limits=limits)

    def read_state(self, tools: dict[str, Callable[..., Any]]) -> Any:
        return tools["labels"]()


class _LowDefault(LowerableLimits):
    label_max_chars: int = Field(default=10, ge=1, le=LABEL_CEILING)


class _LowDefaultChecks(TestLabelLoweredLimits):
    __test__ = False
    lowered: ClassVar[LowerableLimits] = _LowDefault(label_max_chars=5)


class _Unbounded(LowerableLimits):
    label_max_chars: int = Field(default=LABEL_CEILING, ge=1)


class _UnboundedChecks(TestLabelLoweredLimits):
    __test__ = False
    lowered: ClassVar[LowerableLimits] = _Unbounded(label_max_chars=5)


class _Silent(LabelTool):
    def describe(self) -> str | None:
        return None


class _Chatty(LabelTool):
    def describe(self) -> str | None:
        return "This team's tighter limits: labels 5 characters."


def test_a_default_below_the_ceiling_fails() -> None:
    with pytest.raises(AssertionError, match="is not 30 by default"):
        _LowDefaultChecks().test_each_bound_defaults_to_its_ceiling_and_goes_no_higher()


def test_a_bound_without_its_ceiling_fails() -> None:
    with pytest.raises(AssertionError, match=r"may go up to \[\], not 30"):
        _UnboundedChecks().test_each_bound_defaults_to_its_ceiling_and_goes_no_higher()


@pytest.mark.parametrize(
    ("card_class", "failure"),
    [
        (_Silent, "does not say 'labels 5 characters'"),
        (_Chatty, "says 'labels 5 characters' anyway"),
    ],
    ids=["silent", "chatty"],
)
def test_a_description_that_misstates_the_bounds_fails(
    card_class: type[LabelTool], failure: str, tool_agent: ToolTestAgent
) -> None:
    class Misstated(TestLabelLoweredLimits):
        __test__ = False

        def card_with(self, limits: LowerableLimits) -> ToolCard:
            assert isinstance(limits, LabelLimits)
            return card_class(limits=limits)

    with pytest.raises(AssertionError, match=failure):
        Misstated().test_descriptions_state_the_lowered_bounds_only(tool_agent)
