"""The ripgrep adapter on real files: what it reports must come from ripgrep itself.

`run_grep` quietly falls back to the Python engine when ripgrep fails, so a broken ripgrep
command line would go unnoticed through `workspace_grep`; this calls the adapter directly.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from akgentic.tool.workspace import Filesystem
from akgentic.tool.workspace._search import (
    GrepHit,
    GrepTimeout,
    RipgrepUnusable,
    _Deadline,
    _ripgrep_batch,
)

RG = shutil.which("rg")


@pytest.mark.skipif(RG is None, reason="ripgrep is not installed")
def test_ripgrep_reports_every_matching_line_of_the_files_it_is_handed(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"Alpha: caf\xe9\nbeta\nALPHA beta\n")
    (tmp_path / "b.txt").write_text("nothing\nalpha\n")
    batch = [(name, os.open(tmp_path / name, os.O_RDONLY)) for name in ("a.txt", "b.txt")]
    try:
        assert RG is not None
        hits = _ripgrep_batch(RG, batch, re.compile("alpha", re.IGNORECASE), _Deadline(30))
        assert _ripgrep_batch(RG, batch, re.compile("gamma"), _Deadline(30)) == []
    finally:
        for _, fd in batch:
            os.close(fd)
    assert sorted(hits, key=lambda hit: (hit.path, hit.line)) == [
        GrepHit("a.txt", 1, "Alpha: caf\ufffd"),
        GrepHit("a.txt", 3, "ALPHA beta"),
        GrepHit("b.txt", 2, "alpha"),
    ]


@pytest.mark.skipif(RG is None, reason="ripgrep is not installed")
def test_grep_can_be_asked_to_use_ripgrep_when_it_is_installed(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one alpha\n")
    assert Filesystem(root=tmp_path).grep("alpha", engine="ripgrep") == "a.txt:1:one alpha"


def _handed(tmp_path: Path, names: list[str]) -> list[tuple[str, int]]:
    return [(name, os.open(tmp_path / name, os.O_RDONLY)) for name in names]


@pytest.mark.skipif(RG is None, reason="ripgrep is not installed")
def test_a_binary_file_among_them_is_left_out_and_the_others_still_reported(
    tmp_path: Path,
) -> None:
    (tmp_path / "blob.bin").write_bytes(b"alpha\x00\x01\x02alpha\n")
    (tmp_path / "c.txt").write_text("alpha here\n")
    batch = _handed(tmp_path, ["blob.bin", "c.txt"])
    try:
        assert RG is not None
        hits = _ripgrep_batch(RG, batch, re.compile("alpha"), _Deadline(30))
    finally:
        for _, fd in batch:
            os.close(fd)
    assert hits == [GrepHit("c.txt", 1, "alpha here")]


@pytest.mark.skipif(RG is None, reason="ripgrep is not installed")
def test_ripgreps_own_refusal_and_a_spent_deadline_are_told_apart(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    batch = _handed(tmp_path, ["a.txt"])
    try:
        assert RG is not None
        # Python accepts a look-ahead, ripgrep's engine does not: ripgrep says why.
        with pytest.raises(RipgrepUnusable, match="look-around"):
            _ripgrep_batch(RG, batch, re.compile("a(?=l)"), _Deadline(30))
    finally:
        for _, fd in batch:
            os.close(fd)
    # A pipe nobody writes to: ripgrep waits on it until the deadline stops it.
    read_end, write_end = os.pipe()
    try:
        with pytest.raises(GrepTimeout, match=r"^the search took longer than 0.2 s$"):
            _ripgrep_batch(RG, [("stuck", read_end)], re.compile("alpha"), _Deadline(0.2))
    finally:
        os.close(read_end)
        os.close(write_end)


def _rows_with_needles(count: int, needles: set[int]) -> bytes:
    return b"".join(
        f"row {n:07d} {'needle' if n in needles else 'filler'} {'x' * 40}\n".encode()
        for n in range(1, count + 1)
    )


def test_the_python_engine_reads_big_files_a_block_at_a_time_without_losing_a_line(
    tmp_path: Path,
) -> None:
    row = len(_rows_with_needles(1, set()))
    straddling = (1 << 20) // row + 1  # the line that crosses the first 1 MiB block
    count = 3 * (1 << 20) // row
    needles = {1, straddling - 1, straddling, straddling + 1, count}
    (tmp_path / "big.txt").write_bytes(_rows_with_needles(count, needles))
    found = Filesystem(root=tmp_path).grep("needle", engine="python", max_matches=10)
    assert [line.split(":")[1] for line in found.splitlines()] == [str(n) for n in sorted(needles)]
    assert all(line.split(":", 2)[2].startswith("row ") for line in found.splitlines())


def test_a_utf16_file_holding_a_nul_is_binary_to_the_python_engine(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_bytes("needle\x00here\n".encode("utf-16"))
    assert Filesystem(root=tmp_path).grep("needle", engine="python").startswith("No matches")


def test_the_python_engine_keeps_a_line_longer_than_a_block_and_bytes_that_are_not_utf8(
    tmp_path: Path,
) -> None:
    long_line = b"needle at the start " + b"y" * (5 << 19)  # 2.5 MiB: no newline in two blocks
    (tmp_path / "long.txt").write_bytes(long_line + b"\nplain\ncaf\xe9 needle\n")
    found = Filesystem(root=tmp_path).grep("needle", engine="python", max_line_chars=30)
    hits = found.splitlines()
    assert [hit.split(":")[1] for hit in hits] == ["1", "3"]
    assert hits[1].endswith("caf\ufffd needle")
