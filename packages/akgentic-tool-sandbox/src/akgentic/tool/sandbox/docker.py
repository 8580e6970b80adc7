"""``docker`` backend: one long-lived container per team, one ``docker exec`` per command.

The container (``akgentic-sandbox-<team id>``) mounts the workspace at ``/workspace``, has
no network unless the configuration allows it, drops every capability, and is capped as a
whole by the configured limits (``--memory``, ``--pids-limit``, CPU and file-size
ulimits, a sized tmpfs ``/tmp`` and ``/dev/shm``). It is created lazily by the first
command and removed when the sandbox actor stops. Its image is
``akgentic-sandbox:latest``, built once from the ``sandbox.Dockerfile`` shipped in this
package; ``AKGENTIC_SANDBOX_IMAGE`` names a pre-built image instead and skips the build.

Image build and container start are slow, so they never run on the actor's thread: the
first worker does them, under a process-wide lock, before its own command. Each command
runs under coreutils ``timeout`` inside the container, because killing the ``docker exec``
client would not stop the process in the container; the client is still killed as a
backstop a few seconds later.

No Docker engine was available where this package is developed: its tests check the exact
command lines, and that a missing engine comes back as a ``SandboxError`` string.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from akgentic.tool.core.deferred import DeferredWorker
from akgentic.tool.sandbox._process import SandboxLaunchError, run_process
from akgentic.tool.sandbox._reaper import track, untrack
from akgentic.tool.sandbox.actor import SandboxActor
from akgentic.tool.sandbox.config import file_size_limit
from akgentic.tool.sandbox.launch import LaunchSpec
from akgentic.tool.sandbox.result import ExecResult, cancelled_result, format_seconds
from akgentic.tool.sandbox.worker import ExecWorker

__all__ = [
    "CONTAINER_WORKSPACE",
    "DOCKERFILE",
    "DOCKER_EXEC_TIMEOUT",
    "IMAGE_ENV",
    "SANDBOX_IMAGE",
    "DockerExecWorker",
    "DockerJob",
    "DockerSandboxActor",
    "DockerSetup",
    "container_name",
    "docker_build_argv",
    "docker_exec_argv",
    "docker_run_argv",
    "run_docker_job",
    "sandbox_image",
]

logger = logging.getLogger(__name__)

SANDBOX_IMAGE = "akgentic-sandbox:latest"
IMAGE_ENV = "AKGENTIC_SANDBOX_IMAGE"
DOCKERFILE = Path(__file__).with_name("sandbox.Dockerfile")
CONTAINER_WORKSPACE = "/workspace"

# coreutils `timeout` exits with 124 when it had to stop the command.
_TIMEOUT_EXIT = 124
_KILL_AFTER_SECONDS = 2
# The client-side backstop: a little after the in-container timeout has surely fired.
_CLIENT_BACKSTOP_SECONDS = 5.0
_BUILD_TIMEOUT_SECONDS = 900.0
DOCKER_EXEC_TIMEOUT = 60
"""Seconds a docker control command (``image inspect``, ``run``, ``rm``) may take; the
commands of the model are bounded by the sandbox's ``timeout_seconds`` instead."""
_CONTROL_TIMEOUT_SECONDS = float(DOCKER_EXEC_TIMEOUT)
_PROBE_TIMEOUT_SECONDS = 5.0
_GONE = re.compile(r"No such container|is not running", re.IGNORECASE)

# Containers known to be up in this process, and the lock serialising their preparation.
_READY: set[str] = set()
_READY_LOCK = threading.Lock()


def sandbox_image() -> tuple[str, bool]:
    """The image to run and whether it must be built (``False`` under the env override)."""
    override = os.environ.get(IMAGE_ENV, "").strip()
    if override:
        return override, False
    return SANDBOX_IMAGE, True


def container_name(team_id: object) -> str:
    """The team's container name (only characters Docker accepts)."""
    return "akgentic-sandbox-" + re.sub(r"[^a-zA-Z0-9_.-]", "-", str(team_id))


def docker_build_argv(docker: str, image: str = SANDBOX_IMAGE) -> list[str]:
    """``docker build`` of the bundled Dockerfile, with its own folder as context."""
    return [docker, "build", "-f", str(DOCKERFILE), "-t", image, str(DOCKERFILE.parent)]


