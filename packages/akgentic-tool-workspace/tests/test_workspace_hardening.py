"""Attacks from a process sharing the workspace: symlink swaps, FIFOs, hard links, huge files,
catastrophic regexes. Each test reproduces one and checks the workspace holds."""

from __future__ import annotations

import base64
import contextlib
import ctypes
import ctypes.util
import os
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import EditItem, Filesystem, WorkspaceTool

from .conftest import Tools, tools_of

SECRET = "HOST-SECRET-7f3a"
# A 1x1 PNG.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two names (renameat2 RENAME_EXCHANGE), as an attacker's loop does."""
    done = _libc.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(done == 0)


def _can_exchange(tmp: Path) -> bool:
    (tmp / "x").mkdir()
    (tmp / "y").symlink_to("x")
    try:
        return hasattr(_libc, "renameat2") and _exchange(tmp / "x", tmp / "y")
    finally:
        (tmp / "y").unlink() if (tmp / "y").is_symlink() else (tmp / "y").rmdir()
        (tmp / "x").unlink() if (tmp / "x").is_symlink() else (tmp / "x").rmdir()


@pytest.fixture
def host(tmp_path: Path) -> Path:
    """A directory outside every workspace holding a secret the tools must never see."""
    outside = tmp_path / "host"
    outside.mkdir()
    (outside / "secret").write_text(SECRET + "\n")
    return outside


@pytest.fixture
def swapper(ws: Path, host: Path, tmp_path: Path) -> Iterator[Callable[[], None]]:
    """Start a thread swapping workspace dir `d` with a symlink to the host dir, in a loop."""
    if not _can_exchange(tmp_path):
        pytest.skip("renameat2(RENAME_EXCHANGE) is not available here")
    ws.mkdir(exist_ok=True)
    (ws / "d").mkdir()
    (ws / "d" / "secret").write_text("inside\n")
    (ws / "d" / "x.txt").write_text("inside\n")
    (ws / "d" / "pic.png").write_bytes(PIXEL)
    # the same name outside, marked: its bytes must never come back
    (host / "pic.png").write_bytes(PIXEL + SECRET.encode())
    (ws / "link").symlink_to(host)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            _exchange(ws / "d", ws / "link")

    thread = threading.Thread(target=loop, daemon=True)

    def start() -> None:
        thread.start()

    yield start
    stop.set()
    if thread.is_alive():
        thread.join(5)


def _host_files(host: Path) -> set[str]:
    return {str(p.relative_to(host)) for p in host.rglob("*")}


def test_racing_symlink_swaps_never_reach_outside(
    tools: Tools, ws: Path, host: Path, swapper: Callable[[], None]
) -> None:
    """Every capability, called while `d` flips between a directory and a link to the host."""
    before = _host_files(host)
    calls: list[Callable[[], object]] = [
        lambda: tools["workspace_read"]("d/secret"),
        lambda: tools["workspace_write"]("d/x.txt", "written\n"),
        lambda: tools["workspace_write"]("d/new.txt", "new\n"),
        lambda: tools["workspace_edit"]("d/x.txt", "inside", "edited"),
        lambda: tools["workspace_multi_edit"](
            [EditItem(path="d/x.txt", old_string="written", new_string="inside")]
        ),
        lambda: tools["workspace_patch"]("--- a/d/p.txt\n+++ b/d/p.txt\n@@ -0,0 +1 @@\n+patched\n"),
        lambda: tools["workspace_list"]("d", 3),
        lambda: tools["workspace_glob"]("d/*"),
        lambda: tools["workspace_glob"]("**/secret"),
        lambda: tools["workspace_grep"]("HOST|inside", "d"),
        lambda: tools["workspace_grep"]("HOST|inside"),
        lambda: tools["workspace_view"]("d/pic.png").data.decode("latin-1"),
        lambda: tools["workspace_mkdir"]("d/sub"),
        lambda: tools["workspace_delete"]("d/p.txt"),
        lambda: tools["workspace_delete"]("d/secret"),
    ]
    swapper()
    seen: list[str] = []
    # At least four rounds however loaded the machine is, and more while 3 s last.
    deadline = time.monotonic() + 3.0
    rounds = 0
    while rounds < 4 or time.monotonic() < deadline:
        for call in calls:
            # refused (escape, changed, not found) is fine, as long as nothing leaks
            with contextlib.suppress(RetriableError):
                seen.append(str(call()))
        rounds += 1
        (host / "secret").write_text(SECRET + "\n")  # undo a delete that got through, if any
    assert not [text for text in seen if SECRET in text]
    assert _host_files(host) == before, "a file was created or removed outside the workspace"
    assert (host / "secret").read_text() == SECRET + "\n"


