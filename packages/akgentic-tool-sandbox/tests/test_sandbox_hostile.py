"""Hostile commands: none hangs the sandbox actor, none escapes the workspace under bwrap.

Every case runs in a fresh team; afterwards the same sandbox must still answer, and the
host paths the case aimed at must be untouched.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from akgentic.tool.core.testing import eventually
from akgentic.tool.sandbox._quota import disk_usage
from akgentic.tool.sandbox.tool import ExecTool

Bind = Callable[..., tuple[ExecTool, Callable[[str], str]]]

_TAG = uuid.uuid4().hex[:8]

# Output without end, as far as the sandbox's 2-second timeout can tell, but bounded by itself
# (30 s): when the code under test is broken (a mutation run breaks the timeout on purpose)
# nothing else would stop it. ``--foreground`` keeps ``timeout`` in the command's process
# group, where the sandbox's kill reaches it (without it, ``timeout`` leads a group of its own).
_ENDLESS_OUTPUT = f"bash -c 'timeout --foreground 30 yes {_TAG}'"


@dataclass(frozen=True)
class Hostile:
    command: str
    expect: Callable[[str], bool]
    escapes: tuple[str, ...] = ()  # host paths that must not exist afterwards
    leftover: str | None = None  # command-line marker no process may still carry


HOSTILE: dict[str, Hostile] = {
    "metacharacters": Hostile(
        f"echo start; touch /etc/pwned-{_TAG} || echo refused; echo $(id -u) > id.txt",
        lambda out: "start" in out and "refused" in out,
        escapes=(f"/etc/pwned-{_TAG}",),
    ),
    "bash -c chain": Hostile(
        f"bash -c 'cd / && touch /escaped-{_TAG} || cd /usr && touch x-{_TAG} || echo blocked'",
        lambda out: "blocked" in out,
        escapes=(f"/escaped-{_TAG}", f"/usr/x-{_TAG}"),
    ),
    "redirect to an absolute path": Hostile(
        f"echo payload > /usr/local/bin/evil-{_TAG}",
        lambda out: "Read-only file system" in out,
        escapes=(f"/usr/local/bin/evil-{_TAG}",),
    ),
    "symlink out of the workspace": Hostile(
        f"bash -c 'ln -s /etc link && echo x > link/linked-{_TAG}'",
        lambda out: "Read-only file system" in out,
        escapes=(f"/etc/linked-{_TAG}",),
    ),
    "command substitution reading secrets": Hostile(
        "echo `cat /etc/shadow /root/.bashrc 2>&1`",
        lambda out: "No such file" in out and "root:" not in out,
    ),
    "very long output": Hostile(
        "python3 -c \"import sys; sys.stdout.write('y' * 5_000_000)\"",
        lambda out: out.startswith("exit_code: 0") and "bytes of output truncated" in out,
    ),
    "endless output": Hostile(
        _ENDLESS_OUTPUT,
        lambda out: (
            out.startswith("SandboxError: TimeoutExpired:") and "bytes of output truncated" in out
        ),
        leftover=f"yes {_TAG}",
    ),
    "binary output": Hostile(
        "bash -c 'head -c 65536 /dev/urandom; printf \"\\000\\033[2J\"'",
        lambda out: out.startswith("exit_code: 0") and "\x00" not in out and "\x1b" not in out,
    ),
    "escaping the process group": Hostile(
        f"bash -c 'setsid sleep 301.{_TAG[:4]} & nohup sleep 301.{_TAG[:4]} & sleep 301'",
        lambda out: out.startswith("SandboxError: TimeoutExpired:"),
        leftover=f"301.{_TAG[:4]}",
    ),
    "memory hog": Hostile(
        'python3 -c "x = bytearray(2 * 1024 ** 3)"',
        lambda out: "MemoryError" in out,
    ),
    "disk filler": Hostile(
        "bash -c 'head -c 300000000 /dev/zero > fill.bin; echo rc=$?'",
        lambda out: "rc=153" in out or "File size limit exceeded" in out,
    ),
}


@pytest.mark.usefixtures("require_bwrap")
@pytest.mark.parametrize("case", HOSTILE.values(), ids=list(HOSTILE))
def test_hostile_input_under_bwrap(
    case: Hostile,
    bind_exec: Bind,
    workspaces_root: Path,
    running: Callable[[str], list[int]],
) -> None:
    _, run = bind_exec(mode="bwrap", timeout_seconds=2, max_output_bytes=4000)
    before = sorted(p.name for p in workspaces_root.iterdir())
    answer = run(case.command)
    assert case.expect(answer), answer[:2000]
    for path in case.escapes:
        assert not Path(path).exists(), f"{path} was written outside the workspace"
    assert sorted(p.name for p in workspaces_root.iterdir()) == before
    if case.leftover is not None:
        eventually(lambda: not running(case.leftover or ""))
    # The actor is not stuck: the same sandbox answers the next command.
    assert run("echo alive") == "exit_code: 0\n--- stdout ---\nalive"


@pytest.mark.parametrize("mode", ["local", "bwrap"])
def test_hostile_output_does_not_hang_the_local_actor(
    mode: str, bind_exec: Bind, bwrap_works: bool
) -> None:
    if mode == "bwrap" and not bwrap_works:
        pytest.skip("bubblewrap cannot create namespaces here")
    _, run = bind_exec(mode=mode, timeout_seconds=2, max_output_bytes=4000)
    assert run(_ENDLESS_OUTPUT).startswith("SandboxError: TimeoutExpired:")
    assert "\x00" not in run("bash -c 'head -c 10000 /dev/urandom'")
    assert run("echo alive") == "exit_code: 0\n--- stdout ---\nalive"


# A process-count probe run before any fork bomb: the bomb is only unleashed once this
# shows RLIMIT_NPROC really stops forks for the sandbox's user.
_NPROC_PROBE = (
    'python3 -c "import os, time\n'
    "n = 0\n"
    "try:\n"
    "    for _ in range(200):\n"
    "        if os.fork() == 0:\n"
    "            time.sleep(5)\n"
    "            os._exit(0)\n"
    "        n += 1\n"
    "except OSError:\n"
    "    print('limited', n)\n"
    "else:\n"
    "    print('unlimited', n)\""
)


def _processes_of(uid: int) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        try:
            status = (entry / "status").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        uids = next((ln.split()[1:2] for ln in status.splitlines() if ln.startswith("Uid:")), [])
        count += uids == [str(uid)]
    return count


@pytest.mark.parametrize("mode", ["bwrap", "local"])
def test_fork_bomb_is_bounded_by_nproc_and_the_timeout(
    mode: str,
    bwrap_works: bool,
    unprivileged_root: tuple[Path, dict[str, Any]],
    bind_exec: Bind,
    running: Callable[[str], list[int]],
) -> None:
    if mode == "bwrap" and not bwrap_works:
        pytest.skip("bubblewrap cannot create namespaces here")
    _, as_user = unprivileged_root
    _, run = bind_exec(mode=mode, timeout_seconds=3, max_processes=48, cpu_seconds=5, **as_user)
    probe = run(_NPROC_PROBE)
    if "limited" not in probe.split() or "unlimited" in probe:
        pytest.fail(f"the probe did not show RLIMIT_NPROC stopping forks; no bomb: {probe}")
    started = int(probe.split("limited")[-1].split()[0])
    assert started < 48

    marker = f"bomb-{_TAG}"
    answer = run(f"bash -c ':(){{ :|:& }};: # {marker}'")
    assert answer.startswith(("exit_code:", "SandboxError: TimeoutExpired:")), answer
    eventually(lambda: not running(marker), timeout=10)
    assert run("echo alive") == "exit_code: 0\n--- stdout ---\nalive"


@pytest.mark.parametrize("mode", ["local", "bwrap"])
def test_workspace_quota_stops_a_disk_filler(
    mode: str, bind_exec: Bind, bwrap_works: bool, workspaces_root: Path
) -> None:
    """The review's finding: one command wrote 2 GB into the shared workspace, in files each
    below the file-size limit. Now the growth is watched and the command killed past it."""
    if mode == "bwrap" and not bwrap_works:
        pytest.skip("bubblewrap cannot create namespaces here")
    _, run = bind_exec(
        mode=mode, workspace_id="quota", workspace_quota_bytes=5_000_000, timeout_seconds=10
    )
    # Bounded (400 MB at most) so that a broken quota (say, in a mutation run) cannot fill the
    # disk: the quota should stop it after a few MB.
    filler = "bash -c 'for i in $(seq 400); do head -c 1000000 /dev/zero > fill-$i; done'"
    answer = run(filler)
    assert answer.startswith(
        f"SandboxError: WorkspaceQuotaExceeded: Command {filler!r} was killed after it grew "
        "the workspace by "
    ), answer
    assert "past the workspace quota of 4.768 MiB (5000000 bytes) per command" in answer
    written, _ = disk_usage(str(workspaces_root / "quota"))
    assert 5_000_000 < written < 500_000_000
    # A single file larger than the quota is stopped by the kernel, at the quota exactly.
    answer = run("bash -c 'rm -f fill-*; head -c 8000000 /dev/zero > one.bin; echo rc=$?'")
    assert "rc=153" in answer or "File size limit exceeded" in answer, answer
    assert (workspaces_root / "quota" / "one.bin").stat().st_size == 5_000_000
    assert run("echo alive") == "exit_code: 0\n--- stdout ---\nalive"
