"""Bounds a card lowers on what the model writes: the field, the problems, the refusal
and the sentence a tool description carries."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from akgentic.tool.core import input_limits as limits_kit
from akgentic.tool.errors import RetriableError


class _Limits(limits_kit.LowerableLimits):
    name_max_chars: int = limits_kit.lowerable(50)
    note_max_chars: int = limits_kit.lowerable(20, floor=0)


def test_a_bound_defaults_to_its_ceiling_and_only_goes_down() -> None:
    assert _Limits().name_max_chars == 50
    assert _Limits(name_max_chars=1, note_max_chars=0).note_max_chars == 0
    with pytest.raises(ValidationError, match="name_max_chars"):
        _Limits(name_max_chars=51)
    with pytest.raises(ValidationError, match="name_max_chars"):
        _Limits(name_max_chars=0)
    with pytest.raises(ValidationError, match="note_max_chars"):
        _Limits(note_max_chars=-1)


def test_a_text_past_its_bound_is_one_problem_naming_path_length_and_setting() -> None:
    limits = _Limits(name_max_chars=3)
    assert list(limits_kit.too_long("items[0].name", "abc", limits, "name_max_chars")) == []
    assert list(limits_kit.too_long("items[0].name", "abcd", limits, "name_max_chars")) == [
        "items[0].name: 4 characters, at most 3 (input_limits.name_max_chars)"
    ]
    assert list(limits_kit.too_long("items[0].note", "abcd", limits, "note_max_chars")) == []


def test_no_problem_no_refusal() -> None:
    limits_kit.refuse_problems(iter([]), "shorten these")


def test_a_refusal_names_five_problems_and_counts_the_rest() -> None:
    problems = (f"p{i}" for i in range(8))
    with pytest.raises(RetriableError) as caught:
        limits_kit.refuse_problems(problems, "shorten these")
    assert str(caught.value) == (
        "Invalid arguments (nothing was changed): p0; p1; p2; p3; p4; and 3 more; shorten these"
    )


def test_a_refusal_without_advice_ends_with_the_problems() -> None:
    with pytest.raises(RetriableError) as caught:
        limits_kit.refuse_problems(["p0"])
    assert str(caught.value) == "Invalid arguments (nothing was changed): p0"


def test_the_description_names_only_the_lowered_bounds() -> None:
    bounds = [("names {} characters", 10, 50), ("{} notes per item", 3, 3), ("owners {}", 2, 9)]
    assert (
        limits_kit.tighter_limits(bounds)
        == "This team's tighter limits: names 10 characters, owners 2."
    )
    assert limits_kit.tighter_limits([("names {} characters", 50, 50)]) is None


def test_the_query_note_appears_only_below_the_ceiling() -> None:
    assert limits_kit.query_limit_note(20, 500) == "This team limits the query to 20 characters."
    assert limits_kit.query_limit_note(500, 500) is None


def test_limits_are_frozen_and_compare_by_value() -> None:
    limits = _Limits(name_max_chars=3)
    assert limits == _Limits(name_max_chars=3)
    assert limits != _Limits()
    with pytest.raises(ValidationError, match="frozen"):
        limits.name_max_chars = 4
