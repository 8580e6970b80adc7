"""Unified diffs: parsing, applying hunks, and the workspace_patch tool's all-or-nothing rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import FilePatch, PatchError, apply_file_patch, parse_patch

Tools = dict[str, Any]

ORIGINAL = "".join(f"line {n}\n" for n in range(1, 21))

TWO_HUNKS = """\
--- a/notes.txt
+++ b/notes.txt
@@ -2,3 +2,3 @@
 line 2
-line 3
+line three
 line 4
@@ -15,3 +15,4 @@ some context
 line 15
 line 16
+line 16.5
 line 17
"""


def test_parse_reads_files_hunks_and_strips_git_prefixes() -> None:
    (patch,) = parse_patch(TWO_HUNKS)
    assert isinstance(patch, FilePatch)
    assert (patch.old_path, patch.new_path, patch.path) == ("notes.txt", "notes.txt", "notes.txt")
    assert [(h.old_start, h.old_count, h.new_start, h.new_count) for h in patch.hunks] == [
        (2, 3, 2, 3),
        (15, 3, 15, 4),
    ]
    assert patch.hunks[0].old_lines == ["line 2", "line 3", "line 4"]
    assert patch.hunks[0].new_lines == ["line 2", "line three", "line 4"]


def test_apply_two_hunks() -> None:
    (patch,) = parse_patch(TWO_HUNKS)
    result = apply_file_patch(ORIGINAL, patch)
    assert result is not None
    lines = result.splitlines()
    assert lines[2] == "line three"
    assert lines[16:18] == ["line 16.5", "line 17"]
    assert len(lines) == 21


def test_hunks_still_apply_when_the_file_moved_down() -> None:
    (patch,) = parse_patch(TWO_HUNKS)
    shifted = "header a\nheader b\n" + ORIGINAL
    result = apply_file_patch(shifted, patch)
    assert result is not None
    assert "line three" in result
    assert result.startswith("header a\nheader b\nline 1\n")


def test_a_hunk_that_does_not_fit_is_named() -> None:
    (patch,) = parse_patch(TWO_HUNKS)
    broken = ORIGINAL.replace("line 16\n", "line sixteen\n")
    with pytest.raises(PatchError) as caught:
        apply_file_patch(broken, patch)
    message = str(caught.value)
    assert "hunk 2 of notes.txt" in message
    assert "@@ -15,3 +15,4 @@" in message


def test_counts_that_disagree_with_the_body_are_refused() -> None:
    bad = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n"
    with pytest.raises(PatchError, match="promises 3 old and 3 new"):
        parse_patch(bad)


def test_text_without_a_diff_is_refused() -> None:
    with pytest.raises(PatchError, match="no file changes found"):
        parse_patch("just some words\n")


def test_missing_newline_markers_are_honoured() -> None:
    diff = (
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
        "\\ No newline at end of file\n"
    )
    (patch,) = parse_patch(diff)
    assert apply_file_patch("a\nb", patch) == "a\nc"


def test_creation_and_deletion() -> None:
    create = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n"
    (patch,) = parse_patch(create)
    assert patch.creates
    assert apply_file_patch(None, patch) == "hello\nworld\n"
    delete = "--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-hello\n-world\n"
    (patch,) = parse_patch(delete)
    assert patch.deletes
    assert apply_file_patch("hello\nworld\n", patch) is None


# -- through the tool -------------------------------------------------------------------------


def test_patch_tool_changes_several_files(tools: Tools, ws: Path) -> None:
    tools["workspace_write"]("notes.txt", ORIGINAL)
    tools["workspace_write"]("src/app.py", "def main():\n    return 1\n")
    diff = (
        TWO_HUNKS
        + "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n def main():\n-    return 1\n"
        + "+    return 2\n"
        + "--- /dev/null\n+++ b/docs/readme.md\n@@ -0,0 +1 @@\n+# Docs\n"
    )
    report = tools["workspace_patch"](diff)
    assert "3 file(s)" in report
    assert (ws / "src/app.py").read_text() == "def main():\n    return 2\n"
    assert "line three" in (ws / "notes.txt").read_text()
    assert (ws / "docs/readme.md").read_text() == "# Docs\n"


def test_patch_tool_changes_nothing_when_one_hunk_fails(tools: Tools, ws: Path) -> None:
    tools["workspace_write"]("notes.txt", ORIGINAL)
    tools["workspace_write"]("src/app.py", "def main():\n    return 1\n")
    diff = (
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n def main():\n-    return 1\n"
        "+    return 2\n"
        "--- /dev/null\n+++ b/created.txt\n@@ -0,0 +1 @@\n+new\n"
        + TWO_HUNKS.replace(" line 17\n", " line 99\n")
    )
    with pytest.raises(RetriableError) as caught:
        tools["workspace_patch"](diff)
    assert "hunk 2 of notes.txt" in str(caught.value)
    assert "No file was changed" in str(caught.value)
    assert (ws / "src/app.py").read_text() == "def main():\n    return 1\n"
    assert (ws / "notes.txt").read_text() == ORIGINAL
    assert not (ws / "created.txt").exists()


def test_patch_tool_keeps_crlf_and_handles_rename(tools: Tools, ws: Path) -> None:
    (ws / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    diff = "--- a/win.txt\n+++ b/renamed.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    assert "renamed" in tools["workspace_patch"](diff)
    assert not (ws / "win.txt").exists()
    assert (ws / "renamed.txt").read_bytes() == b"one\r\nTWO\r\nthree\r\n"


def test_patch_tool_refuses_to_create_an_existing_file(tools: Tools, ws: Path) -> None:
    (ws / "here.txt").write_text("x\n")
    with pytest.raises(RetriableError, match="already exists"):
        tools["workspace_patch"]("--- /dev/null\n+++ b/here.txt\n@@ -0,0 +1 @@\n+y\n")
    assert (ws / "here.txt").read_text() == "x\n"


def test_patch_tool_refuses_a_path_outside_the_workspace(tools: Tools, ws: Path) -> None:
    with pytest.raises(RetriableError, match="escapes"):
        tools["workspace_patch"]("--- /dev/null\n+++ b/../../evil.txt\n@@ -0,0 +1 @@\n+y\n")
    assert not (ws.parent.parent / "evil.txt").exists()


def test_patch_tool_refuses_to_rename_onto_an_existing_file(tools: Tools, ws: Path) -> None:
    (ws / "a.txt").write_text("one\n")
    (ws / "b.txt").write_text("keep\n")
    with pytest.raises(RetriableError, match="renames a.txt to it"):
        tools["workspace_patch"]("--- a/a.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-one\n+two\n")
    assert (ws / "a.txt").read_text() == "one\n"
    assert (ws / "b.txt").read_text() == "keep\n"


def test_later_hunks_land_where_earlier_ones_moved_them_in_a_file_of_equal_lines() -> None:
    # Every line is "A": content cannot tell the places apart, only the running offset can.
    patch_text = (
        "--- a/same.txt\n+++ b/same.txt\n"
        "@@ -3,1 +3,3 @@\n-A\n+X1\n+X2\n+X3\n"
        "@@ -8,1 +10,1 @@\n-A\n+Y\n"
        "@@ -12,0 +15,1 @@\n+INS\n"
        "@@ -15,1 +18,0 @@\n-A\n"
        "@@ -18,1 +20,2 @@\n-A\n+Z1\n+Z2\n"
    )
    (patch,) = parse_patch(patch_text)
    expected = ["A"] * 20  # edited from the end, so each index is the original line's
    expected[17:18] = ["Z1", "Z2"]
    del expected[14]
    expected[12:12] = ["INS"]  # a pure insertion goes after its stated line
    expected[7] = "Y"
    expected[2:3] = ["X1", "X2", "X3"]
    assert apply_file_patch("A\n" * 20, patch) == "\n".join(expected) + "\n"


def test_quoted_and_timestamped_file_names_are_read_whole() -> None:
    text = (
        '--- "a/my notes.txt"\n+++ "b/my notes.txt"\n@@ -1 +1 @@\n-a\n+b\n'
        "--- old name.txt\t2024-01-01 10:00:00.000000000 +0100\n"
        "+++ new name.txt\t2024-01-02 10:00:00.000000000 +0100\n@@ -1 +1 @@\n-x\n+y\n"
    )
    quoted, dated = parse_patch(text)
    assert (quoted.old_path, quoted.new_path) == ("my notes.txt", "my notes.txt")
    assert (dated.old_path, dated.new_path, dated.path) == (
        "old name.txt",
        "new name.txt",
        "new name.txt",
    )


def test_what_a_patch_cannot_do_to_a_file_is_said_whole() -> None:
    (create,) = parse_patch("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n")
    (change,) = parse_patch("--- a/gone.txt\n+++ b/gone.txt\n@@ -1 +1 @@\n-a\n+b\n")
    (delete,) = parse_patch("--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-hello\n")
    refusals = [
        (create, "hi\n", "new.txt already exists but the patch creates it (--- /dev/null)"),
        (change, None, "gone.txt: file not found, so the patch cannot be applied"),
        (
            delete,
            "hello\nstill here\n",
            "the patch deletes old.txt (+++ /dev/null) but lines would remain; "
            "its hunk must remove the whole file",
        ),
    ]
    for patch, content, message in refusals:
        with pytest.raises(PatchError) as refused:
            apply_file_patch(content, patch)
        assert str(refused.value) == message


def test_a_hunk_emptying_a_file_leaves_it_empty() -> None:
    (patch,) = parse_patch("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +0,0 @@\n-a\n-b\n")
    assert apply_file_patch("a\nb\n", patch) == ""


def test_the_ways_apply_file_patch_can_be_called_wrong_are_named() -> None:
    (patch,) = parse_patch("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n")
    wrong = [
        ((), {"file_patch": patch}),  # the workspace form without its workspace
        ((patch, patch), {}),  # a patch where the workspace goes
        (("a\n",), {}),  # a text and no patch
        (("a\n", "not a patch"), {}),
    ]
    messages = []
    for args, kwargs in wrong:
        with pytest.raises(TypeError) as refused:
            apply_file_patch(*args, **kwargs)  # type: ignore[call-overload]
        messages.append(str(refused.value))
    both = "apply_file_patch(file_patch, workspace) needs both of them"
    missing = "apply_file_patch(content, patch) needs the FilePatch to apply"
    assert messages == [both, both, missing, missing]


def test_a_malformed_hunk_header_is_named_with_its_file() -> None:
    with pytest.raises(PatchError) as refused:
        parse_patch("--- a/f.txt\n+++ b/f.txt\n@@ -one +two @@\n-a\n+b\n")
    assert str(refused.value) == "hunk 1 of f.txt: malformed header '@@ -one +two @@'"


def test_git_prefixes_go_only_when_both_sides_have_them() -> None:
    (patch,) = parse_patch("--- a/x.txt\n+++ c/x.txt\n@@ -1 +1 @@\n-a\n+b\n")
    assert (patch.old_path, patch.new_path) == ("a/x.txt", "c/x.txt")


def test_a_blank_context_line_is_read_as_an_empty_line_of_the_file() -> None:
    # Editors and chat interfaces drop the lone space that starts an empty context line.
    (patch,) = parse_patch("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n")
    assert apply_file_patch("a\n\nc\n", patch) == "a\n\nC\n"


def test_a_hunk_cut_short_by_another_line_is_refused_with_its_counts() -> None:
    short = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\nnot part of any hunk\n"
    with pytest.raises(PatchError, match="promises 3 old and 3 new lines but its body has 2 old"):
        parse_patch(short)


def test_a_git_diff_ending_without_a_newline_is_one_file_patch() -> None:
    text = (
        "diff --git a/f.txt b/f.txt\nindex 1111111..2222222 100644\n--- a/f.txt\n+++ b/f.txt\n"
        "@@ -1 +1 @@\n-old\n+new\n\\ No newline at end of file\n"
    )
    (patch,) = parse_patch(text)
    assert apply_file_patch("old\n", patch) == "new"


def test_a_wrong_count_on_the_new_side_alone_is_refused() -> None:
    with pytest.raises(PatchError) as refused:
        parse_patch("--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +1,2 @@\n a\n")
    assert str(refused.value) == (
        "hunk 1 of f.txt (@@ -1,1 +1,2 @@) promises 1 old and 2 new lines but its body has "
        "1 old and 1 new lines; fix the counts in the @@ header"
    )


def test_a_patch_with_crlf_line_ends_or_no_final_newline_reads_the_same() -> None:
    plain = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
    for text in (plain.replace("\n", "\r\n"), plain.rstrip("\n")):
        (patch,) = parse_patch(text)
        assert apply_file_patch("a\nb\n", patch) == "a\nB\n"
