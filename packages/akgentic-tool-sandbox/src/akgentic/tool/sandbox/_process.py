"""Run one prepared command line with a wall-clock deadline, resource limits and capped output.

Every backend ends up here: it turns the model's command into an argv (``bash -c ...``,
``bwrap ... bash -c ...``, ``docker exec ...``) and this module runs it. The rules it keeps:

- the child starts in a new session, so it leads its own process group; when the command
  ends, for any reason, the whole group is killed. A ``sleep 100 &`` left behind by the
  command, or a child of a timed-out command, dies with it;
- output is read from both pipes as it arrives, so a chatty command never stalls on a full
  pipe. Each stream keeps its head and its tail up to the cap; the middle is dropped and
  counted, so the marker can say how much is missing;
- the deadline is enforced here, on this thread, by killing the group: the caller is never
  left waiting longer than ``timeout_seconds`` plus a short drain grace;
- so is the workspace quota: with ``workspace_quota_bytes`` set, the working directory is
  measured before the command and watched while it runs (see ``_quota``), and the group
  is killed once the command has grown it past the quota.
"""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable

from pydantic import BaseModel

from akgentic.tool.sandbox._quota import QuotaBreach, WorkspaceWatcher

# LaunchSpec's public home is ``launch``; it stays importable from here (an alias, the same
# class) for code written when this was its only place.
from akgentic.tool.sandbox.launch import LaunchSpec

__all__ = [
    "LaunchSpec",
    "ProcessOutcome",
    "SandboxLaunchError",
    "kill_process_group",
    "run_process",
]

# After the command ends (or is killed), how long to keep reading what is still buffered in
# the pipes. Only a process that escaped the group (setsid in local mode) can hold a pipe
# open past the kill; this bounds the wait for it.
_DRAIN_GRACE_SECONDS = 0.5
_POLL_SECONDS = 0.05
_READ_CHUNK = 65536


class SandboxLaunchError(Exception):
    """The command line could not be started at all (missing binary, bad cwd, ...)."""


class ProcessOutcome(BaseModel):
    """What happened to a command: exit status, captured output, and whether it timed out."""

    exit_code: int | None
    stdout: str
    stderr: str
    stdout_omitted_bytes: int = 0
    stderr_omitted_bytes: int = 0
    timed_out: bool = False
    quota_breach: QuotaBreach | None = None
    duration_seconds: float


class _CappedBuffer:
    """Keeps the first and the last ``cap // 2`` bytes of a stream and counts the rest."""

    def __init__(self, cap: int) -> None:
        self._head_cap = cap - cap // 2
        self._tail_cap = cap // 2
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data and self._tail_cap:
            self._tail += data
            if len(self._tail) > self._tail_cap:
                del self._tail[: len(self._tail) - self._tail_cap]

    @property
    def omitted(self) -> int:
        return self.total - len(self._head) - len(self._tail)

    def render(self) -> str:
        head = _clean_text(bytes(self._head))
        if not self._tail:
            return head
        tail = _clean_text(bytes(self._tail))
        if self.omitted:
            return f"{head}\n[... {self.omitted} bytes of output truncated ...]\n{tail}"
        return head + tail


# C0 control characters other than tab, newline and carriage return, plus DEL. Binary
# output would otherwise put NULs and escape sequences in front of the model (and some
# provider APIs reject NUL in a message).
_CONTROL = dict.fromkeys([*range(0, 9), 11, 12, *range(14, 32), 127], "�")


def _clean_text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").translate(_CONTROL)


