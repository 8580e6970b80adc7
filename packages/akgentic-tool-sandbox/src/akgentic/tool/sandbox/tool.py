"""``ExecTool``: the card that gives an agent shell commands in the team sandbox.

Binding the card (``observer()``) picks the backend (probing the host for ``auto``),
resolves the workspace directory with core's ``resolve_workspace_dir`` (the directory
``WorkspaceTool`` uses for the same ``workspace_id``), and gets the team's
``#SandboxActor`` from the orchestrator with ``getChildrenOrCreate``: whichever agent binds
first creates it, the others reuse it.

The model-facing callable submits the command, then polls the actor for the result with a
budget of the command's timeout plus a margin. Whatever happens in the backend, the model
gets a string: the output with its exit code, ``CommandNotAllowedError: ...`` or
``SandboxError: ...``. Only a malformed call (empty or unparseable command line) raises
``RetriableError``.
"""

from __future__ import annotations

import logging
import shlex
import shutil
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any, Self, TypeVar, cast

from pydantic import PrivateAttr, field_validator

from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.channels import COMMAND as COMMAND  # importable here, as they were
from akgentic.tool.core.channels import TOOL_CALL as TOOL_CALL
from akgentic.tool.core.observer import ActorToolObserver, ToolObserver
from akgentic.tool.core.params import BaseToolParam
from akgentic.tool.core.workspace_dir import resolve_workspace_dir
from akgentic.tool.errors import RetriableError
from akgentic.tool.sandbox.actor import SandboxActor
from akgentic.tool.sandbox.allowlist import ALLOWED_COMMANDS
from akgentic.tool.sandbox.bwrap import BwrapSandboxActor
from akgentic.tool.sandbox.config import SANDBOX_ACTOR_NAME, SandboxConfig, SandboxSettings
from akgentic.tool.sandbox.cwd import command_in
from akgentic.tool.sandbox.docker import DockerSandboxActor
from akgentic.tool.sandbox.local import LocalSandboxActor
from akgentic.tool.sandbox.result import ExecResult
from akgentic.tool.sandbox.seatbelt import SeatbeltSandboxActor

__all__ = [
    "ALLOWED_COMMANDS",
    "SANDBOX_ACTOR_CLASSES",
    "SANDBOX_ACTOR_NAME",
    "ExecCommand",
    "ExecTool",
]

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

SANDBOX_ACTOR_CLASSES: dict[str, type[SandboxActor]] = {
    "local": LocalSandboxActor,
    "bwrap": BwrapSandboxActor,
    "seatbelt": SeatbeltSandboxActor,
    "docker": DockerSandboxActor,
}

AUTO_MODE = "auto"
# Every ask to the sandbox actor is O(1) on its side; this only guards against a dead one.
_ASK_TIMEOUT_SECONDS = 10
_FIRST_POLL_SECONDS = 0.005
_POLL_BACKOFF = 1.5
_MAX_POLL_SECONDS = 0.2


def _resolve_auto_mode() -> str:
    """The best backend this host offers: bwrap, then seatbelt, then docker, then local.

    Falling back to ``local`` (no isolation at all) emits a ``DeprecationWarning``.
    """
    if BwrapSandboxActor.probe():
        return "bwrap"
    if sys.platform == "darwin" and shutil.which("sandbox-exec") is not None:
        return "seatbelt"
    if DockerSandboxActor.probe():
        return "docker"
    warnings.warn(
        "ExecTool(mode='auto') found no isolating sandbox (bwrap, sandbox-exec, docker) and "
        "falls back to 'local': commands run unconfined on the host. Install bubblewrap or "
        "Docker, or choose mode='local' explicitly.",
        DeprecationWarning,
        stacklevel=3,
    )
    return "local"


