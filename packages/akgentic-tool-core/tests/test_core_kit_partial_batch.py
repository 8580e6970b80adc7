"""The kit's PartialBatchTests, on a small batch tool written here: it passes when the
valid part is applied in one event and the rejected changes are named and counted, and each
way of falling short fails the check."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, Field, PrivateAttr

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.batch_update import raise_rejected
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.observer import ActorToolObserver
from akgentic.tool.core.testing import PartialBatchTests, Tools, ToolTestAgent
from akgentic.tool.errors import RetriableError

SHELF = "#Shelf"


class ShelfDelta(BaseModel):
    added: list[str] = Field(default_factory=list)


class ShelfTool(ToolCard):
    """Labels on a shelf; a label starting with "!" is rejected, the others are kept."""

    _labels: list[str] = PrivateAttr(default_factory=list)
    _seq: int = PrivateAttr(default=0)

    def emit(self, added: list[str]) -> None:
        if not added:
            return
        self._seq += 1
        observer = self.get_observer()
        assert isinstance(observer, ActorToolObserver)
        observer.notify_event(
            ToolStateEvent(tool_id=SHELF, seq=self._seq, payload=ShelfDelta(added=added))
        )

    def answer(self, errors: list[str], total: int, added: list[str]) -> str:
        raise_rejected(errors, total, f"{len(added)} label(s) added")
        return "done"

    def get_tools(self) -> list[Callable[..., Any]]:
        def shelve(labels: list[str]) -> str:
            """Put labels on the shelf."""
            errors = [
                f"labels[{i}]: {label!r} starts with '!'"
                for i, label in enumerate(labels)
                if label.startswith("!")
            ]
            added = [label for label in labels if not label.startswith("!")]
            self._labels += added
            self.emit(added)
            return self.answer(errors, len(labels), added)

        return [shelve]


class TestShelfPartialBatch(PartialBatchTests):
    batch_tool = "shelve"
    tool_id = SHELF
    mixed_batch: ClassVar[Mapping[str, Any]] = {"labels": ["jam", "!x", "tea"]}
    changes = 3
    rejected: ClassVar[Sequence[str]] = ["labels[1]: '!x' starts with '!'"]
    applied = "2 label(s) added"

    def make_card(self) -> ToolCard:
        return ShelfTool()

    def check_applied(self, tools: Tools, delta: BaseModel) -> None:
        assert isinstance(delta, ShelfDelta)
        assert delta.added == ["jam", "tea"]


class _AllOrNothing(ShelfTool):
    """Refuses the whole call when one change is bad: nothing is applied."""

    def get_tools(self) -> list[Callable[..., Any]]:
        def shelve(labels: list[str]) -> str:
            """Put labels on the shelf."""
            if any(label.startswith("!") for label in labels):
                raise RetriableError("labels: no label may start with '!'")
            return "done"

        return [shelve]


class _Uncounted(ShelfTool):
    def answer(self, errors: list[str], total: int, added: list[str]) -> str:
        raise RetriableError("; ".join(errors))


class _EventPerChange(ShelfTool):
    def emit(self, added: list[str]) -> None:
        for label in added:
            super().emit([label])


@pytest.mark.parametrize(
    ("card_class", "failure"),
    [
        (_AllOrNothing, "does not name"),
        (_Uncounted, "1 of 3 change"),
        (_EventPerChange, "2 state event"),
    ],
    ids=["all-or-nothing", "uncounted", "event-per-change"],
)
def test_a_tool_falling_short_fails(
    card_class: type[ShelfTool],
    failure: str,
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
) -> None:
    class ShortOfIt(TestShelfPartialBatch):
        __test__ = False

        def make_card(self) -> ToolCard:
            return card_class()

    with pytest.raises(AssertionError, match=failure):
        ShortOfIt().test_valid_changes_apply_and_rejected_ones_are_named(
            actor_system, orchestrator, tool_agent
        )