def test_reading_through_an_outside_symlink_is_refused(tools: Tools, ws: Path, host: Path) -> None:
    ws.mkdir(exist_ok=True)
    (ws / "out").symlink_to(host)
    (ws / "file_out").symlink_to(host / "secret")
    for call in (
        lambda: tools["workspace_read"]("out/secret"),
        lambda: tools["workspace_read"]("file_out"),
        lambda: tools["workspace_write"]("out/new", "x"),
        lambda: tools["workspace_edit"]("file_out", SECRET, "gone"),
    ):
        with pytest.raises(RetriableError, match="escapes the workspace root"):
            call()
    assert not (host / "new").exists()
    assert (host / "secret").read_text() == SECRET + "\n"


def test_glob_and_grep_do_not_walk_into_a_symlinked_directory(
    tools: Tools, ws: Path, host: Path
) -> None:
    ws.mkdir(exist_ok=True)
    (ws / "dir_out").symlink_to(host)
    (ws / "mine.txt").write_text("HOST-SECRET but mine\n")
    assert "secret" not in tools["workspace_glob"]("dir_out/*")
    assert "No files match" in tools["workspace_glob"]("dir_out/*")
    assert tools["workspace_grep"]("HOST-SECRET") == "mine.txt:1:HOST-SECRET but mine"
    with pytest.raises(RetriableError, match="escapes"):
        tools["workspace_grep"]("HOST", "dir_out")


def test_delete_removes_a_symlink_that_points_outside(tools: Tools, ws: Path, host: Path) -> None:
    ws.mkdir(exist_ok=True)
    (ws / "out").symlink_to(host)
    assert tools["workspace_delete"]("out") == "Deleted symlink out."
    assert not (ws / "out").is_symlink()
    assert (host / "secret").read_text() == SECRET + "\n"


def test_a_hard_link_to_an_outside_file_is_not_read(tools: Tools, ws: Path, host: Path) -> None:
    ws.mkdir(exist_ok=True)
    os.link(host / "secret", ws / "linked")
    with pytest.raises(RetriableError, match="hard links"):
        tools["workspace_read"]("linked")
    assert "linked" not in tools["workspace_grep"]("HOST")


def test_a_fifo_neither_blocks_nor_sticks(tools: Tools, ws: Path) -> None:
    """Writing, editing or reading a FIFO is refused at once; the workspace stays usable."""
    ws.mkdir(exist_ok=True)
    os.mkfifo(ws / "pipe")
    outcome: dict[str, object] = {}

    def attack() -> None:
        for name, call in (
            ("write", lambda: tools["workspace_write"]("pipe", "x")),
            ("edit", lambda: tools["workspace_edit"]("pipe", "a", "b")),
            ("read", lambda: tools["workspace_read"]("pipe")),
            ("grep", lambda: tools["workspace_grep"]("x", "pipe")),
        ):
            try:
                call()
            except RetriableError as exc:
                outcome[name] = str(exc)

    thread = threading.Thread(target=attack, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "a call on a FIFO blocked"
    assert "FIFO" in str(outcome["write"])
    assert "FIFO" in str(outcome["read"])
    assert set(outcome) == {"write", "edit", "read", "grep"}
    assert tools["workspace_write"]("after.txt", "ok\n").startswith("Created after.txt")
    assert tools["workspace_grep"]("ok") == "after.txt:1:ok"
    assert tools["workspace_delete"]("pipe") == "Deleted FIFO (named pipe) pipe."
    assert not os.path.lexists(ws / "pipe")


def test_catastrophic_regex_stops_at_the_limit_and_leaves_other_threads_running(
    roots: Path, ws: Path
) -> None:
    """ripgrep refuses look-aheads, so these run on the Python engine, which must stop in time.

    The reported `(a+)+(?=b)` froze `re` forever; the `regex` engine answers it at once.
    `(a|a)+(?=b)` is exponential there too, so it must end at `timeout_seconds`.
    """
    ws.mkdir(exist_ok=True)
    (ws / "bad.txt").write_text("a" * 40 + "\n")
    tools = tools_of(WorkspaceTool(workspace_id="team", workspace_grep={"timeout_seconds": 1.0}))
    ticks = 0
    stop = threading.Event()

    def other_actor() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.01)

    thread = threading.Thread(target=other_actor, daemon=True)
    thread.start()
    try:
        assert tools["workspace_grep"]("(a+)+(?=b)").startswith("No matches")
        started = time.monotonic()
        with pytest.raises(RetriableError, match="longer than 1 s"):
            tools["workspace_grep"]("(a|a)+(?=b)")
        assert time.monotonic() - started < 5
    finally:
        stop.set()
        thread.join(5)
    # The other thread kept getting the GIL while the regex ran: about 100 ticks a second
    # on an idle machine, none at all if the engine held the GIL. Low bar for a busy runner.
    assert ticks > 5


