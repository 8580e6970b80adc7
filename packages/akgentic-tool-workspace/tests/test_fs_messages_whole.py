"""Messages of `get_workspace`, `Filesystem` and `Filesystem.read`, checked whole.

Each refusal is compared word for word on real files in `tmp_path`: the model acts on what
it says, so the path it names and the advice it gives both matter. A few failures of the
operating system itself (running out of file descriptors) are provoked for real by using
up the process's descriptors for the length of one call.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from akgentic.tool.workspace import Filesystem, get_workspace
from akgentic.tool.workspace._seen import SeenFiles

from .conftest import free_descriptors, refusal, stale_refusal

DOCUMENT_NAMES = "bmp, docx, epub, gif, jpeg, jpg, msg, pdf, png, pptx, webp, xls, xlsx"
TOO_LARGE_ADVICE = (
    "above the workspace's limit of 100 bytes (max_file_bytes); use workspace_read with "
    "offset and limit to page through it, or the shell for bulk changes"
)


class _EchoReader:
    """A caller-supplied document reader: the file's bytes, decoded, are its text."""

    def extract_text(self, path: str | Path, content: bytes) -> str:
        return content.decode("utf-8", errors="replace")


@pytest.fixture
def fs(tmp_path: Path) -> Filesystem:
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    (tmp_path / "sub").mkdir()
    return Filesystem(root=tmp_path, max_file_bytes=100)


# -- get_workspace and the constructor ----------------------------------------------------------


def test_get_workspace_refuses_two_different_names(roots: Path) -> None:
    with pytest.raises(TypeError) as refusal:
        get_workspace("alpha", workspace_name="beta")
    assert str(refusal.value) == "give workspace_id or workspace_name, not two different names"


def test_get_workspace_without_any_name_says_what_it_needs(roots: Path) -> None:
    with pytest.raises(TypeError) as refusal:
        get_workspace()
    assert str(refusal.value) == "get_workspace() needs the workspace_id (or workspace_name)"


def test_a_filesystem_given_both_root_and_base_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TypeError) as refusal:
        Filesystem(tmp_path, root=tmp_path)
    assert str(refusal.value) == "give the directory as root or as base_path, not both"


# -- locating the path --------------------------------------------------------------------------


def test_reading_a_file_in_a_missing_folder_says_not_found_and_creates_nothing(
    fs: Filesystem,
) -> None:
    assert refusal(fs.read, "gone/deeper/a.txt") == (
        "File not found: gone/deeper/a.txt. Use workspace_list or workspace_glob to see what exists."
    )
    assert not (fs.root / "gone").exists()


def test_reading_below_a_file_says_which_part_is_a_file(fs: Filesystem) -> None:
    assert refusal(fs.read, "notes.txt/inner.txt") == (
        "cannot use notes.txt/inner.txt: notes.txt is a file, not a directory"
    )


def test_reading_a_directory_says_it_is_a_directory(fs: Filesystem) -> None:
    assert refusal(fs.read, "sub") == (
        "sub is a directory, not a file; use workspace_list to see its content"
    )


def test_without_a_descriptor_for_the_root_the_path_cannot_be_accessed(fs: Filesystem) -> None:
    fs.read("notes.txt")  # everything the call needs is loaded before descriptors run out
    with free_descriptors(0):
        message = refusal(fs.read, "notes.txt")
    assert message == "cannot access notes.txt: Too many open files"


def test_without_a_descriptor_for_the_file_it_cannot_be_opened(fs: Filesystem) -> None:
    fs.read("notes.txt")
    with free_descriptors(1):  # enough to hold the root, not the file
        message = refusal(fs.read, "notes.txt")
    assert message == "cannot open notes.txt: Too many open files"


# -- size limit ---------------------------------------------------------------------------------


def test_the_bytes_of_a_file_of_exactly_the_limit_are_read_and_one_more_is_refused(
    fs: Filesystem,
) -> None:
    (fs.root / "exact.bin").write_bytes(b"e" * 100)
    (fs.root / "over.bin").write_bytes(b"o" * 101)
    assert fs.read_bytes("exact.bin") == b"e" * 100
    assert refusal(fs.read_bytes, "over.bin") == (
        f"over.bin is too large for this operation: it is 101 bytes, {TOO_LARGE_ADVICE}"
    )


# -- read: arguments and binary content ---------------------------------------------------------


def test_a_negative_offset_is_refused_naming_it(fs: Filesystem) -> None:
    assert refusal(fs.read, "notes.txt", -3) == "offset must be 0 or more, got -3"


def test_a_limit_below_one_is_refused_naming_it(fs: Filesystem) -> None:
    assert refusal(fs.read, "notes.txt", 0, 0) == "limit must be 1 or more, got 0"


def test_binary_data_under_a_text_extension_is_called_out(fs: Filesystem) -> None:
    (fs.root / "data.txt").write_bytes(b"abc\x00def")
    assert refusal(fs.read, "data.txt") == (
        "data.txt has a text extension but holds binary data (NUL bytes) and is not a "
        f"document format workspace_read converts ({DOCUMENT_NAMES})"
    )


def test_binary_data_under_another_extension_is_only_said_to_be_binary(fs: Filesystem) -> None:
    (fs.root / "blob.bin").write_bytes(b"abc\x00def")
    assert refusal(fs.read, "blob.bin") == (
        "blob.bin holds binary data (NUL bytes) and is not a document format "
        f"workspace_read converts ({DOCUMENT_NAMES})"
    )


# -- read: documents ----------------------------------------------------------------------------


def test_an_image_read_as_text_points_to_workspace_view(fs: Filesystem) -> None:
    (fs.root / "photo.png").write_bytes(b"a sunset\n")
    assert fs.read("photo.png", reader=_EchoReader()) == (
        "     1\ta sunset\n"
        "[photo.png converted to Markdown; use workspace_view to look at the image itself]"
    )


def test_an_offset_past_the_end_of_a_document_names_the_document(fs: Filesystem) -> None:
    (fs.root / "memo.pdf").write_bytes(b"only line\n")
    assert refusal(fs.read, "memo.pdf", 5, reader=_EchoReader()) == (
        "offset 5 is past the end of memo.pdf, which has 1 line; use an offset between 0 and 0"
    )


def test_a_document_above_the_limit_is_refused_naming_it(fs: Filesystem) -> None:
    (fs.root / "huge.pdf").write_bytes(b"p" * 150)
    assert refusal(fs.read, "huge.pdf", reader=_EchoReader()) == (
        f"huge.pdf is too large for this operation: it is 150 bytes, {TOO_LARGE_ADVICE}"
    )


def test_a_document_read_counts_as_seen_so_a_later_change_is_caught(fs: Filesystem) -> None:
    (fs.root / "memo.pdf").write_bytes(b"old\n")
    seen = SeenFiles()
    fs.read("memo.pdf", reader=_EchoReader(), seen=seen)
    (fs.root / "memo.pdf").write_bytes(b"new\n")  # changed by someone else
    assert refusal(fs.write, "memo.pdf", b"mine\n", seen=seen) == stale_refusal(
        "memo.pdf",
        "@@ -1 +1 @@\n-old\n+new\n",
    )
    assert (fs.root / "memo.pdf").read_bytes() == b"new\n"
