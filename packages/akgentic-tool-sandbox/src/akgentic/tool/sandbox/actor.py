"""The team's sandbox actor: the contract every backend implements, and its configuration.

One ``#SandboxActor`` serves a whole team. It never runs a command on its own thread:
``submit`` checks the command against the allowlist, asks the backend for the exact
command line, and hands it to a short-lived ``#exec-...`` worker actor (core's deferred
results). The caller then polls ``get`` with a budget of one command timeout plus a small
margin. So an agent waits for its own command only, and the actor answers everybody else
in between: a long ``pytest`` run by one agent does not hold up another agent's ``ls``.

A backend subclass supplies :meth:`SandboxActor.build_launch` (how a command line is
wrapped: plain shell, ``bwrap``, ``sandbox-exec``, ``docker exec``) and may override
``_start_sandbox`` (called once when the actor starts) and ``worker_class``.
"""

from __future__ import annotations

import logging
import shlex
import shutil
import threading
import uuid
from abc import abstractmethod
from collections.abc import Collection
from pathlib import Path
from typing import Any, ClassVar, Self

from pydantic import BaseModel, Field, model_validator

from akgentic.core.agent_config import BaseConfig
from akgentic.core.agent_state import BaseState
from akgentic.tool.core.deferred import DeferredResultActor, DeferredWorker
from akgentic.tool.core.workspace_dir import resolve_workspace_dir, safe_path
from akgentic.tool.errors import RetriableError
from akgentic.tool.sandbox._process import (
    ProcessOutcome,
    SandboxLaunchError,
    kill_process_group,
    run_process,
)
from akgentic.tool.sandbox._quota import QuotaBreach
from akgentic.tool.sandbox.launch import LaunchSpec

__all__ = [
    "ALLOWED_COMMANDS",
    "SANDBOX_ACTOR_NAME",
    "SANDBOX_ACTOR_ROLE",
    "CommandNotAllowedError",
    "ExecResult",
    "ExecTicket",
    "ExecWorker",
    "SandboxActor",
    "SandboxConfig",
    "SandboxSettings",
    "SandboxState",
    "check_command",
    "command_in",
]

logger = logging.getLogger(__name__)

SANDBOX_ACTOR_NAME = "#SandboxActor"
SANDBOX_ACTOR_ROLE = "ToolActor"
"""The role of the team's sandbox actor, as recorded in the team (the predecessor's value)."""

ALLOWED_COMMANDS: frozenset[str] = frozenset(
    {
        "python", "python3", "pytest", "ruff", "mypy", "git", "uv", "pip",
        "cat", "ls", "find", "grep", "mkdir", "cp", "mv", "rm", "echo", "touch",
        "curl", "wget", "make", "bash", "sh", "node", "npm", "npx",
    }
)  # fmt: skip

# Time the caller keeps polling past the command's own timeout: the worker needs a moment
# to start, to kill the group at the deadline and to drain the pipes.
_RESULT_MARGIN_SECONDS = 5.0
_MIB = 1024 * 1024
_GIB = 1024 * _MIB
_DEFAULT_SCRATCH_BYTES = 512 * _MIB
_SHM_CAP_BYTES = 64 * _MIB
_PAGE_BYTES = 4096

# Process groups of the commands running right now, by request key (keys are uuid4, so
# one table serves every sandbox in the process). Lets a stopping sandbox kill its
# commands instead of waiting for their timeouts.
_RUNNING: dict[str, int] = {}
_CANCELLED: set[str] = set()
_RUNNING_LOCK = threading.Lock()


def _track(key: str, pgid: int) -> None:
    with _RUNNING_LOCK:
        _RUNNING[key] = pgid


def _untrack(key: str) -> bool:
    """Forget ``key``; ``True`` when it was killed by :func:`kill_running` meanwhile."""
    with _RUNNING_LOCK:
        _RUNNING.pop(key, None)
        if key in _CANCELLED:
            _CANCELLED.discard(key)
            return True
        return False


def kill_running(keys: Collection[str]) -> int:
    """SIGKILL the commands of ``keys`` still running; returns how many were signalled."""
    with _RUNNING_LOCK:
        groups = [_RUNNING[key] for key in keys if key in _RUNNING]
        _CANCELLED.update(key for key in keys if key in _RUNNING)
    for pgid in groups:
        kill_process_group(pgid)
    return len(groups)


