"""The docker backend: its command lines, and the backend end to end against a stand-in.

The command lines are checked as built (``docker_run_argv`` and friends). For the rest,
no Docker engine runs where these tests run, so each test writes a small stand-in
``docker`` executable (a Python script) first on ``PATH``. It records every call it gets
and emulates the part of the Docker CLI the backend relies on: ``info``, ``image
inspect`` and ``build`` (an image exists once built), ``run --detach`` (remembers the
container and the host directory mounted at ``/workspace``), ``rm --force`` (forgets it),
and ``exec``, which runs the in-container command line (``timeout ... bash -c ...``) on the
host, in the mounted workspace directory, with the ``--env`` pairs, answering "No such
container" for a container it does not know. A test can make a call fail with a given
output, or hang. So the backend's real code runs: the image is looked up then built,
the container is started once then reused, recreated when it vanished, removed when the
sandbox stops, and commands really run, time out and fail. What is asserted is what the
backend is responsible for: the results it returns, the files its commands write, and the
command lines it sends to the client.
"""

from __future__ import annotations

import json
import logging
import shutil
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.messages.orchestrator import StopMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.testing import TeamRecorder, eventually, record_team, settle
from akgentic.tool.sandbox import docker as docker_module
from akgentic.tool.sandbox.actor import (
    SandboxActor,
    SandboxConfig,
    SandboxState,
    kill_running,
)
from akgentic.tool.sandbox.config import SandboxSettings
from akgentic.tool.sandbox.docker import (
    CONTAINER_WORKSPACE,
    DOCKERFILE,
    IMAGE_ENV,
    SANDBOX_IMAGE,
    DockerSandboxActor,
    container_name,
    docker_build_argv,
    docker_exec_argv,
    docker_run_argv,
    run_docker_job,
    sandbox_image,
)
from akgentic.tool.sandbox.result import ExecResult
from akgentic.tool.sandbox.tool import ExecTool

Bind = Callable[..., tuple[ExecTool, Callable[[str], str]]]

_MIB = 1024 * 1024

_STAND_IN = r'''#!{python}
"""Stand-in docker client for the sandbox tests (see the test module's docstring)."""
import json
import os
import sys
from pathlib import Path

STATE = Path({state!r})
args = sys.argv[1:]
seen = {{"argv": args, "path": os.environ.get("PATH"), "env_keys": sorted(os.environ)}}
# One write() of the whole line on an O_APPEND descriptor: calls made at once never
# interleave their records.
log = os.open(STATE / "calls.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
os.write(log, (json.dumps(seen) + "\n").encode())
os.close(log)

if args and (STATE / (args[0] + "-hangs")).exists():
    import time

    time.sleep(60)  # an engine that stopped answering
    sys.exit(0)


def fail(message, code=1):
    sys.stderr.write(message + "\n")
    sys.exit(code)


def scripted_failure(command):
    """The failure a test asked ``command`` to answer with, if any."""
    path = STATE / (command + "-fails.json")
    if path.exists():
        wanted = json.loads(path.read_text())
        sys.stdout.write(wanted["stdout"])
        sys.stderr.write(wanted["stderr"])
        sys.exit(wanted.get("code", 1))


def entry(kind, name):
    folder = STATE / kind
    folder.mkdir(exist_ok=True)
    return folder / name.replace("/", "_").replace(":", "_")


if args == ["info", "--format", "{{{{.ServerVersion}}}}"]:
    if (STATE / "engine-down").exists():
        fail("Cannot connect to the Docker daemon")
    print("27.0.0-stand-in")
elif args[:2] == ["image", "inspect"] and len(args) == 3:
    if not entry("images", args[2]).exists():
        fail("Error: No such image: " + args[2])
    print("[{{}}]")
elif args[:1] == ["build"] and len(args) == 6 and args[1] == "-f" and args[3] == "-t":
    if not Path(args[2]).is_file() or not Path(args[5]).is_dir():
        fail("stand-in: no Dockerfile or context", 125)
    scripted_failure("build")
    entry("images", args[4]).touch()
elif args[:2] == ["rm", "--force"] and len(args) == 3:
    entry("containers", args[2]).unlink(missing_ok=True)
    print(args[2])
elif args[:3] == ["run", "--detach", "--init"]:
    scripted_failure("run")
    name = args[args.index("--name") + 1]
    mounts = [args[i + 1] for i, word in enumerate(args) if word == "--volume"]
    workspace = next(m.rsplit(":", 1)[0] for m in mounts if m.endswith(":/workspace"))
    entry("containers", name).write_text(workspace)
    print("c0ffee")
elif args[:3] == ["exec", "--workdir", "/workspace"]:
    rest, env = args[3:], dict(os.environ)
    while rest[0] == "--env":
        key, _, value = rest[1].partition("=")
        env[key] = value
        rest = rest[2:]
    box = entry("containers", rest[0])
    if not box.exists():
        fail("Error response from daemon: No such container: " + rest[0])
    os.chdir(box.read_text())
    os.execvpe(rest[1], rest[1:], env)
else:
    fail("stand-in docker: unsupported call " + " ".join(args), 125)
'''