def _await_result(
    fetch: Callable[[], ExecResult | None],
    budget_seconds: float,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> ExecResult | None:
    """Poll ``fetch`` until it answers or ``budget_seconds`` pass (bounded, never forever).

    Polls start 5 ms apart and back off (x1.5) to 200 ms, so a quick command answers
    quickly and a long one costs the actor five O(1) asks per second.
    """
    deadline = clock() + budget_seconds
    delay = _FIRST_POLL_SECONDS
    while True:
        found = fetch()
        if found is not None:
            return found
        now = clock()
        if now >= deadline:
            return None
        sleep(min(delay, deadline - now))
        delay = min(delay * _POLL_BACKOFF, _MAX_POLL_SECONDS)


class ExecCommand(BaseToolParam):
    """The ``exec_command`` capability: run a shell command in the team sandbox.

    Exposed as a model tool by default; add ``COMMAND`` to ``expose`` to also offer it as
    ``/exec_command "..."`` to people and other agents. ``instructions`` are appended to
    the tool's description.
    """

    def format_docstring(self, original: str) -> str:
        """The tool description the model sees: ``original`` plus ``instructions``."""
        base = original.rstrip()
        if not self.instructions:
            return base
        return f"{base}\n\n{self.instructions}" if base else self.instructions

    def describe(self, fn: F) -> F:
        fn.__doc__ = self.format_docstring(fn.__doc__ or "")
        return fn


class ExecTool(ToolCard, SandboxSettings):
    """Shell commands for an agent, in the team's shared sandbox and workspace.

    ``mode`` selects the backend: ``auto`` (probe bwrap, seatbelt, docker, then local),
    ``local``, ``bwrap``, ``seatbelt``, ``docker``, or any key another package registered in
    ``SANDBOX_ACTOR_CLASSES``. ``workspace_id`` defaults to the team id. The remaining
    fields configure the team's sandbox actor when this card is the first to bind it.
    """

    mode: str = AUTO_MODE
    workspace_id: str | None = None
    exec_command: bool | ExecCommand = True

    _sandbox: Any = PrivateAttr(default=None)
    _resolved_mode: str | None = PrivateAttr(default=None)
    _workspace_dir: str | None = PrivateAttr(default=None)

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, value: str) -> str:
        if value != AUTO_MODE and value not in SANDBOX_ACTOR_CLASSES:
            known = [AUTO_MODE, *sorted(SANDBOX_ACTOR_CLASSES)]
            raise ValueError(f"mode {value!r} is not a known sandbox backend; use one of {known}")
        return value

    @property
    def resolved_mode(self) -> str | None:
        """The backend actually in use once bound (``auto`` resolved), else ``None``."""
        return self._resolved_mode

    def observer(self, observer: ToolObserver) -> Self:
        super().observer(observer)
        obs = cast(ActorToolObserver, observer)
        orchestrator_address = getattr(obs, "orchestrator", None)
        if orchestrator_address is None:
            raise RuntimeError(
                "ExecTool needs an agent that belongs to a team: its observer has no "
                "orchestrator to host the #SandboxActor"
            )
        mode = self.mode if self.mode != AUTO_MODE else _resolve_auto_mode()
        actor_class = SANDBOX_ACTOR_CLASSES[mode]
        workspace = resolve_workspace_dir(self.workspace_id or str(obs.team_id))
        settings = SandboxSettings.model_validate(
            self.model_dump(include=set(SandboxSettings.model_fields))
        )
        config = SandboxConfig(mode=mode, workspace_dir=str(workspace), **settings.model_dump())
        orchestrator = obs.proxy_ask(orchestrator_address, Orchestrator)
        address = orchestrator.getChildrenOrCreate(actor_class, config)
        self._sandbox = obs.proxy_ask(address, SandboxActor, _ASK_TIMEOUT_SECONDS)
        in_force: SandboxConfig = self._sandbox.describe()
        self._resolved_mode = in_force.mode
        self._workspace_dir = in_force.workspace_dir
        if in_force.mode != mode or in_force.workspace_dir != config.workspace_dir:
            logger.warning(
                "ExecTool asked for mode=%s in %s, but the team's #SandboxActor already runs "
                "mode=%s in %s; the existing sandbox is used",
                mode,
                config.workspace_dir,
                in_force.mode,
                in_force.workspace_dir,
            )
        return self

    def _build_exec_command(self, param: ExecCommand) -> Callable[..., str]:
        card = self

        def exec_command(cmd: str, cwd: str = "") -> str:
            """Run a shell command in the team sandbox.

            The first word of `cmd` must be an allowed program (python, pytest, git, ls,
            cat, grep, bash, ...). `cwd` is a directory relative to the workspace to run
            it in (default: the workspace root). Returns the exit code with stdout and
            stderr; very long output is cut in the middle. Commands that run too long are
            killed.
            """
            return card.run(cmd, cwd)

        return exec_command

    def run(self, command: str, cwd: str = "") -> str:
        """Run ``command`` (in ``cwd``, relative to the workspace) in the bound sandbox and
        return the text the model sees."""
        if not isinstance(command, str) or not command.strip():
            raise RetriableError("cmd is empty; pass a shell command such as 'ls -la'")
        if "\x00" in command:
            raise RetriableError("cmd contains a NUL byte; remove it and try again")
        if not isinstance(cwd, str) or "\x00" in cwd:
            raise RetriableError("cwd must be a directory path relative to the workspace")
        try:
            shlex.split(command)
        except ValueError as exc:
            raise RetriableError(
                f"could not parse the command line ({exc}); check its quotes"
            ) from exc
        sandbox = self._sandbox
        if sandbox is None or self._workspace_dir is None:
            raise RuntimeError("ExecTool used before observer() bound it to an agent")
        # A cwd outside the workspace or missing is the model's to fix: RetriableError.
        command_in(self._workspace_dir, command, cwd)
        try:
            ticket = sandbox.submit(command, cwd)
            result: ExecResult | None = _await_result(
                lambda: sandbox.outcome(ticket.key), ticket.wait_seconds
            )
        except Exception as exc:  # a dead or unreachable actor is a backend failure too
            return f"SandboxError: {type(exc).__name__}: {exc}"
        if result is None:
            return (
                f"SandboxError: no result for {command!r} within {ticket.wait_seconds:g}s; "
                "the sandbox may be overloaded, try again"
            )
        return result.render()
