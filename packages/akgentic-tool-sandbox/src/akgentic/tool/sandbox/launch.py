"""``LaunchSpec``: what a sandbox backend hands its worker to run one command.

A backend (a ``SandboxActor`` subclass) turns the model's command into a ``LaunchSpec`` in
``build_launch``; the default worker runs it with the deadline, resource limits, output cap
and workspace quota it carries. This is the public home of the model: backends written
outside this package import it from here or from ``akgentic.tool.sandbox``.
``SandboxActor.launch_spec(argv, command, env)`` fills every limit from the actor's
configuration, so a backend usually only chooses the argv and the environment.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["LaunchSpec"]


class LaunchSpec(BaseModel):
    """Everything needed to run one command: built by a backend, run by a worker."""

    argv: list[str] = Field(min_length=1)
    cwd: str
    env: dict[str, str]
    display_command: str = Field(description="The command as the model wrote it (for messages).")
    timeout_seconds: float = Field(gt=0)
    max_output_bytes: int = Field(gt=0)
    cpu_seconds: int | None = None
    file_size_bytes: int | None = None
    address_space_bytes: int | None = None
    max_processes: int | None = None
    workspace_quota_bytes: int | None = Field(
        default=None, description="How much the command may grow ``cwd`` (disk blocks)."
    )
    uid: int | None = None
    gid: int | None = None
