"""``bwrap`` backend: each command in a fresh bubblewrap sandbox (Linux).

The sandbox sees a new root built from read-only binds of the system directories
(``/usr`` and the ``/bin``, ``/lib``... links or directories next to it), a short list of
``/etc`` files programs need to run (users, name resolution, certificates, the dynamic
linker cache; ``/etc/shadow`` and the like are deliberately absent), a private ``/proc``,
a read-only private ``/dev``, ``/tmp`` and ``/dev/shm`` on tmpfs mounts sized from the
configuration (files there are memory: see ``SandboxSettings.scratch_sizes``), and the
workspace, bound read-write at its own host path: it is the only place a command can write
that outlives it. Every namespace is unshared (user, pid, network, ipc, uts, cgroup); the
network one is shared back only when the configuration allows network access. Killing
``bwrap`` kills the whole sandbox: its init process is bound to it with
``--die-with-parent``, and the pid namespace dies with its init.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from akgentic.tool.sandbox.actor import SandboxActor
from akgentic.tool.sandbox.launch import LaunchSpec
from akgentic.tool.sandbox.worker import default_shell

__all__ = ["BWRAP_ETC_PATHS", "BWRAP_SYSTEM_DIRS", "BwrapSandboxActor", "bwrap_argv"]

BWRAP_SYSTEM_DIRS: tuple[str, ...] = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
)

BWRAP_ETC_PATHS: tuple[str, ...] = (
    "/etc/alternatives",
    "/etc/ca-certificates",
    "/etc/ssl",
    "/etc/pki",
    "/etc/group",
    "/etc/passwd",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/resolv.conf",
    "/etc/localtime",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/gitconfig",
    "/etc/mime.types",
)

_SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
_PROBE_TIMEOUT_SECONDS = 5.0

logger = logging.getLogger(__name__)


def _system_binds(dirs: Sequence[str]) -> list[str]:
    """Bind each existing system dir read-only; recreate a merged-/usr link as a link."""
    args: list[str] = []
    for path in dirs:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def bwrap_argv(
    *,
    bwrap: str,
    workspace_dir: str,
    shell: str,
    command: str,
    network: bool = False,
    read_only_paths: Sequence[str] = (),
    system_dirs: Sequence[str] = BWRAP_SYSTEM_DIRS,
    etc_paths: Sequence[str] = BWRAP_ETC_PATHS,
    tmp_bytes: int | None = None,
    shm_bytes: int | None = None,
) -> list[str]:
    """The full ``bwrap`` command line that runs ``command`` confined to ``workspace_dir``.

    ``tmp_bytes`` and ``shm_bytes`` size the tmpfs of ``/tmp`` and ``/dev/shm`` (``None``:
    the kernel's default, half the host's RAM, which is what bubblewrap < 0.7 gives).
    """
    argv = [
        bwrap,
        "--die-with-parent",
        "--new-session",
        "--unshare-all",
        "--unshare-user",
    ]
    if network:
        argv.append("--share-net")
    argv += ["--cap-drop", "ALL", "--hostname", "sandbox"]
    argv += _system_binds(system_dirs)
    for path in etc_paths:
        argv += ["--ro-bind-try", path, path]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    # --dev builds /dev on a tmpfs of its own, unsized (half the host's RAM) and writable:
    # give /dev/shm a sized tmpfs of its own, then make the rest of /dev read-only (the
    # device nodes in it, /dev/null included, stay writable: they are not files of it).
    if shm_bytes is not None:
        argv += ["--size", str(shm_bytes), "--tmpfs", "/dev/shm"]
    argv += ["--remount-ro", "/dev"]
    if tmp_bytes is not None:
        argv += ["--size", str(tmp_bytes)]
    argv += ["--tmpfs", "/tmp"]
    for path in read_only_paths:
        argv += ["--ro-bind", path, path]
    argv += ["--bind", workspace_dir, workspace_dir]
    # The new root is a tmpfs bwrap builds to hold the mount points; left writable, a write
    # to /etc/x or /x would "succeed" into a throwaway directory. Make it fail instead.
    argv += ["--remount-ro", "/", "--chdir", workspace_dir]
    argv += ["--", shell, "-c", command]
    return argv


@functools.cache
def supports_tmpfs_size(bwrap: str) -> bool:
    """Whether this ``bwrap`` accepts ``--size`` (bubblewrap 0.7 and later).

    Asked once per binary (``bwrap --help``), then remembered. Without it the scratch
    filesystems cannot be sized: a warning is logged and they run unsized.
    """
    try:
        done = subprocess.run(
            [bwrap, "--help"],
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    if "--size" in done.stdout:
        return True
    logger.warning(
        "%s does not support --size (bubblewrap < 0.7): /tmp and /dev/shm in the sandbox "
        "are not sized and can hold up to half the host's RAM; upgrade bubblewrap",
        bwrap,
    )
    return False


def sandbox_environment(workspace_dir: str) -> dict[str, str]:
    """The environment inside the sandbox: system ``PATH``, home in the workspace."""
    return {
        "PATH": _SANDBOX_PATH,
        "HOME": workspace_dir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "PYTHONUNBUFFERED": "1",
    }


class BwrapSandboxActor(SandboxActor):
    """Runs each command under ``bwrap`` with the workspace as its only writable bind."""

    @staticmethod
    def probe() -> bool:
        """Whether ``bwrap`` is on PATH and can actually create its namespaces here."""
        bwrap = shutil.which("bwrap")
        true = shutil.which("true", path="/usr/bin:/bin")
        if bwrap is None or true is None:
            return False
        argv = [bwrap, "--ro-bind", "/", "/", "--unshare-all", "--unshare-user"]
        argv += ["--die-with-parent", "--", true]
        try:
            done = subprocess.run(
                argv, capture_output=True, timeout=_PROBE_TIMEOUT_SECONDS, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return done.returncode == 0

    def _start_sandbox(self) -> None:
        # Ask bwrap about --size now, once, rather than on the first command.
        bwrap = shutil.which("bwrap")
        if bwrap is not None:
            supports_tmpfs_size(bwrap)

    def build_launch(self, command: str) -> LaunchSpec:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise FileNotFoundError("bwrap is not on PATH; install bubblewrap or use mode='local'")
        cfg = self.config
        workspace = str(Path(cfg.workspace_dir).resolve())
        tmp_bytes: int | None = None
        shm_bytes: int | None = None
        if supports_tmpfs_size(bwrap):
            tmp_bytes, shm_bytes = cfg.scratch_sizes()
        argv = bwrap_argv(
            bwrap=bwrap,
            workspace_dir=workspace,
            shell=default_shell(),
            command=command,
            network=cfg.network,
            read_only_paths=cfg.read_only_paths,
            tmp_bytes=tmp_bytes,
            shm_bytes=shm_bytes,
        )
        return self.launch_spec(argv, command, sandbox_environment(workspace))
