"""Refusals of the file operations, word for word, on real files in `tmp_path`.

The model acts on these messages, so each one is checked whole: the path it names, the
limit, and what to do instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from akgentic.tool.workspace import Filesystem

from .conftest import refusal

LIMIT_ADVICE = (
    "above the workspace's limit of 100 bytes (max_file_bytes); use workspace_read with "
    "offset and limit to page through it, or the shell for bulk changes"
)
NOT_AN_IMAGE = (
    "is not an image workspace_view can show (bmp, gif, jpeg, jpg, png, webp); "
    "use workspace_read for text and documents"
)


@pytest.fixture
def fs(tmp_path: Path) -> Filesystem:
    (tmp_path / "report.docx").write_bytes(b"PK\x03\x04 a zipped document")
    (tmp_path / "big.txt").write_text("x" * 150)
    (tmp_path / "notes.txt").write_text("x")
    return Filesystem(root=tmp_path, max_file_bytes=100)


def test_a_document_is_not_edited_as_text(fs: Filesystem) -> None:
    assert refusal(fs.edit, "report.docx", "PK", "QK") == (
        "report.docx is a binary document; text tools cannot change it "
        "(workspace_read converts it to Markdown for reading)"
    )


def test_an_edit_of_a_file_above_the_limit_names_the_file_and_its_size(fs: Filesystem) -> None:
    assert refusal(fs.edit, "big.txt", "x", "y") == (
        f"big.txt is too large for this operation: it is 150 bytes, {LIMIT_ADVICE}"
    )


def test_a_write_of_exactly_the_limit_is_accepted_and_one_byte_more_is_not(
    fs: Filesystem,
) -> None:
    assert fs.write("exact.txt", "z" * 100) == "Created exact.txt: 1 line, 100 bytes."
    assert refusal(fs.write, "over.txt", "z" * 101) == (
        f"over.txt is too large for this operation: the result would be 101 bytes, {LIMIT_ADVICE}"
    )
    assert not (fs.root / "over.txt").exists()


@pytest.mark.parametrize("pattern", ["", "a\x00b"], ids=["empty", "nul"])
def test_an_empty_glob_or_one_with_a_nul_byte_is_refused(fs: Filesystem, pattern: str) -> None:
    assert refusal(fs.glob, pattern) == "pattern must be a non-empty glob such as '**/*.py'"


@pytest.mark.parametrize(
    "start", ["notes.txt", "nope", "nope/deeper"], ids=["file", "missing", "under-missing"]
)
def test_a_glob_from_a_file_or_a_missing_folder_says_the_folder_is_not_found(
    fs: Filesystem, start: str
) -> None:
    assert refusal(fs.glob, "*", start) == f"Directory not found: {start}"


@pytest.mark.parametrize("name", ["notes.txt", "big.txt"])
def test_a_file_that_is_not_an_image_is_not_viewed(fs: Filesystem, name: str) -> None:
    assert refusal(fs.view, name) == f"{name} {NOT_AN_IMAGE}"
    assert refusal(fs.image, name) == f"{name} {NOT_AN_IMAGE}"