def test_reading_one_line_of_a_big_file_costs_a_block_not_the_file(tools: Tools, ws: Path) -> None:
    ws.mkdir(exist_ok=True)
    line = b"0123456789 short line\n"
    with open(ws / "big.log", "wb") as handle:
        block = line * (1 << 16)
        for _ in range(30):  # about 43 MB of short lines
            handle.write(block)
    tracemalloc.start()
    try:
        text = tools["workspace_read"]("big.log", 5, 1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert text.startswith("     6\t0123456789 short line")
    assert f"lines 6-6 of {30 << 16}" in text
    assert peak < 8 << 20, f"peak {peak} bytes while reading one line"


def test_a_huge_sparse_file_is_refused_not_loaded(tools: Tools, ws: Path) -> None:
    ws.mkdir(exist_ok=True)
    with open(ws / "sparse.txt", "wb") as handle:
        handle.truncate(6 << 30)
    with pytest.raises(RetriableError, match="binary data"):
        tools["workspace_read"]("sparse.txt", 0, 1)
    with pytest.raises(RetriableError, match="max_file_bytes"):
        tools["workspace_edit"]("sparse.txt", "a", "b")


def test_whole_file_operations_name_the_size_limit(roots: Path, ws: Path) -> None:
    tools = tools_of(WorkspaceTool(workspace_id="team", max_file_bytes=1000))
    ws.mkdir(exist_ok=True)
    (ws / "f.txt").write_text("x" * 1001)
    with pytest.raises(RetriableError, match="limit of 1,000 bytes"):
        tools["workspace_edit"]("f.txt", "x", "y", True)
    with pytest.raises(RetriableError, match="limit of 1,000 bytes"):
        tools["workspace_write"]("g.txt", "y" * 1001)
    assert not (ws / "g.txt").exists()
    assert (ws / "f.txt").read_text() == "x" * 1001
    assert tools["workspace_read"]("f.txt").startswith("     1\txxx")  # reads stream


def test_nested_workspace_ids_share_one_lock(roots: Path) -> None:
    """`team` and `team/sub` see the same files: concurrent edits through both lose nothing."""
    outer = Filesystem(roots / "team")
    (roots / "team" / "sub").mkdir(parents=True)
    inner = Filesystem(roots / "team" / "sub")
    inner.write("counter.txt", "".join(f"line {i}: 0\n" for i in range(40)))
    errors: list[BaseException] = []

    def bump(fs: Filesystem, prefix: str, lines: range) -> None:
        for i in lines:
            try:
                fs.edit(f"{prefix}counter.txt", f"line {i}: 0", f"line {i}: 1")
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

    threads = [
        threading.Thread(target=bump, args=(outer, "sub/", range(0, 40, 2))),
        threading.Thread(target=bump, args=(inner, "", range(1, 40, 2))),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    content = (roots / "team" / "sub" / "counter.txt").read_text()
    assert content == "".join(f"line {i}: 1\n" for i in range(40))
    assert outer._lock is inner._lock
