"""How grep reads files (`_search`), on real files under tmp_path.

The Python engine's reader `_text_blocks` is checked with its block size (and its longest-line
bound) made tiny, so every block boundary, long line, UTF-16 file and late NUL byte is hit
with a few bytes; the line numbers the engine reports across blocks are compared with the file
itself. The ripgrep adapter `_ripgrep_batch` is checked on what ripgrep returns: the width at
which it cuts a long line, the text of its failures, and that a record it cannot use (a notice
about a binary file) is skipped without losing the records after it. Stand-in `rg` scripts on
PATH make ripgrep fail, or print its records in a chosen (legal) order.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
from pathlib import Path

import pytest

from akgentic.tool.workspace import Filesystem, _search
from akgentic.tool.workspace._search import (
    GrepHit,
    RipgrepUnusable,
    _Deadline,
    _ripgrep_batch,
    _text_blocks,
)

RG = shutil.which("rg")
needs_rg = pytest.mark.skipif(RG is None, reason="ripgrep is not installed")

Blocks = list[tuple[str | None, int]]


def _blocks(path: Path, data: bytes) -> Blocks:
    """What `_text_blocks` yields for a real file holding `data`."""
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        return list(_text_blocks(fd))
    finally:
        os.close(fd)


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 4 bytes, and a line given up on (cut in pieces) past 8 bytes."""
    monkeypatch.setattr(_search, "_BLOCK", 4)
    monkeypatch.setattr(_search, "_MAX_LINE_BYTES", 8)


# -- _text_blocks: UTF-8 ----------------------------------------------------------------------


def test_each_block_ends_at_the_last_whole_line_read_so_far(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_search, "_BLOCK", 8)
    assert _blocks(tmp_path / "a.txt", b"one\ntwo\nthree\nfour\n") == [
        ("one\ntwo\n", 2),
        ("three\n", 1),
        ("four\n", 1),
    ]


def test_a_block_read_with_only_an_empty_line_whole_is_that_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_search, "_BLOCK", 4)
    assert _blocks(tmp_path / "a.txt", b"\nxyzw\nq\n") == [("\n", 1), ("xyzw\nq\n", 2)]


def test_a_line_longer_than_a_block_is_read_on_and_yielded_whole(
    tmp_path: Path, small_blocks: None
) -> None:
    assert _blocks(tmp_path / "a.txt", b"abcdefg\nxy\n") == [("abcdefg\n", 1), ("xy\n", 1)]


def test_a_line_reaching_the_longest_line_bound_is_searched_in_pieces(
    tmp_path: Path, small_blocks: None
) -> None:
    # 8 bytes without a newline: given up on, cut there; the rest starts the next block
    assert _blocks(tmp_path / "a.txt", b"abcdefghijkl\nz\n") == [
        ("abcdefgh", 0),
        ("ijkl\nz\n", 2),
    ]


def test_a_line_just_under_the_longest_line_bound_is_kept_whole(
    tmp_path: Path, small_blocks: None
) -> None:
    assert _blocks(tmp_path / "a.txt", b"abcdefg\n") == [("abcdefg\n", 1)]


def test_a_nul_in_a_later_block_ends_the_file_as_binary(tmp_path: Path, small_blocks: None) -> None:
    assert _blocks(tmp_path / "a.bin", b"ab\ncd\x00\n") == [("ab\n", 1), (None, 0)]


def test_a_nul_in_the_first_block_gives_nothing_but_binary(
    tmp_path: Path, small_blocks: None
) -> None:
    assert _blocks(tmp_path / "a.bin", b"\x00bc\nde\n") == [(None, 0)]


def test_a_utf8_bom_is_dropped_and_bad_bytes_are_replaced(
    tmp_path: Path, small_blocks: None
) -> None:
    assert _blocks(tmp_path / "a.txt", b"\xef\xbb\xbfcaf\xe9\n") == [("caf\ufffd\n", 1)]


