"""Where a team's files live, and the one check that keeps a path inside them.

``WorkspaceTool`` and ``ExecTool`` share a directory per ``workspace_id`` under
``$AKGENTIC_WORKSPACES_ROOT`` (default ``./workspaces``). Both resolve model-supplied paths
with :func:`safe_path`, so there is exactly one place deciding what "inside" means: no
``..`` escape, no absolute path, no symlink that leads out, no NUL byte.
"""

from __future__ import annotations

import os
from pathlib import Path

from akgentic.tool.core.confined import check_user_path
from akgentic.tool.errors import RetriableError

__all__ = [
    "DEFAULT_WORKSPACES_ROOT",
    "WORKSPACES_ROOT_ENV",
    "resolve_workspace_dir",
    "safe_path",
    "workspaces_root",
]

WORKSPACES_ROOT_ENV = "AKGENTIC_WORKSPACES_ROOT"
DEFAULT_WORKSPACES_ROOT = "./workspaces"


def workspaces_root() -> Path:
    """The directory holding every workspace, from the environment at call time."""
    return Path(os.environ.get(WORKSPACES_ROOT_ENV) or DEFAULT_WORKSPACES_ROOT).resolve()


def resolve_workspace_dir(workspace_id: str, *, create: bool = True) -> Path:
    """The directory of ``workspace_id`` under :func:`workspaces_root`.

    Raises ``ValueError`` when the id is empty or would leave the root (it comes from
    configuration, not from the model, so this is a configuration error).
    """
    if not workspace_id or "\x00" in workspace_id:
        raise ValueError(f"workspace_id must be a non-empty name, got {workspace_id!r}")
    root = workspaces_root()
    candidate = (root / workspace_id).resolve()
    if candidate == root or not candidate.is_relative_to(root):
        raise ValueError(
            f"workspace_id {workspace_id!r} resolves outside {WORKSPACES_ROOT_ENV} ({root}); "
            "use a plain relative name such as 'team-42'"
        )
    if create:
        candidate.mkdir(parents=True, exist_ok=True)
    return candidate


def safe_path(root: Path, user_path: str) -> Path:
    """Resolve the model-supplied ``user_path`` inside ``root``, or raise ``RetriableError``.

    ``""`` and ``"."`` mean the root itself. The returned path may not exist yet; nothing is
    created or touched here. Symlinks are followed before the check, so a link inside the
    root that points outside is refused like ``../``.
    """
    check_user_path(user_path)
    base = root.resolve()
    try:
        candidate = (base / user_path).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # symlink loops, bad encodings
        raise RetriableError(f"cannot resolve path {user_path!r}: {exc}") from exc
    if candidate != base and not candidate.is_relative_to(base):
        raise RetriableError(
            f"path {user_path!r} escapes the workspace root; use a path inside the "
            "workspace, relative to its root"
        )
    return candidate
