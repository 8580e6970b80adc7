"""The edit engine's akgentic-tool 1.6.4 names: find/MatchResult, FilePatch(path=...),
apply_file_patch(file_patch, workspace), parse_patch(patch_text), line-ending helpers."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from pydantic import ValidationError

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import (
    AmbiguousEditError,
    EditMatcher,
    FilePatch,
    Hunk,
    WorkspaceTool,
    apply_file_patch,
    get_workspace,
    parse_patch,
)
from akgentic.tool.workspace.edit import MatchResult, detect_line_ending, normalise_endings

CODE = "def total(xs):\n    result = 0\n    for x in xs:\n        result += x\n    return result\n"


def test_find_locates_without_changing() -> None:
    matcher = EditMatcher()
    assert dataclasses.is_dataclass(MatchResult)
    found = matcher.find(CODE, "for x in xs:")
    assert found == MatchResult(CODE.index("for x"), CODE.index("for x") + 12, "exact")
    typo = matcher.find(CODE, "    for x in xs:\n        reslt += x\n")
    assert typo is not None
    assert typo.strategy not in ("exact",)
    assert "result += x" in CODE[typo.start : typo.end]
    assert matcher.find(CODE, "nothing like this at all, really") is None
    assert matcher.find(CODE, "") is None
    with pytest.raises(AmbiguousEditError):
        matcher.find(CODE, "result")


def test_hunk_and_file_patch_in_the_predecessor_form(roots: Path) -> None:
    hunk = Hunk(old_start=1, old_count=1, new_start=1, new_count=1, lines=["-one", "+two"])
    assert hunk.header == "@@ -1,1 +1,1 @@"
    patch = FilePatch(path="notes.txt", hunks=[hunk])
    assert (patch.old_path, patch.new_path, patch.path) == ("notes.txt", "notes.txt", "notes.txt")
    assert not patch.creates
    assert not patch.deletes
    assert FilePatch.model_validate(patch.model_dump()) == patch
    with pytest.raises(ValidationError):
        FilePatch(path="x.txt")  # hunks are required, as before
    with pytest.raises(ValidationError, match="path"):
        FilePatch(hunks=[])
    with pytest.raises(ValidationError, match="not the file"):
        FilePatch(path="a.txt", old_path="b.txt", new_path="c.txt", hunks=[])
    (created,) = parse_patch(patch_text="--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n")
    assert created.path == "new.txt"
    assert created.creates
    assert FilePatch.model_validate(created.model_dump()) == created


def test_apply_file_patch_to_a_workspace(roots: Path) -> None:
    fs = get_workspace("patch")
    (fs.root / "notes.txt").write_text("one\nkeep\n")
    hunk = Hunk(old_start=1, old_count=2, new_start=1, new_count=2, lines=["-one", "+two", " keep"])
    report = apply_file_patch(FilePatch(path="notes.txt", hunks=[hunk]), fs)
    assert "notes.txt" in report
    assert (fs.root / "notes.txt").read_text() == "two\nkeep\n"
    back = Hunk(old_start=1, old_count=2, new_start=1, new_count=2, lines=["-two", "+one", " keep"])
    apply_file_patch(file_patch=FilePatch(path="notes.txt", hunks=[back]), workspace=fs)
    assert (fs.root / "notes.txt").read_text() == "one\nkeep\n"
    with pytest.raises(RetriableError, match="does not apply"):
        apply_file_patch(FilePatch(path="notes.txt", hunks=[back]), fs)
    assert (fs.root / "notes.txt").read_text() == "one\nkeep\n"
    with pytest.raises(RetriableError):
        apply_file_patch(FilePatch(path="../escape.txt", hunks=[hunk]), fs)
    with pytest.raises(TypeError):
        apply_file_patch(file_patch=FilePatch(path="notes.txt", hunks=[hunk]))
    # the pure form is unchanged
    assert apply_file_patch("one\nkeep\n", FilePatch(path="n", hunks=[hunk])) == "two\nkeep\n"


def test_workspace_patch_takes_patch_text(ws: Path) -> None:
    tools = {fn.__name__: fn for fn in WorkspaceTool(workspace_id="team").get_tools()}
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "a.txt").write_text("old\n")
    tools["workspace_patch"](patch_text="--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n")
    assert (ws / "a.txt").read_text() == "new\n"


def test_line_ending_helpers() -> None:
    assert detect_line_ending("a\r\nb\r\n") == "\r\n"
    assert detect_line_ending("a\nb\n") == "\n"
    assert detect_line_ending("no break") == "\n"
    assert detect_line_ending("a\r\nb\r\nc\n") == "\r\n"
    assert detect_line_ending("a\r\nb\nc\n") == "\n"
    assert normalise_endings("a\r\nb\nc", "\r\n") == "a\r\nb\r\nc"
    assert normalise_endings("a\r\nb\nc\r", "\n") == "a\nb\nc\r"
    with pytest.raises(ValueError, match="line_ending"):
        normalise_endings("a", "\r")
