"""The diff a stale-write refusal shows, and what an agent's memory keeps for it.

`stale_message` is the text the model gets; the workspace-level tests use a real
`Filesystem` on `tmp_path` with an agent memory (`SeenFiles`) as the tools pass it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import Filesystem
from akgentic.tool.workspace._seen import SeenFiles, _Snapshots, stale_message

KEPT = "What changed since you saw it"
NOT_KEPT = "no diff can be shown"


def _diff_lines(message: str) -> list[str]:
    """The diff part of a refusal: the lines between the head and the advice."""
    return message.split(f"{KEPT}:\n", 1)[1].rsplit("\nRead ", 1)[0].split("\n")


def test_the_diff_shows_two_lines_of_context_around_a_change() -> None:
    before = "".join(f"line {n}\n" for n in range(10)).encode()
    after = before.replace(b"line 5\n", b"LINE FIVE\n")
    lines = _diff_lines(stale_message("a.txt", before, after))
    assert lines[3:] == [" line 3", " line 4", "-line 5", "+LINE FIVE", " line 6", " line 7"]


def test_undecodable_bytes_show_as_replacement_characters_in_the_diff() -> None:
    message = stale_message("menu.txt", b"caf\xe9\n", b"caf\xe9 au lait\n")
    assert "-caf\ufffd\n+caf\ufffd au lait" in message


def test_a_change_of_line_endings_only_is_named_as_such() -> None:
    message = stale_message("a.txt", b"one\ntwo\n", b"one\r\ntwo\r\n")
    assert _diff_lines(message) == ["(only line endings, encoding or the final newline differ)"]


def test_long_diff_lines_are_cut_at_300_characters() -> None:
    exact = "x" * 299  # "+" and 299 characters: exactly 300, shown whole
    long = "y" * 400
    lines = _diff_lines(stale_message("a.txt", b"", f"{exact}\n{long}\n".encode()))
    assert f"+{exact}" in lines
    assert f"+{'y' * 299}…" in lines


def test_a_diff_of_forty_lines_is_shown_whole_and_a_longer_one_says_how_much_is_left() -> None:
    # 2 file headers + 1 hunk header + the added lines
    forty = stale_message("a.txt", b"", "".join(f"{n}\n" for n in range(37)).encode())
    assert len(_diff_lines(forty)) == 40
    assert "more lines of diff" not in forty
    assert "+36" in _diff_lines(forty)
    forty_one = stale_message("a.txt", b"", "".join(f"{n}\n" for n in range(38)).encode())
    lines = _diff_lines(forty_one)
    assert lines[-1] == "[... 1 more lines of diff not shown]"
    assert lines[-2] == "+36"


def test_a_file_of_exactly_the_kept_size_is_refused_with_its_diff(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    seen = SeenFiles()
    row = "exact size row " + "e" * 240 + "\n"  # 256 bytes
    (tmp_path / "big.txt").write_text(row * 1024)  # 256 KiB: the largest version kept
    fs.read("big.txt", seen=seen)
    (tmp_path / "big.txt").write_text(row * 1023 + "changed by a colleague\n")
    with pytest.raises(RetriableError, match=KEPT) as refusal:
        fs.write("big.txt", "mine\n", seen=seen)
    assert "+changed by a colleague" in str(refusal.value)


def test_an_agent_can_change_a_large_file_it_has_read(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    seen = SeenFiles()
    (tmp_path / "big.txt").write_text("head\n" + "a large file row\n" * 20_000)  # > kept size
    fs.read("big.txt", offset=10, limit=5, seen=seen)
    fs.edit("big.txt", "head\n", "first row\n", seen=seen)
    assert (tmp_path / "big.txt").read_text().startswith("first row\na large")
    (tmp_path / "big.txt").write_text("a colleague's version\n" * 20_000)
    with pytest.raises(RetriableError, match=NOT_KEPT):
        fs.write("big.txt", "mine\n", seen=seen)


def test_a_file_the_agent_deleted_by_patch_counts_as_never_seen(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    bob = SeenFiles()
    (tmp_path / "x.txt").write_text("old\n")
    fs.read("x.txt", seen=bob)
    fs.patch("--- a/x.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n", seen=bob)
    (tmp_path / "x.txt").write_text("recreated by a colleague\n")
    assert fs.write("x.txt", "bob's\n", seen=bob).startswith("Overwrote x.txt")
    assert (tmp_path / "x.txt").read_text() == "bob's\n"


def test_the_snapshot_store_keeps_contents_within_its_byte_budget_dropping_the_oldest() -> None:
    store = _Snapshots(10)
    store.keep("a", b"12345")
    store.keep("b", b"67890")  # exactly the budget: both kept
    assert (store.get("a"), store.get("b")) == (b"12345", b"67890")
    store.keep("a", b"12345")  # seen again: now the most recent
    store.keep("c", b"x")
    assert (store.get("a"), store.get("b"), store.get("c")) == (b"12345", None, b"x")


def test_a_file_of_exactly_the_size_limit_is_protected_once_read(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path, max_file_bytes=100)
    (tmp_path / "a.txt").write_text("r" * 99 + "\n")
    fs.read("a.txt", seen=(seen := SeenFiles()))
    (tmp_path / "a.txt").write_text("colleague\n")
    with pytest.raises(RetriableError, match=KEPT):
        fs.write("a.txt", "mine\n", seen=seen)
