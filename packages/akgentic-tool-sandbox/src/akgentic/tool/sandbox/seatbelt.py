"""``seatbelt`` backend: macOS ``sandbox-exec`` with a generated profile.

The profile lets the command read what the user can read and run what it likes, but write
only inside the workspace and the temporary directories, and (unless the configuration
allows it) denies every network operation. Resource limits are those of the ``local``
backend minus the address-space cap, which macOS does not enforce reliably.

``sandbox-exec`` has been deprecated by Apple since macOS 10.15 and may disappear in a
future release, so starting this backend emits a ``DeprecationWarning``: it is meant for
developer workstations. It cannot be exercised on Linux; its tests stop at the exact
profile and command line it would run.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from akgentic.tool.sandbox.actor import SandboxActor
from akgentic.tool.sandbox.launch import LaunchSpec
from akgentic.tool.sandbox.local import local_environment

__all__ = ["SANDBOX_EXEC", "SeatbeltSandboxActor", "seatbelt_argv", "seatbelt_profile"]

SANDBOX_EXEC = "/usr/bin/sandbox-exec"
_MAC_SHELL = "/bin/bash"


def _quote(path: str) -> str:
    """A path as an SBPL string literal (backslashes and quotes escaped)."""
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def seatbelt_profile(workspace_dir: str, *, network: bool = False) -> str:
    """The SBPL profile confining writes to ``workspace_dir`` (and the network, if off)."""
    lines = [
        "(version 1)",
        "(allow default)",
        "(deny file-write*)",
        "(allow file-write*",
        f"    (subpath {_quote(workspace_dir)})",
        '    (subpath "/private/tmp")',
        '    (subpath "/private/var/folders")',
        '    (literal "/dev/null")',
        '    (literal "/dev/zero")',
        '    (literal "/dev/tty")',
        '    (regex #"^/dev/fd/"))',
    ]
    if not network:
        lines.append("(deny network*)")
    return "\n".join(lines) + "\n"


def seatbelt_argv(*, workspace_dir: str, command: str, network: bool = False) -> list[str]:
    """The full ``sandbox-exec`` command line for ``command``."""
    profile = seatbelt_profile(workspace_dir, network=network)
    return [SANDBOX_EXEC, "-p", profile, _MAC_SHELL, "-c", command]


class SeatbeltSandboxActor(SandboxActor):
    """Runs each command under ``sandbox-exec`` with a workspace-only write profile."""

    def _start_sandbox(self) -> None:
        warnings.warn(
            "The seatbelt sandbox relies on sandbox-exec, deprecated since macOS 10.15 and "
            "subject to removal; use it on developer machines only (docker elsewhere).",
            DeprecationWarning,
            stacklevel=2,
        )

    def build_launch(self, command: str) -> LaunchSpec:
        cfg = self.config
        # Seatbelt matches resolved paths (/var is /private/var on macOS).
        workspace = str(Path(cfg.workspace_dir).resolve())
        argv = seatbelt_argv(workspace_dir=workspace, command=command, network=cfg.network)
        spec = self.launch_spec(argv, command, local_environment(workspace))
        return spec.model_copy(update={"address_space_bytes": None})
