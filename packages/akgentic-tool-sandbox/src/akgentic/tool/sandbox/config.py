"""The sandbox's settings: the tunables ``ExecTool`` exposes, and the actor's configuration.

``SandboxSettings`` holds the per-command limits and options shared by the card and the
actor; ``SandboxConfig`` adds what identifies the team's sandbox (name, role, backend
mode, workspace).
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, Field, model_validator

from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.workspace_dir import resolve_workspace_dir
from akgentic.tool.sandbox.allowlist import ALLOWED_COMMANDS

__all__ = [
    "SANDBOX_ACTOR_NAME",
    "SANDBOX_ACTOR_ROLE",
    "SandboxConfig",
    "SandboxSettings",
    "file_size_limit",
]

SANDBOX_ACTOR_NAME = "#SandboxActor"
SANDBOX_ACTOR_ROLE = "ToolActor"
"""The role of the team's sandbox actor, as recorded in the team (the predecessor's value)."""

_MIB = 1024 * 1024
_GIB = 1024 * _MIB
_DEFAULT_SCRATCH_BYTES = 512 * _MIB
_SHM_CAP_BYTES = 64 * _MIB
_PAGE_BYTES = 4096


class SandboxSettings(BaseModel):
    """The tunables of a sandbox, shared by ``ExecTool`` and the actor's configuration.

    The limits apply to each command. ``None`` disables a limit.
    """

    timeout_seconds: float = Field(default=30.0, gt=0, description="Wall-clock limit.")
    max_output_bytes: int = Field(
        default=30_000, gt=0, description="Per stream; the middle of longer output is dropped."
    )
    cpu_seconds: int | None = Field(default=60, gt=0, description="RLIMIT_CPU.")
    file_size_bytes: int | None = Field(default=100 * _MIB, gt=0, description="RLIMIT_FSIZE.")
    memory_bytes: int | None = Field(
        default=512 * _MIB, gt=0, description="RLIMIT_AS, applied on Linux only."
    )
    max_processes: int | None = Field(
        default=1024,
        gt=0,
        description=(
            "RLIMIT_NPROC. Linux counts it per user across the machine and never enforces it "
            "for root: run the sandbox under `run_as_uid` when the host process is root."
        ),
    )
    workspace_quota_bytes: int | None = Field(
        default=_GIB,
        gt=0,
        description=(
            "How much one command may grow the workspace (disk blocks, watched while it "
            "runs; the command is killed past it). Also caps RLIMIT_FSIZE. Not for docker."
        ),
    )
    tmpfs_bytes: int | None = Field(
        default=None,
        gt=0,
        description=(
            "Total size of the in-memory /tmp and /dev/shm of bwrap and docker. None: "
            "memory_bytes, or 512 MiB when memory_bytes is None too."
        ),
    )
    network: bool = Field(default=False, description="Let isolating backends reach the network.")
    allowed_commands: list[str] = Field(default_factory=lambda: sorted(ALLOWED_COMMANDS))
    env: dict[str, str] = Field(
        default_factory=dict, description="Extra environment variables for every command."
    )
    read_only_paths: list[str] = Field(
        default_factory=list,
        description="Extra host paths the isolating backends (bwrap, docker) expose read-only.",
    )
    protect_agent_process: bool = Field(
        default=True,
        description=(
            "local mode, Linux: mark the agent process non-dumpable so commands of the same "
            "user cannot read its /proc environ or memory (also no core dumps, no same-user "
            "debugger)."
        ),
    )
    run_as_uid: int | None = Field(
        default=None, ge=0, description="Run commands under this uid (needs root)."
    )
    run_as_gid: int | None = Field(default=None, ge=0, description="... and this gid.")

    def scratch_sizes(self) -> tuple[int, int]:
        """The sizes of the in-memory ``/tmp`` and ``/dev/shm``, in bytes.

        Files in a tmpfs are memory that no rlimit counts, so the two share one budget:
        ``tmpfs_bytes``, else ``memory_bytes`` (what one command may allocate anyway).
        ``/dev/shm`` gets a quarter of it, at most 64 MiB (Docker's own default, enough
        for the semaphores and queues of ``multiprocessing``); ``/tmp`` gets the rest. A
        tmpfs of size 0 would be unlimited, so neither goes below one page.
        """
        budget = self.tmpfs_bytes or self.memory_bytes or _DEFAULT_SCRATCH_BYTES
        shm = max(_PAGE_BYTES, min(_SHM_CAP_BYTES, budget // 4))
        return max(_PAGE_BYTES, budget - shm), shm


def file_size_limit(settings: SandboxSettings) -> int | None:
    """The RLIMIT_FSIZE to apply: the file-size limit, tightened to the workspace quota.

    No single file can be larger than the quota without breaking it, so the kernel may
    stop that one exactly, before the quota watcher would. ``None`` when neither is set.
    """
    present = [
        limit
        for limit in (settings.file_size_bytes, settings.workspace_quota_bytes)
        if limit is not None
    ]
    return min(present) if present else None


class SandboxConfig(BaseConfig, SandboxSettings):
    """Configuration of the team's sandbox actor: decided once, by the first agent to bind.

    Later ``ExecTool``s of the same team reuse the actor as it is. ``workspace_dir`` is the
    directory commands run in; a configuration stored without it (as the predecessor
    stored them) names it by ``workspace_id``, else ``team_id``, resolved like
    ``WorkspaceTool`` does. ``team_id``, when given, also names docker's team container.
    """

    name: str = SANDBOX_ACTOR_NAME
    role: str = SANDBOX_ACTOR_ROLE
    mode: str = Field(default="local", description="Backend key this actor was created for.")
    workspace_dir: str = Field(default="", description="Absolute path of the workspace directory.")
    workspace_id: str | None = Field(
        default=None, description="Workspace name, resolved when workspace_dir is not given."
    )
    team_id: str | None = Field(
        default=None,
        description="The team's id as text: names the workspace (without workspace_id) and "
        "docker's container; default: the actor's own team.",
    )

    @model_validator(mode="after")
    def _workspace_named(self) -> Self:
        if not self.workspace_dir:
            name = self.workspace_id or self.team_id
            if not name:
                raise ValueError(
                    "SandboxConfig needs workspace_dir, or a workspace_id or team_id to "
                    "resolve it from"
                )
            # Not created here: validating a stored configuration has no side effect; the
            # actor creates the directory when it starts.
            self.workspace_dir = str(resolve_workspace_dir(name, create=False))
        return self