# -- _text_blocks: UTF-16 ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        "one\ntwo\n".encode("utf-16-le"),
        "one\ntwo\n".encode("utf-16-be"),
    ],
    ids=["little_endian", "big_endian"],
)
def test_a_utf16_file_with_a_bom_is_one_decoded_block_with_its_line_count(
    tmp_path: Path, data: bytes
) -> None:
    bom = b"\xff\xfe" if data[0] else b"\xfe\xff"
    assert _blocks(tmp_path / "wide.txt", bom + data) == [("one\ntwo\n", 2)]


def test_a_utf16_file_holding_a_nul_is_binary(tmp_path: Path) -> None:
    assert _blocks(tmp_path / "wide.txt", "a\nb\x00c\n".encode("utf-16")) == [(None, 0)]


def test_a_utf16_file_with_an_odd_last_byte_is_decoded_with_a_replacement(
    tmp_path: Path,
) -> None:
    data = "ok\n".encode("utf-16") + b"A"
    assert _blocks(tmp_path / "wide.txt", data) == [("ok\n\ufffd", 1)]


def test_a_utf16_file_is_read_up_to_one_block_and_the_longest_line_bound(
    tmp_path: Path, small_blocks: None
) -> None:
    # 4 + 8 bytes: the BOM and five characters of two bytes
    data = "abcdefgh\nij\n".encode("utf-16")
    assert _blocks(tmp_path / "wide.txt", data) == [("abcde", 0)]


def test_the_python_engine_finds_an_odd_length_utf16_file(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_bytes("first\nsecond hit\n".encode("utf-16") + b"A")
    found = Filesystem(root=tmp_path).grep("hit", engine="python")
    assert found == "wide.txt:2:second hit"


# -- the Python engine's line numbers ---------------------------------------------------------


@pytest.mark.parametrize("pattern", ["hit", r"hit\Z"], ids=["prefiltered", "line_by_line"])
def test_line_numbers_run_on_across_blocks_as_in_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pattern: str
) -> None:
    monkeypatch.setattr(_search, "_BLOCK", 5)
    lines = [f"{'hit' if n % 3 == 0 else 'miss'}{'x' * (n % 4)}" for n in range(1, 30)]
    (tmp_path / "a.txt").write_text("\n".join(lines) + "\n")
    found = Filesystem(root=tmp_path).grep(pattern, engine="python", max_matches=100)
    expected = [f"a.txt:{n}:{line}" for n, line in enumerate(lines, 1) if re.search(pattern, line)]
    assert found.splitlines() == expected
    if RG is not None:
        assert Filesystem(root=tmp_path).grep(pattern, engine="ripgrep", max_matches=100) == found


def test_a_pattern_only_re_compiles_is_matched_line_by_line(tmp_path: Path) -> None:
    # "{d" is a fuzzy-matching error to the `regex` module and a literal to `re`; "\A" makes
    # the engine match each line on its own
    (tmp_path / "a.txt").write_text("a {d\n{d here\n")
    assert Filesystem(root=tmp_path).grep(r"\A{d", engine="python") == "a.txt:2:{d here"


# -- _ripgrep_batch ---------------------------------------------------------------------------


@needs_rg
@pytest.mark.parametrize(
    ("max_line_chars", "columns"),
    [(10, 4096), (1022, 4096), (1025, 4104), (3000, 12004)],
    ids=["floor", "floor_edge", "above_floor", "large"],
)
def test_ripgrep_cuts_lines_past_four_bytes_a_character_plus_four_and_never_below_4096(
    tmp_path: Path, max_line_chars: int, columns: int
) -> None:
    # one line each, without a final newline (whether ripgrep counts it varies)
    (tmp_path / "exact.txt").write_bytes(b"x" * columns)
    (tmp_path / "over.txt").write_bytes(b"y" * (columns + 1))
    batch = [(name, os.open(tmp_path / name, os.O_RDONLY)) for name in ("exact.txt", "over.txt")]
    try:
        assert RG is not None
        hits = _ripgrep_batch(RG, batch, re.compile("x|y"), _Deadline(30), max_line_chars)
    finally:
        for _, fd in batch:
            os.close(fd)
    exact, over = sorted(hits, key=lambda hit: hit.path)
    assert exact == GrepHit("exact.txt", 1, "x" * columns)  # exactly the width: whole
    assert (over.path, over.line) == ("over.txt", 1)
    assert over.text.startswith("y" * columns)  # one byte more: cut to a preview
    assert not over.text.startswith("y" * (columns + 1))