# Set in the test process: a docker client must not be started with the agent's environment.
_AGENT_SECRET = "AKGENTIC_TEST_AGENT_SECRET"


@dataclass
class StandInDocker:
    """The stand-in client: where it lives, what it was asked, failures to script."""

    executable: Path
    state: Path

    def calls(self) -> list[list[str]]:
        """Every call so far (the arguments after ``docker``), oldest first."""
        return [record["argv"] for record in self._records()]

    def records(self, command: str) -> list[dict[str, Any]]:
        """The full records (argv and environment) of the calls of ``command``."""
        return [record for record in self._records() if record["argv"][0] == command]

    def commands(self) -> list[str]:
        """The first word of every call: ``image``, ``build``, ``rm``, ``run``, ``exec``."""
        return [argv[0] for argv in self.calls()]

    def fail(self, command: str, *, stdout: str = "", stderr: str = "") -> None:
        """Make every later ``build`` or ``run`` fail with this output."""
        failure = {"stdout": stdout, "stderr": stderr, "code": 1}
        (self.state / f"{command}-fails.json").write_text(json.dumps(failure))

    def hang(self, command: str) -> None:
        """Make every later call of ``command`` (``image``, ``build``, ...) hang."""
        (self.state / f"{command}-hangs").touch()

    def has_container(self, name: str) -> bool:
        return (self.state / "containers" / name).exists()

    def remove_container(self, name: str) -> None:
        """Remove a container behind the backend's back (as ``docker rm`` from a shell)."""
        (self.state / "containers" / name).unlink()

    def break_client(self) -> None:
        """Keep the client on PATH but make it impossible to start (missing interpreter)."""
        self.executable.write_text("#!/nonexistent/interpreter\n")

    def _records(self) -> list[dict[str, Any]]:
        log = self.state / "calls.jsonl"
        if not log.exists():
            return []
        # The stand-in may be writing its line while we read: a record counts once its
        # newline is there, so a half-written last line is left for the next read.
        complete, _, _partial = log.read_text().rpartition("\n")
        return [json.loads(line) for line in complete.splitlines() if line]


@pytest.fixture
def docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StandInDocker:
    state = tmp_path / "engine"
    state.mkdir()
    executable = tmp_path / "bin" / "docker"
    executable.parent.mkdir()
    executable.write_text(_STAND_IN.format(python=sys.executable, state=str(state)))
    executable.chmod(0o755)
    monkeypatch.setenv("PATH", f"{executable.parent}:/usr/bin:/bin")
    monkeypatch.delenv(IMAGE_ENV, raising=False)
    monkeypatch.setenv(_AGENT_SECRET, "do-not-pass-on")
    return StandInDocker(executable=executable, state=state)


@dataclass
class DockerSandbox:
    """One docker sandbox actor of the test team, and what the test needs to reach it."""

    actor: SandboxActor
    address: ActorAddress
    team: str
    workspace: Path
    container: str
    recorder: TeamRecorder

    def stop(self) -> None:
        """Stop the actor and wait for the end of its ``on_stop`` (which runs after the
        actor already reads as dead): the stop notice it sends the team comes last."""
        self.actor.stop()
        eventually(self._stop_reported, timeout=30)

    def _stop_reported(self) -> bool:
        return any(
            isinstance(message, StopMessage) and message.sender.name == self.address.name
            for message in self.recorder.record.messages()
            if message.sender is not None
        )


