"""The workspace watcher on a real directory, its clock in the test's hands.

Every check below is made at or past the watcher's sweep time, so each one walks the tree:
what it reports then depends only on the files, never on what else the filesystem holds.
"""

from __future__ import annotations

from pathlib import Path

from akgentic.tool.sandbox._quota import QuotaBreach, WorkspaceWatcher, disk_usage


def test_growth_is_counted_from_what_the_workspace_held_and_the_quota_itself_is_allowed(
    tmp_path: Path,
) -> None:
    (tmp_path / "already.bin").write_bytes(b"o" * 200_000)  # held before: never charged
    (tmp_path / "probe.bin").write_bytes(b"p" * 30_000)
    probe, _ = disk_usage(str(tmp_path / "probe.bin"))  # what 30,000 bytes cost on disk
    (tmp_path / "probe.bin").unlink()

    now = [0.0]
    watcher = WorkspaceWatcher(str(tmp_path), probe, clock=lambda: now[0])
    now[0] = 10.0
    assert watcher.check() is None  # nothing grew

    (tmp_path / "new.bin").write_bytes(b"n" * 30_000)
    now[0] = 20.0
    assert watcher.check() is None  # grown by exactly the quota: allowed

    (tmp_path / "more.bin").write_bytes(b"m" * 30_000)
    now[0] = 30.0
    assert watcher.check() == QuotaBreach(growth_bytes=2 * probe, quota_bytes=probe)


def test_disk_usage_counts_allocated_blocks_and_a_hard_linked_file_once(tmp_path: Path) -> None:
    def blocks(path: Path) -> int:
        return path.lstat().st_blocks * 512

    root = tmp_path / "ws"
    root.mkdir()
    assert disk_usage(str(root)) == (blocks(root), True)  # the directory itself

    data = root / "data.bin"
    data.write_bytes(b"d" * 10_000)
    (root / "again.bin").hardlink_to(data)
    (root / "sub").mkdir()
    expected = blocks(root) + blocks(data) + blocks(root / "sub")
    assert disk_usage(str(root)) == (expected, True)


def test_a_workspace_that_is_not_there_uses_nothing_and_is_not_complete(tmp_path: Path) -> None:
    assert disk_usage(str(tmp_path / "missing")) == (0, False)
