"""``local`` backend: the command runs as a plain subprocess on the host.

No filesystem or network isolation: the command starts in the workspace directory, but
nothing stops it from ``cd /`` or reading any file the agent's user can read. What it does
get is a clean environment (the host's ``PATH``, nothing else of the agent's environment,
so API keys stay out), its own session and process group, and the resource limits of
:class:`~akgentic.tool.sandbox.actor.SandboxConfig`: CPU time and file size everywhere,
the 512 MB address-space cap on Linux only (macOS does not enforce ``RLIMIT_AS`` reliably).

A clean environment is not enough on its own: on Linux, a process can read
``/proc/<pid>/environ`` (the environment a process started with, API keys included) and
``/proc/<pid>/mem`` of any process of its own user, and the agent is the command's parent.
So, unless ``protect_agent_process`` is off, the backend marks the agent process
non-dumpable when it starts (``prctl(PR_SET_DUMPABLE, 0)``, what ``ssh-agent`` does): its
``/proc`` entries then belong to root and ptrace-style access is refused to processes
without ``CAP_SYS_PTRACE``. That is a process-wide change, with side effects the owner of
the process should know: no core dumps of the agent, no same-user debugger or profiler
attaching to it (``gdb -p``, ``py-spy``), and other tools of the same user no longer read
its ``/proc/<pid>/environ``, ``fd`` or ``io``. It protects nothing when the command runs as
root (root reads every process): use ``run_as_uid`` then.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys

from akgentic.tool.sandbox.actor import SandboxActor
from akgentic.tool.sandbox.launch import LaunchSpec
from akgentic.tool.sandbox.worker import default_shell

__all__ = ["LocalSandboxActor", "local_environment", "make_process_undumpable"]

logger = logging.getLogger(__name__)

_FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin"
_PR_SET_DUMPABLE = 4  # <linux/prctl.h>


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


def make_process_undumpable() -> bool:
    """Mark this process non-dumpable (Linux); ``True`` when it is now.

    Commands of the same user can then no longer read its ``/proc/<pid>/environ`` or
    ``mem``. Idempotent; children it starts with ``exec`` are dumpable again as usual.
    """
    if sys.platform != "linux":
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        done = int(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
    if not done:
        logger.warning("prctl(PR_SET_DUMPABLE, 0) failed: errno %d", ctypes.get_errno())
    return done


class LocalSandboxActor(SandboxActor):
    """Runs each command with ``bash -c`` (or ``sh -c``) in the workspace directory."""

    def _start_sandbox(self) -> None:
        if self.config.protect_agent_process and make_process_undumpable():
            logger.info(
                "%s: agent process marked non-dumpable, so local commands of the same user "
                "cannot read its environment or memory (protect_agent_process=False to not)",
                self.config.name,
            )

    def build_launch(self, command: str) -> LaunchSpec:
        env = local_environment(self.config.workspace_dir)
        return self.launch_spec([default_shell(), "-c", command], command, env)
