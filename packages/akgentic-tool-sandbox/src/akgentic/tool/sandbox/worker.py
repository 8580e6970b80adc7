"""The default worker: runs one prepared ``LaunchSpec`` and stops.

Each accepted command gets its own short-lived worker actor (core's deferred results), so
the sandbox actor stays free to answer other agents while the command runs. The command's
process group is recorded while it runs, so a stopping sandbox can kill it.
"""

from __future__ import annotations

import shutil
from typing import Any, ClassVar

from akgentic.tool.core.deferred import DeferredWorker
from akgentic.tool.sandbox._process import SandboxLaunchError, run_process
from akgentic.tool.sandbox._reaper import track, untrack
from akgentic.tool.sandbox.launch import LaunchSpec
from akgentic.tool.sandbox.result import ExecResult, cancelled_result

__all__ = ["ExecWorker", "default_shell", "run_launch"]


def default_shell() -> str:
    """The shell commands run under: bash when the host has it, else POSIX sh."""
    return shutil.which("bash", path="/usr/bin:/bin") or "/bin/sh"


class ExecWorker(DeferredWorker[str, ExecResult]):
    """Runs one prepared command line and stops; the default worker of every backend."""

    # Informational: the real bound is the LaunchSpec's own timeout, enforced inside
    # run_process by killing the process group (the only client this worker has).
    timeout_seconds: ClassVar[float] = 30.0

    def produce(self, key: str, payload: Any) -> ExecResult:
        return run_launch(key, payload)


def run_launch(key: str, payload: Any) -> ExecResult:
    """Run a ``LaunchSpec`` under ``key`` (tracked, so a stopping sandbox can kill it)."""
    spec = LaunchSpec.model_validate(payload)
    try:
        outcome = run_process(spec, on_spawn=lambda pid: track(key, pid))
    except SandboxLaunchError as exc:
        untrack(key)
        return ExecResult(command=spec.display_command, error=f"SandboxError: {exc}")
    if untrack(key):
        return cancelled_result(spec.display_command)
    return ExecResult.from_outcome(spec.display_command, outcome, spec.timeout_seconds)
