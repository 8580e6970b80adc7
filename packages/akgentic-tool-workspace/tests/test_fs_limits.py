"""Size limits and special files: the refusals the model gets, on real files in `tmp_path`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import Filesystem

ADVICE = (
    "above the workspace's limit of 1,000 bytes (max_file_bytes); use workspace_read with "
    "offset and limit to page through it, or the shell for bulk changes"
)


def _utf16(text: str) -> bytes:
    return b"\xff\xfe" + text.encode("utf-16-le")


def test_reading_the_bytes_of_a_file_above_the_limit_is_refused(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path, max_file_bytes=1000)
    (tmp_path / "big.bin").write_bytes(b"x" * 2000)
    with pytest.raises(RetriableError) as refusal:
        fs.read_bytes("big.bin")
    assert (
        str(refusal.value)
        == f"big.bin is too large for this operation: it is 2,000 bytes, {ADVICE}"
    )


def test_a_write_whose_result_is_above_the_limit_is_refused(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path, max_file_bytes=1000)
    with pytest.raises(RetriableError) as refusal:
        fs.write("big.txt", "y" * 2000)
    assert str(refusal.value) == (
        f"big.txt is too large for this operation: the result would be 2,000 bytes, {ADVICE}"
    )
    assert not (tmp_path / "big.txt").exists()


def test_a_utf16_file_of_exactly_the_limit_is_read_whole(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path, max_file_bytes=1000)
    text = "a" * 496 + "\nZ"  # 498 characters: 996 bytes, with the BOM 998
    data = _utf16(text) + "!".encode("utf-16-le")
    assert len(data) == 1000
    (tmp_path / "wide.txt").write_bytes(data)
    assert fs.read("wide.txt").split("\n")[-1] == "     2\tZ!"


def test_a_utf16_file_above_the_limit_is_refused_naming_it_and_the_limit(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path, max_file_bytes=1000)
    (tmp_path / "wide.txt").write_bytes(_utf16("b" * 1000))
    with pytest.raises(RetriableError, match=r"^wide\.txt is too large for this operation: it is "):
        fs.read("wide.txt")
    with pytest.raises(RetriableError, match="above the workspace's limit of 1,000 bytes"):
        fs.read("wide.txt")


def test_a_utf16_file_with_a_broken_character_is_shown_with_a_replacement(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    lone_surrogate = b"\x00\xd8"
    (tmp_path / "wide.txt").write_bytes(_utf16("ok\n") + lone_surrogate + "x\n".encode("utf-16-le"))
    assert fs.read("wide.txt") == "     1\tok\n     2\t\ufffdx"


def test_a_fifo_is_refused_with_what_to_do_about_it(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(
        RetriableError,
        match=r"^pipe is .*, not a regular file; workspace tools only read and write regular "
        r"files \(workspace_delete removes it\)$",
    ):
        fs.read("pipe")
