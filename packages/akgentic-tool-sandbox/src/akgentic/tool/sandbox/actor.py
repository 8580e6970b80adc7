"""The team's sandbox actor: the contract every backend implements.

One ``#SandboxActor`` serves a whole team. It never runs a command on its own thread:
``submit`` checks the command against the allowlist, asks the backend for the exact
command line, and hands it to a short-lived ``#exec-...`` worker actor (core's deferred
results). The caller then polls ``get`` with a budget of one command timeout plus a small
margin. So an agent waits for its own command only, and the actor answers everybody else
in between: a long ``pytest`` run by one agent does not hold up another agent's ``ls``.

A backend subclass supplies :meth:`SandboxActor.build_launch` (how a command line is
wrapped: plain shell, ``bwrap``, ``sandbox-exec``, ``docker exec``) and may override
``_start_sandbox`` (called once when the actor starts) and ``worker_class``.

The pieces the actor uses live in modules of their own: the allowlist (``allowlist``),
the settings and configuration (``config``), the ``cwd`` prefix (``cwd``), results
(``result``) and the default worker (``worker``). Their public names are re-exported
here, where the predecessor defined them, so existing imports keep working.
"""

from __future__ import annotations

import logging
import uuid
from abc import abstractmethod
from pathlib import Path
from typing import Any, ClassVar

from akgentic.core.agent_state import BaseState
from akgentic.tool.core.deferred import DeferredResultActor, DeferredWorker
from akgentic.tool.errors import RetriableError
from akgentic.tool.sandbox._reaper import kill_running as kill_running
from akgentic.tool.sandbox.allowlist import (
    ALLOWED_COMMANDS,
    CommandNotAllowedError,
    check_command,
)
from akgentic.tool.sandbox.config import (
    SANDBOX_ACTOR_NAME,
    SANDBOX_ACTOR_ROLE,
    SandboxConfig,
    SandboxSettings,
    file_size_limit,
)
from akgentic.tool.sandbox.cwd import command_in
from akgentic.tool.sandbox.launch import LaunchSpec
from akgentic.tool.sandbox.result import ExecResult, ExecTicket
from akgentic.tool.sandbox.result import cancelled_result as cancelled_result
from akgentic.tool.sandbox.worker import ExecWorker, run_launch
from akgentic.tool.sandbox.worker import default_shell as default_shell

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

# These classes lived in this module before the split by concept, and they keep reporting it.
# akgentic-core records a class as "<__module__>.<__name__>" (the `__model__` tag of stored
# configurations, results and tickets; a worker's class path in the team) and resolves that
# string back with `import_module` + `getattr` alone: it has no table of aliases for a class
# that moved. So the recorded path must stay this module, which re-exports every one of them.
# Any import of a sandbox module runs the package's __init__, which imports this module, so
# no code sees them under their new homes' names.
for _moved in (SandboxConfig, ExecResult, ExecTicket, ExecWorker, CommandNotAllowedError):
    _moved.__module__ = __name__

# Time the caller keeps polling past the command's own timeout: the worker needs a moment
# to start, to kill the group at the deadline and to drain the pipes.
_RESULT_MARGIN_SECONDS = 5.0


class SandboxState(BaseState):
    """What the team records about its sandbox: where commands run, and docker's container."""

    workspace_path: Path | None = None
    container_name: str | None = None


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
            file_size_bytes=file_size_limit(cfg),
            address_space_bytes=cfg.memory_bytes,
            max_processes=cfg.max_processes,
            workspace_quota_bytes=cfg.workspace_quota_bytes,
            uid=cfg.run_as_uid,
            gid=cfg.run_as_gid,
        )
