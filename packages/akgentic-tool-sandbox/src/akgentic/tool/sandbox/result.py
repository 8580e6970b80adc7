"""What a command gives back: the ticket ``submit`` hands out and the result the model reads.

A result carries the output and exit code, or an ``error`` line naming why the command did
not run or did not finish (refused, timed out, over the workspace quota, cancelled by a
stopping sandbox, backend failure); :meth:`ExecResult.render` is the text the model sees.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from akgentic.tool.sandbox._process import ProcessOutcome
from akgentic.tool.sandbox._quota import QuotaBreach

__all__ = ["ExecResult", "ExecTicket", "cancelled_result", "format_seconds"]


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
                f"{format_seconds(timeout)}s"
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


def cancelled_result(command: str) -> ExecResult:
    """The result of a command killed because its sandbox stopped."""
    return ExecResult(
        command=command,
        error=(
            f"SandboxError: Cancelled: Command {command!r} was killed because the sandbox stopped"
        ),
    )


def format_seconds(value: float) -> str:
    """``30`` for whole seconds, ``2.5`` otherwise (as messages and ``timeout`` show them)."""
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
