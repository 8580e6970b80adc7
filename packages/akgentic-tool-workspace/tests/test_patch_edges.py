"""Unified diffs at their edges: odd header names, stray lines, markers, drift, refusals.

Each case goes through `Filesystem.patch` on real files (or `parse_patch` for what a header
name becomes): what the patch wrote, or its refusal word for word with the files unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import Filesystem, parse_patch

NO_NEWLINE = "\\ No newline at end of file\n"


@pytest.fixture
def fs(tmp_path: Path) -> Filesystem:
    (tmp_path / "f.txt").write_text("a\nb\n")
    return Filesystem(root=tmp_path)


def _refusal(fs: Filesystem, diff: str) -> str:
    """The refusal of `diff`, after checking that f.txt (the only file) is unchanged."""
    with pytest.raises(RetriableError) as refused:
        fs.patch(diff)
    assert sorted(path.name for path in fs.root.iterdir()) == ["f.txt"]
    assert (fs.root / "f.txt").read_text() == "a\nb\n"
    return str(refused.value)


# -- file names in the headers ------------------------------------------------------------------


def test_a_header_name_ends_at_the_first_tab_whatever_follows_it(fs: Filesystem) -> None:
    diff = (
        "--- a/f.txt\t2024-01-01 10:00:00\tmore\n+++ b/f.txt\t2024-01-02 10:00:00\tmore\n"
        "@@ -1 +1 @@\n-a\n+A\n"
    )
    assert fs.patch(diff) == "Patched 1 file(s): f.txt (1 hunk)."
    assert (fs.root / "f.txt").read_text() == "A\nb\n"


@pytest.mark.parametrize(
    ("name", "path"),
    [('""', ""), ('"half.txt', '"half.txt'), ('"', '"'), ('"two words.txt"', "two words.txt")],
    ids=["empty", "opening", "lone", "quoted"],
)
def test_only_a_name_both_opened_and_closed_by_quotes_loses_them(name: str, path: str) -> None:
    (patch,) = parse_patch(f"--- {name}\n+++ {name}\n@@ -1 +1 @@\n-a\n+b\n")
    assert (patch.old_path, patch.new_path, patch.path) == (path, path, path)


def test_a_file_whose_name_starts_with_a_quote_is_created_under_that_name(
    fs: Filesystem,
) -> None:
    report = fs.patch('--- /dev/null\n+++ "half.txt\n@@ -0,0 +1 @@\n+hi\n')
    assert report == 'Patched 1 file(s): "half.txt created.'
    assert (fs.root / '"half.txt').read_text() == "hi\n"


def test_a_file_header_naming_dev_null_on_both_sides_is_refused(fs: Filesystem) -> None:
    diff = "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+hi\n"
    assert _refusal(fs, diff) == (
        "patch rejected: a file header names /dev/null on both sides (--- and +++). "
        "No file was changed."
    )


# -- lines around the file headers --------------------------------------------------------------


CHANGE_A = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+A\n"


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    "diff",
    [
        "One line of explanation first.\n" + CHANGE_A,
        "Two lines of explanation:\n--- stray dashes, not a header\n" + CHANGE_A,
        CHANGE_A + "--- a closing remark that looks like a header",
    ],
    ids=["prose", "stray", "trailing"],
)
def test_lines_that_are_no_file_header_are_skipped(fs: Filesystem, diff: str) -> None:
    assert fs.patch(diff) == "Patched 1 file(s): f.txt (1 hunk)."
    assert (fs.root / "f.txt").read_text() == "A\nb\n"


def test_a_file_header_ending_the_patch_is_refused_for_its_missing_hunk(fs: Filesystem) -> None:
    assert _refusal(fs, "--- a/f.txt\n+++ b/f.txt\n") == (
        "patch rejected: the patch for f.txt has a file header but no @@ hunk. No file was changed."
    )


# -- hunk bodies ---------------------------------------------------------------------------------


def test_a_hunk_line_without_its_prefix_ends_the_hunk_body_there(fs: Filesystem) -> None:
    (fs.root / "f.txt").write_text("X = 1\ny = 2\n")
    # the context line "X = 1" lost its leading space: the body ends before it
    with pytest.raises(RetriableError) as refused:
        fs.patch("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\nX = 1\n-y = 2\n+y = 3\n")
    assert str(refused.value) == (
        "patch rejected: hunk 1 of f.txt (@@ -1,2 +1,2 @@) promises 2 old and 2 new lines but "
        "its body has 0 old and 0 new lines; fix the counts in the @@ header. "
        "No file was changed."
    )
    assert (fs.root / "f.txt").read_text() == "X = 1\ny = 2\n"


def test_a_hunk_that_does_not_apply_is_named_by_its_whole_header_and_first_old_line(
    fs: Filesystem,
) -> None:
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@ def main\n a\n-c\n+C\n"
    assert _refusal(fs, diff) == (
        "patch rejected: hunk 1 of f.txt (@@ -1,2 +1,2 @@ def main) does not apply: its 2 "
        "context/removed lines were not found near line 1 (first expected line: 'a'); "
        "re-read the file and rebuild the hunk. No file was changed."
    )


# -- missing final newlines ----------------------------------------------------------------------


def test_a_created_file_can_end_without_a_newline(fs: Filesystem) -> None:
    fs.patch("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n" + NO_NEWLINE)
    assert (fs.root / "new.txt").read_bytes() == b"hi"


def test_a_no_newline_marker_before_the_next_hunk_changes_nothing_but_its_hunk(
    fs: Filesystem,
) -> None:
    (fs.root / "f.txt").write_text("a\nb\nc\nd\ne\nf\n")
    diff = (
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
        + NO_NEWLINE  # not the file's end: the marker is ignored
        + "@@ -3,2 +3,2 @@\n c\n-d\n+D\n"
    )
    assert fs.patch(diff) == "Patched 1 file(s): f.txt (2 hunks)."
    assert (fs.root / "f.txt").read_text() == "a\nB\nc\nD\ne\nf\n"


def test_a_hunk_at_the_end_without_a_marker_keeps_a_missing_final_newline_missing(
    fs: Filesystem,
) -> None:
    (fs.root / "f.txt").write_text("a\nb")
    assert fs.patch("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n").endswith("(1 hunk).")
    assert (fs.root / "f.txt").read_bytes() == b"A\nb"


def test_the_file_after_one_that_ends_without_a_newline_is_patched_too(fs: Filesystem) -> None:
    (fs.root / "f.txt").write_text("a\nb")
    (fs.root / "g.txt").write_text("g\n")
    diff = (
        "--- a/f.txt\n+++ b/f.txt\n@@ -2 +2 @@\n-b\n"
        + NO_NEWLINE
        + "+B\n"
        + NO_NEWLINE
        # the marker is followed at once by the next file's header
        + "--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-g\n+G\n"
    )
    assert fs.patch(diff) == "Patched 2 file(s): f.txt (1 hunk); g.txt (1 hunk)."
    assert (fs.root / "f.txt").read_bytes() == b"a\nB"
    assert (fs.root / "g.txt").read_text() == "G\n"


# -- where hunks are found -----------------------------------------------------------------------


def test_a_later_hunk_is_looked_for_as_far_off_as_the_first_was_found(fs: Filesystem) -> None:
    # The patch was made before four lines were added at the top: its hunks are four lines
    # further down than their headers say. "same" is both 4 lines above and 4 lines below
    # the second hunk's stated line; only the shift seen in the first hunk tells them apart.
    lines = [f"added {n}" for n in range(1, 5)] + ["first", "x", "same"]
    lines += [f"filler {n}" for n in range(8, 15)] + ["same", "last"]
    (fs.root / "f.txt").write_text("\n".join(lines) + "\n")
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-first\n+FIRST\n@@ -11 +11 @@\n-same\n+SAME\n"
    assert fs.patch(diff) == "Patched 1 file(s): f.txt (2 hunks)."
    expected = list(lines)
    expected[4] = "FIRST"
    expected[14] = "SAME"
    assert (fs.root / "f.txt").read_text() == "\n".join(expected) + "\n"


def test_a_hunk_stated_at_the_first_line_is_found_at_the_very_last(fs: Filesystem) -> None:
    lines = [f"line {n}" for n in range(1, 41)]
    (fs.root / "f.txt").write_text("\n".join(lines) + "\n")
    fs.patch("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n line 39\n-line 40\n+LAST\n")
    assert (fs.root / "f.txt").read_text() == "\n".join([*lines[:39], "LAST"]) + "\n"
