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


# -- list_dir: the flat listing and the tree ---------------------------------------------------


def test_list_dir_by_default_lists_the_root_flat_up_to_five_hundred_entries(
    tmp_path: Path,
) -> None:
    for n in range(501):
        (tmp_path / f"f{n:03}.txt").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inner.txt").write_text("")
    lines = Filesystem(root=tmp_path).list_dir().splitlines()
    assert lines[:3] == ["./", "sub/", "f000.txt (0 bytes)"]
    assert lines[500] == "f498.txt (0 bytes)"
    # the directory is counted but its content is not, since depth 1 does not enter it
    assert lines[501:] == ["[2 more entries not shown; list a subdirectory or lower the depth]"]


def test_list_dir_accepts_depths_from_one_to_thirty_two(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    deep = tmp_path.joinpath(*[f"d{n}" for n in range(40)])
    deep.mkdir(parents=True)
    tree = fs.list_dir(".", depth=32).splitlines()
    # 32 levels of directories are drawn, the 33rd is not entered
    assert len(tree) == 1 + 32
    assert tree[-1].endswith("└── d31/")
    for depth in (0, 33):
        with pytest.raises(RetriableError) as refusal:
            fs.list_dir(".", depth=depth)
        assert str(refusal.value) == f"depth must be between 1 and 32, got {depth}"


def test_a_tree_labels_links_as_links_and_does_not_enter_them(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "inside.txt").write_text("abc")
    (tmp_path / "aaa-dir-link").symlink_to("real")
    (tmp_path / "file-link").symlink_to("real/inside.txt")
    fs = Filesystem(root=tmp_path)
    assert fs.list_dir(".", depth=3).splitlines() == [
        "./",
        "├── real/",
        "│   └── inside.txt (3 bytes)",
        "├── aaa-dir-link@",
        "└── file-link@",
    ]
    assert fs.list_dir().splitlines() == ["./", "real/", "aaa-dir-link@", "file-link@"]


def _counted_tree(tmp_path: Path) -> Filesystem:
    (tmp_path / "a").mkdir()
    for n in range(3):
        (tmp_path / "a" / f"f{n}.txt").write_text("")
    (tmp_path / "b.txt").write_text("")
    return Filesystem(root=tmp_path)


def test_a_cut_tree_counts_what_it_walked_below_the_cut(tmp_path: Path) -> None:
    fs = _counted_tree(tmp_path)
    # two lines fit: a/ and its first file; a's other two files and b.txt are counted
    assert fs.list_dir(".", depth=2, max_entries=2).splitlines() == [
        "./",
        "├── a/",
        "│   ├── f0.txt (0 bytes)",
        "[at least 3 more entries not shown; list a subdirectory or lower the depth]",
    ]


def test_a_tree_cut_at_a_directory_does_not_walk_into_it(tmp_path: Path) -> None:
    fs = _counted_tree(tmp_path)
    # a/ fills the only line: its files are not walked, so only b.txt is counted
    assert fs.list_dir(".", depth=2, max_entries=1).splitlines() == [
        "./",
        "├── a/",
        "[at least 1 more entry not shown; list a subdirectory or lower the depth]",
    ]
