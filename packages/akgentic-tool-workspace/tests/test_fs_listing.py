"""`Filesystem.list`, `find_images` and the 1.6.4 `Filesystem(base, name)` form, on real files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import FileEntry, Filesystem


def test_listing_a_missing_directory_says_it_is_not_found(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(RetriableError, match=r"^Directory not found: nope$"):
        fs.list("nope")
    with pytest.raises(RetriableError, match=r"^Directory not found: nope/deeper$"):
        fs.list("nope/deeper")
    with pytest.raises(RetriableError, match=r"^notes.txt is not a directory$"):
        fs.list("notes.txt")


def test_listing_leaves_out_internal_files_and_keeps_every_other_entry(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    names = [f"file{n:02}.txt" for n in range(40)]
    for name in names:
        (tmp_path / name).write_text("x")
        (tmp_path / f".{name}.md").write_text("cached")  # a sidecar: internal
    (tmp_path / ".file00.txt.abcd1234.tmp").write_text("half")  # a write's temp file
    assert [entry.name for entry in fs.list()] == names


def test_a_symlink_is_listed_as_itself_not_as_what_it_points_to(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    (tmp_path / "real").mkdir()
    (tmp_path / "data.bin").write_bytes(b"x" * 1000)
    (tmp_path / "to-dir").symlink_to("real")
    (tmp_path / "to-file").symlink_to("data.bin")
    (tmp_path / "dangling").symlink_to("gone")
    assert fs.list() == [
        FileEntry(name="real", is_dir=True, size=(tmp_path / "real").stat().st_size),
        FileEntry(name="dangling", is_dir=False, size=len("gone")),
        FileEntry(name="data.bin", is_dir=False, size=1000),
        FileEntry(name="to-dir", is_dir=False, size=len("real")),
        FileEntry(name="to-file", is_dir=False, size=len("data.bin")),
    ]


def test_find_images_counts_the_images_and_the_other_files_matched(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    for name in ("old.png", "new.jpg", "a.txt", "b.md", "c.csv"):
        (tmp_path / name).write_bytes(b"x")
    os.utime(tmp_path / "old.png", (1_000, 1_000))
    assert fs.find_images("*", limit=1) == (["new.jpg"], 2, 3)


def test_a_named_workspace_is_created_with_its_missing_parents(tmp_path: Path) -> None:
    fs = Filesystem(tmp_path, "team/sub/deep")
    assert fs.root == (tmp_path / "team/sub/deep").resolve()
    assert fs.root.is_dir()


@pytest.mark.parametrize("name", ["", "a\x00b"])
def test_an_empty_name_or_one_with_a_nul_byte_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="workspace_name must be a non-empty name"):
        Filesystem(tmp_path, name)


def test_deleting_a_directory_that_is_not_empty_says_to_delete_its_files_first(
    tmp_path: Path,
) -> None:
    fs = Filesystem(root=tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("x")
    with pytest.raises(RetriableError) as refusal:
        fs.delete("docs")
    assert str(refusal.value) == (
        "docs is a directory that is not empty; workspace_delete removes files "
        "(and empty directories): delete its files first"
    )
