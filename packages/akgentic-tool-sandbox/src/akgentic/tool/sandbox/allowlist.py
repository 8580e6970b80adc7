"""The command allowlist: which programs the model may start, and the refusal it gets.

Only the first shell word of a command line is checked. The rest of the line (pipes,
``;``, ``&&``) runs as written: confinement is the backend's job, not the allowlist's.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection

__all__ = ["ALLOWED_COMMANDS", "CommandNotAllowedError", "check_command"]

ALLOWED_COMMANDS: frozenset[str] = frozenset(
    {
        "python", "python3", "pytest", "ruff", "mypy", "git", "uv", "pip",
        "cat", "ls", "find", "grep", "mkdir", "cp", "mv", "rm", "echo", "touch",
        "curl", "wget", "make", "bash", "sh", "node", "npm", "npx",
    }
)  # fmt: skip


class CommandNotAllowedError(Exception):
    """Raised by :meth:`SandboxActor.exec` for a command whose program is not allowed.

    (``ExecTool`` never raises it: the model gets the same message as text.)
    """


def check_command(command: str, allowed: Collection[str]) -> str | None:
    """Return the ``CommandNotAllowedError: ...`` text for ``command``, or ``None`` if allowed.

    The first shell word must be one of ``allowed`` exactly: a path such as
    ``/usr/bin/python`` or ``./run.sh`` is refused rather than guessed at. A line that
    does not parse (unbalanced quotes) gets a ``SandboxError`` text instead.
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
