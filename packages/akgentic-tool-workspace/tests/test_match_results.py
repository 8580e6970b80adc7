"""What `EditMatcher` hands back: spans, line numbers, `find`, and the messages the model reads."""

from __future__ import annotations

import pytest

from akgentic.tool.workspace import (
    AmbiguousEditError,
    EditError,
    EditMatcher,
    EditNotFoundError,
    MatchResult,
)

TWO_LOADERS = (
    "class Store:\n"
    "    def load_user(self, user_id):\n"
    "        return self.db.get(user_id)\n"
    "\n"
    "    def load_user(self, uid):\n"
    "        return self.db.get(uid)\n"
)
TYPO = "def load_usr(self, user_id):\n    return self.db.get(user_id)"


def _refusal(places: int) -> str:
    text = "".join(f"x = {n}\nsame = 1\n" for n in range(places))
    with pytest.raises(AmbiguousEditError) as caught:
        EditMatcher().apply(text, "same = 1", "same = 2")
    return str(caught.value)


def test_an_ambiguous_edit_names_every_line_and_tells_how_to_fix_it() -> None:
    assert _refusal(2) == (
        "old_string matches 2 places (exact match at lines 2, 4); "
        "add surrounding lines to old_string so it matches exactly one place, "
        "or set replace_all=true to change every one of them"
    )


def test_an_ambiguous_edit_lists_at_most_ten_lines_and_counts_the_rest() -> None:
    assert "(exact match at lines 2, 4, 6, 8, 10, 12, 14, 16, 18, 20);" in _refusal(10)
    assert "lines 2, 4, 6, 8, 10, 12, 14, 16, 18, 20 and 1 more);" in _refusal(11)
    assert "lines 2, 4, 6, 8, 10, 12, 14, 16, 18, 20 and 3 more);" in _refusal(13)


def test_a_search_over_budget_asks_for_an_exact_copy() -> None:
    with pytest.raises(EditNotFoundError) as caught:
        EditMatcher(work_budget=1_000).apply(TWO_LOADERS, TYPO, "x")
    assert str(caught.value) == (
        "old_string was not found as written, and it is too long, or too many places of "
        "the file look like it, for a fuzzy match (the similarity search stopped after "
        "1,000 character comparisons). Read those lines of the file again and copy the "
        "text to replace exactly, or give a shorter old_string of a few distinctive lines."
    )


def test_the_best_of_two_fuzzy_places_is_edited_when_it_is_clearly_better() -> None:
    result = EditMatcher().apply(TWO_LOADERS, TYPO, "def load_user(self, key):\n    pass")
    assert result.strategy == "fuzzy"
    assert result.content.split("\n")[1:3] == ["    def load_user(self, key):", "        pass"]
    assert "return self.db.get(uid)" in result.content


def test_a_non_exact_edit_reports_where_its_replacement_landed() -> None:
    content = "\nfirst line\nvalue  =  compute(a, b)\nlast line\n"
    result = EditMatcher().apply(content, "value = compute(a, b)", "value = 0")
    assert result.strategy == "whitespace_normalized"
    assert result.first_line == 3
    assert (result.start, result.end) == (12, 21)
    assert result.content[result.start : result.end] == "value = 0"


def test_find_gives_the_span_and_strategy_of_a_fuzzy_match_and_its_work() -> None:
    matcher = EditMatcher()
    found = matcher.find(TWO_LOADERS, TYPO)
    start = TWO_LOADERS.index("    def load_user(self, user_id)")  # whole lines
    end = TWO_LOADERS.index("(user_id)\n\n") + len("(user_id)")
    assert found == MatchResult(start, end, "fuzzy")
    assert matcher.last_work > 0
    assert matcher.find(TWO_LOADERS, "class Store:") == MatchResult(0, 12, "exact")
    assert matcher.last_work == 0


def test_find_refuses_a_fuzzy_target_matching_two_places_alike() -> None:
    text = "alpha = load(one)\nbeta = 2\nalpha = load(one)\n"
    with pytest.raises(AmbiguousEditError, match="fuzzy match at lines 1, 3"):
        EditMatcher().find(text, "alpha = lood(one)")


def test_a_double_escaped_target_found_three_times_is_refused_naming_each_line() -> None:
    text = 'a = say("hi")\nb = say("hi")\nc = say("hi")\n'
    with pytest.raises(
        AmbiguousEditError, match=r"3 places \(escape_normalized match at lines 1, 2, 3\)"
    ):
        EditMatcher().apply(text, 'say(\\"hi\\")', 'say(\\"bye\\")')


def test_a_double_escaped_target_indented_differently_is_matched_line_by_line() -> None:
    text = 'def f():\n    print("a")\n    print("b")\n'
    result = EditMatcher().apply(text, 'print(\\"a\\")\\n  print(\\"b\\")', 'print(\\"c\\")')
    assert (result.strategy, result.content) == ("escape_normalized", 'def f():\n    print("c")\n')


def test_replace_all_reports_where_the_first_replacement_landed() -> None:
    result = EditMatcher().apply("\nx = 1\ny\nx = 1\n", "x = 1", "x = 22", replace_all=True)
    assert (result.count, result.first_line, result.start, result.end) == (2, 2, 1, 7)


def test_an_empty_or_unchanged_edit_is_refused_with_what_to_do_instead() -> None:
    with pytest.raises(EditError) as empty:
        EditMatcher().apply("x", "", "y")
    assert str(empty.value) == (
        "old_string is empty; give the exact text to replace "
        "(use workspace_write to create or overwrite a whole file)"
    )
    with pytest.raises(EditError) as same:
        EditMatcher().apply("x", "x", "x")
    assert str(same.value) == "old_string and new_string are identical; nothing would change"


def test_an_exact_edit_after_a_fuzzy_one_reports_no_similarity_work() -> None:
    matcher = EditMatcher()
    matcher.apply(TWO_LOADERS, TYPO, "pass")
    assert matcher.last_work > 0
    matcher.apply(TWO_LOADERS, "class Store:", "class Shop:")
    assert matcher.last_work == 0
