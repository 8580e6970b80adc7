"""The bwrap backend, for real: bubblewrap confines writes to the workspace, cuts the network."""

from __future__ import annotations

import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from akgentic.tool.core.testing import eventually
from akgentic.tool.core.workspace_dir import resolve_workspace_dir
from akgentic.tool.sandbox.bwrap import bwrap_argv
from akgentic.tool.sandbox.tool import ExecTool

Bind = Callable[..., tuple[ExecTool, Callable[[str], str]]]

pytestmark = pytest.mark.usefixtures("require_bwrap")


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that answers 'pong' to every connection."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.sendall(b"pong")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        stop.set()
        thread.join(timeout=2)
        server.close()


def connect_command(port: int) -> str:
    return (
        "python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', "
        f'{port}), 2); print(s.recv(4).decode())"'
    )


def test_write_inside_the_workspace_succeeds(bind_exec: Bind) -> None:
    card, run = bind_exec(mode="bwrap", workspace_id="box")
    assert card.resolved_mode == "bwrap"
    assert run("bash -c 'echo kept > inside.txt && cat inside.txt'") == (
        "exit_code: 0\n--- stdout ---\nkept"
    )
    assert (resolve_workspace_dir("box") / "inside.txt").read_text() == "kept\n"


@pytest.mark.parametrize("target", ["/etc/akgentic-escape", "/usr/akgentic-escape", "/escape"])
def test_write_outside_the_workspace_fails(bind_exec: Bind, target: str) -> None:
    _, run = bind_exec(mode="bwrap")
    answer = run(f"touch {target}")
    assert answer.startswith("exit_code: 1")
    assert "Read-only file system" in answer
    assert not Path(target).exists()


def test_the_workspace_neighbourhood_is_neither_visible_nor_writable(
    bind_exec: Bind, workspaces_root: Path
) -> None:
    (workspaces_root / "other-team").mkdir()
    (workspaces_root / "other-team" / "secret.txt").write_text("theirs")
    _, run = bind_exec(mode="bwrap", workspace_id="mine")
    answer = run("cat ../other-team/secret.txt")
    assert "theirs" not in answer
    assert answer.startswith("exit_code: 1")
    run("bash -c 'echo x > ../planted.txt'")
    assert not (workspaces_root / "planted.txt").exists()
    assert run("touch /tmp/scratch && echo ok").endswith("ok")  # a private /tmp exists


def test_secrets_of_the_host_are_not_mounted(bind_exec: Bind) -> None:
    _, run = bind_exec(mode="bwrap")
    assert "No such file" in run("cat /etc/shadow")
    assert "No such file" in run("ls /root")


def test_no_network_by_default(bind_exec: Bind, listener: int) -> None:
    _, run = bind_exec(mode="bwrap")
    answer = run(connect_command(listener))
    assert answer.startswith("exit_code: 1")
    assert "pong" not in answer


def test_network_when_configured(bind_exec: Bind, listener: int) -> None:
    _, run = bind_exec(mode="bwrap", network=True)
    assert run(connect_command(listener)) == "exit_code: 0\n--- stdout ---\npong"


def test_timeout_kills_the_whole_sandbox(
    bind_exec: Bind, running: Callable[[str], list[int]]
) -> None:
    _, run = bind_exec(mode="bwrap", timeout_seconds=1)
    # A duration of its own: the check reads every process of the machine.
    seconds = f"313.{uuid.uuid4().int % 10**6:06d}"
    # setsid leaves the process group: only the pid namespace takes this one down.
    answer = run(f"bash -c 'setsid sleep {seconds} & sleep {seconds}'")
    assert answer.startswith("SandboxError: TimeoutExpired:")
    eventually(lambda: not running(seconds))


def test_read_only_paths_are_readable_not_writable(bind_exec: Bind, tmp_path: Path) -> None:
    shared = tmp_path / "reference"
    shared.mkdir()
    (shared / "data.txt").write_text("reference data")
    _, run = bind_exec(mode="bwrap", read_only_paths=[str(shared)])
    assert run(f"cat {shared}/data.txt") == "exit_code: 0\n--- stdout ---\nreference data"
    assert "Read-only file system" in run(f"touch {shared}/new.txt")
    assert not (shared / "new.txt").exists()


_MIB = 1024 * 1024


def test_scratch_filesystems_hold_no_more_than_the_memory_limit(bind_exec: Bind) -> None:
    """The review's finding: /tmp and /dev/shm were unsized tmpfs mounts (half the host's
    RAM each) and /dev a writable one, so files there held memory far past ``memory_bytes``.
    Now /tmp and /dev/shm share the memory limit between them and /dev is read-only."""
    _, run = bind_exec(mode="bwrap", memory_bytes=64 * _MIB)
    fill = "; ".join(
        f"head -c 100000000 /dev/zero > {target} 2>/dev/null; stat -c %s {target}"
        for target in ("/tmp/fill", "/dev/shm/fill")
    )
    answer = run(f"bash -c '{fill}; echo x > /dev/fill'")
    held = [int(line) for line in answer.split("--- stdout ---\n")[1].split("\n")[:2]]
    assert held == [48 * _MIB, 16 * _MIB]  # three quarters and one quarter of 64 MiB
    assert "/dev/fill: Read-only file system" in answer
    # Devices in the read-only /dev still work.
    assert run("bash -c 'echo gone > /dev/null && echo ok'").endswith("ok")


def test_tmpfs_bytes_overrides_the_memory_limit(bind_exec: Bind) -> None:
    _, run = bind_exec(mode="bwrap", tmpfs_bytes=8 * _MIB)
    answer = run("bash -c 'head -c 20000000 /dev/zero > /tmp/f; stat -c %s /tmp/f'")
    assert "No space left on device" in answer
    assert answer.split("--- stdout ---\n")[1].startswith(str(6 * _MIB))


def test_command_line_shape() -> None:
    argv = bwrap_argv(
        bwrap="/usr/bin/bwrap",
        workspace_dir="/w/team",
        shell="/bin/bash",
        command="ls -la",
        system_dirs=(),
        etc_paths=("/etc/passwd",),
    )
    assert argv == [
        "/usr/bin/bwrap", "--die-with-parent", "--new-session", "--unshare-all",
        "--unshare-user", "--cap-drop", "ALL", "--hostname", "sandbox",
        "--ro-bind-try", "/etc/passwd", "/etc/passwd",
        "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev", "--tmpfs", "/tmp",
        "--bind", "/w/team", "/w/team", "--remount-ro", "/", "--chdir", "/w/team",
        "--", "/bin/bash", "-c", "ls -la",
    ]  # fmt: skip
    sized = bwrap_argv(
        bwrap="bwrap", workspace_dir="/w", shell="sh", command="x", tmp_bytes=300, shm_bytes=100
    )
    start = sized.index("--dev")
    assert sized[start : start + 12] == [
        "--dev", "/dev", "--size", "100", "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
        "--size", "300", "--tmpfs", "/tmp",
    ]  # fmt: skip
    networked = bwrap_argv(bwrap="bwrap", workspace_dir="/w", shell="sh", command="x", network=True)
    assert networked.index("--share-net") == networked.index("--unshare-user") + 1