def _limits(spec: LaunchSpec) -> list[tuple[int, int, int]]:
    """The (resource, soft, hard) triples to apply to the command."""
    limits: list[tuple[int, int, int]] = [(resource.RLIMIT_CORE, 0, 0)]
    if spec.cpu_seconds is not None:
        # The soft limit sends SIGXCPU; the hard one, a second later, SIGKILL.
        limits.append((resource.RLIMIT_CPU, spec.cpu_seconds, spec.cpu_seconds + 1))
    if spec.file_size_bytes is not None:
        limits.append((resource.RLIMIT_FSIZE, spec.file_size_bytes, spec.file_size_bytes))
    if spec.address_space_bytes is not None and sys.platform == "linux":
        limits.append((resource.RLIMIT_AS, spec.address_space_bytes, spec.address_space_bytes))
    if spec.max_processes is not None:
        limits.append((resource.RLIMIT_NPROC, spec.max_processes, spec.max_processes))
    return limits


_PRLIMIT_OPTIONS = {
    resource.RLIMIT_CORE: "--core",
    resource.RLIMIT_CPU: "--cpu",
    resource.RLIMIT_FSIZE: "--fsize",
    resource.RLIMIT_AS: "--as",
    resource.RLIMIT_NPROC: "--nproc",
}


