"""The edit cascade on plain strings: each strategy, ambiguity, and what is refused."""

from __future__ import annotations

import pytest

from akgentic.tool.workspace import (
    EDIT_STRATEGIES,
    AmbiguousEditError,
    EditError,
    EditMatcher,
    EditNotFoundError,
)

SOURCE = """\
class Cart:
    def __init__(self):
        self.items = []

    def add(self, item, quantity=1):
        for _ in range(quantity):
            self.items.append(item)

    def total(self):
        return sum(item.price for item in self.items)
"""


def test_the_cascade_has_seven_strategies_from_strict_to_lenient() -> None:
    assert EDIT_STRATEGIES == (
        "exact",
        "indentation_flexible",
        "line_trimmed",
        "whitespace_normalized",
        "escape_normalized",
        "block_anchor",
        "fuzzy",
    )


def test_exact_match_replaces_only_that_text() -> None:
    result = EditMatcher().apply(SOURCE, "quantity=1", "quantity=2")
    assert result.strategy == "exact"
    assert result.count == 1
    assert result.first_line == 5
    assert result.content == SOURCE.replace("quantity=1", "quantity=2")
    assert result.content[result.start : result.end] == "quantity=2"


def test_exact_duplicates_are_refused_with_their_lines() -> None:
    text = "x = 1\ny = 2\nx = 1\n"
    with pytest.raises(AmbiguousEditError) as caught:
        EditMatcher().apply(text, "x = 1", "x = 3")
    message = str(caught.value)
    assert "2 places" in message
    assert "lines 1, 3" in message
    assert "replace_all" in message


def test_replace_all_changes_every_occurrence() -> None:
    result = EditMatcher().apply("a-a-a", "a", "b", replace_all=True)
    assert (result.content, result.count) == ("b-b-b", 3)


def test_indentation_flexible_keeps_the_files_indentation() -> None:
    old = "def add(self, item, quantity=1):\n    for _ in range(quantity):"
    new = "def add(self, item, quantity=2):\n    for _ in range(quantity):"
    result = EditMatcher().apply(SOURCE, old, new)
    assert result.strategy == "indentation_flexible"
    assert "    def add(self, item, quantity=2):\n        for _ in range(quantity):" in (
        result.content
    )


def test_line_trimmed_maps_each_indentation_level() -> None:
    # the model used 2-space indentation; the file uses 4
    old = "def total(self):\n  return sum(item.price for item in self.items)"
    new = "def total(self):\n  return round(sum(item.price for item in self.items), 2)"
    result = EditMatcher().apply(SOURCE, old, new)
    assert result.strategy == "line_trimmed"
    assert (
        "    def total(self):\n        return round(sum(item.price for item in self.items), 2)\n"
    ) in result.content


def test_whitespace_normalized_ignores_runs_of_spaces() -> None:
    result = EditMatcher().apply(SOURCE, "sum(item.price  for item   in self.items)", "0")
    assert result.strategy == "whitespace_normalized"
    assert "        return 0\n" in result.content


def test_escape_normalized_undoes_double_escaping() -> None:
    text = 'print("a")\nprint("b")\n'
    result = EditMatcher().apply(text, 'print(\\"a\\")\\nprint(\\"b\\")', 'print(\\"c\\")')
    assert result.strategy == "escape_normalized"
    assert result.content == 'print("c")\n'


def test_block_anchor_tolerates_a_changed_middle() -> None:
    old = (
        "def add(self, item, quantity=1):\n"
        "    for _ in range(quantity):\n"
        "        self.items.append(itme)\n"
        "\n"
        "def total(self):"
    )
    new = "def add(self, item):\n    self.items.append(item)\n\ndef total(self):"
    result = EditMatcher().apply(SOURCE, old, new)
    assert result.strategy == "block_anchor"
    assert "    def add(self, item):\n        self.items.append(item)\n\n    def total" in (
        result.content
    )


def test_fuzzy_finds_a_one_character_typo_inside_a_line() -> None:
    result = EditMatcher().apply(SOURCE, "self.items.apend(item)", "self.items.insert(0, item)")
    assert result.strategy == "fuzzy"
    assert "            self.items.insert(0, item)\n" in result.content
    assert "append" not in result.content