def cancelled_result(command: str) -> ExecResult:
    """The result of a command killed because its sandbox stopped."""
    return ExecResult(
        command=command,
        error=(
            f"SandboxError: Cancelled: Command {command!r} was killed because the sandbox stopped"
        ),
    )


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


class CommandNotAllowedError(Exception):
    """Raised by :meth:`SandboxActor.exec` for a command whose program is not allowed.

    (``ExecTool`` never raises it: the model gets the same message as text.)
    """


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


class SandboxState(BaseState):
    """What the team records about its sandbox: where commands run, and docker's container."""

    workspace_path: Path | None = None
    container_name: str | None = None


def command_in(workspace_dir: str, command: str, cwd: str) -> str:
    """``command`` prefixed to run in ``cwd``, a directory relative to the workspace.

    ``""`` and ``"."`` mean the workspace itself (the command is returned unchanged).
    ``cwd`` is resolved on the host first (core's ``safe_path``: symlinks followed) and
    must stay inside the workspace and be an existing directory, else ``RetriableError``.
    The prefix is a ``cd`` relative to the workspace, so it means the same directory in
    every backend, whatever path the workspace has inside it.
    """
    if cwd in ("", "."):
        return command
    root = Path(workspace_dir).resolve()
    target = safe_path(root, cwd)
    if not target.is_dir():
        raise RetriableError(
            f"cwd {cwd!r} is not a directory of the workspace; create it first or leave "
            "cwd empty to run in the workspace root"
        )
    relative = target.relative_to(root).as_posix()
    if relative == ".":
        return command
    return f"cd -- {shlex.quote(relative)} && {command}"


class ExecTicket(BaseModel):
    """What ``submit`` returns: the key to poll and how long the caller should wait."""

    key: str
    wait_seconds: float


class ExecResult(BaseModel):
    """The outcome of one command, as the tool reports it to the model."""

    command: str = ""
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    truncated: bool = False
    timed_out: bool = False
    quota_exceeded: bool = False
    duration_seconds: float = 0.0
    error: str | None = Field(
        default=None,
        description="'CommandNotAllowedError: ...' or 'SandboxError: ...' when it did not run.",
    )

    @classmethod
    def from_outcome(cls, command: str, outcome: ProcessOutcome, timeout: float) -> ExecResult:
        """Turn a process outcome into a result; a timeout becomes a ``SandboxError``."""
        error = None
        if outcome.timed_out:
            error = (
                f"SandboxError: TimeoutExpired: Command {command!r} timed out after "
                f"{_format_seconds(timeout)}s"
            )
        elif outcome.quota_breach is not None:
            error = _quota_message(command, outcome.quota_breach)
        return cls(
            command=command,
            exit_code=outcome.exit_code,
            stdout=outcome.stdout,
            stderr=outcome.stderr,
            truncated=bool(outcome.stdout_omitted_bytes or outcome.stderr_omitted_bytes),
            timed_out=outcome.timed_out,
            quota_exceeded=outcome.quota_breach is not None,
            duration_seconds=outcome.duration_seconds,
            error=error,
        )

    def render(self) -> str:
        """The text the model sees: the error line first, then whatever output exists."""
        parts: list[str] = []
        if self.error is not None:
            parts.append(self.error)
        else:
            parts.append(f"exit_code: {self.exit_code}")
        if self.stdout:
            parts.append(f"--- stdout ---\n{self.stdout.rstrip(chr(10))}")
        if self.stderr:
            parts.append(f"--- stderr ---\n{self.stderr.rstrip(chr(10))}")
        if self.error is None and not self.stdout and not self.stderr:
            parts.append("(no output)")
        return "\n".join(parts)


def _format_seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _format_bytes(value: int) -> str:
    """``1.5 GiB (1610612736 bytes)``: readable, and exact for whoever compares numbers."""
    scaled, unit = float(value), "bytes"
    for next_unit in ("KiB", "MiB", "GiB", "TiB"):
        if scaled < 1024:
            break
        scaled, unit = scaled / 1024, next_unit
    if unit == "bytes":
        return f"{value} bytes"
    return f"{scaled:.4g} {unit} ({value} bytes)"


