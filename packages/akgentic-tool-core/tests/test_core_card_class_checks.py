"""ToolCard, more: the checks and the capability table a card class gets when it is
created (so the classes here are created inside the tests), and the error a card
without an observer raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import pytest
from pydantic import ConfigDict

from akgentic.tool.core import BaseToolParam, Capability, ToolCard
from akgentic.tool.errors import ToolObserverGone


class _Shared(BaseToolParam):
    """A capability whose builder takes the card's shared context."""


def _pooled_card() -> type[ToolCard]:
    class Pooled(ToolCard):
        capabilities: ClassVar[tuple[Capability, ...]] = (Capability("first", _Shared),)

        first: bool | _Shared = True

        def _capability_context(self) -> str:
            return "pool"

        def _build_first(self, param: _Shared, pool: str) -> Callable[[], str]:
            def first() -> str:
                """The first."""
                return pool

            return first

    return Pooled


def test_a_card_made_at_run_time_hands_its_context_to_its_builders() -> None:
    card = _pooled_card()()
    (tool,) = card.get_tools()
    assert tool() == "pool"


@pytest.mark.filterwarnings('ignore:Field name "depends_on":UserWarning')
def test_a_card_allowing_arbitrary_types_is_refused_with_the_remedy() -> None:
    with pytest.raises(TypeError, match="put runtime handles in PrivateAttr"):

        class Loose(ToolCard):
            model_config = ConfigDict(arbitrary_types_allowed=True)

    with pytest.raises(TypeError, match="assign self.depends_on in model_post_init"):

        class Depending(ToolCard):
            depends_on: list[str] = []  # type: ignore[assignment]


def test_a_card_without_an_observer_names_itself_and_the_way_to_attach_one() -> None:
    card = _pooled_card()()
    with pytest.raises(ToolObserverGone, match="^Pooled has no live observer") as gone:
        card.get_observer()
    assert "ToolFactory/observer()" in str(gone.value)
    assert card.get_observer_or_none() is None
