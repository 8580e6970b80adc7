"""Shared fixtures: sandboxes and their workspaces (the team and the per-test workspaces root,
``workspaces_root``, come from core's testing kit)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ConformanceRetry, ToolTestAgent
from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV
from akgentic.tool.sandbox.bwrap import BwrapSandboxActor
from akgentic.tool.sandbox.tool import ExecTool

# An otherwise unused uid: commands run under it when the tests run as root, because Linux
# never applies RLIMIT_NPROC to root (see the fork-bomb test).
SANDBOX_TEST_UID = 64999


ExecFn = Callable[[str], str]


@pytest.fixture
def bind_exec(
    workspaces_root: Path, tool_agent: ToolTestAgent
) -> Callable[..., tuple[ExecTool, ExecFn]]:
    """Bind an ExecTool to the test agent the way an agent would; returns (card, tool)."""

    def bind(agent: ToolTestAgent | None = None, **fields: Any) -> tuple[ExecTool, ExecFn]:
        card = ExecTool(**fields)
        factory = ToolFactory(
            [card], observer=agent or tool_agent, retry_exception=ConformanceRetry
        )
        tools = {tool.__name__: tool for tool in factory.get_tools()}
        return card, tools["exec_command"]

    return bind


@pytest.fixture(scope="session")
def bwrap_works() -> bool:
    return BwrapSandboxActor.probe()


@pytest.fixture
def require_bwrap(bwrap_works: bool) -> None:
    if not bwrap_works:
        pytest.skip(
            "bubblewrap cannot create namespaces here (bwrap missing, or the kernel refuses "
            "unprivileged user namespaces)"
        )


@pytest.fixture
def unprivileged_root(
    workspaces_root: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, dict[str, Any]]]:
    """A workspaces root an unprivileged uid can use, and the ExecTool fields to run as it.

    As root, commands run as SANDBOX_TEST_UID (RLIMIT_NPROC binds only non-root users) in
    a root outside the 0700 pytest tmp tree (it replaces ``workspaces_root``). As a normal
    user, only the root moves.
    """
    del workspaces_root  # requested so that this fixture's root wins
    root = Path(tempfile.mkdtemp(prefix="akgentic-sandbox-"))
    monkeypatch.setenv(WORKSPACES_ROOT_ENV, str(root))
    fields: dict[str, Any] = {}
    if os.geteuid() == 0:
        os.chown(root, SANDBOX_TEST_UID, SANDBOX_TEST_UID)
        fields = {"run_as_uid": SANDBOX_TEST_UID, "run_as_gid": SANDBOX_TEST_UID}
    try:
        yield root, fields
    finally:
        shutil.rmtree(root, ignore_errors=True)


def process_alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie awaiting its reaper counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in {"Z", "X"}


def pids_running(marker: str) -> list[int]:
    """Live processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (
                (entry / "cmdline").read_bytes().replace(b"\x00", b" ").decode(errors="replace")
            )
        except OSError:
            continue
        if marker in cmdline and process_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


@pytest.fixture
def alive() -> Callable[[int], bool]:
    """``process_alive`` as a fixture (test modules cannot import conftest by name)."""
    return process_alive


@pytest.fixture
def running() -> Callable[[str], list[int]]:
    """``pids_running`` as a fixture."""
    return pids_running
