"""Backend selection, and the docker and seatbelt backends up to the command lines they run.

Neither a Docker engine nor macOS is available where these tests run, so docker and
seatbelt are checked on the exact argv / profile they would execute, and on the error
string a missing engine or missing ``sandbox-exec`` produces through the real actor.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.sandbox.bwrap import BwrapSandboxActor
from akgentic.tool.sandbox.config import SandboxConfig, SandboxSettings
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
    sandbox_image,
)
from akgentic.tool.sandbox.seatbelt import (
    SANDBOX_EXEC,
    SeatbeltSandboxActor,
    seatbelt_argv,
    seatbelt_profile,
)
from akgentic.tool.sandbox.tool import ExecTool, _await_result, _resolve_auto_mode

Bind = Callable[..., tuple[ExecTool, Callable[[str], str]]]

_MIB = 1024 * 1024


# --- auto mode -------------------------------------------------------------------------


def test_auto_prefers_bwrap_when_it_works(bwrap_works: bool) -> None:
    if not bwrap_works:
        pytest.skip("bubblewrap cannot create namespaces here")
    assert _resolve_auto_mode() == "bwrap"


def test_auto_card_binds_the_probed_backend(bind_exec: Bind, bwrap_works: bool) -> None:
    if not bwrap_works:
        pytest.skip("bubblewrap cannot create namespaces here")
    card, run = bind_exec()
    assert card.mode == "auto"
    assert card.resolved_mode == "bwrap"
    assert "Read-only file system" in run("touch /etc/auto-probe")


def test_auto_falls_back_to_local_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An empty PATH: no bwrap, no docker client (and this is not macOS).
    monkeypatch.setenv("PATH", str(tmp_path))
    if sys.platform == "darwin":
        pytest.skip("sandbox-exec lives at a fixed path on macOS")
    assert not BwrapSandboxActor.probe()
    assert not DockerSandboxActor.probe()
    with pytest.warns(DeprecationWarning, match="falls back to 'local'"):
        assert _resolve_auto_mode() == "local"


# --- docker ----------------------------------------------------------------------------


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


# --- seatbelt --------------------------------------------------------------------------


def test_seatbelt_profile_confines_writes_and_network() -> None:
    profile = seatbelt_profile('/Users/a "b"\\c/ws')
    # Writes: nowhere but the workspace, the temporary folders and the harmless devices.
    assert profile.splitlines() == [
        "(version 1)",
        "(allow default)",
        "(deny file-write*)",
        "(allow file-write*",
        '    (subpath "/Users/a \\"b\\"\\\\c/ws")',
        '    (subpath "/private/tmp")',
        '    (subpath "/private/var/folders")',
        '    (literal "/dev/null")',
        '    (literal "/dev/zero")',
        '    (literal "/dev/tty")',
        '    (regex #"^/dev/fd/"))',
        "(deny network*)",
    ]
    assert profile.endswith("(deny network*)\n")
    assert seatbelt_profile("/ws", network=True) == profile.replace(
        '"/Users/a \\"b\\"\\\\c/ws"', '"/ws"'
    ).replace("(deny network*)\n", "")


def test_seatbelt_command_line() -> None:
    argv = seatbelt_argv(workspace_dir="/ws", command="ls -la")
    assert argv == [SANDBOX_EXEC, "-p", seatbelt_profile("/ws"), "/bin/bash", "-c", "ls -la"]
    networked = seatbelt_argv(workspace_dir="/ws", command="ls", network=True)
    assert networked[2] == seatbelt_profile("/ws", network=True)


# Its start warning is checked by the test after this one.
@pytest.mark.filterwarnings("ignore:The seatbelt sandbox:DeprecationWarning")
@pytest.mark.parametrize("network", [False, True])
def test_seatbelt_launch_confines_the_resolved_workspace(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path, network: bool
) -> None:
    """Seatbelt matches resolved paths: a workspace reached through a link is resolved."""
    real = tmp_path / "real-ws"
    real.mkdir()
    link = tmp_path / "ws-link"
    link.symlink_to(real)
    config = SandboxConfig(
        mode="seatbelt", workspace_dir=str(link), network=network, memory_bytes=64 * _MIB
    )
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(SeatbeltSandboxActor, config)
    sandbox = actor_system.proxy_ask(address, SeatbeltSandboxActor, 30)
    spec = sandbox.build_launch("ls -la")
    assert spec.argv == seatbelt_argv(workspace_dir=str(real), command="ls -la", network=network)
    assert spec.env["HOME"] == str(real)
    # macOS does not enforce an address-space cap reliably: the other limits stay.
    assert spec.address_space_bytes is None
    assert (spec.cpu_seconds, spec.max_processes) == (config.cpu_seconds, config.max_processes)


@pytest.mark.skipif(sys.platform == "darwin", reason="checks the behaviour off macOS")
def test_seatbelt_warns_at_start_and_reports_a_missing_sandbox_exec(bind_exec: Bind) -> None:
    with pytest.warns(DeprecationWarning, match="sandbox-exec"):
        _, run = bind_exec(mode="seatbelt")
    answer = run("echo hi")
    assert answer.startswith("SandboxError: FileNotFoundError")
    assert "sandbox-exec" in answer


# --- polling ---------------------------------------------------------------------------


def test_polling_is_bounded_and_backs_off() -> None:
    now = [0.0]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    assert _await_result(lambda: None, 1.0, sleep=sleep, clock=lambda: now[0]) is None
    assert now[0] == pytest.approx(1.0)
    assert sleeps[:4] == pytest.approx([0.005, 0.0075, 0.01125, 0.016875])
    assert max(sleeps) == 0.2
