"""Sandboxed shell commands for akgentic agents: ``ExecTool`` and its backends.

``ExecTool`` is the card; the team's ``#SandboxActor`` runs the commands through one of the
backends (``local``, ``bwrap``, ``seatbelt``, ``docker``) registered in
``SANDBOX_ACTOR_CLASSES``. A backend of your own subclasses ``SandboxActor`` and returns a
``LaunchSpec`` from ``build_launch``.
"""

from akgentic.tool.sandbox.actor import SandboxActor, SandboxState
from akgentic.tool.sandbox.allowlist import ALLOWED_COMMANDS, CommandNotAllowedError
from akgentic.tool.sandbox.bwrap import BwrapSandboxActor
from akgentic.tool.sandbox.config import (
    SANDBOX_ACTOR_NAME,
    SANDBOX_ACTOR_ROLE,
    SandboxConfig,
    SandboxSettings,
)
from akgentic.tool.sandbox.docker import (
    DOCKER_EXEC_TIMEOUT,
    SANDBOX_IMAGE,
    DockerExecWorker,
    DockerSandboxActor,
)
from akgentic.tool.sandbox.launch import LaunchSpec
from akgentic.tool.sandbox.local import LocalSandboxActor
from akgentic.tool.sandbox.result import ExecResult, ExecTicket
from akgentic.tool.sandbox.seatbelt import SeatbeltSandboxActor
from akgentic.tool.sandbox.tool import SANDBOX_ACTOR_CLASSES, ExecCommand, ExecTool
from akgentic.tool.sandbox.worker import ExecWorker

__all__ = [
    "ALLOWED_COMMANDS",
    "DOCKER_EXEC_TIMEOUT",
    "SANDBOX_ACTOR_CLASSES",
    "SANDBOX_ACTOR_NAME",
    "SANDBOX_ACTOR_ROLE",
    "SANDBOX_IMAGE",
    "BwrapSandboxActor",
    "CommandNotAllowedError",
    "DockerExecWorker",
    "DockerSandboxActor",
    "ExecCommand",
    "ExecResult",
    "ExecTicket",
    "ExecTool",
    "ExecWorker",
    "LaunchSpec",
    "LocalSandboxActor",
    "SandboxActor",
    "SandboxConfig",
    "SandboxSettings",
    "SandboxState",
    "SeatbeltSandboxActor",
]
