"""Applying unified-diff hunks: final newlines, and where a hunk's old lines are found."""

from __future__ import annotations

from akgentic.tool.workspace import apply_file_patch, parse_patch

HEADER = "--- a/f\n+++ b/f\n"
NO_NEWLINE = "\\ No newline at end of file\n"


def _flags(body: str) -> tuple[bool, bool]:
    (patch,) = parse_patch(HEADER + body)
    (hunk,) = patch.hunks
    return hunk.old_missing_newline, hunk.new_missing_newline


def test_a_missing_newline_marker_belongs_to_the_side_of_the_line_before_it() -> None:
    assert _flags("@@ -1,2 +1,2 @@\n a\n-b\n" + NO_NEWLINE + "+b\n") == (True, False)
    assert _flags("@@ -1,2 +1,2 @@\n a\n-b\n+c\n" + NO_NEWLINE) == (False, True)
    assert _flags("@@ -1,1 +1,2 @@\n+a\n b\n" + NO_NEWLINE) == (True, True)


def test_a_hunk_can_add_the_final_newline_a_file_lacked() -> None:
    (patch,) = parse_patch(HEADER + "@@ -1,2 +1,2 @@\n a\n-b\n" + NO_NEWLINE + "+b\n")
    assert apply_file_patch("a\nb", patch) == "a\nb\n"


def test_a_hunk_can_drop_the_final_newline() -> None:
    (patch,) = parse_patch(HEADER + "@@ -1,2 +1,2 @@\n a\n-b\n+b\n" + NO_NEWLINE)
    assert apply_file_patch("a\nb\n", patch) == "a\nb"


def test_an_exact_match_further_away_wins_over_a_whitespace_match_at_the_stated_line() -> None:
    (patch,) = parse_patch(HEADER + "@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n")
    content = "ctx  \nold\nfiller\nctx\nold\n"
    assert apply_file_patch(content, patch) == "ctx  \nold\nfiller\nctx\nnew\n"


def test_indented_lines_differing_in_trailing_spaces_still_apply() -> None:
    (patch,) = parse_patch(HEADER + "@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n")
    assert apply_file_patch("def f():  \n    return 1   \n", patch) == "def f():\n    return 2\n"


def test_a_hunk_stated_far_past_the_end_of_the_file_is_found_near_the_top() -> None:
    # The model miscounted: line 90 of a six-line file. The search reaches back that far.
    (patch,) = parse_patch(HEADER + "@@ -90,2 +90,2 @@\n b\n-c\n+C\n")
    assert apply_file_patch("a\nb\nc\nd\ne\nf\n", patch) == "a\nb\nC\nd\ne\nf\n"


def test_of_two_matches_as_far_from_the_stated_line_the_earlier_one_is_patched() -> None:
    (patch,) = parse_patch(HEADER + "@@ -4,1 +4,1 @@\n-x\n+X\n")
    # line 4 ("mid") does not match; "x" is two lines before it and two lines after it
    assert apply_file_patch("a\nx\nb\nmid\nc\nx\n", patch) == "a\nX\nb\nmid\nc\nx\n"
