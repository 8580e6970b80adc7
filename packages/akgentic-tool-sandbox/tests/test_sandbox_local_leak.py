"""``local`` mode and the agent's own environment, read back through ``/proc``.

The review's finding: a local command could ``cat /proc/$PPID/environ`` and read the
environment the agent process started with, API keys included, although none of it is
passed to the command. The local backend now marks the agent process non-dumpable.

The kernel lets root read every process, so the leak can only be shown for an agent that
is not root. When the tests run as root, the "agent" here is a real Python process that
starts with a secret in its environment and switches to an unprivileged uid, exactly as a
deployment running the agent as a normal user would look; it then runs one command the
way the local backend does, with and without the protection.

The tests after those call ``make_process_undumpable`` in the test process itself (putting
the flag back afterwards), as the sandbox actor does, including where ``prctl`` fails or is
missing.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from akgentic.tool.sandbox._process import ProcessOutcome
from akgentic.tool.sandbox.config import SANDBOX_ACTOR_NAME
from akgentic.tool.sandbox.local import make_process_undumpable
from akgentic.tool.sandbox.tool import ExecTool

Bind = Callable[..., tuple[ExecTool, Callable[[str], str]]]

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="/proc and prctl are Linux's")

SECRET = "sk-agent-secret-0451"
AGENT_UID = 64999  # the otherwise unused uid of conftest's SANDBOX_TEST_UID
_PR_GET_DUMPABLE = 3
_PR_SET_DUMPABLE = 4
_LOCAL_LOGGER = "akgentic.tool.sandbox.local"

# The agent process. argv: uid, "protect" or "exposed", workspace.
_AGENT = """
import ctypes, os, sys
# Imported first: the interpreter's files may not be readable by the unprivileged uid.
from akgentic.tool.sandbox._process import LaunchSpec, run_process
from akgentic.tool.sandbox.worker import default_shell
from akgentic.tool.sandbox.local import local_environment, make_process_undumpable
uid, mode, workspace = int(sys.argv[1]), sys.argv[2], sys.argv[3]
if os.geteuid() != uid:
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    # Switching uid made this process non-dumpable as a side effect (fs.suid_dumpable);
    # a process started as that user is dumpable: put it back to that normal state.
    ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)
if mode == "protect":
    assert make_process_undumpable()
command = "cat /proc/$PPID/environ; echo; echo \\"own: [$AKGENTIC_AGENT_SECRET]\\""
spec = LaunchSpec(
    argv=[default_shell(), "-c", command],
    cwd=workspace,
    env=local_environment(workspace),
    display_command=command,
    timeout_seconds=10,
    max_output_bytes=100_000,
)
print(run_process(spec).model_dump_json())
"""


@pytest.fixture
def agent_workspace() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="akgentic-leak-"))
    if os.geteuid() == 0:
        os.chown(root, AGENT_UID, AGENT_UID)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_agent(mode: str, workspace: Path) -> ProcessOutcome:
    uid = AGENT_UID if os.geteuid() == 0 else os.geteuid()
    env = {**os.environ, "AKGENTIC_AGENT_SECRET": SECRET}
    done = subprocess.run(
        [sys.executable, "-c", _AGENT, str(uid), mode, str(workspace)],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return ProcessOutcome.model_validate_json(done.stdout.strip().splitlines()[-1])


def test_an_unprotected_agent_leaks_its_environment_through_proc(agent_workspace: Path) -> None:
    """The control: without the protection the leak is real, so the next test means something."""
    outcome = run_agent("exposed", agent_workspace)
    assert SECRET in outcome.stdout
    assert "own: []" in outcome.stdout  # not passed on: read through /proc


def test_a_protected_agent_does_not(agent_workspace: Path) -> None:
    outcome = run_agent("protect", agent_workspace)
    assert SECRET not in outcome.stdout + outcome.stderr
    assert "Permission denied" in outcome.stderr
    assert "own: []" in outcome.stdout


def _dumpable() -> int:
    return int(ctypes.CDLL(None).prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0))


@pytest.fixture
def restore_dumpable() -> Iterator[None]:
    before = _dumpable()
    yield
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, before, 0, 0, 0)


@pytest.mark.usefixtures("restore_dumpable")
def test_the_protection_can_be_turned_off(bind_exec: Bind) -> None:
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
    bind_exec(mode="local", protect_agent_process=False)
    assert _dumpable() == 1
    # The team's sandbox already exists: a later card does not change what it decided.
    bind_exec(mode="local")
    assert _dumpable() == 1


@pytest.mark.usefixtures("restore_dumpable")
def test_local_sandbox_protection_is_on_by_default(
    bind_exec: Bind, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=_LOCAL_LOGGER)
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
    card, run = bind_exec(mode="local")
    assert card.protect_agent_process
    assert _dumpable() == 0
    assert run("echo ok") == "exit_code: 0\n--- stdout ---\nok"
    # A process-wide change: the owner of the process is told which sandbox made it, and
    # which setting turns it off.
    (notice,) = [r.getMessage() for r in caplog.records if r.name == _LOCAL_LOGGER]
    assert notice.startswith(f"{SANDBOX_ACTOR_NAME}: agent process marked non-dumpable")
    assert "protect_agent_process=False" in notice


# --- make_process_undumpable itself, in this (test) process ------------------------------


@pytest.mark.usefixtures("restore_dumpable")
def test_marking_the_process_says_so_and_warns_of_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
    caplog.set_level(logging.INFO, logger=_LOCAL_LOGGER)
    assert make_process_undumpable() is True
    assert _dumpable() == 0
    assert make_process_undumpable() is True  # idempotent
    assert caplog.records == []


class _RefusingLibc:
    """A C library whose ``prctl`` fails the way the kernel reports it: -1, and errno."""

    def prctl(self, *args: int) -> int:
        ctypes.set_errno(errno.EPERM)
        return -1


def test_a_refused_prctl_is_reported_with_its_errno(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(ctypes, "CDLL", lambda *args, **kwargs: _RefusingLibc())
    caplog.set_level(logging.INFO, logger=_LOCAL_LOGGER)
    assert make_process_undumpable() is False
    (warning,) = caplog.records
    assert warning.levelno == logging.WARNING
    message = warning.getMessage()
    assert "PR_SET_DUMPABLE" in message
    assert "failed" in message
    assert message.endswith(f"errno {errno.EPERM}")


def _no_c_library(*args: object, **kwargs: object) -> object:
    raise OSError("no C library to load")


@pytest.mark.parametrize(
    "cdll",
    [_no_c_library, lambda *args, **kwargs: object()],
    ids=["no C library", "a C library without prctl"],
)
def test_without_prctl_nothing_is_marked(
    cdll: Callable[..., object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ctypes, "CDLL", cdll)
    assert make_process_undumpable() is False


@pytest.mark.usefixtures("restore_dumpable")
def test_off_linux_nothing_is_marked(monkeypatch: pytest.MonkeyPatch) -> None:
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
    monkeypatch.setattr(sys, "platform", "darwin")
    assert make_process_undumpable() is False
    assert _dumpable() == 1