@pytest.mark.parametrize(
    "engine", [pytest.param("ripgrep", marks=needs_rg), "python"], ids=["ripgrep", "python"]
)
def test_a_line_of_four_byte_characters_is_cut_at_the_asked_length_by_both_engines(
    tmp_path: Path, engine: str
) -> None:
    (tmp_path / "wide.txt").write_text("\U0001f600" * 1026 + "\n", encoding="utf-8")
    found = Filesystem(root=tmp_path).grep(
        "\U0001f600",
        engine="ripgrep" if engine == "ripgrep" else "python",
        max_line_chars=1025,
    )
    assert found == "wide.txt:1:" + "\U0001f600" * 1025 + "…"


def _script(directory: Path, text: str) -> Path:
    directory.mkdir(exist_ok=True)
    path = directory / "rg"
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_ripgrep_that_cannot_be_started_is_unusable_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    missing = tmp_path / "no-such-rg"
    fd = os.open(tmp_path / "a.txt", os.O_RDONLY)
    try:
        with pytest.raises(RipgrepUnusable) as refusal:
            _ripgrep_batch(str(missing), [("a.txt", fd)], re.compile("alpha"), _Deadline(30))
    finally:
        os.close(fd)
    assert str(refusal.value) == f"[Errno 2] No such file or directory: {str(missing)!r}"


def test_what_a_failing_ripgrep_prints_is_the_reason_even_when_not_utf8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = _script(tmp_path / "bin", "#!/bin/sh\nprintf 'bad \\377 pattern\\n' >&2\nexit 2\n")
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("alpha\n")
    fd = os.open(tmp_path / "ws" / "a.txt", os.O_RDONLY)
    try:
        with pytest.raises(RipgrepUnusable) as refusal:
            _ripgrep_batch(str(fake), [("a.txt", fd)], re.compile("alpha"), _Deadline(30))
    finally:
        os.close(fd)
    assert str(refusal.value) == "bad \ufffd pattern\n"
    # through the workspace, the Python engine answers instead
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    assert Filesystem(root=tmp_path / "ws").grep("alpha") == "a.txt:1:alpha"


@needs_rg
def test_a_binary_file_notice_printed_first_does_not_hide_the_other_files_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the real ripgrep, its records reordered as its threads may print them: notices first
    fake = _script(
        tmp_path / "bin",
        f"#!{sys.executable}\n"
        "import subprocess, sys\n"
        f"done = subprocess.run([{RG!r}, *sys.argv[1:]], stdout=subprocess.PIPE, close_fds=False)\n"
        "records = done.stdout.split(b'\\n')[:-1]\n"
        "records.sort(key=lambda record: b'\\0' in record)\n"
        "sys.stdout.buffer.write(b''.join(record + b'\\n' for record in records))\n"
        "sys.exit(done.returncode)\n",
    )
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "blob.bin").write_bytes(b"alpha\x00\x01alpha\n")
    (tmp_path / "ws" / "c.txt").write_text("alpha here\nbeta\nalpha again\n")
    batch = [(name, os.open(tmp_path / "ws" / name, os.O_RDONLY)) for name in ("blob.bin", "c.txt")]
    try:
        hits = _ripgrep_batch(str(fake), batch, re.compile("alpha"), _Deadline(30))
    finally:
        for _, fd in batch:
            os.close(fd)
    assert sorted(hits, key=lambda hit: hit.line) == [
        GrepHit("c.txt", 1, "alpha here"),
        GrepHit("c.txt", 3, "alpha again"),
    ]
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    found = Filesystem(root=tmp_path / "ws").grep("alpha", engine="ripgrep")
    assert found == "c.txt:1:alpha here\nc.txt:3:alpha again"
