"""``local`` backend: the command runs as a plain subprocess on the host.

No filesystem or network isolation: the command starts in the workspace directory, but
nothing stops it from ``cd /`` or reading any file the agent's user can read. What it does
get is a clean environment (the host's ``PATH``, nothing else of the agent's environment,
so API keys stay out), its own process group, and the resource limits of
:class:`~akgentic.tool.sandbox.actor.SandboxConfig`: CPU time and file size everywhere,
the 512 MB address-space cap on Linux only (macOS does not enforce ``RLIMIT_AS`` reliably).
"""

from __future__ import annotations

import os

from akgentic.tool.sandbox._process import LaunchSpec
from akgentic.tool.sandbox.actor import SandboxActor, default_shell

__all__ = ["LocalSandboxActor", "local_environment"]

_FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin"


def local_environment(workspace_dir: str) -> dict[str, str]:
    """The environment of a local command: the host ``PATH`` and neutral locale settings."""
    return {
        "PATH": os.environ.get("PATH") or _FALLBACK_PATH,
        "HOME": workspace_dir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "PYTHONUNBUFFERED": "1",
    }


class LocalSandboxActor(SandboxActor):
    """Runs each command with ``bash -c`` (or ``sh -c``) in the workspace directory."""

    def build_launch(self, command: str) -> LaunchSpec:
        env = local_environment(self.config.workspace_dir)
        return self._launch_spec([default_shell(), "-c", command], command, env)
