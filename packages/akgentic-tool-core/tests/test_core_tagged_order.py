"""TaggedModel, more: sets are dumped sorted, lists keep their order, and a set whose
items do not order among themselves is still dumped."""

from __future__ import annotations

from pydantic import Field

from akgentic.tool.core.tagged import TaggedModel

WORDS = ["kiwi", "apple", "mango", "fig", "pear", "lime", "date", "plum", "yuzu", "acai"]


class Shelf(TaggedModel):
    tags: set[str] = Field(default_factory=set)
    queue: list[str] = Field(default_factory=list)
    mixed: frozenset[int | str] = frozenset()


def test_a_set_is_dumped_sorted_and_a_list_in_its_own_order() -> None:
    data = Shelf(tags=set(WORDS), queue=list(WORDS)).model_dump(mode="json")
    assert data["tags"] == sorted(WORDS)
    assert data["queue"] == WORDS


def test_a_set_of_items_that_do_not_order_is_still_dumped() -> None:
    data = Shelf(mixed=frozenset({1, "a"})).model_dump(mode="json")
    assert sorted(map(str, data["mixed"])) == ["1", "a"]
