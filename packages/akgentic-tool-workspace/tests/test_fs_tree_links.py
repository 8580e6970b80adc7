"""Directory listings and per-workspace locks, on real files under `tmp_path`.

Some cases need a directory that exists but cannot be opened. Running as root, permissions
cannot cause that, so the process is left without spare file descriptors instead: every
other descriptor is taken by `/dev/null` handles until the call returns.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from akgentic.tool.workspace import EditMatcher, EditResult, Filesystem, get_workspace

from .conftest import free_descriptors, refusal


@pytest.fixture
def fs(tmp_path: Path) -> Filesystem:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("needle\n")
    return Filesystem(root=tmp_path)


# -- a folder that cannot be opened -------------------------------------------------------------


_LISTINGS: dict[str, Callable[[Filesystem], object]] = {
    "list": lambda fs: fs.list("sub"),
    "list_dir": lambda fs: fs.list_dir("sub"),
    "glob": lambda fs: fs.glob("*", "sub"),
    "grep": lambda fs: fs.grep("needle", "sub"),
}


@pytest.mark.parametrize("method", sorted(_LISTINGS))
def test_a_listing_names_the_folder_it_could_not_open(fs: Filesystem, method: str) -> None:
    call = _LISTINGS[method]
    call(fs)  # loads whatever the call imports lazily while descriptors are plentiful
    with free_descriptors(1):  # room for the root's descriptor, not the folder's
        message = refusal(call, fs)
    # the folder is there: it is not reported missing, the reason is given
    assert message == "cannot open sub: Too many open files"


@pytest.fixture
def tree(tmp_path: Path) -> Filesystem:
    (tmp_path / "sub" / "deep").mkdir(parents=True)
    (tmp_path / "sub" / "deep" / "x.txt").write_text("x")
    (tmp_path / "sub" / "inner.txt").write_text("x")
    (tmp_path / "z.txt").write_text("zz")
    return Filesystem(root=tmp_path)


_WHOLE_TREE = (
    "./\n├── sub/\n│   ├── deep/\n│   │   └── x.txt (1 bytes)\n│   └── inner.txt (1 bytes)\n"
    "└── z.txt (2 bytes)"
)


def test_a_subfolder_that_cannot_be_read_says_why_in_the_tree(tree: Filesystem) -> None:
    assert tree.list_dir(".", depth=3) == _WHOLE_TREE
    # the root is listed, `sub` opened; no descriptor is left to read `sub` with
    with free_descriptors(2):
        listing = tree.list_dir(".", depth=3)
    # it does not look empty, and the rest of the tree is still drawn
    assert listing == "./\n├── sub/ [cannot open: Too many open files]\n└── z.txt (2 bytes)"


def test_a_deeper_folder_that_cannot_be_read_is_marked_where_it_is(tree: Filesystem) -> None:
    with free_descriptors(3):
        listing = tree.list_dir(".", depth=3)
    assert listing == (
        "./\n├── sub/\n│   ├── deep/ [cannot open: Too many open files]\n"
        "│   └── inner.txt (1 bytes)\n└── z.txt (2 bytes)"
    )


def _failing_open(monkeypatch: pytest.MonkeyPatch, name: str, code: int) -> None:
    """`os.open` of the entry `name` fails with `code` (root ignores permissions)."""
    real_open = os.open

    def fake_open(path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if path == name:
            raise OSError(code, os.strerror(code))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", fake_open)


def test_a_subfolder_refused_to_open_says_why(
    tree: Filesystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    _failing_open(monkeypatch, "deep", errno.EACCES)
    assert tree.list_dir(".", depth=3) == (
        "./\n├── sub/\n│   ├── deep/ [cannot open: Permission denied]\n"
        "│   └── inner.txt (1 bytes)\n└── z.txt (2 bytes)"
    )


def test_the_reason_goes_on_the_line_of_the_folder_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a/one.txt", "a/two.txt", "b/three.txt"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x")
    _failing_open(monkeypatch, "b", errno.EACCES)
    assert Filesystem(root=tmp_path).list_dir(".", depth=2) == (
        "./\n├── a/\n│   ├── one.txt (1 bytes)\n│   └── two.txt (1 bytes)\n"
        "└── b/ [cannot open: Permission denied]"
    )


@pytest.mark.parametrize("code", [errno.ENOENT, errno.ENOTDIR, errno.ELOOP])
def test_a_subfolder_gone_since_the_listing_is_drawn_without_a_note(
    tree: Filesystem, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    # removed, replaced by a file, or swapped for a link after its parent was read
    _failing_open(monkeypatch, "deep", code)
    assert tree.list_dir(".", depth=3) == (
        "./\n├── sub/\n│   ├── deep/\n│   └── inner.txt (1 bytes)\n└── z.txt (2 bytes)"
    )


def test_a_folder_whose_entries_cannot_be_read_is_refused_not_shown_empty(
    tree: Filesystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_scandir = os.scandir

    def failing_scandir(path: Any) -> Any:
        if isinstance(path, int):  # the opened folder's descriptor
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", failing_scandir)
    for depth in (1, 3):
        assert refusal(tree.list_dir, "sub", depth) == "cannot list sub: Input/output error"


def test_a_missing_parent_folder_is_named_in_the_tree_refusal(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    assert refusal(fs.list_dir, "nope/deeper") == (
        "Directory not found: nope/deeper. Use workspace_list('.') first."
    )


def test_a_file_is_deleted_even_when_its_folder_cannot_be_scanned_for_sidecars(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / ".a.txt.md").write_text("cached")
    fs = Filesystem(root=tmp_path)
    fs.exists("a.txt")  # loads what the call imports lazily
    with free_descriptors(1):  # the folder's descriptor, none to scan it with
        reply = fs.delete("a.txt")
    assert reply == "Deleted a.txt."
    assert os.listdir(tmp_path) == []  # the Markdown sidecar is removed without a scan


# -- one lock per workspace tree ----------------------------------------------------------------


class _PausedMatcher(EditMatcher):
    """Stops inside the edit (so while its workspace is locked) until `go` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = threading.Event()
        self.go = threading.Event()

    def apply(self, content: str, old: str, new: str, *, replace_all: bool = False) -> EditResult:
        self.inside.set()
        self.go.wait(60)  # longer than any patience below: a waiting write stays held
        return super().apply(content, old, new, replace_all=replace_all)


