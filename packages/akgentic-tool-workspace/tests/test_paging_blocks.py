"""The streamed page reader against a plain split of the whole file, block size made tiny.

`scan_page` reads a file a block at a time so a page of a huge file costs one page of memory.
With blocks of a few bytes, every line start, CRLF pair, long line and multi-byte character
falls across a block boundary somewhere; the page must still be what splitting the whole
file would give. Then the page as `workspace_read` words it: footer, cut lines, refusals.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import Filesystem, _paging
from akgentic.tool.workspace._paging import Page, scan_page

_PIECES = [b"a", b"bc", b"\r\n", b"\n", b"\r", "\u00e9".encode(), "\u20ac".encode(), b"\xff"]


def _expected(data: bytes, offset: int, limit: int, max_chars: int) -> Page:
    body = data.removeprefix(b"\xef\xbb\xbf")
    lines = body.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # the text after a final newline is no line
    strip_cr = body.count(b"\n") > 0 and body.count(b"\r\n") == body.count(b"\n")
    page = []
    for raw in lines[offset : offset + limit]:
        text = raw[: (max_chars + 1) * 4].decode("utf-8", errors="replace")
        page.append(text[:-1] if strip_cr and text.endswith("\r") else text)
    return Page(page, len(lines))


def _file(rng: random.Random) -> bytes:
    data = b"\xef\xbb\xbf" if rng.random() < 0.2 else b""
    crlf_only = rng.random() < 0.3
    for _ in range(rng.randint(0, 12)):
        data += b"".join(rng.choice(_PIECES[:2] + _PIECES[5:]) for _ in range(rng.randint(0, 9)))
        data += b"\r\n" if crlf_only else rng.choice([b"\n", b"\r\n", rng.choice(_PIECES)])
    return data


@pytest.mark.parametrize("block", [1, 2, 3, 5, 8])
def test_a_page_read_in_small_blocks_is_the_page_of_the_whole_file(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_paging, "_BLOCK", block)
    rng = random.Random(block)
    for _ in range(400):
        data = _file(rng)
        offset, limit, max_chars = rng.randint(0, 8), rng.randint(1, 6), rng.randint(1, 4)
        got = scan_page(io.BytesIO(data), offset, limit, max_chars)
        assert got == _expected(data, offset, limit, max_chars), (data, offset, limit, max_chars)


def test_a_long_line_is_kept_to_four_bytes_per_character_allowed_plus_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_paging, "_BLOCK", 4)
    data = b"x" * 30 + b"\nshort\n"
    page = scan_page(io.BytesIO(data), 0, 2, 3)
    assert page == Page(["x" * 16, "short"], 2)


# -- what workspace_read makes of a page -----------------------------------------------------


class _UpperReader:
    """A user-supplied `FileTypeReader`: the document's text is its bytes in capitals."""

    def extract_text(self, path: str | Path, content: bytes) -> str:
        return content.decode().upper()


def test_an_offset_past_the_end_names_the_last_offset_there_is(tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("only\n")
    (tmp_path / "three.txt").write_text("a\nb\nc\n")
    fs = Filesystem(root=tmp_path)
    with pytest.raises(RetriableError) as one:
        fs.read("one.txt", offset=1)
    assert str(one.value) == (
        "offset 1 is past the end of one.txt, which has 1 line; use an offset between 0 and 0"
    )
    with pytest.raises(RetriableError) as three:
        fs.read("three.txt", offset=7)
    assert str(three.value).endswith("which has 3 lines; use an offset between 0 and 2")


def test_a_line_of_exactly_the_limit_is_shown_whole(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("abcde\nabcdef\n")
    out = Filesystem(root=tmp_path).read("f.txt", max_line_chars=5)
    assert out.splitlines() == ["     1\tabcde", "     2\tabcde… [line cut at 5 characters]"]


def test_a_converted_page_says_what_it_is_and_where_it_is_in_one_footer(tmp_path: Path) -> None:
    (tmp_path / "report.pdf").write_bytes(b"one\ntwo\nthree\n")
    out = Filesystem(root=tmp_path).read("report.pdf", limit=2, reader=_UpperReader())
    assert out.splitlines() == [
        "     1\tONE",
        "     2\tTWO",
        "[report.pdf converted to Markdown; lines 1-2 of 3; call again with offset=2 to continue]",
    ]


def test_a_document_without_text_says_so_instead_of_showing_an_empty_line(tmp_path: Path) -> None:
    (tmp_path / "blank.pdf").write_bytes(b"")
    out = Filesystem(root=tmp_path).read("blank.pdf", reader=_UpperReader())
    assert out == "[blank.pdf converted to Markdown; no text content]"
