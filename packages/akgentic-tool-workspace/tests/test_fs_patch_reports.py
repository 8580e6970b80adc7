"""What `Filesystem.patch` answers: its report of each file, and every refusal word for word.

Each refusal is checked against the files as they were before: a refused patch changes none.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import Filesystem


def _state(root: Path) -> dict[str, bytes | None]:
    return {
        path.name: path.read_bytes() if path.is_file() else None
        for path in sorted(root.iterdir())
        if not path.name.startswith(".")
    }


@pytest.fixture
def fs(tmp_path: Path) -> Filesystem:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    (tmp_path / "c.txt").write_text("c\n")
    (tmp_path / "file").write_text("x\n")
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "bin").write_bytes(b"\x00\x01\x02binary\n")
    return Filesystem(root=tmp_path)


def test_the_report_names_each_file_and_what_happened_to_it(fs: Filesystem) -> None:
    diff = (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n@@ -3 +3 @@\n-three\n+THREE\n"
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"
        "--- a/c.txt\n+++ b/d.txt\n@@ -1 +1 @@\n-c\n+C\n"
        "--- a/file\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
    )
    assert fs.patch(diff) == (
        "Patched 4 file(s): a.txt (2 hunks); new.txt created; "
        "c.txt renamed to d.txt (1 hunk); file deleted."
    )
    root = fs.root
    assert (root / "a.txt").read_text() == "ONE\ntwo\nTHREE\n"
    assert (root / "new.txt").read_text() == "hi\n"
    assert (root / "d.txt").read_text() == "C\n"
    assert not (root / "c.txt").exists()
    assert not (root / "file").exists()


def test_one_hunk_is_reported_in_the_singular(fs: Filesystem) -> None:
    report = fs.patch("--- a/a.txt\n+++ b/a.txt\n@@ -2 +2 @@\n-two\n+TWO\n")
    assert report == "Patched 1 file(s): a.txt (1 hunk)."


REFUSALS = [
    (
        "garbage",
        "no file changes found; a unified diff needs '--- old' and '+++ new' header lines "
        "followed by '@@ -start,count +start,count @@' hunks",
    ),
    (
        "--- /dev/null\n+++ b/file/new.txt\n@@ -0,0 +1 @@\n+hi\n",
        "cannot create file/new.txt: file is a file, not a directory",
    ),
    ("--- a/dir\n+++ b/dir\n@@ -1 +1 @@\n-x\n+y\n", "dir is a directory, not a file"),
    (
        "--- a/fifo\n+++ b/fifo\n@@ -1 +1 @@\n-x\n+y\n",
        "fifo is a FIFO (named pipe), not a regular file; workspace tools only read and write "
        "regular files (workspace_delete removes it)",
    ),
    (
        "--- a/bin\n+++ b/bin\n@@ -1 +1 @@\n-x\n+y\n",
        "bin is not a text file (binary content (NUL bytes)); text tools cannot change it "
        "without corrupting it",
    ),
    (
        "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+hi\n",
        "a.txt already exists but the patch creates it; delete it first",
    ),
    (
        "--- a/c.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-c\n+C\n",
        "a.txt already exists but the patch renames c.txt to it; delete it first",
    ),
    (
        # the second change only lands on a file the first one staged: still a repeat
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n"
        "--- a/c.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-c\n+C\n",
        "a.txt appears twice in the patch; merge its hunks",
    ),
]


@pytest.mark.parametrize(
    ("diff", "reason"),
    REFUSALS,
    ids=[
        "not-a-diff",
        "under-a-file",
        "directory",
        "fifo",
        "binary",
        "create-existing",
        "rename-onto-existing",
        "twice",
    ],
)
def test_each_refusal_says_why_and_changes_nothing(fs: Filesystem, diff: str, reason: str) -> None:
    before = _state(fs.root)
    with pytest.raises(RetriableError) as refusal:
        fs.patch(diff)
    assert str(refusal.value) == f"patch rejected: {reason}. No file was changed."
    assert _state(fs.root) == before
