"""Resolving model-supplied paths beneath a root by descriptor (``confined``).

Everything here runs against real directories, links, FIFOs and sockets in ``tmp_path``.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

import akgentic.tool.core.confined as confined
from akgentic.tool.core.confined import (
    ConfinedRoot,
    NotRegularFileError,
    PathChangedError,
    describe_mode,
)
from akgentic.tool.errors import RetriableError


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "a" / "b").mkdir(parents=True)
    (folder / "a" / "b" / "f.txt").write_text("deep")
    (folder / "top.txt").write_text("top")
    return folder


@pytest.fixture
def confined_root(root: Path) -> Iterator[ConfinedRoot]:
    before = _open_fds()
    yield ConfinedRoot(root)
    # Every resolution, failed ones included, gives back the descriptors it opened.
    assert _open_fds() == before


def _located(confined_root: ConfinedRoot, path: str, **options: bool) -> tuple[str | None, str]:
    with confined_root.locate(path, **options) as loc:
        return loc.name, loc.relative


# --- describe_mode ---------------------------------------------------------------------------


def test_describe_mode_names_every_file_type(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to("pipe")
    (tmp_path / "file").write_text("x")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "sock"))
        assert describe_mode(os.lstat(tmp_path / "sock").st_mode) == "a socket"
    assert describe_mode(os.lstat(fifo).st_mode) == "a FIFO (named pipe)"
    assert describe_mode(os.lstat(link).st_mode) == "a symlink"
    assert describe_mode(os.lstat(tmp_path).st_mode) == "a directory"
    assert describe_mode(os.lstat(tmp_path / "file").st_mode) == "a regular file"
    assert describe_mode(os.stat("/dev/null").st_mode) == "a device"
    assert describe_mode(stat.S_IFBLK | 0o600) == "a device"
    assert describe_mode(0o644) == "a special file"


# --- locate: plain names, ".", ".." ----------------------------------------------------------


def test_a_nested_file_is_its_directory_and_its_name(confined_root: ConfinedRoot) -> None:
    with confined_root.locate("a/b/f.txt") as loc:
        assert (loc.name, loc.parts, loc.relative) == ("f.txt", ("a", "b", "f.txt"), "a/b/f.txt")
        assert loc.root == confined_root.path
        info = loc.lstat()
        assert info is not None
        assert info.st_ino == os.lstat(confined_root.path / "a/b/f.txt").st_ino
        # The held descriptor is the file's directory, not the root.
        assert os.fstat(loc.dir_fd).st_ino == os.lstat(confined_root.path / "a/b").st_ino


def test_empty_components_and_dots_are_skipped(confined_root: ConfinedRoot) -> None:
    assert _located(confined_root, "./a//./b/f.txt") == ("f.txt", "a/b/f.txt")


@pytest.mark.parametrize("path", ["", ".", "./", "a/..", "a/b/../.."])
def test_paths_naming_the_root_have_no_last_name(confined_root: ConfinedRoot, path: str) -> None:
    with confined_root.locate(path) as loc:
        assert (loc.name, loc.parts, loc.relative) == (None, (), ".")
        info = loc.lstat()
        assert info is not None
        assert info.st_ino == os.stat(confined_root.path).st_ino


def test_a_directory_reached_through_dotdot_is_named_from_its_parent(
    confined_root: ConfinedRoot,
) -> None:
    with confined_root.locate("a/b/..") as loc:
        assert (loc.name, loc.parts) == ("a", ("a",))
        assert os.fstat(loc.dir_fd).st_ino == os.stat(confined_root.path).st_ino


def test_dotdot_pops_one_directory(confined_root: ConfinedRoot) -> None:
    assert _located(confined_root, "a/b/../../top.txt") == ("top.txt", "top.txt")
    assert _located(confined_root, "a/../a/b/f.txt") == ("f.txt", "a/b/f.txt")


@pytest.mark.parametrize("path", ["..", "../ws/top.txt", "a/../../x", "a/b/../../.."])
def test_dotdot_past_the_root_is_an_escape(confined_root: ConfinedRoot, path: str) -> None:
    with pytest.raises(RetriableError, match="escapes the workspace root") as caught:
        confined_root.locate(path)
    assert repr(path) in str(caught.value)


def test_a_missing_last_name_is_located_but_absent(confined_root: ConfinedRoot) -> None:
    with confined_root.locate("a/new.txt") as loc:
        assert (loc.name, loc.relative) == ("new.txt", "a/new.txt")
        assert loc.lstat() is None


def test_a_missing_directory_on_the_way_is_named(confined_root: ConfinedRoot) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        confined_root.locate("a/missing/deeper/x.txt")
    assert caught.value.errno == errno.ENOENT
    assert caught.value.filename == "a/missing"


def test_a_file_where_a_directory_is_needed_is_named(confined_root: ConfinedRoot) -> None:
    with pytest.raises(NotADirectoryError) as caught:
        confined_root.locate("a/b/f.txt/inner")
    assert caught.value.errno == errno.ENOTDIR
    assert caught.value.filename == "a/b/f.txt"


def test_create_dirs_makes_the_missing_directories(confined_root: ConfinedRoot, root: Path) -> None:
    with confined_root.locate("a/new/deeper/x.txt", create_dirs=True) as loc:
        assert (loc.name, loc.relative) == ("x.txt", "a/new/deeper/x.txt")
        assert loc.lstat() is None
    assert (root / "a" / "new" / "deeper").is_dir()
    assert not (root / "a" / "new" / "deeper" / "x.txt").exists()
    # A second call finds them in place.
    assert _located(confined_root, "a/new/deeper/y", create_dirs=True) == ("y", "a/new/deeper/y")


def test_the_checks_on_the_text_run_first(confined_root: ConfinedRoot) -> None:
    with pytest.raises(RetriableError, match="absolute path"):
        confined_root.locate("/etc/passwd")
    with pytest.raises(RetriableError, match="NUL"):
        confined_root.locate("a\x00b")


def test_the_root_is_resolved_once(tmp_path: Path, root: Path) -> None:
    (tmp_path / "alias").symlink_to(root)
    assert ConfinedRoot(tmp_path / "alias" / "a" / "..").path == root.resolve()


# --- locate: symlinks --------------------------------------------------------------------


def test_a_relative_link_inside_the_root_is_followed(
    confined_root: ConfinedRoot, root: Path
) -> None:
    (root / "to_b").symlink_to("a/b")
    (root / "a" / "up").symlink_to("..")
    assert _located(confined_root, "to_b/f.txt") == ("f.txt", "a/b/f.txt")
    assert _located(confined_root, "a/up/top.txt") == ("top.txt", "top.txt")
    assert _located(confined_root, "to_b") == ("b", "a/b")


def test_an_absolute_link_inside_the_root_restarts_from_the_root(
    confined_root: ConfinedRoot, root: Path
) -> None:
    (root / "a" / "b" / "abs").symlink_to(root.resolve() / "top.txt")
    (root / "a" / "b" / "home").symlink_to(str(root.resolve()) + "/")
    (root / "a" / "b" / "messy").symlink_to("/" + str(root.resolve()).replace("/", "//") + "//a")
    assert _located(confined_root, "a/b/abs") == ("top.txt", "top.txt")
    assert _located(confined_root, "a/b/home") == (None, ".")
    assert _located(confined_root, "a/b/home/a/b/f.txt") == ("f.txt", "a/b/f.txt")
    assert _located(confined_root, "a/b/messy/b") == ("b", "a/b")


@pytest.mark.parametrize(
    "target",
    [
        "../../outside",
        "/etc",
        "{root}2/f",  # a sibling whose name starts with the root's
        "{root}/a/../../outside",  # inside by prefix, out once walked
    ],
)
def test_a_link_leading_out_is_an_escape(
    confined_root: ConfinedRoot, root: Path, target: str
) -> None:
    (root / "a" / "out").symlink_to(target.format(root=root.resolve()))
    with pytest.raises(RetriableError, match="escapes the workspace root"):
        confined_root.locate("a/out")
    with pytest.raises(RetriableError, match="escapes the workspace root"):
        confined_root.locate("a/out/anything", create_dirs=True)


def test_follow_last_false_returns_the_link_itself(confined_root: ConfinedRoot, root: Path) -> None:
    (root / "a" / "link").symlink_to("/etc/passwd")
    with confined_root.locate("a/link", follow_last=False) as loc:
        assert (loc.name, loc.relative) == ("link", "a/link")
        info = loc.lstat()
        assert info is not None
        assert stat.S_ISLNK(info.st_mode)
    # Links before the last name are still resolved.
    (root / "to_a").symlink_to("a")
    assert _located(confined_root, "to_a/link", follow_last=False) == ("link", "a/link")


def test_links_are_followed_up_to_forty_deep(confined_root: ConfinedRoot, root: Path) -> None:
    previous = "top.txt"
    for depth in range(1, 42):
        (root / f"l{depth}").symlink_to(previous)
        previous = f"l{depth}"
    assert _located(confined_root, "l40") == ("top.txt", "top.txt")
    with pytest.raises(RetriableError, match="too many levels of symlinks") as caught:
        confined_root.locate("l41")
    assert "'l41'" in str(caught.value)


def test_a_link_cycle_is_refused(confined_root: ConfinedRoot, root: Path) -> None:
    (root / "ping").symlink_to("pong")
    (root / "pong").symlink_to("ping")
    with pytest.raises(RetriableError, match="too many levels of symlinks"):
        confined_root.locate("ping/x")


# --- Located: opening what was found ------------------------------------------------------


def test_open_file_reads_the_file_and_blocks_normally(confined_root: ConfinedRoot) -> None:
    with confined_root.locate("a/b/f.txt") as loc:
        fd, info = loc.open_file()
    try:
        assert os.read(fd, 100) == b"deep"
        assert info.st_size == 4
        assert stat.S_ISREG(info.st_mode)
        assert os.get_blocking(fd) is True
    finally:
        os.close(fd)


@pytest.mark.parametrize("path", [".", "a"])
def test_open_file_refuses_a_directory(confined_root: ConfinedRoot, path: str) -> None:
    with confined_root.locate(path) as loc, pytest.raises(IsADirectoryError) as caught:
        loc.open_file()
    assert caught.value.errno == errno.EISDIR
    assert ("root" if path == "." else "a is a directory") in str(caught.value)


def test_open_file_refuses_a_fifo_without_waiting_for_a_writer(
    confined_root: ConfinedRoot, root: Path
) -> None:
    os.mkfifo(root / "a" / "pipe")
    with confined_root.locate("a/pipe") as loc, pytest.raises(NotRegularFileError) as caught:
        loc.open_file()
    message = str(caught.value)
    assert "a/pipe is a FIFO (named pipe), not a regular file" in message
    assert "workspace_delete" in message


def test_open_file_refuses_a_socket(confined_root: ConfinedRoot, root: Path) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(root / "a" / "sock"))
        with confined_root.locate("a/sock") as loc, pytest.raises(NotRegularFileError) as caught:
            loc.open_file()
    assert "a/sock is not a regular file" in str(caught.value)


def test_open_file_on_a_link_kept_as_itself_says_it_changed(
    confined_root: ConfinedRoot, root: Path
) -> None:
    (root / "a" / "link").symlink_to("b/f.txt")
    with (
        confined_root.locate("a/link", follow_last=False) as loc,
        pytest.raises(PathChangedError, match="a/link turned into a symlink"),
    ):
        loc.open_file()


def test_open_file_on_a_missing_file_raises_file_not_found(confined_root: ConfinedRoot) -> None:
    with confined_root.locate("a/none.txt") as loc, pytest.raises(FileNotFoundError):
        loc.open_file()


def test_open_dir_opens_the_directory_itself(confined_root: ConfinedRoot, root: Path) -> None:
    with confined_root.locate("a/b") as loc:
        fd = loc.open_dir()
    try:
        assert sorted(os.listdir(fd)) == ["f.txt"]
    finally:
        os.close(fd)
    with confined_root.locate(".") as loc:
        fd = loc.open_dir()
        try:
            assert fd != loc.dir_fd
            assert os.fstat(fd).st_ino == os.stat(root).st_ino
        finally:
            os.close(fd)


def test_open_dir_refuses_a_link_and_a_file(confined_root: ConfinedRoot, root: Path) -> None:
    (root / "to_a").symlink_to("a")
    with (
        confined_root.locate("to_a", follow_last=False) as loc,
        pytest.raises(PathChangedError, match="to_a turned into a symlink"),
    ):
        loc.open_dir()
    with confined_root.locate("top.txt") as loc, pytest.raises(NotADirectoryError):
        loc.open_dir()


def test_close_releases_the_descriptor_once(confined_root: ConfinedRoot) -> None:
    loc = confined_root.locate("a/b/f.txt")
    fd = loc.dir_fd
    loc.close()
    with pytest.raises(OSError) as caught:
        os.fstat(fd)
    assert caught.value.errno == errno.EBADF
    loc.close()  # a second close does nothing (and closes no descriptor reused meanwhile)


def test_pinned_names_the_entry_in_the_held_directory(
    confined_root: ConfinedRoot, root: Path
) -> None:
    with confined_root.locate("a/b/f.txt") as loc:
        assert loc.pinned() == Path(f"/proc/self/fd/{loc.dir_fd}/f.txt")
        assert loc.pinned("other") == Path(f"/proc/self/fd/{loc.dir_fd}/other")
        assert loc.pinned().read_text() == "deep"
        # Renaming the directory does not move what the pinned path names.
        (root / "a" / "b").rename(root / "a" / "moved")
        assert loc.pinned().read_text() == "deep"
    with confined_root.locate(".") as loc:
        assert loc.pinned() == Path(f"/proc/self/fd/{loc.dir_fd}")


def test_pinned_falls_back_to_plain_paths_without_proc(
    confined_root: ConfinedRoot, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(confined, "_PINNABLE", False)
    base = root.resolve()
    with confined_root.locate("a/b/f.txt") as loc:
        assert loc.pinned() == base / "a" / "b" / "f.txt"
        assert loc.pinned("g") == base / "a" / "b" / "g"
    with confined_root.locate(".") as loc:
        assert loc.pinned() == base
        assert loc.pinned("g") == base / "g"