def docker_run_argv(
    docker: str,
    *,
    container: str,
    image: str,
    workspace_dir: str,
    network: bool = False,
    memory_bytes: int | None = None,
    max_processes: int | None = None,
    cpu_seconds: int | None = None,
    file_size_bytes: int | None = None,
    read_only_paths: Sequence[str] = (),
    tmp_bytes: int | None = None,
    shm_bytes: int | None = None,
) -> list[str]:
    """``docker run`` of the team's long-lived container.

    ``tmp_bytes`` puts ``/tmp`` on a tmpfs of that size (otherwise it is a directory of
    the container's writable layer: host disk, unbounded); ``shm_bytes`` sizes
    ``/dev/shm`` (Docker's default is 64 MiB). Both are charged to the ``--memory``
    cgroup as well.
    """
    argv = [docker, "run", "--detach", "--init", "--name", container]
    argv += ["--network", "bridge" if network else "none"]
    argv += ["--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
    if memory_bytes is not None:
        argv += ["--memory", f"{memory_bytes}b"]
    if max_processes is not None:
        argv += ["--pids-limit", str(max_processes)]
    if cpu_seconds is not None:
        argv += ["--ulimit", f"cpu={cpu_seconds}:{cpu_seconds + 1}"]
    if file_size_bytes is not None:
        argv += ["--ulimit", f"fsize={file_size_bytes}:{file_size_bytes}"]
    argv += ["--ulimit", "core=0:0"]
    if shm_bytes is not None:
        argv += ["--shm-size", f"{shm_bytes}b"]
    if tmp_bytes is not None:
        # exec, like bwrap's /tmp: test runners and builds run scripts from there.
        argv += ["--tmpfs", f"/tmp:rw,exec,nosuid,nodev,mode=1777,size={tmp_bytes}"]
    argv += ["--volume", f"{workspace_dir}:{CONTAINER_WORKSPACE}"]
    for path in read_only_paths:
        argv += ["--volume", f"{path}:{path}:ro"]
    argv += ["--workdir", CONTAINER_WORKSPACE, image, "sleep", "infinity"]
    return argv


def docker_exec_argv(
    docker: str,
    *,
    container: str,
    command: str,
    timeout_seconds: float,
    env: dict[str, str] | None = None,
) -> list[str]:
    """``docker exec`` of ``command`` under coreutils ``timeout`` inside the container."""
    argv = [docker, "exec", "--workdir", CONTAINER_WORKSPACE]
    for key, value in sorted((env or {}).items()):
        argv += ["--env", f"{key}={value}"]
    argv += [container, "timeout", f"--kill-after={_KILL_AFTER_SECONDS}"]
    argv += [format_seconds(timeout_seconds), "bash", "-c", command]
    return argv


class DockerSetup(BaseModel):
    """What the first command of a container must make sure of before running."""

    docker: str
    image: str
    build: bool
    container: str
    run_argv: list[str]


class DockerJob(BaseModel):
    """A worker payload: the preparation, then the command line itself."""

    setup: DockerSetup
    launch: LaunchSpec
    timeout_seconds: float


def _control(argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """Run a short docker client command (inspect, build, run, rm)."""
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)


def _tail(text: str, limit: int = 2000) -> str:
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]


class DockerExecWorker(ExecWorker):
    """Prepares the team container if needed, then runs one ``docker exec``."""

    def produce(self, key: str, payload: Any) -> ExecResult:
        return run_docker_job(key, payload)


def run_docker_job(key: str, payload: Any) -> ExecResult:
    """Make sure the team container runs, then ``docker exec`` the job's command."""
    job = DockerJob.model_validate(payload)
    command = job.launch.display_command
    for attempt in range(2):
        problem = DockerSandboxActor._ensure_container(job.setup)
        if problem is not None:
            return ExecResult(command=command, error=f"SandboxError: {problem}")
        try:
            outcome = run_process(job.launch, on_spawn=lambda pid: track(key, pid))
        except SandboxLaunchError as exc:
            untrack(key)
            return ExecResult(command=command, error=f"SandboxError: {exc}")
        if untrack(key):
            return cancelled_result(command)
        if attempt == 0 and outcome.exit_code != 0 and _GONE.search(outcome.stderr):
            # The container was removed behind our back: recreate it once.
            with _READY_LOCK:
                _READY.discard(job.setup.container)
            continue
        break
    if outcome.exit_code == _TIMEOUT_EXIT:
        outcome = outcome.model_copy(update={"timed_out": True, "exit_code": None})
    return ExecResult.from_outcome(command, outcome, job.timeout_seconds)


