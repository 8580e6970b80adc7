"""What glob and grep say about folders and files they could not read, on real files.

A search that silently skips a folder it cannot open answers "no match" for files it never
looked at. These tests make folders unreadable in two ways: by running out of file
descriptors (real `EMFILE`, since the tests run as root and permissions do not stop root),
and by making `os.open` refuse one name with the errno under test.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from akgentic.tool.workspace import Filesystem

from .conftest import free_descriptors

_SAME_TIME = 1_000_000_000.0  # every file: glob's "newest first" falls back to the name


@pytest.fixture
def fs(tmp_path: Path) -> Filesystem:
    (tmp_path / "sub" / "deep").mkdir(parents=True)
    for name, text in (("sub/deep/x.txt", "x"), ("sub/inner.txt", "x"), ("z.txt", "zz")):
        (tmp_path / name).write_text(text)
        os.utime(tmp_path / name, (_SAME_TIME, _SAME_TIME))
    return Filesystem(root=tmp_path)


def _refuse_open(monkeypatch: pytest.MonkeyPatch, names: set[str], code: int) -> None:
    """`os.open` of any entry in `names` fails with `code`; every other call is real."""
    real_open = os.open

    def fake_open(path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if path in names:
            raise OSError(code, os.strerror(code))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", fake_open)


_GLOB_NOTE = "files there are not in this list]"
_GREP_NOTE = "they were not searched]"


def test_glob_names_the_folder_it_could_not_read(
    fs: Filesystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse_open(monkeypatch, {"deep"}, errno.EACCES)
    assert fs.glob("**/*.txt") == (
        f"sub/inner.txt\nz.txt\n[could not read sub/deep/: Permission denied; {_GLOB_NOTE}"
    )
    # paths in the note are from the workspace root, like the files listed
    assert fs.glob("**/*.txt", "sub") == (
        f"sub/inner.txt\n[could not read sub/deep/: Permission denied; {_GLOB_NOTE}"
    )
    # ... whatever the pattern starts with and wherever the search starts
    assert fs.glob("sub/**/*.txt") == (
        f"sub/inner.txt\n[could not read sub/deep/: Permission denied; {_GLOB_NOTE}"
    )
    assert fs.glob("deep/*.txt", "sub") == (
        "No files match 'deep/*.txt' in sub.\n"
        f"[could not read sub/deep/: Permission denied; {_GLOB_NOTE}"
    )
    # a glob that could not match anything in that folder does not open it, nor mention it
    assert fs.glob("*.txt", "sub") == "sub/inner.txt"


def test_glob_with_no_match_still_says_what_it_could_not_read(
    fs: Filesystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse_open(monkeypatch, {"deep"}, errno.EACCES)
    assert fs.glob("**/*.md") == (
        "No files match '**/*.md' in the workspace.\n"
        f"[could not read sub/deep/: Permission denied; {_GLOB_NOTE}"
    )
    # the folder named by the pattern itself (opened before the walk starts)
    assert fs.glob("sub/deep/*.txt") == (
        "No files match 'sub/deep/*.txt' in the workspace.\n"
        f"[could not read sub/deep/: Permission denied; {_GLOB_NOTE}"
    )


def test_a_glob_that_reads_everything_has_no_note(fs: Filesystem) -> None:
    assert fs.glob("**/*.txt") == "sub/deep/x.txt\nsub/inner.txt\nz.txt"
    assert fs.glob("*.md", "sub") == "No files match '*.md' in sub."


@pytest.mark.parametrize("code", [errno.ENOENT, errno.ENOTDIR, errno.ELOOP])
def test_a_folder_gone_since_its_parent_was_read_is_not_reported(
    fs: Filesystem, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    # removed, replaced by a file, or swapped for a link: as if the search came later
    _refuse_open(monkeypatch, {"deep"}, code)
    assert fs.glob("**/*.txt") == "sub/inner.txt\nz.txt"
    assert fs.grep("x", engine="python") == "sub/inner.txt:1:x"


def test_out_of_descriptors_glob_reports_the_folders_it_skipped(fs: Filesystem) -> None:
    fs.glob("**/*.txt")  # loads what the call imports lazily
    # enough to walk the root and `sub`, not to read `sub/deep`
    with free_descriptors(4):
        listing = fs.glob("**/*.txt")
    assert listing == (
        f"sub/inner.txt\nz.txt\n[could not read sub/deep/: Too many open files; {_GLOB_NOTE}"
    )


@pytest.mark.parametrize("engine", ["python", "ripgrep"])
def test_grep_names_the_folder_it_could_not_read(
    fs: Filesystem, monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    if engine == "ripgrep" and fs.grep("x", engine="auto") and not _has_rg():
        pytest.skip("rg is not on PATH")
    _refuse_open(monkeypatch, {"deep"}, errno.EACCES)
    assert fs.grep("x", engine=engine) == (  # type: ignore[arg-type]
        f"sub/inner.txt:1:x\n[could not read sub/deep/: Permission denied; {_GREP_NOTE}"
    )
    assert fs.grep("x", "sub", engine=engine) == (  # type: ignore[arg-type]
        f"sub/inner.txt:1:x\n[could not read sub/deep/: Permission denied; {_GREP_NOTE}"
    )
    assert fs.grep("nothing", engine=engine) == (  # type: ignore[arg-type]
        "No matches for /nothing/ in the workspace.\n"
        f"[could not read sub/deep/: Permission denied; {_GREP_NOTE}"
    )


def test_grep_names_a_file_it_could_not_open(
    fs: Filesystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse_open(monkeypatch, {"inner.txt"}, errno.EACCES)
    for where in (".", "sub"):
        assert fs.grep("x", where, engine="python") == (
            f"sub/deep/x.txt:1:x\n[could not read sub/inner.txt: Permission denied; {_GREP_NOTE}"
        )


def test_grep_goes_on_past_a_file_that_fails_to_read(
    fs: Filesystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the file opens, then reading it fails (a disk error): the others are still searched
    real_fdopen = os.fdopen

    def failing_fdopen(fd: int, *args: object, **kwargs: object) -> object:
        if os.readlink(f"/proc/self/fd/{fd}").endswith("/sub/deep/x.txt"):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_fdopen(fd, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "fdopen", failing_fdopen)
    assert fs.grep("x", engine="python") == (
        f"sub/inner.txt:1:x\n[could not read sub/deep/x.txt: Input/output error; {_GREP_NOTE}"
    )


def test_out_of_descriptors_grep_reads_what_it_opened(fs: Filesystem) -> None:
    fs.grep("x", engine="python")  # loads what the call imports lazily
    # the walk holds every descriptor it can get; reading a file it opened needs none more
    with free_descriptors(5):
        found = fs.grep("x", engine="python")
    assert found == "sub/deep/x.txt:1:x\nsub/inner.txt:1:x"


def test_a_root_that_cannot_be_read_is_named_as_dot_slash(fs: Filesystem) -> None:
    fs.glob("**/*.txt")
    fs.grep("x", engine="python")  # loads what the calls import lazily
    # the searched folder is opened, then no descriptor is left to read it with
    with free_descriptors(2):
        listing = fs.glob("**/*.txt")
        found = fs.grep("x", engine="python")
    assert listing == (
        "No files match '**/*.txt' in the workspace.\n"
        f"[could not read ./: Too many open files; {_GLOB_NOTE}"
    )
    assert found == (
        "No matches for /x/ in the workspace.\n"
        f"[could not read ./: Too many open files; {_GREP_NOTE}"
    )


def test_a_glob_names_the_first_folder_of_its_pattern_it_could_not_open(
    fs: Filesystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse_open(monkeypatch, {"sub"}, errno.EACCES)
    assert fs.glob("sub/deep/*.txt") == (
        "No files match 'sub/deep/*.txt' in the workspace.\n"
        f"[could not read sub/: Permission denied; {_GLOB_NOTE}"
    )


def test_a_glob_from_a_subfolder_names_folders_from_the_root(
    fs: Filesystem, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "sub" / "deep" / "inner").mkdir()
    _refuse_open(monkeypatch, {"inner"}, errno.EACCES)
    # searched from `sub`, walking from `sub/deep` (the pattern's literal start)
    assert fs.glob("deep/**/*.txt", "sub") == (
        f"sub/deep/x.txt\n[could not read sub/deep/inner/: Permission denied; {_GLOB_NOTE}"
    )


def test_images_are_found_past_a_folder_that_cannot_be_read(
    fs: Filesystem, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("sub/a.png", "sub/deep/b.png", "c.png"):
        (tmp_path / name).write_bytes(b"")
        os.utime(tmp_path / name, (_SAME_TIME, _SAME_TIME))
    _refuse_open(monkeypatch, {"deep"}, errno.EACCES)
    # a media reference is expanded from what could be read; nothing is raised
    assert fs.find_images("**/*.png", limit=10) == (["c.png", "sub/a.png"], 2, 0)
    assert fs.find_images("sub/deep/*.png", limit=10) == ([], 0, 0)


def test_grep_goes_on_past_files_its_include_filter_leaves_out(tmp_path: Path) -> None:
    for index in range(12):  # in whatever order the folder lists them
        (tmp_path / f"f{index:02d}.{'py' if index % 2 else 'txt'}").write_text("hit\n")
    fs = Filesystem(root=tmp_path)
    found = fs.grep("hit", include="*.py", engine="python")
    assert found == "\n".join(f"f{index:02d}.py:1:hit" for index in range(1, 12, 2))


def test_grep_goes_on_past_files_it_does_not_search(tmp_path: Path) -> None:
    for index in range(6):
        (tmp_path / f"f{index}.txt").write_text("hit\n")
    # a FIFO and a file with a second hard link are skipped, never read or waited on
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "shared.txt").write_text("hit\n")
    os.link(tmp_path / "shared.txt", tmp_path / "shared-too.txt")
    fs = Filesystem(root=tmp_path)
    found = fs.grep("hit", engine="python")
    assert found == "\n".join(f"f{index}.txt:1:hit" for index in range(6))


def test_the_note_names_five_places_and_counts_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = {f"d{index}" for index in range(7)}
    for name in names:
        (tmp_path / name).mkdir()
    (tmp_path / "a.txt").write_text("x")
    _refuse_open(monkeypatch, names, errno.EACCES)
    shown = "; ".join(f"d{index}/: Permission denied" for index in range(5))
    assert Filesystem(root=tmp_path).glob("**/*.txt") == (
        f"a.txt\n[could not read {shown}; and 2 more; {_GLOB_NOTE}"
    )
    (tmp_path / "d5").rmdir()
    (tmp_path / "d6").rmdir()
    # five are named whole, with no count after them
    assert Filesystem(root=tmp_path).glob("**/*.txt") == (
        f"a.txt\n[could not read {shown}; {_GLOB_NOTE}"
    )


def _has_rg() -> bool:
    from akgentic.tool.workspace._search import ripgrep_path

    return ripgrep_path() is not None
