"""Running a command in a subdirectory of the workspace (the ``cwd`` parameter)."""

from __future__ import annotations

import shlex
from pathlib import Path

from akgentic.tool.core.workspace_dir import safe_path
from akgentic.tool.errors import RetriableError

__all__ = ["command_in"]


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