def _quota_message(command: str, breach: QuotaBreach) -> str:
    return (
        f"SandboxError: WorkspaceQuotaExceeded: Command {command!r} was killed after it grew "
        f"the workspace by {_format_bytes(breach.growth_bytes)}, past the workspace quota of "
        f"{_format_bytes(breach.quota_bytes)} per command (workspace_quota_bytes). What it "
        "wrote is still there: delete what you do not need, and write less per command."
    )


def _smallest(*limits: int | None) -> int | None:
    """The tightest of the limits that are set (``None`` when none is)."""
    present = [limit for limit in limits if limit is not None]
    return min(present) if present else None


def check_command(command: str, allowed: Collection[str]) -> str | None:
    """Return the ``CommandNotAllowedError: ...`` text for ``command``, or ``None`` if allowed.

    Only the first shell word is checked, and it must be one of ``allowed`` exactly: a
    path such as ``/usr/bin/python`` or ``./run.sh`` is refused rather than guessed at.
    The rest of the line (pipes, ``;``, ``&&``) runs as written; confinement is the
    backend's job, not the allowlist's.
    """
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return f"SandboxError: could not parse the command line ({exc}); check its quoting"
    first = words[0] if words else ""
    if first in allowed:
        return None
    return (
        f"CommandNotAllowedError: Command {first!r} is not in the allowed commands list. "
        f"Allowed: {sorted(allowed)}"
    )


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
        outcome = run_process(spec, on_spawn=lambda pid: _track(key, pid))
    except SandboxLaunchError as exc:
        _untrack(key)
        return ExecResult(command=spec.display_command, error=f"SandboxError: {exc}")
    if _untrack(key):
        return cancelled_result(spec.display_command)
    return ExecResult.from_outcome(spec.display_command, outcome, spec.timeout_seconds)


