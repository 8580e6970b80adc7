"""The defaults of `Filesystem` and `Filesystem.read`, pinned by what a call without them does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from akgentic.tool.workspace import Filesystem
from akgentic.tool.workspace.readers import DocumentReader


def test_a_read_with_default_limit_shows_2000_lines_and_says_more_remain(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 2002)))
    shown = Filesystem(root=tmp_path).read("long.txt").split("\n")
    assert len(shown) == 2001  # 2000 lines and the footer
    assert shown[-2:] == [
        "  2000\tline 2000",
        "[lines 1-2000 of 2001; call again with offset=2000 to continue]",
    ]


def test_a_read_with_default_width_cuts_a_line_at_2000_characters(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text("x" * 2001 + "\n")
    assert Filesystem(root=tmp_path).read("wide.txt") == (
        "     1\t" + "x" * 2000 + "… [line cut at 2000 characters]"
    )


def test_a_read_by_default_uses_the_fresh_cached_markdown_of_a_document(tmp_path: Path) -> None:
    # Not a real zip: converting it again would fail, so only the cache can answer.
    source = tmp_path / "report.docx"
    source.write_bytes(b"PK\x03\x04 not really a document")
    sidecar = tmp_path / ".report.docx.md"
    sidecar.write_text("# Cached report\n")
    info = source.stat()
    os.utime(sidecar, ns=(info.st_atime_ns, info.st_mtime_ns))
    reader = DocumentReader(llm_client=None)
    assert Filesystem(root=tmp_path).read("report.docx", reader=reader) == (
        "     1\t# Cached report\n[report.docx converted to Markdown]"
    )


@pytest.mark.parametrize("base_path", [None, ""], ids=["none", "empty"])
def test_a_filesystem_without_a_directory_is_the_current_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base_path: str | None
) -> None:
    monkeypatch.chdir(tmp_path)
    assert Filesystem(base_path).root == tmp_path.resolve()
