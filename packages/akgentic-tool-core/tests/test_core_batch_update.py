"""The shared parts of a batch-update tool: joining the flat lists with the nested
``update`` object, reporting rejected changes, and the net effect of a batch."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from akgentic.tool.core.batch_update import joined_lists, net_changes, raise_rejected
from akgentic.tool.errors import RetriableError


class _Update(BaseModel):
    create_items: list[str] | None = None
    delete_items: list[str] | None = None


def test_flat_lists_come_first_then_the_nested_ones() -> None:
    lists = joined_lists(
        {"create_items": ["a"], "delete_items": None},
        {"create_items": ["b"], "delete_items": ["c"]},
    )
    assert lists == {"create_items": ["a", "b"], "delete_items": ["c"]}


def test_a_list_given_nowhere_is_empty() -> None:
    assert joined_lists({"create_items": None, "delete_items": None}, None) == {
        "create_items": [],
        "delete_items": [],
    }


def test_a_nested_model_gives_only_the_lists_it_sets() -> None:
    update = _Update(create_items=["b"])
    lists = joined_lists({"create_items": ["a"], "delete_items": ["x"]}, update)
    assert lists == {"create_items": ["a", "b"], "delete_items": ["x"]}


def test_a_value_that_is_no_list_is_kept_for_validation_to_name() -> None:
    assert joined_lists({"create_items": "oops"}, {"create_items": ["b"]}) == {
        "create_items": "oops"
    }
    assert joined_lists({"create_items": ["a"]}, {"create_items": 3}) == {"create_items": 3}


def test_a_nested_update_that_is_no_object_is_refused() -> None:
    with pytest.raises(RetriableError) as caught:
        joined_lists({"create_items": None, "delete_items": None}, "x")
    message = str(caught.value)
    assert "update must be an object with create_items, delete_items" in message
    assert "got str" in message
    assert "nothing was changed" in message


def test_unknown_fields_of_the_nested_update_are_named() -> None:
    with pytest.raises(RetriableError) as caught:
        joined_lists({"create_items": None}, {"items": [], "create_items": []})
    assert "update: unknown field(s) 'items'; use create_items" in str(caught.value)


def test_rejections_are_counted_listed_and_the_applied_part_said() -> None:
    raise_rejected([], 3, "2 created")  # nothing rejected: no error
    with pytest.raises(RetriableError) as caught:
        raise_rejected(["items[0]: bad", "items[2]: worse"], 3, "1 created")
    assert str(caught.value) == (
        "2 of 3 change(s) rejected: items[0]: bad; items[2]: worse. Applied: 1 created."
    )


def test_net_changes_keep_only_the_net_effect() -> None:
    first: dict[str, str | None] = {
        "new": None,
        "changed": "v1",
        "gone": "old",
        "restored": "same",
        "fleeting": None,
    }
    now = {"new": "n", "changed": "v2", "restored": "same", "untouched": "u"}
    changes = net_changes(first, now)
    assert changes.added == ["n"]
    assert changes.modified == ["v2"]
    assert changes.removed == [("gone", "old")]


def test_net_changes_keep_the_order_items_were_first_touched() -> None:
    changes = net_changes(
        {"b": None, "a": None, "c": "x", "d": "y"}, {"b": 2, "a": 1, "c": "z", "d": "w"}
    )
    assert changes.added == [2, 1]
    assert changes.modified == ["z", "w"]
