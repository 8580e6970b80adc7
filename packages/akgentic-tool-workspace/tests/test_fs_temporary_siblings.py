"""Every change goes through a temporary sibling and a rename: what that must never show.

A long legal name still gets a legal temporary name; a listing, glob or grep taken while the
rename is pending does not show the temporary file; a symlink or FIFO swapped in under a
multi-file change is refused rather than followed or waited on.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import Filesystem
from akgentic.tool.workspace._files import commit

# Names at the 255-byte limit of the file system, where a temporary name cut in characters
# instead of bytes would pass that limit.
_LONG_NAMES = {
    "two-byte-characters-254-bytes": "é" * 127,
    "cut-splits-a-character-255-bytes": "a" + "é" * 127,
    "ascii-255-bytes": "n" * 255,
}


@pytest.mark.parametrize("name", list(_LONG_NAMES.values()), ids=list(_LONG_NAMES))
def test_a_long_legal_name_can_be_written_edited_and_patched(tmp_path: Path, name: str) -> None:
    fs = Filesystem(root=tmp_path)
    fs.write(name, "one\ntwo\n")
    fs.edit(name, "two", "deux")
    assert (tmp_path / name).read_text() == "one\ndeux\n"
    fs.patch(f"--- a/{name}\n+++ b/{name}\n@@ -1 +1 @@\n-one\n+un\n")
    assert (tmp_path / name).read_text() == "un\ndeux\n"
    assert os.listdir(tmp_path) == [name]  # no temporary file left behind


def _write(fs: Filesystem) -> None:
    fs.write("notes.txt", "needle new\n")


def _edit(fs: Filesystem) -> None:
    fs.edit("notes.txt", "old", "new")


def _patch(fs: Filesystem) -> None:
    fs.patch("--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-needle old\n+needle new\n")


@pytest.mark.parametrize("change", [_write, _edit, _patch], ids=["write", "edit", "patch"])
def test_a_change_in_flight_is_invisible_to_listings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[[Filesystem], None]
) -> None:
    fs = Filesystem(root=tmp_path)
    (tmp_path / "notes.txt").write_text("needle old\n")
    pending: dict[str, Any] = {}
    rename = os.replace

    def look_then_rename(source: str, target: str) -> None:
        # the moment between "temporary file complete" and "renamed into place"
        pending["temp"] = Path(source).name
        pending["directory"] = sorted(os.listdir(tmp_path))
        pending["seen"] = [fs.list_dir("."), fs.glob("*"), fs.grep("needle")]
        rename(source, target)

    monkeypatch.setattr(os, "replace", look_then_rename)
    change(fs)

    temp = pending["temp"]
    assert temp.startswith(".notes.txt.")
    assert temp.endswith(".tmp")
    assert pending["directory"] == sorted([temp, "notes.txt"])  # a sibling of its target
    for answer in pending["seen"]:
        assert "notes.txt" in answer
        assert ".tmp" not in answer
    assert (tmp_path / "notes.txt").read_text() == "needle new\n"
    assert os.listdir(tmp_path) == ["notes.txt"]


def test_a_patch_deleting_one_file_still_writes_the_files_after_it(tmp_path: Path) -> None:
    (tmp_path / "gone.txt").write_text("bye\n")
    (tmp_path / "kept.txt").write_text("old\n")
    fs = Filesystem(root=tmp_path)
    fs.patch(
        "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
        "--- a/kept.txt\n+++ b/kept.txt\n@@ -1 +1 @@\n-old\n+new\n"
    )
    assert os.listdir(tmp_path) == ["kept.txt"]
    assert (tmp_path / "kept.txt").read_text() == "new\n"


def test_a_multi_file_change_never_goes_through_a_symlink_swapped_in(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("private\n")
    (tmp_path / "link").symlink_to(outside)
    (tmp_path / "a.txt").write_text("a\n")
    with pytest.raises(OSError):
        commit({tmp_path / "a.txt": b"A\n", tmp_path / "link": b"overwritten\n"})
    assert outside.read_text() == "private\n"
    assert (tmp_path / "link").is_symlink()
    assert (tmp_path / "a.txt").read_text() == "a\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "link", "outside.txt"]


def test_a_multi_file_change_refuses_a_fifo_swapped_in_without_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(OSError, match="^pipe is not a regular file$"):
        commit({tmp_path / "pipe": b"data\n"})
    assert sorted(os.listdir(tmp_path)) == ["pipe"]


def test_an_undecodable_file_is_refused_with_where_it_stops_being_text(tmp_path: Path) -> None:
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9 au lait\n")
    fs = Filesystem(root=tmp_path)
    with pytest.raises(RetriableError) as refused:
        fs.edit("latin.txt", "lait", "milk")
    assert str(refused.value) == (
        "latin.txt is not a text file (not valid utf-8 (invalid continuation byte at byte 3)); "
        "text tools cannot change it without corrupting it"
    )
    assert (tmp_path / "latin.txt").read_bytes() == b"caf\xe9 au lait\n"