def test_fuzzy_multi_line_window() -> None:
    old = "def __init__(slef):\n    self.itms = []"
    new = "def __init__(self):\n    self.items = {}"
    result = EditMatcher().apply(SOURCE, old, new)
    assert result.strategy == "fuzzy"
    assert "    def __init__(self):\n        self.items = {}\n" in result.content


def test_fuzzy_on_a_large_file_still_finds_the_target() -> None:
    lines = [f"    value_{i} = compute_{i}(alpha, beta_{i % 7})" for i in range(5000)]
    text = "\n".join(lines) + "\n"
    result = EditMatcher().apply(text, "value_4321 = compute_4321(alpah, beta_2)", "gone")
    assert result.strategy == "fuzzy"
    assert result.first_line == 4322
    assert "    gone\n" in result.content


def test_below_the_threshold_nothing_matches() -> None:
    with pytest.raises(EditNotFoundError) as caught:
        EditMatcher().apply(SOURCE, "completely different text here", "x")
    assert "not found" in str(caught.value)


def test_not_found_points_at_the_closest_line() -> None:
    with pytest.raises(EditNotFoundError) as caught:
        EditMatcher(threshold=0.99).apply(SOURCE, "def totals(self, x):", "x")
    assert "def total(self):" in str(caught.value)


def test_a_line_less_than_sixty_percent_similar_is_not_offered_as_a_hint() -> None:
    # every other character in common: close enough to be aligned, 50% similar once it is
    with pytest.raises(EditNotFoundError) as caught:
        EditMatcher().apply("aXcXeXgXiX\n", "abcdefghij", "x")
    assert str(caught.value) == (
        "old_string was not found (tried exact, indentation, whitespace, escape, block-anchor "
        "and fuzzy matching at 0.85). Read the file again and copy the text to replace exactly."
    )
    with pytest.raises(EditNotFoundError) as caught:
        EditMatcher().apply("abcdefghXY\n", "abcdefghij", "x")
    assert "The most similar text starts at line 1 (80% similar): 'abcdefghXY'." in str(
        caught.value
    )


def test_a_stricter_threshold_rejects_what_the_default_accepts() -> None:
    old = "self.items.apend(item)"
    assert EditMatcher(0.85).apply(SOURCE, old, "x").strategy == "fuzzy"
    with pytest.raises(EditNotFoundError):
        EditMatcher(0.99).apply(SOURCE, old, "x")


def test_ambiguous_fuzzy_matches_are_refused() -> None:
    text = "alpha = load(one)\nbeta = 2\nalpha = load(one)\n"
    with pytest.raises(AmbiguousEditError):
        EditMatcher().apply(text, "alpha = lood(one)", "x")


def test_empty_and_identical_edits_are_refused() -> None:
    with pytest.raises(EditError, match="empty"):
        EditMatcher().apply(SOURCE, "", "x")
    with pytest.raises(EditError, match="identical"):
        EditMatcher().apply(SOURCE, "Cart", "Cart")


def test_threshold_outside_the_unit_interval_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="threshold"):
        EditMatcher(threshold=1.5)


def test_huge_targets_and_lines_skip_the_similarity_stages() -> None:
    """Scoring is quadratic: a 40,000-character line or a 20,000-character target is left to
    the exact and whitespace-level strategies, so a typo there is reported as not found."""
    minified = "var a=1;" * 5000
    text = f"header\n{minified}\nfooter\n"
    assert EditMatcher().apply("x\nvar a=1;var b=2;\n", "var a=1;vra b=2;", "y").strategy == (
        "fuzzy"
    )
    with pytest.raises(EditNotFoundError):
        EditMatcher().apply(text, "var a=1;vra a=1;", "x")
    block = [f"line number {n} of a pasted block" for n in range(600)]
    file_text = "\n".join(block) + "\n"
    typo = "\n".join([*block[:300], "line nubmer 300 of a pasted block", *block[301:]])
    with pytest.raises(EditNotFoundError):
        EditMatcher().apply(file_text, typo, "x")