class SandboxActor(DeferredResultActor[SandboxConfig, SandboxState, str, ExecResult]):
    """Abstract team sandbox: allowlist, dispatch to workers, result cache.

    Subclasses implement :meth:`build_launch`. Commands run concurrently, one worker each.
    """

    worker_prefix: ClassVar[str] = "#exec-"
    # Results are read once by the caller that asked for them; keep only recent ones.
    cache_size: ClassVar[int] = 64

    def on_start(self) -> None:
        super().on_start()
        Path(self.config.workspace_dir).mkdir(parents=True, exist_ok=True)
        self.state = SandboxState(workspace_path=Path(self.config.workspace_dir))
        self.state.observer(self)
        self._start_sandbox()
        self.state.notify_state_change()

    def _start_sandbox(self) -> None:
        """Backend hook run once on the actor's thread at start (keep it quick)."""

    def stop(self) -> None:
        """Kill the commands still running, then stop (which waits for the workers).

        Without this, stopping the team would wait for every running command to reach its
        own timeout, which may be far longer than the orchestrator's stop backstop.
        """
        killed = kill_running(self._in_flight)
        if killed:
            logger.info("%s stopping: killed %d running command(s)", self.config.name, killed)
        super().stop()

    def worker_class(self) -> type[DeferredWorker[Any, Any]]:
        return ExecWorker

    @abstractmethod
    def build_launch(self, command: str) -> Any:
        """The payload handed to this backend's worker for ``command`` (a ``LaunchSpec``
        for the default worker; ``launch_spec`` builds one). Called on the actor's thread:
        no I/O beyond a stat."""

    def describe(self) -> SandboxConfig:
        """This actor's configuration (what mode, workspace and limits are in force)."""
        return self.config

    def outcome(self, key: str) -> ExecResult | None:
        """The result for ``key``; a worker failure as a ``SandboxError``; ``None`` if pending."""
        found = self.get(key)
        if found is not None:
            return found
        failure = self.failure(key)
        if failure is not None:
            return ExecResult(command="", error=f"SandboxError: {failure}")
        return None

    def submit(self, command: str, cwd: str = "") -> ExecTicket:
        """Accept ``command``: refuse it at once, or start a worker for it.

        ``cwd`` is a directory relative to the workspace to run it in (see
        :func:`command_in`). Returns the key to poll with :meth:`outcome` and how long to
        keep polling; a refusal is cached under that key right away, so the first poll
        reads it.
        """
        key = uuid.uuid4().hex
        self._forget_finished_workers()
        refusal = check_command(command, self.config.allowed_commands)
        if refusal is not None:
            self.deliver(key, ExecResult(command=command, error=refusal))
            return ExecTicket(key=key, wait_seconds=0.0)
        try:
            payload = self.build_launch(command_in(self.config.workspace_dir, command, cwd))
        except Exception as exc:  # a backend that cannot prepare reports, never raises
            logger.warning("%s could not prepare %r: %s", self.config.name, command, exc)
            self.deliver(
                key, ExecResult(command=command, error=f"SandboxError: {type(exc).__name__}: {exc}")
            )
            return ExecTicket(key=key, wait_seconds=0.0)
        self.request(key, payload)
        return ExecTicket(key=key, wait_seconds=self._wait_budget())

    def exec(self, cmd: str, cwd: str = "") -> ExecResult:
        """Run ``cmd`` (in ``cwd``, relative to the workspace) and return its result.

        The predecessor's call, kept for code that asks the actor directly. It blocks: the
        command runs on the actor's own thread, so the actor answers nobody else until it
        ends (``ExecTool`` uses :meth:`submit` and :meth:`outcome` instead, which do not).
        A program outside the allowlist raises :class:`CommandNotAllowedError`; a bad
        ``cwd`` raises ``RetriableError``; failures of the backend come back as a result
        whose ``error`` starts with ``SandboxError:``, as from :meth:`submit`.
        """
        refusal = check_command(cmd, self.config.allowed_commands)
        if refusal is not None:
            if refusal.startswith("CommandNotAllowedError: "):
                raise CommandNotAllowedError(refusal.removeprefix("CommandNotAllowedError: "))
            return ExecResult(command=cmd, error=refusal)
        try:
            payload = self.build_launch(command_in(self.config.workspace_dir, cmd, cwd))
        except RetriableError:
            raise
        except Exception as exc:
            return ExecResult(command=cmd, error=f"SandboxError: {type(exc).__name__}: {exc}")
        return self.run_now(uuid.uuid4().hex, payload)

    def run_now(self, key: str, payload: Any) -> ExecResult:
        """Run one prepared payload on the calling thread (what this backend's worker does)."""
        return run_launch(key, payload)

    def stats(self) -> dict[str, int]:
        """Core's cache counters plus ``children``: worker addresses this actor still holds."""
        return {**super().stats(), "children": len(self._children)}

    def _forget_finished_workers(self) -> None:
        """Drop stopped workers from the children list.

        akgentic-core only prunes ``_children`` when the parent stops, so a team that runs
        thousands of commands would otherwise keep an address per command for its lifetime.
        """
        self._children = [child for child in self._children if child.is_alive()]

    def _wait_budget(self) -> float:
        """How long a caller should poll for one command's result."""
        return self.config.timeout_seconds + _RESULT_MARGIN_SECONDS

    def launch_spec(self, argv: list[str], command: str, env: dict[str, str]) -> LaunchSpec:
        """A ``LaunchSpec`` running ``argv`` in the workspace with this actor's limits.

        For ``build_launch`` in a backend: ``command`` is the model's command as written
        (shown in messages), ``env`` the backend's environment; the configured ``env``
        entries are laid over it.
        """
        cfg = self.config
        return LaunchSpec(
            argv=argv,
            cwd=cfg.workspace_dir,
            env={**env, **cfg.env},
            display_command=command,
            timeout_seconds=cfg.timeout_seconds,
            max_output_bytes=cfg.max_output_bytes,
            cpu_seconds=cfg.cpu_seconds,
            # No single file can be larger than the quota without breaking it: let the
            # kernel stop that one exactly, before the watcher would.
            file_size_bytes=_smallest(cfg.file_size_bytes, cfg.workspace_quota_bytes),
            address_space_bytes=cfg.memory_bytes,
            max_processes=cfg.max_processes,
            workspace_quota_bytes=cfg.workspace_quota_bytes,
            uid=cfg.run_as_uid,
            gid=cfg.run_as_gid,
        )
