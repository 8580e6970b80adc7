"""The bounds of an agent's memory of seen files (`_seen`), on real files under tmp_path.

What is checked: the size up to which a file's content is kept for diffs (both when it is
hashed from an open descriptor and when it enters the snapshot store), hashing a file that is
longer than the size it was opened with (several reads), the byte accounting of the snapshot
store as it drops its oldest contents, the smallest memory `SeenFiles` accepts, which file an
agent's memory forgets first, and the memory shared by the tools of one agent growing to the
largest size asked for.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from akgentic.tool.workspace import _seen
from akgentic.tool.workspace._seen import (
    SeenFiles,
    _Snapshots,
    content_digest,
    digest_fd,
    seen_files_of,
)

KEPT = _seen._SNAPSHOT_MAX_BYTES


def _open(tmp_path: Path, name: str, data: bytes) -> int:
    path = tmp_path / name
    path.write_bytes(data)
    return os.open(path, os.O_RDONLY)


# -- digest_fd --------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "kept"), [(KEPT - 1, True), (KEPT, True), (KEPT + 1, False)])
def test_the_content_is_returned_up_to_the_kept_size_and_the_digest_always(
    tmp_path: Path, size: int, kept: bool
) -> None:
    data = bytes(range(256)) * (size // 256) + b"z" * (size % 256)
    fd = _open(tmp_path, "a.bin", data)
    try:
        digest, content = digest_fd(fd, size)
        assert digest == content_digest(data)
        assert content == (data if kept else None)
        assert os.lseek(fd, 0, os.SEEK_CUR) == 0  # read with pread: the position is untouched
    finally:
        os.close(fd)


@pytest.mark.timeout(2)  # a reader that never moves past the first chunk would loop forever
def test_a_file_longer_than_its_given_size_is_hashed_and_kept_whole_over_several_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_seen, "_CHUNK", 4)
    data = b"0123456789"  # grew past the 2 bytes it had when its size was taken: 3 reads of 4
    fd = _open(tmp_path, "grown.txt", data)
    try:
        assert digest_fd(fd, 2) == (content_digest(data), data)
    finally:
        os.close(fd)


def test_a_large_file_is_hashed_in_chunks_without_keeping_its_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_seen, "_CHUNK", 3)
    monkeypatch.setattr(_seen, "_SNAPSHOT_MAX_BYTES", 4)
    data = b"abcdefghij"
    fd = _open(tmp_path, "large.txt", data)
    try:
        assert digest_fd(fd, len(data)) == (content_digest(data), None)
    finally:
        os.close(fd)


# -- the snapshot store -----------------------------------------------------------------------


def test_a_content_of_exactly_the_kept_size_is_stored_and_one_byte_more_is_not() -> None:
    store = _Snapshots(4 * KEPT)
    exact, over = b"e" * KEPT, b"o" * (KEPT + 1)
    store.keep("exact", exact)
    store.keep("over", over)
    assert store.get("exact") == exact
    assert store.get("over") is None


def test_the_store_counts_the_bytes_it_still_holds_after_dropping_the_oldest() -> None:
    store = _Snapshots(10)
    store.keep("a", b"1234")
    store.keep("b", b"5678")
    store.keep("c", b"abcde")  # 13 bytes: "a" (4) dropped, 9 left
    assert [store.get(d) for d in "abc"] == [None, b"5678", b"abcde"]
    store.keep("d", b"xyz")  # 12 bytes: "b" (4) dropped, 8 left
    assert [store.get(d) for d in "abcd"] == [None, None, b"abcde", b"xyz"]
    store.keep("e", b"!!")  # exactly 10: nothing dropped
    assert [store.get(d) for d in "cde"] == [b"abcde", b"xyz", b"!!"]


def test_the_store_drops_the_least_recently_kept_content_first() -> None:
    store = _Snapshots(6)
    store.keep("a", b"aa")
    store.keep("b", b"bb")
    store.keep("c", b"cc")
    store.keep("a", b"aa")  # kept again: now the most recent
    store.keep("d", b"dd")
    assert [store.get(d) for d in "abcd"] == [b"aa", None, b"cc", b"dd"]


# -- one agent's memory -----------------------------------------------------------------------


@pytest.mark.parametrize("max_files", [0, -3])
def test_a_memory_of_fewer_than_one_file_is_refused_with_the_size_asked(max_files: int) -> None:
    with pytest.raises(ValueError) as refusal:
        SeenFiles(max_files)
    assert str(refusal.value) == f"max_files must be 1 or more, got {max_files}"


def test_a_memory_of_one_file_remembers_only_the_last_file_seen(tmp_path: Path) -> None:
    seen = SeenFiles(1)
    seen.record((tmp_path, "a.txt"), "digest-a")
    seen.record((tmp_path, "b.txt"), "digest-b")
    assert len(seen) == 1
    assert seen.last_seen((tmp_path, "a.txt")) is None
    assert seen.last_seen((tmp_path, "b.txt")) == "digest-b"


def test_the_least_recently_seen_file_is_forgotten_first(tmp_path: Path) -> None:
    seen = SeenFiles(2)
    seen.record((tmp_path, "a.txt"), "a1")
    seen.record((tmp_path, "b.txt"), "b1")
    seen.record((tmp_path, "a.txt"), "a2")  # seen again: now the most recent
    seen.record((tmp_path, "c.txt"), "c1")
    assert [seen.last_seen((tmp_path, name)) for name in ("a.txt", "b.txt", "c.txt")] == [
        "a2",
        None,
        "c1",
    ]


def test_a_recorded_content_is_kept_under_its_digest_for_the_diff(tmp_path: Path) -> None:
    seen = SeenFiles()
    before = f"kept under its digest {tmp_path}\n".encode()
    seen.record((tmp_path, "a.txt"), content_digest(before), before)
    assert seen.stale((tmp_path, "a.txt"), before, "a.txt") is None
    message = seen.stale((tmp_path, "a.txt"), before + b"a colleague's line\n", "a.txt")
    assert message is not None
    assert "What changed since you saw it" in message
    assert "\n+a colleague's line\n" in message


def test_the_memory_of_one_agent_grows_to_the_largest_size_asked_and_never_shrinks(
    tmp_path: Path,
) -> None:
    agent = f"agent of {tmp_path}"
    memory = seen_files_of(agent, 2)
    assert memory.max_files == 2
    assert seen_files_of(agent, 5) is memory
    assert memory.max_files == 5
    assert seen_files_of(agent, 3) is memory
    assert memory.max_files == 5
    for n in range(6):
        memory.record((tmp_path, f"{n}.txt"), f"d{n}")
    assert len(memory) == 5
    assert memory.last_seen((tmp_path, "0.txt")) is None
    assert memory.last_seen((tmp_path, "5.txt")) == "d5"