class DockerSandboxActor(SandboxActor):
    """Runs each command with ``docker exec`` in the team's persistent container."""

    @staticmethod
    def probe() -> bool:
        """Whether a docker client is on PATH and its engine answers."""
        docker = shutil.which("docker")
        if docker is None:
            return False
        try:
            done = _control(
                [docker, "info", "--format", "{{.ServerVersion}}"], _PROBE_TIMEOUT_SECONDS
            )
        except (OSError, subprocess.SubprocessError):
            return False
        return done.returncode == 0

    @staticmethod
    def _ensure_image(setup: DockerSetup) -> str | None:
        """Build the bundled image unless it exists (or an override image is in use).

        Returns ``None`` when the image is ready, else what went wrong.
        """
        if not setup.build:
            return None
        inspect = _control(
            [setup.docker, "image", "inspect", setup.image], _CONTROL_TIMEOUT_SECONDS
        )
        if inspect.returncode == 0:
            return None
        logger.info("building the sandbox image %s from %s", setup.image, DOCKERFILE)
        built = _control(docker_build_argv(setup.docker, setup.image), _BUILD_TIMEOUT_SECONDS)
        if built.returncode != 0:
            return f"could not build image {setup.image}: {_tail(built.stderr or built.stdout)}"
        return None

    @staticmethod
    def _ensure_container(setup: DockerSetup) -> str | None:
        """Make sure the team container runs; ``None`` when it does, else the problem."""
        with _READY_LOCK:
            if setup.container in _READY:
                return None
            try:
                problem = DockerSandboxActor._ensure_image(setup)
                if problem is not None:
                    return problem
                _control([setup.docker, "rm", "--force", setup.container], _CONTROL_TIMEOUT_SECONDS)
                started = _control(setup.run_argv, _CONTROL_TIMEOUT_SECONDS)
            except (OSError, subprocess.SubprocessError) as exc:
                return f"{type(exc).__name__}: {exc}"
            if started.returncode != 0:
                return (
                    f"could not start container {setup.container}: "
                    f"{_tail(started.stderr or started.stdout)}"
                )
            _READY.add(setup.container)
            return None

    def worker_class(self) -> type[DeferredWorker[Any, Any]]:
        return DockerExecWorker

    def run_now(self, key: str, payload: Any) -> ExecResult:
        return run_docker_job(key, payload)

    def _start_sandbox(self) -> None:
        self.state.container_name = self._container()

    def _container(self) -> str:
        """The team container: named after the configured ``team_id``, else the actor's team."""
        return container_name(self.config.team_id or self.team_id)

    def _setup(self, docker: str) -> DockerSetup:
        cfg = self.config
        image, build = sandbox_image()
        container = self._container()
        tmp_bytes, shm_bytes = cfg.scratch_sizes()
        run_argv = docker_run_argv(
            docker,
            container=container,
            image=image,
            workspace_dir=str(Path(cfg.workspace_dir).resolve()),
            network=cfg.network,
            memory_bytes=cfg.memory_bytes,
            max_processes=cfg.max_processes,
            cpu_seconds=cfg.cpu_seconds,
            # The quota itself is not watched here (see the README); one file at least
            # cannot pass it.
            file_size_bytes=file_size_limit(cfg),
            read_only_paths=cfg.read_only_paths,
            tmp_bytes=tmp_bytes,
            shm_bytes=shm_bytes,
        )
        return DockerSetup(
            docker=docker, image=image, build=build, container=container, run_argv=run_argv
        )

    def build_launch(self, command: str) -> DockerJob:
        docker = shutil.which("docker")
        if docker is None:
            raise FileNotFoundError("docker is not on PATH; install Docker or use another mode")
        cfg = self.config
        argv = docker_exec_argv(
            docker,
            container=self._container(),
            command=command,
            timeout_seconds=cfg.timeout_seconds,
            env=cfg.env,
        )
        # Limits live on the container; the client process only needs the backstop.
        launch = LaunchSpec(
            argv=argv,
            cwd=cfg.workspace_dir,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            display_command=command,
            timeout_seconds=cfg.timeout_seconds + _CLIENT_BACKSTOP_SECONDS,
            max_output_bytes=cfg.max_output_bytes,
        )
        return DockerJob(
            setup=self._setup(docker), launch=launch, timeout_seconds=cfg.timeout_seconds
        )

    def _wait_budget(self) -> float:
        budget = super()._wait_budget() + _CLIENT_BACKSTOP_SECONDS
        # Read without the lock: a worker holds it for a whole image build, and the actor's
        # thread must never wait on that. A set lookup is atomic; a stale answer only
        # changes how long the caller is told to wait.
        ready = self._container() in _READY
        # The very first command may have to build the image and start the container.
        return budget if ready else budget + _BUILD_TIMEOUT_SECONDS + 2 * _CONTROL_TIMEOUT_SECONDS

    def on_stop(self) -> None:
        """Remove the team container (bounded), then stop as usual."""
        container = self._container()
        docker = shutil.which("docker")
        # Lock-free for the same reason as in _wait_budget.
        was_ready = container in _READY
        _READY.discard(container)
        if docker is not None and was_ready:
            try:
                _control([docker, "rm", "--force", container], _CONTROL_TIMEOUT_SECONDS)
            except (OSError, subprocess.SubprocessError) as exc:
                logger.warning("could not remove sandbox container %s: %s", container, exc)
        super().on_stop()
