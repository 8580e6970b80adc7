"""Line-level matching rules: blank lines, mixed indentation, and re-indenting the new text."""

from __future__ import annotations

import pytest

from akgentic.tool.workspace import EditMatcher, EditNotFoundError

THREE = "alpha_value = compute(1)\nbeta_value = compute_more(2)\ngamma_value = compute(3)\n"
GAP = "alpha_value = compute(1)\n\ngamma_value = compute(3)\n"


def test_a_line_of_old_string_does_not_match_a_blank_line_of_the_file() -> None:
    with pytest.raises(EditNotFoundError):
        EditMatcher().apply(GAP, THREE.rstrip("\n"), "x")


def test_a_blank_line_of_old_string_does_not_match_a_line_of_the_file() -> None:
    with pytest.raises(EditNotFoundError):
        EditMatcher().apply(THREE, GAP.rstrip("\n"), "x")


def test_lines_after_a_shared_blank_line_must_match_too() -> None:
    old = "alpha_value = compute(1)\n\nomega_result = other_thing(99)"
    with pytest.raises(EditNotFoundError):
        EditMatcher().apply(GAP, old, "x")


def test_blank_lines_with_different_whitespace_still_match_by_indentation() -> None:
    text = "    a = 1\n  \n    b = 2\n"
    result = EditMatcher().apply(text, "a = 1\n\nb = 2", "a = 1\nb = 3")
    assert (result.strategy, result.content) == ("indentation_flexible", "    a = 1\n    b = 3\n")


def test_mixed_tab_and_space_indentation_is_dedented_by_the_common_prefix() -> None:
    # the file's lines share one space of indentation; old_string's share none
    text = "x\n \tfoo()\n  bar()\n"
    result = EditMatcher().apply(text, "\tfoo()\n bar()", "\tfoo(1)\n bar(1)")
    assert (result.strategy, result.content) == ("indentation_flexible", "x\n \tfoo(1)\n  bar(1)\n")


def test_a_new_line_deeper_than_old_string_keeps_its_extra_indentation() -> None:
    text = "class A:\n    def f(self):\n        return 1\n"
    new = "def f(self):\n  if self:\n    return 2\n  return 1"
    result = EditMatcher().apply(text, "def f(self):\n  return 1", new)
    assert result.strategy == "line_trimmed"
    assert result.content == (
        "class A:\n    def f(self):\n        if self:\n          return 2\n        return 1\n"
    )


def test_a_block_anchor_match_one_line_longer_than_old_string_is_replaced() -> None:
    text = (
        "def run(self):\n    setup_environment()\n    load_configuration()\n"
        "    start_services()\n    extra_step_here()\n    finish()\n"
    )
    old = (
        "def run(self):\n    setup_environment()\n    load_configuration()\n"
        "    start_services()\n    finish()"
    )
    result = EditMatcher().apply(text, old, "def run(self):\n    finish()")
    assert (result.strategy, result.content) == ("block_anchor", "def run(self):\n    finish()\n")


def test_a_blank_file_line_does_not_decide_how_old_strings_indentation_maps() -> None:
    text = "def run(self):\n\n    setup_environment()\n    load_configuration()\n    finish()\n"
    old = "def run(self):\n    setup_enviroment()\n    load_configuration()\n    finish()"
    result = EditMatcher().apply(text, old, "def run(self):\n    finish()")
    assert (result.strategy, result.content) == ("block_anchor", "def run(self):\n    finish()\n")


# -- a fragment of one line found by similarity -------------------------------------------------

LINE = "def f():\n    return valeu  # the answer\n"


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        # indentation beyond the target's own is kept, relative to the line's
        ("    return value", "      return result", "      return result  # the answer"),
        # a replacement without the target's indentation is not cut into
        ("    return value", "return result", "    return result  # the answer"),
        ("    return value", "  return result", "    return result  # the answer"),
        # trailing blanks of the target are only taken off a replacement that repeats them
        ("return value  ", "return result", "    return result  # the answer"),
        ("return value  ", "return result  ", "    return result  # the answer"),
        ("    return value  ", "    return result  ", "    return result  # the answer"),
    ],
    ids=["deeper", "unindented", "shallower", "trail-kept", "trail-repeated", "both"],
)
def test_a_fragment_replacement_fits_the_line_it_lands_in(old: str, new: str, line: str) -> None:
    result = EditMatcher().apply(LINE, old, new)
    assert result.strategy == "fuzzy"
    assert result.content == f"def f():\n{line}\n"


def test_a_fragment_exactly_as_similar_as_the_threshold_is_replaced() -> None:
    # 8 of 10 characters in common: 2 * 8 / 20 = 0.8
    result = EditMatcher(threshold=0.8).apply("abcdefghXY\n", "abcdefghij", "Z")
    assert (result.content, result.strategy) == ("Z\n", "fuzzy")


@pytest.mark.parametrize("head", ["a\n", "\n", ""], ids=["after-a-line", "after-a-blank", "first"])
def test_three_lines_whose_first_and_last_match_are_found_by_their_anchors(head: str) -> None:
    content = f"{head}start()\nvalue = compute(alpha, beta)\nfinish()\nb\n"
    old = "start()\nvalue = compte(alpha, beta)\nfinish()"
    result = EditMatcher().apply(content, old, "start()\nvalue = 1\nfinish()")
    assert (result.content, result.strategy) == (
        f"{head}start()\nvalue = 1\nfinish()\nb\n",
        "block_anchor",
    )


def test_of_two_closing_anchors_the_one_where_old_string_puts_it_is_taken() -> None:
    content = "begin()\nalpha = 1\nend()\nend()\n"
    result = EditMatcher().apply(content, "begin()\nalpha = 1X\nend()\nend()", "B")
    assert (result.content, result.strategy) == ("B\n", "block_anchor")


FRAMED = "start\n\n  foo()\n  bar()\n\nend\n"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # the blank lines framing old_string are not matched; new_string's same frame goes too
        ("\n\nfoo()\nbar()\n\n", "\n\nfoo(1)\nbar()\n\n", "start\n\n  foo(1)\n  bar()\n\nend\n"),
        ("\nfoo()\nbar()\n", "foo(1)\nbar()", "start\n\n  foo(1)\n  bar()\n\nend\n"),
        # newlines beyond old_string's frame are the caller's: an added blank line stays
        ("\n\nfoo()\nbar()\n\n", "\nfoo(1)\nbar()\n\n\n", "start\n\n  foo(1)\n  bar()\n\n\nend\n"),
        ("\nfoo()\nbar()", "\n\nfoo(1)\nbar()", "start\n\n\n  foo(1)\n  bar()\n\nend\n"),
    ],
    ids=["same-frame", "no-frame", "added-trailing", "added-leading"],
)
def test_blank_lines_framing_old_string_are_matched_by_lines(
    old: str, new: str, expected: str
) -> None:
    result = EditMatcher().apply(FRAMED, old, new)
    assert (result.content, result.strategy) == (expected, "indentation_flexible")