def _prlimit_prefix(limits: list[tuple[int, int, int]]) -> list[str] | None:
    """``prlimit --cpu=... --`` (util-linux) to apply ``limits`` on exec, when available.

    Setting limits through ``preexec_fn`` forces a full ``fork()`` of the agent process,
    which costs ~15 ms for a process of this size; without it ``subprocess`` can use
    ``vfork``. So on Linux the limits are applied by exec'ing through ``prlimit``, and
    ``preexec_fn`` is only the fallback (macOS, or a system without util-linux).
    """
    if sys.platform != "linux":
        return None
    prlimit = shutil.which("prlimit", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if prlimit is None:
        return None
    return [prlimit, *(f"{_PRLIMIT_OPTIONS[w]}={soft}:{hard}" for w, soft, hard in limits), "--"]


def _limits_setter(limits: list[tuple[int, int, int]]) -> Callable[[], None]:
    """A ``preexec_fn`` applying ``limits`` in the child (the fallback to ``prlimit``).

    ``preexec_fn`` runs between fork and exec. It is kept to plain ``setrlimit`` calls on
    values computed here in the parent, so the child allocates next to nothing and takes
    no Python-level lock (the documented hazard of ``preexec_fn`` in threaded programs).
    """
    setrlimit = resource.setrlimit

    def apply() -> None:
        for which, soft, hard in limits:
            setrlimit(which, (soft, hard))

    return apply


def _kill_group(pgid: int) -> None:
    """SIGKILL every process in the group; a group that is already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def kill_process_group(pgid: int) -> None:
    """SIGKILL a command started by :func:`run_process` (its pid is its group id)."""
    _kill_group(pgid)


def run_process(
    spec: LaunchSpec,
    *,
    clock: Callable[[], float] = time.monotonic,
    on_spawn: Callable[[int], None] | None = None,
) -> ProcessOutcome:
    """Run ``spec`` to completion or to its deadline and return what happened.

    ``on_spawn`` receives the pid (which is also the process group id) as soon as the
    command has started, so its owner can kill it early (on teardown).

    Raises :class:`SandboxLaunchError` when the process cannot be started; every other
    outcome (non-zero exit, signal, timeout) is described by the returned value.
    """
    started = clock()
    identity: dict[str, object] = {}
    if spec.uid is not None:
        identity["user"] = spec.uid
        identity["extra_groups"] = []
    if spec.gid is not None:
        identity["group"] = spec.gid
    # Resolve the program here: exec'd through prlimit, a missing one would otherwise show
    # up as prlimit's exit status instead of a launch error.
    if shutil.which(spec.argv[0], path=spec.env.get("PATH", os.defpath)) is None:
        raise SandboxLaunchError(
            f"FileNotFoundError: program {spec.argv[0]!r} not found or not executable"
        )
    # Measured before the command starts (inside its deadline): the baseline of its growth.
    watcher = None
    if spec.workspace_quota_bytes is not None:
        watcher = WorkspaceWatcher(spec.cwd, spec.workspace_quota_bytes, clock=clock)
    limits = _limits(spec)
    prefix = _prlimit_prefix(limits)
    argv = spec.argv if prefix is None else [*prefix, *spec.argv]
    preexec = _limits_setter(limits) if prefix is None else None
    try:
        proc = subprocess.Popen(
            argv,
            cwd=spec.cwd,
            env=spec.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=preexec,
            **identity,  # type: ignore[call-overload]
        )
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        raise SandboxLaunchError(f"{type(exc).__name__}: {exc}") from exc

    if on_spawn is not None:
        on_spawn(proc.pid)
    assert proc.stdout is not None
    assert proc.stderr is not None
    buffers = {
        proc.stdout.fileno(): _CappedBuffer(spec.max_output_bytes),
        proc.stderr.fileno(): _CappedBuffer(spec.max_output_bytes),
    }
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    selector = selectors.DefaultSelector()
    for fd in buffers:
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)

    deadline = started + spec.timeout_seconds
    drain_until: float | None = None
    timed_out = False
    breach: QuotaBreach | None = None
    try:
        while selector.get_map():
            now = clock()
            if drain_until is None:
                if proc.poll() is not None:
                    # The command itself is done: whatever it left running goes with it.
                    _kill_group(proc.pid)
                    drain_until = now + _DRAIN_GRACE_SECONDS
                elif now >= deadline:
                    timed_out = True
                    _kill_group(proc.pid)
                    drain_until = now + _DRAIN_GRACE_SECONDS
                elif watcher is not None and (breach := watcher.check()) is not None:
                    _kill_group(proc.pid)
                    drain_until = now + _DRAIN_GRACE_SECONDS
            elif now >= drain_until:
                break
            wait = _POLL_SECONDS if drain_until is None else max(0.0, drain_until - now)
            if drain_until is None:
                wait = min(wait, max(0.0, deadline - now))
            for key, _ in selector.select(timeout=min(wait, _POLL_SECONDS)):
                fd = int(key.fd)
                try:
                    data = os.read(fd, _READ_CHUNK)
                except BlockingIOError:
                    continue
                if data:
                    buffers[fd].add(data)
                else:
                    selector.unregister(fd)
    finally:
        selector.close()
        # Both pipes closed (or the grace ran out): make sure nothing of the group survives,
        # including a command that closed its pipes but kept running.
        if proc.poll() is None and drain_until is None:
            timed_out, breach = _await_exit(proc, deadline, watcher, clock)
        _kill_group(proc.pid)
        proc.stdout.close()
        proc.stderr.close()
        proc.wait()

    stopped = timed_out or breach is not None
    return ProcessOutcome(
        exit_code=None if stopped else proc.returncode,
        stdout=buffers[out_fd].render(),
        stderr=buffers[err_fd].render(),
        stdout_omitted_bytes=buffers[out_fd].omitted,
        stderr_omitted_bytes=buffers[err_fd].omitted,
        timed_out=timed_out,
        quota_breach=breach,
        duration_seconds=round(clock() - started, 3),
    )


def _await_exit(
    proc: subprocess.Popen[bytes],
    deadline: float,
    watcher: WorkspaceWatcher | None,
    clock: Callable[[], float],
) -> tuple[bool, QuotaBreach | None]:
    """Wait for a command that closed its pipes: ``(timed_out, breach)`` when it had to stop.

    Waits in slices of one poll so that the quota is still watched: closing stdout and
    stderr must not switch the watcher off. (``Popen.wait`` notices the exit within a
    millisecond or so, which matters: most commands get here, closing their pipes a
    moment before they exit.)
    """
    while True:
        now = clock()
        if now >= deadline:
            return True, None
        try:
            proc.wait(timeout=min(_POLL_SECONDS, deadline - now))
        except subprocess.TimeoutExpired:
            pass
        else:
            return False, None
        if watcher is not None and (breach := watcher.check()) is not None:
            return False, breach
