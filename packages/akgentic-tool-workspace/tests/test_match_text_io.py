"""Line endings a file is taken to use, and long lines cut when a page of a file is read."""

from __future__ import annotations

from pathlib import Path

from akgentic.tool.workspace import Filesystem, detect_line_ending


def test_a_file_with_half_of_its_lines_in_crlf_counts_as_crlf() -> None:
    assert detect_line_ending("a\r\nb\n") == "\r\n"
    assert detect_line_ending("a\r\nb\nc\n") == "\n"


def test_a_long_line_of_wide_characters_is_cut_with_a_marker(tmp_path: Path) -> None:
    (tmp_path / "emoji.txt").write_text("\U0001f600" * 30 + "\nend\n", encoding="utf-8")
    page = Filesystem(tmp_path).read("emoji.txt", max_line_chars=20)
    first = page.split("\n")[0]
    assert first == "     1\t" + "\U0001f600" * 20 + "… [line cut at 20 characters]"


def _read(tmp_path: Path, data: bytes, **options: int) -> list[str]:
    (tmp_path / "f.txt").write_bytes(data)
    return Filesystem(tmp_path).read("f.txt", **options).split("\n")


def test_a_crlf_file_is_shown_without_carriage_returns(tmp_path: Path) -> None:
    assert _read(tmp_path, b"one\r\n") == ["     1\tone"]
    assert _read(tmp_path, b"one\r\ntwo\r\n") == ["     1\tone", "     2\ttwo"]


def test_carriage_returns_stay_when_not_every_line_ends_in_crlf(tmp_path: Path) -> None:
    assert _read(tmp_path, b"one\r\ntwo\n") == ["     1\tone\r", "     2\ttwo"]
    assert _read(tmp_path, b"one\r") == ["     1\tone\r"]


def test_a_utf8_byte_order_mark_is_not_shown(tmp_path: Path) -> None:
    assert _read(tmp_path, b"\xef\xbb\xbfone\n") == ["     1\tone"]


def test_undecodable_bytes_are_shown_as_replacement_characters(tmp_path: Path) -> None:
    assert _read(tmp_path, b"a\xffb\n") == ["     1\ta\ufffdb"]


def test_a_last_line_without_newline_counts_and_stays_outside_a_shorter_page(
    tmp_path: Path,
) -> None:
    assert _read(tmp_path, b"a\nb\nc", limit=2) == [
        "     1\ta",
        "     2\tb",
        "[lines 1-2 of 3; call again with offset=2 to continue]",
    ]


def test_a_crlf_split_across_read_blocks_still_counts_as_crlf(tmp_path: Path) -> None:
    # 1 MiB read blocks: the first ends with the "\r", the second starts with its "\n"
    line = b"x" * 1022 + b"\r\n"
    data = line * 1023 + b"y" * 1023 + b"\r\n" + b"end\r\n"
    assert data[(1 << 20) - 1 : (1 << 20) + 1] == b"\r\n"
    shown = _read(tmp_path, data, offset=1023, limit=2)
    assert shown[:2] == ["  1024\t" + "y" * 1023, "  1025\tend"]


def test_a_line_longer_than_a_read_block_keeps_its_start(tmp_path: Path) -> None:
    head = b"h" * ((1 << 20) - 11) + b"\n"  # the long line starts 10 bytes before a block ends
    data = head + b"START12345" + b"x" * (2 << 20) + b"\nend\n"
    shown = _read(tmp_path, data, offset=1, limit=2, max_line_chars=20)
    assert shown == [
        "     2\tSTART12345xxxxxxxxxx… [line cut at 20 characters]",
        "     3\tend",
        "[lines 2-3 of 3; end of file]",
    ]
