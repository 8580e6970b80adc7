"""The sandbox and the workspace tool share a directory: a command racing symlink swaps in
it must not steer the workspace tool outside (the attack that found the check-then-use bug).

A real bubblewrap command swaps directory `d` with a symlink to a host directory it cannot
see itself (renameat2 RENAME_EXCHANGE in a loop), while the model's workspace calls run.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool import ToolFactory
from akgentic.tool.core.testing import spawn_tool_agent
from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV
from akgentic.tool.errors import RetriableError
from akgentic.tool.sandbox import ExecTool
from akgentic.tool.workspace import WorkspaceTool

SECRET = "HOST-ONLY-5b1e"

# Runs inside the sandbox: swap `d` and `link` for `seconds`, then report how many swaps.
SWAP_LOOP = """
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
end = time.monotonic() + {seconds}
swaps = 0
while time.monotonic() < end:
    if libc.renameat2(-100, b"d", -100, b"link", 2) == 0:
        swaps += 1
print("swaps", swaps)
"""


@pytest.fixture
def workspaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(WORKSPACES_ROOT_ENV, str(tmp_path / "workspaces"))
    return tmp_path / "workspaces"


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_bwrap_swap_loop_never_steers_the_workspace_tool_outside(
    actor_system: ActorSystem, orchestrator: ActorAddress, workspaces: Path, tmp_path: Path
) -> None:
    host = tmp_path / "host"
    host.mkdir()
    (host / "secret").write_text(SECRET + "\n")
    agent = spawn_tool_agent(actor_system, orchestrator, name="@Dev")
    factory = ToolFactory(
        [WorkspaceTool(workspace_id="race"), ExecTool(mode="bwrap", workspace_id="race")],
        observer=agent,
    )
    tools: dict[str, Callable[..., Any]] = {t.__name__: t for t in factory.get_tools()}
    tools["workspace_write"](path="d/secret", content="inside\n")
    probe = tools["exec_command"](
        cmd=f"python3 -c \"import os; os.symlink('{host}', 'link'); print('made', 'link')\""
    )
    if "made link" not in probe:
        pytest.skip(f"bubblewrap cannot run here: {probe}")

    report: list[str] = []
    runner = threading.Thread(
        target=lambda: report.append(
            tools["exec_command"](cmd="python3 -c '" + SWAP_LOOP.format(seconds=4) + "'")
        ),
        daemon=True,
    )
    runner.start()
    time.sleep(0.3)  # let the loop start
    seen: list[str] = []
    refused = 0
    while runner.is_alive():
        for call in (
            lambda: tools["workspace_read"](path="d/secret"),
            lambda: tools["workspace_write"](path="d/x.txt", content="planted\n"),
            lambda: tools["workspace_grep"](pattern="HOST|inside", path="d"),
            lambda: tools["workspace_glob"](pattern="d/*"),
            lambda: tools["workspace_list"](path="d"),
        ):
            try:
                seen.append(str(call()))
            except RetriableError:
                refused += 1
    runner.join(30)
    assert report, "the swap loop returned nothing"
    assert "swaps" in report[0], report
    assert int(report[0].split("swaps")[1].split()[0]) > 100, "the loop did not race"
    assert len(seen) + refused > 20
    assert not [text for text in seen if SECRET in text]
    assert sorted(p.name for p in host.iterdir()) == ["secret"], "written outside the workspace"