SandboxFactory = Callable[..., DockerSandbox]


@pytest.fixture
def docker_sandbox(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> Iterator[SandboxFactory]:
    """Start a ``DockerSandboxActor`` for a team of its own (containers are per team)."""
    started: list[DockerSandbox] = []
    recorder = record_team(actor_system, orchestrator)

    def start(team_id: str | None = None, **fields: Any) -> DockerSandbox:
        team = team_id or f"team-{uuid.uuid4().hex[:8]}"
        workspace = tmp_path / "ws" / team
        config = SandboxConfig(
            name=f"#SandboxActor-{team}",
            mode="docker",
            workspace_dir=str(workspace),
            team_id=team,
            **fields,
        )
        orch = actor_system.proxy_ask(orchestrator, Orchestrator)
        address = orch.getChildrenOrCreate(DockerSandboxActor, config)
        actor = actor_system.proxy_ask(address, SandboxActor, 60)
        sandbox = DockerSandbox(actor, address, team, workspace, container_name(team), recorder)
        started.append(sandbox)
        return sandbox

    yield start
    for sandbox in started:
        if sandbox.address.is_alive():
            sandbox.stop()


def _tail_of(stream_text: str) -> str:
    """What a failure message quotes of a long client output: its last 2000 characters."""
    return "..." + stream_text[-2000:]


# --- command lines, and a missing engine ----------------------------------------------


def test_bundled_dockerfile_ships_in_the_package() -> None:
    text = DOCKERFILE.read_text()
    assert DOCKERFILE.name == "sandbox.Dockerfile"
    assert "FROM python:3.12" in text
    assert "pytest ruff mypy uv" in text
    assert "setup_18.x" in text


def test_image_override_skips_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(IMAGE_ENV, raising=False)
    assert sandbox_image() == (SANDBOX_IMAGE, True)
    monkeypatch.setenv(IMAGE_ENV, "registry.example/sandbox:7")
    assert sandbox_image() == ("registry.example/sandbox:7", False)


def test_docker_command_lines() -> None:
    assert docker_build_argv("docker") == [
        "docker", "build", "-f", str(DOCKERFILE), "-t", "akgentic-sandbox:latest",
        str(DOCKERFILE.parent),
    ]  # fmt: skip
    assert docker_run_argv(
        "docker",
        container="akgentic-sandbox-t1",
        image="akgentic-sandbox:latest",
        workspace_dir="/srv/ws/t1",
        memory_bytes=512 * 1024 * 1024,
        max_processes=256,
        cpu_seconds=60,
        file_size_bytes=1000,
        read_only_paths=["/opt/ref"],
    ) == [
        "docker", "run", "--detach", "--init", "--name", "akgentic-sandbox-t1",
        "--network", "none", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "--memory", "536870912b", "--pids-limit", "256",
        "--ulimit", "cpu=60:61", "--ulimit", "fsize=1000:1000", "--ulimit", "core=0:0",
        "--volume", f"/srv/ws/t1:{CONTAINER_WORKSPACE}", "--volume", "/opt/ref:/opt/ref:ro",
        "--workdir", "/workspace", "akgentic-sandbox:latest", "sleep", "infinity",
    ]  # fmt: skip
    networked = docker_run_argv(
        "docker", container="c", image="i", workspace_dir="/w", network=True
    )
    assert networked[networked.index("--network") + 1] == "bridge"
    tmp_bytes, shm_bytes = SandboxSettings(memory_bytes=64 * _MIB).scratch_sizes()
    sized = docker_run_argv(
        "docker", container="c", image="i", workspace_dir="/w",
        tmp_bytes=tmp_bytes, shm_bytes=shm_bytes,
    )  # fmt: skip
    start = sized.index("--shm-size")
    assert sized[start : start + 4] == [
        "--shm-size", f"{16 * _MIB}b",
        "--tmpfs", f"/tmp:rw,exec,nosuid,nodev,mode=1777,size={48 * _MIB}",
    ]  # fmt: skip
    assert networked[networked.index("--network") + 1] == "bridge"
    assert docker_exec_argv(
        "docker",
        container="akgentic-sandbox-t1",
        command="pytest -q",
        timeout_seconds=30,
        env={"B": "2", "A": "1"},
    ) == [
        "docker", "exec", "--workdir", "/workspace", "--env", "A=1", "--env", "B=2",
        "akgentic-sandbox-t1", "timeout", "--kill-after=2", "30", "bash", "-c", "pytest -q",
    ]  # fmt: skip


def test_scratch_sizes_split_one_budget_between_tmp_and_shm() -> None:
    """/tmp and /dev/shm together hold what one command may allocate, never more."""
    assert SandboxSettings().scratch_sizes() == (448 * _MIB, 64 * _MIB)
    assert SandboxSettings(memory_bytes=None).scratch_sizes() == (448 * _MIB, 64 * _MIB)
    assert SandboxSettings(memory_bytes=2048 * _MIB).scratch_sizes() == (1984 * _MIB, 64 * _MIB)
    assert SandboxSettings(tmpfs_bytes=8 * _MIB).scratch_sizes() == (6 * _MIB, 2 * _MIB)
    # A tmpfs of size 0 is unlimited: the smallest budget still gives one page each.
    assert SandboxSettings(tmpfs_bytes=1).scratch_sizes() == (4096, 4096)


def test_docker_run_bounds_the_container_scratch_space(
    bind_exec: Bind, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``--tmpfs``, /tmp in the container was host disk (its writable layer).

    No engine here: a stand-in ``docker`` executable first on PATH records the command
    lines the real actor runs, so the wiring from the configuration is what is checked.
    """
    log = tmp_path / "docker.log"
    fake = tmp_path / "bin" / "docker"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    monkeypatch.setenv(IMAGE_ENV, "prebuilt/sandbox:1")
    _, run = bind_exec(mode="docker", memory_bytes=64 * _MIB, workspace_quota_bytes=5000)
    assert run("echo hi").startswith("exit_code: 0")
    started = next(line for line in log.read_text().splitlines() if line.startswith("run "))
    assert f"--memory {64 * _MIB}b" in started
    assert "--ulimit fsize=5000:5000" in started  # no file larger than the quota
    assert f"--shm-size {16 * _MIB}b" in started
    assert f"--tmpfs /tmp:rw,exec,nosuid,nodev,mode=1777,size={48 * _MIB}" in started


def test_container_name_is_docker_safe() -> None:
    assert container_name("a b/c:d") == "akgentic-sandbox-a-b-c-d"
    assert container_name("Team.A_b-9") == "akgentic-sandbox-Team.A_b-9"


def _no_engine() -> None:
    if DockerSandboxActor.probe():
        pytest.skip("a Docker engine answers here: this test is about its absence")


def test_docker_without_an_engine_reports_a_sandbox_error(
    bind_exec: Bind, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_engine()
    monkeypatch.delenv(IMAGE_ENV, raising=False)
    _, run = bind_exec(mode="docker")
    answer = run("echo hi")
    assert answer.startswith("SandboxError: ")
    if shutil.which("docker") is not None:
        assert "could not build image akgentic-sandbox:latest" in answer


def test_docker_with_an_override_image_goes_straight_to_the_container(
    bind_exec: Bind, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_engine()
    if shutil.which("docker") is None:
        pytest.skip("no docker client on PATH")
    monkeypatch.setenv(IMAGE_ENV, "prebuilt/sandbox:1")
    _, run = bind_exec(mode="docker")
    answer = run("echo hi")
    assert answer.startswith("SandboxError: could not start container akgentic-sandbox-")


# --- the first command: image, container, exec ---------------------------------------


def test_first_command_builds_the_image_starts_the_container_then_runs(
    docker: StandInDocker, docker_sandbox: SandboxFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="akgentic.tool.sandbox.docker")
    sandbox = docker_sandbox()
    result = sandbox.actor.exec("echo hi > made-here.txt && pwd")
    assert (result.error, result.exit_code) == (None, 0)
    # The command ran in the directory mounted at /workspace, on the workspace itself.
    assert result.stdout.strip() == str(sandbox.workspace.resolve())
    assert (sandbox.workspace / "made-here.txt").read_text() == "hi\n"
    build = docker_build_argv(str(docker.executable))[1:]
    assert docker.calls()[:3] == [
        ["image", "inspect", SANDBOX_IMAGE],
        build,
        ["rm", "--force", sandbox.container],
    ]
    assert docker.commands() == ["image", "build", "rm", "run", "exec"]
    assert f"building the sandbox image {SANDBOX_IMAGE} from {DOCKERFILE}" in caplog.messages


def test_the_container_is_started_once_and_reused(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    sandbox = docker_sandbox()
    for word in ("one", "two", "three"):
        assert sandbox.actor.exec(f"echo {word} >> log.txt").exit_code == 0
    assert (sandbox.workspace / "log.txt").read_text() == "one\ntwo\nthree\n"
    assert docker.commands() == ["image", "build", "rm", "run", "exec", "exec", "exec"]


def test_an_existing_image_is_not_rebuilt(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    docker_sandbox().actor.exec("echo first")
    second = docker_sandbox()
    assert second.actor.exec("echo second").stdout == "second\n"
    # The second team looks the image up, finds it, and only starts its own container.
    assert docker.commands()[5:] == ["image", "rm", "run", "exec"]
    assert docker.calls()[5] == ["image", "inspect", SANDBOX_IMAGE]


def test_an_override_image_is_run_without_a_lookup_or_build(
    docker: StandInDocker, docker_sandbox: SandboxFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(IMAGE_ENV, "registry.example/sandbox:7")
    sandbox = docker_sandbox()
    assert sandbox.actor.exec("echo hi").exit_code == 0
    assert docker.commands() == ["rm", "run", "exec"]
    (started,) = docker.records("run")
    assert "registry.example/sandbox:7" in started["argv"]


def test_the_container_is_created_from_the_configuration(
    docker: StandInDocker, docker_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    reference = tmp_path / "reference"
    reference.mkdir()
    sandbox = docker_sandbox(
        network=True,
        memory_bytes=64 * 1024 * 1024,
        max_processes=77,
        cpu_seconds=9,
        file_size_bytes=4000,
        read_only_paths=[str(reference)],
    )
    sandbox.actor.exec("echo ok")
    (started,) = docker.records("run")
    assert started["argv"] == [
        "run", "--detach", "--init", "--name", sandbox.container,
        "--network", "bridge", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "--memory", f"{64 * 1024 * 1024}b", "--pids-limit", "77",
        "--ulimit", "cpu=9:10", "--ulimit", "fsize=4000:4000", "--ulimit", "core=0:0",
        "--shm-size", f"{16 * 1024 * 1024}b",
        "--tmpfs", f"/tmp:rw,exec,nosuid,nodev,mode=1777,size={48 * 1024 * 1024}",
        "--volume", f"{sandbox.workspace.resolve()}:/workspace",
        "--volume", f"{reference}:{reference}:ro",
        "--workdir", "/workspace", SANDBOX_IMAGE, "sleep", "infinity",
    ]  # fmt: skip


def test_the_container_is_named_after_the_configured_team(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    sandbox = docker_sandbox(team_id="Team.A_b-1")
    sandbox.actor.exec("echo ok")
    (started,) = docker.records("run")
    assert started["argv"][4] == "akgentic-sandbox-Team.A_b-1" == sandbox.container


def test_without_a_configured_team_the_container_is_named_after_the_actors_team(
    docker: StandInDocker, actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> None:
    config = SandboxConfig(mode="docker", workspace_dir=str(tmp_path / "ws"))
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(DockerSandboxActor, config)
    actor = actor_system.proxy_ask(address, SandboxActor, 60)
    try:
        actor.exec("echo ok")
        (started,) = docker.records("run")
        assert started["argv"][4] == container_name(address.team_id)
    finally:
        actor.stop()


def test_the_team_records_the_container_name(
    docker: StandInDocker,
    docker_sandbox: SandboxFactory,
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
) -> None:
    sandbox = docker_sandbox()
    settle(actor_system, orchestrator)

    def named() -> Any:
        # The actor publishes its state before the container exists, then again with its
        # name: wait for the published state that carries a name.
        try:
            state = sandbox.recorder.record.state_of(f"#SandboxActor-{sandbox.team}")
        except KeyError:
            return None
        return state if getattr(state, "container_name", None) is not None else None

    state = eventually(named)
    assert isinstance(state, SandboxState)
    assert state.container_name == sandbox.container


# --- commands: environment, exit codes, time limits ------------------------------------


def test_commands_get_the_configured_environment_and_the_client_only_path(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    sandbox = docker_sandbox(env={"GREETING": "configured", "ANSWER": "42"})
    result = sandbox.actor.exec(f'echo "$GREETING $ANSWER ${{{_AGENT_SECRET}:-unset}}"')
    assert result.stdout == "configured 42 unset\n"
    (exec_call,) = docker.records("exec")
    assert exec_call["argv"][:7] == [
        "exec", "--workdir", "/workspace", "--env", "ANSWER=42", "--env", "GREETING=configured",
    ]  # fmt: skip
    # The client runs with the host PATH only: nothing else of the agent's environment.
    assert exec_call["path"] == str(docker.executable.parent) + ":/usr/bin:/bin"
    assert _AGENT_SECRET not in exec_call["env_keys"]


def test_a_failing_command_reports_its_exit_code_and_stderr(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    sandbox = docker_sandbox()
    result = sandbox.actor.exec("bash -c 'echo broken >&2; exit 3'")
    assert (result.exit_code, result.stderr, result.error) == (3, "broken\n", None)
    assert docker.commands().count("exec") == 1  # a plain failure is not retried


def test_docker_messages_in_a_successful_output_are_not_mistaken_for_a_lost_container(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    sandbox = docker_sandbox()
    result = sandbox.actor.exec("echo ran >> runs.txt; echo 'No such container: x' >&2")
    assert result.exit_code == 0
    assert (sandbox.workspace / "runs.txt").read_text() == "ran\n"
    assert docker.commands() == ["image", "build", "rm", "run", "exec"]


def test_the_in_container_timeout_becomes_a_timeout_error(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    sandbox = docker_sandbox(timeout_seconds=1)
    result = sandbox.actor.exec("bash -c 'sleep 30'")
    assert result.timed_out
    assert result.exit_code is None
    assert result.error == (
        "SandboxError: TimeoutExpired: Command \"bash -c 'sleep 30'\" timed out after 1s"
    )
    assert result.duration_seconds < 10
    (exec_call,) = docker.records("exec")
    assert exec_call["argv"][-6:] == [
        "timeout", "--kill-after=2", "1", "bash", "-c", "bash -c 'sleep 30'",
    ]  # fmt: skip


# --- a container removed behind the backend's back -------------------------------------


def test_a_vanished_container_is_recreated_once_and_the_command_rerun(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    sandbox = docker_sandbox()
    assert sandbox.actor.exec("echo before >> runs.txt").exit_code == 0
    docker.remove_container(sandbox.container)
    result = sandbox.actor.exec("echo after >> runs.txt")
    assert (result.exit_code, result.error) == (0, None)
    assert (sandbox.workspace / "runs.txt").read_text() == "before\nafter\n"
    assert docker.commands() == [
        "image", "build", "rm", "run", "exec",
        "exec", "image", "rm", "run", "exec",
    ]  # fmt: skip
    # And it is known to be up again: the next command goes straight to exec.
    sandbox.actor.exec("echo ok")
    assert docker.commands()[10:] == ["exec"]


# --- failures of the client and the engine ---------------------------------------------


def test_a_failed_build_quotes_the_end_of_its_error_output(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    noise = "step output\n" * 10
    error = "E" * 1500 + "-" * 1000 + "failed to solve: exit code 1"
    docker.fail("build", stdout=noise, stderr=error)
    sandbox = docker_sandbox()
    result = sandbox.actor.exec("echo hi")
    assert result.command == "echo hi"
    assert result.error == (
        f"SandboxError: could not build image {SANDBOX_IMAGE}: {_tail_of(error)}"
    )
    assert "exec" not in docker.commands()


def test_a_failed_build_with_only_standard_output_quotes_it_whole(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    # Exactly as long as a quote may be: nothing is cut, no "..." added.
    output = "x" * 1990 + "last words"
    docker.fail("build", stdout=output + "\n")
    result = docker_sandbox().actor.exec("echo hi")
    assert result.error == f"SandboxError: could not build image {SANDBOX_IMAGE}: {output}"


def test_a_container_that_does_not_start_is_reported(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    error = "docker: Error response from daemon: " + "z" * 2001
    docker.fail("run", stdout="c0ffee\n", stderr=error)
    sandbox = docker_sandbox()
    result = sandbox.actor.exec("echo hi")
    assert result.command == "echo hi"
    assert result.error == (
        f"SandboxError: could not start container {sandbox.container}: {_tail_of(error)}"
    )
    # Not marked up: the next command tries to start it again.
    sandbox.actor.exec("echo again")
    assert docker.commands().count("run") == 2
    assert "exec" not in docker.commands()


def test_a_client_that_cannot_start_is_reported(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    docker.break_client()
    result = docker_sandbox().actor.exec("echo hi")
    assert result.command == "echo hi"
    assert result.error is not None
    assert result.error.startswith("SandboxError: FileNotFoundError: ")
    assert not DockerSandboxActor.probe()


def test_a_command_that_cannot_be_launched_is_reported(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    sandbox = docker_sandbox()
    assert sandbox.actor.exec("echo ok").exit_code == 0
    # The client process starts in the workspace: with it gone, nothing can be launched.
    sandbox.workspace.rmdir()
    result = sandbox.actor.exec("echo hi")
    assert result.command == "echo hi"
    assert result.error is not None
    assert result.error.startswith("SandboxError: FileNotFoundError: ")


def test_without_a_docker_client_the_command_is_refused_with_the_reason(
    docker: StandInDocker, docker_sandbox: SandboxFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox = docker_sandbox()
    monkeypatch.setenv("PATH", "/nonexistent")
    result = sandbox.actor.exec("echo hi")
    assert result.command == "echo hi"
    assert result.error == (
        "SandboxError: FileNotFoundError: docker is not on PATH; install Docker or use another mode"
    )


# --- probing the engine ----------------------------------------------------------------


def test_probe_asks_the_engine_for_its_version(docker: StandInDocker) -> None:
    assert DockerSandboxActor.probe()
    assert docker.calls() == [["info", "--format", "{{.ServerVersion}}"]]
    (docker.state / "engine-down").touch()
    assert not DockerSandboxActor.probe()


# --- how long callers wait -------------------------------------------------------------


def test_the_first_command_is_given_time_to_build_and_start(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    sandbox = docker_sandbox(timeout_seconds=30)
    # Command timeout + result margin (5 s) + client backstop (5 s), and before the
    # container is up: + image build (900 s) + two control commands (60 s each).
    first = sandbox.actor.submit("echo hi")
    assert first.wait_seconds == 30 + 5 + 5 + 900 + 2 * 60
    eventually(lambda: sandbox.actor.outcome(first.key), timeout=30)
    assert sandbox.actor.submit("echo hi").wait_seconds == 30 + 5 + 5


# --- stopping ---------------------------------------------------------------------------


def test_stopping_the_sandbox_removes_its_container(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    sandbox = docker_sandbox()
    sandbox.actor.exec("echo ok")
    sandbox.stop()
    assert docker.calls()[-1] == ["rm", "--force", sandbox.container]
    assert not docker.has_container(sandbox.container)
    # A sandbox of the same team started later makes a fresh container, first time right.
    again = docker_sandbox(team_id=sandbox.team)
    before = len(docker.calls())
    assert again.actor.exec("echo back").stdout == "back\n"
    assert docker.commands()[before:] == ["image", "rm", "run", "exec"]


def test_stopping_a_sandbox_that_never_ran_leaves_docker_alone(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    docker_sandbox().stop()
    assert docker.calls() == []


def test_a_container_that_cannot_be_removed_is_logged_and_the_stop_completes(
    docker: StandInDocker, docker_sandbox: SandboxFactory, caplog: pytest.LogCaptureFixture
) -> None:
    sandbox = docker_sandbox()
    sandbox.actor.exec("echo ok")
    docker.break_client()
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.sandbox.docker"):
        sandbox.stop()
    (message,) = [m for m in caplog.messages if "could not remove" in m]
    assert message.startswith(f"could not remove sandbox container {sandbox.container}: [Errno 2] ")


def test_stopping_the_sandbox_kills_a_running_command(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    sandbox = docker_sandbox(timeout_seconds=60)
    sandbox.actor.submit("bash -c 'sleep 299.5'")
    eventually(lambda: docker.records("exec"), timeout=30)
    stopper = threading.Thread(target=sandbox.actor.stop)
    stopper.start()
    # Were the command left running, the stop would wait for its 60 s timeout.
    stopper.join(timeout=30)
    assert not stopper.is_alive()


def test_a_command_killed_by_its_key_is_reported_cancelled(
    docker: StandInDocker, docker_sandbox: SandboxFactory
) -> None:
    """What a worker does with a job, on this thread: the key is what a stop kills by."""
    job = docker_sandbox(timeout_seconds=60).actor.build_launch("bash -c 'sleep 299.5'")
    results: list[ExecResult] = []
    runner = threading.Thread(target=lambda: results.append(run_docker_job("job-1", job)))
    runner.start()
    eventually(lambda: docker.records("exec"), timeout=30)
    assert eventually(lambda: kill_running(["job-1"])) == 1
    runner.join(timeout=30)
    (result,) = results
    assert result.command == "bash -c 'sleep 299.5'"
    assert result.error == (
        "SandboxError: Cancelled: Command \"bash -c 'sleep 299.5'\" was killed because the "
        "sandbox stopped"
    )
    assert result.exit_code is None


# --- an engine that stops answering ----------------------------------------------------


@pytest.fixture
def short_bounds(monkeypatch: pytest.MonkeyPatch) -> float:
    """Shorten the bounds on docker control commands (60 s; 900 s for a build; 5 s for the
    probe) so that a test can wait them out; what is checked is that they are applied."""
    bound = 0.5
    for name in ("_CONTROL_TIMEOUT_SECONDS", "_BUILD_TIMEOUT_SECONDS", "_PROBE_TIMEOUT_SECONDS"):
        monkeypatch.setattr(docker_module, name, bound)
    return bound


@pytest.mark.parametrize("command", ["image", "build", "rm", "run"])
def test_a_hung_engine_during_preparation_is_a_sandbox_error(
    docker: StandInDocker, docker_sandbox: SandboxFactory, short_bounds: float, command: str
) -> None:
    docker.hang(command)
    result = docker_sandbox().actor.exec("echo hi")
    assert result.command == "echo hi"
    assert result.error is not None
    # The message names the client call that did not answer.
    assert result.error.startswith(
        f"SandboxError: TimeoutExpired: Command '['{docker.executable}', '{command}', "
    )
    assert result.error.endswith(f"timed out after {short_bounds} seconds")
    assert docker.commands()[-1] == command


def test_a_hung_engine_does_not_hold_up_the_stop(
    docker: StandInDocker,
    docker_sandbox: SandboxFactory,
    short_bounds: float,
    caplog: pytest.LogCaptureFixture,
) -> None:
    sandbox = docker_sandbox()
    sandbox.actor.exec("echo ok")
    docker.hang("rm")
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.sandbox.docker"):
        sandbox.stop()
    (message,) = [m for m in caplog.messages if "could not remove" in m]
    assert message.endswith(f"timed out after {short_bounds} seconds")


def test_a_hung_engine_fails_the_probe(docker: StandInDocker, short_bounds: float) -> None:
    docker.hang("info")
    assert not DockerSandboxActor.probe()
