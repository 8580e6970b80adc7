"""Backend selection, and the seatbelt backend up to the command line it runs.

macOS is not available where these tests run, so seatbelt is checked on the exact profile
and argv it would execute, and on the error a missing ``sandbox-exec`` produces through the
real actor. The docker backend has a module of its own, ``test_sandbox_docker_backend``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.sandbox.bwrap import BwrapSandboxActor
from akgentic.tool.sandbox.config import SandboxConfig
from akgentic.tool.sandbox.docker import DockerSandboxActor
from akgentic.tool.sandbox.seatbelt import (
    SANDBOX_EXEC,
    SeatbeltSandboxActor,
    seatbelt_argv,
    seatbelt_profile,
)
from akgentic.tool.sandbox.tool import ExecTool, _await_result, _resolve_auto_mode

Bind = Callable[..., tuple[ExecTool, Callable[[str], str]]]


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
        mode="seatbelt", workspace_dir=str(link), network=network, memory_bytes=64 * 1024 * 1024
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