def _waits_for(busy: Filesystem, other: Filesystem, patience: float) -> bool:
    """Whether a write to `other` is still waiting after `patience` seconds while an edit of
    `busy` is under way. A write that does not wait returns at once, so a long patience costs
    nothing there and keeps a loaded runner from looking like a wait; a write that waits is
    held until the edit ends, so a short patience proves it."""
    busy.write("f.txt", "old\n")
    matcher = _PausedMatcher()
    editing = threading.Thread(
        target=busy.edit, args=("f.txt", "old", "new"), kwargs={"matcher": matcher}
    )
    editing.start()
    assert matcher.inside.wait(10)
    writing = threading.Thread(target=other.write, args=("g.txt", "x"))
    writing.start()
    writing.join(patience)
    waited = writing.is_alive()
    matcher.go.set()
    editing.join()
    writing.join()
    return waited


def test_two_workspaces_under_the_root_do_not_wait_for_each_other(roots: Path) -> None:
    assert not _waits_for(get_workspace("team"), get_workspace("other"), patience=30)


def test_two_folders_outside_the_root_do_not_wait_for_each_other(
    roots: Path, tmp_path: Path
) -> None:
    # `roots` is tmp_path/workspaces: these two folders are its siblings, outside it
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert not _waits_for(
        Filesystem(root=tmp_path / "a"), Filesystem(root=tmp_path / "b"), patience=30
    )


def test_a_nested_workspace_waits_for_its_top_level_workspace(roots: Path) -> None:
    assert _waits_for(get_workspace("team"), get_workspace("team/sub"), patience=1)
