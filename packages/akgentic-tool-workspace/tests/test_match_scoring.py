"""Similarity scoring of multi-line windows: the threshold, the hint, and the work it costs."""

from __future__ import annotations

import pytest

from akgentic.tool.workspace import EditMatcher, EditNotFoundError
from akgentic.tool.workspace.fuzzy_match import _CANDIDATE_COST


def test_a_window_scoring_exactly_the_threshold_is_a_match() -> None:
    # "ab\nc" is a subsequence of the 12-character target: 2 * 4 / (4 + 12) = 0.5
    result = EditMatcher(threshold=0.5).apply("ab\nc\n", "abxxx\ncyyyyy", "x")
    assert (result.strategy, result.content) == ("fuzzy", "x\n")


def test_a_multi_line_target_not_found_points_at_the_closest_window() -> None:
    text = (
        "def area(width, height):\n    return width * height\n\n"
        "def perimeter(width, height):\n    return 2 * (width + height)\n"
    )
    with pytest.raises(EditNotFoundError) as caught:
        EditMatcher().apply(text, "def perimeter(w, h):\n    return 2 * (w + h)", "x")
    assert str(caught.value) == (
        "old_string was not found (tried exact, indentation, whitespace, escape, block-anchor "
        "and fuzzy matching at 0.85). The most similar text starts at line 4 (81% similar): "
        "'def perimeter(width, height):'. Read the file again and copy the text to replace "
        "exactly."
    )


def test_nothing_at_least_60_percent_similar_gets_no_hint() -> None:
    with pytest.raises(EditNotFoundError) as caught:
        EditMatcher(threshold=0.9).apply("alpha\nbeta\n", "gamma\ndelta", "x")
    assert str(caught.value) == (
        "old_string was not found (tried exact, indentation, whitespace, escape, block-anchor "
        "and fuzzy matching at 0.90). Read the file again and copy the text to replace exactly."
    )


def test_a_run_of_blank_lines_is_never_a_fuzzy_match() -> None:
    text = "first_function_call(alpha)\n\n\nsecond_function_call(beta)\n"
    with pytest.raises(EditNotFoundError):
        EditMatcher().apply(text, "third_thing(gamma)\nfourth_thing(delta)", "x")


def test_windows_too_short_to_reach_the_floor_cost_only_their_candidate_charge() -> None:
    # windows "abc\nhi" (6 characters, scored against the 14-character target),
    # "hi\nab" and "ab\nc" (5 and 4: even a perfect overlap stays under 60%, not scored)
    matcher = EditMatcher()
    with pytest.raises(EditNotFoundError):
        matcher.apply("abc\nhi\nab\nc", "abcdefg\nhijklm", "x")
    assert matcher.last_work == 3 * _CANDIDATE_COST + (6 + 5 + 4) + 6 * 14


def test_a_budget_of_exactly_the_work_needed_is_enough() -> None:
    # one window: its candidate charge plus 6 * 14 comparisons, 2,090 in all
    with pytest.raises(EditNotFoundError) as caught:
        EditMatcher(work_budget=2_090).apply("abc\nhi", "abcdefg\nhijklm", "x")
    assert "too long" not in str(caught.value)


def test_of_two_equally_close_windows_the_hint_names_the_first() -> None:
    block = "def perimeter(width, height):\n    return 2 * (width + height)\n"
    with pytest.raises(EditNotFoundError) as caught:
        EditMatcher().apply(
            block + "\n" + block, "def perimeter(w, h):\n    return 2 * (w + h)", "x"
        )
    assert "starts at line 1 (81% similar)" in str(caught.value)


def test_a_single_line_exactly_60_percent_similar_is_named_in_the_hint() -> None:
    with pytest.raises(EditNotFoundError, match=r"starts at line 1 \(60% similar\): 'abc'"):
        EditMatcher().apply("abc\n", "abcdefg", "x")


def test_a_three_character_target_can_be_matched_fuzzily() -> None:
    result = EditMatcher(threshold=0.6).apply("abc\n", "abd", "xyz")
    assert (result.strategy, result.content) == ("fuzzy", "xyz\n")


def test_a_target_as_long_as_the_whole_file_is_matched_fuzzily() -> None:
    result = EditMatcher().apply("def f(x):\n    return x", "def f(x):\n    retrun x", "pass")
    assert (result.strategy, result.content) == ("fuzzy", "pass")
