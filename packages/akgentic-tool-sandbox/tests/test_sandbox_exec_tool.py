"""ExecTool bound to a real agent in a real actor system, on the local backend."""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.messages.orchestrator import StartMessage
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.channels import COMMAND, TOOL_CALL
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import (
    ConformanceRetry,
    ToolTestAgent,
    assert_card_conformance,
    eventually,
    spawn_tool_agent,
)
from akgentic.tool.core.workspace_dir import resolve_workspace_dir
from akgentic.tool.errors import RetriableError
from akgentic.tool.sandbox.actor import SANDBOX_ACTOR_NAME, SandboxActor
from akgentic.tool.sandbox.local import LocalSandboxActor
from akgentic.tool.sandbox.tool import SANDBOX_ACTOR_CLASSES, ExecCommand, ExecTool

Bind = Callable[..., tuple[ExecTool, Callable[[str], str]]]


def sandbox_children(system: ActorSystem, orchestrator: ActorAddress) -> list[ActorAddress]:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    return [m for m in orch.get_team() if m.name == SANDBOX_ACTOR_NAME]


def test_runs_a_command_and_reports_output_and_exit_code(bind_exec: Bind) -> None:
    _, run = bind_exec(mode="local")
    assert run("echo hello") == "exit_code: 0\n--- stdout ---\nhello"
    assert run("bash -c 'echo oops >&2; exit 3'") == "exit_code: 3\n--- stderr ---\noops"
    assert run("echo -n") == "exit_code: 0\n(no output)"
    # The command line is read by bash where there is one (here there is), not by sh.
    assert run("echo ${BASH_VERSION:+bash}") == "exit_code: 0\n--- stdout ---\nbash"


def test_commands_start_in_the_shared_workspace(
    bind_exec: Bind, workspaces_root: Path, tool_agent: ToolTestAgent
) -> None:
    _, run = bind_exec(mode="local", workspace_id="shared")
    workspace = resolve_workspace_dir("shared")
    assert workspace.parent == workspaces_root.resolve()
    assert run("bash -c pwd") == f"exit_code: 0\n--- stdout ---\n{workspace}"
    assert run("bash -c 'echo data > made.txt'").startswith("exit_code: 0")
    assert (workspace / "made.txt").read_text() == "data\n"


def test_workspace_defaults_to_the_team_id(bind_exec: Bind, tool_agent: ToolTestAgent) -> None:
    _, run = bind_exec(mode="local")
    run("touch marker")
    assert (resolve_workspace_dir(str(tool_agent.team_id)) / "marker").exists()


def test_disallowed_command_returns_the_allowlist(bind_exec: Bind) -> None:
    _, run = bind_exec(mode="local")
    answer = run("sleep 1")
    assert answer.startswith(
        "CommandNotAllowedError: Command 'sleep' is not in the allowed commands list. "
        "Allowed: ['bash', 'cat', 'cp',"
    )
    assert "'python3'" in answer
    assert "'touch'" in answer
    # A path is not a way around the list, and the list is configurable.
    assert run("/bin/echo hi").startswith("CommandNotAllowedError: Command '/bin/echo'")


def test_configured_allowlist_replaces_the_default(bind_exec: Bind) -> None:
    _, run = bind_exec(mode="local", allowed_commands=["echo"])
    assert run("echo ok") == "exit_code: 0\n--- stdout ---\nok"
    assert run("ls") == (
        "CommandNotAllowedError: Command 'ls' is not in the allowed commands list. "
        "Allowed: ['echo']"
    )


def test_timeout_is_a_sandbox_error_and_kills_the_child(
    bind_exec: Bind, alive: Callable[[int], bool]
) -> None:
    _, run = bind_exec(mode="local", timeout_seconds=1)
    answer = run("bash -c 'sleep 300 & echo $! > child.pid; sleep 300'")
    assert answer.startswith(
        "SandboxError: TimeoutExpired: Command \"bash -c 'sleep 300 & echo $! > child.pid; "
        "sleep 300'\" timed out after 1s"
    )
    child = int(run("cat child.pid").splitlines()[-1])
    eventually(lambda: not alive(child))


def test_timeout_message_matches_the_documented_shape(bind_exec: Bind) -> None:
    _, run = bind_exec(mode="local", timeout_seconds=1)
    answer = run("python3 -c 'import time; time.sleep(60)'")
    assert answer.splitlines()[0] == (
        "SandboxError: TimeoutExpired: Command \"python3 -c 'import time; time.sleep(60)'\" "
        "timed out after 1s"
    )


def test_long_output_is_capped_with_a_marker(bind_exec: Bind) -> None:
    _, run = bind_exec(mode="local", max_output_bytes=2000)
    answer = run("python3 -c \"print('x' * 100000)\"")
    assert answer.startswith("exit_code: 0\n--- stdout ---\nxxx")
    assert "bytes of output truncated ...]" in answer
    assert len(answer) < 2200


def test_environment_of_the_agent_does_not_leak(
    bind_exec: Bind, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    _, run = bind_exec(mode="local", env={"GREETING": "configured"})
    answer = run("bash -c 'echo \"[$OPENAI_API_KEY][$GREETING]\"'")
    assert answer == "exit_code: 0\n--- stdout ---\n[][configured]"


@pytest.mark.parametrize("mode", ["local", "bwrap"])
def test_configured_home_and_path_win_over_the_backend_defaults(
    bind_exec: Bind, mode: str, bwrap_works: bool
) -> None:
    if mode == "bwrap" and not bwrap_works:
        pytest.skip("bubblewrap cannot create namespaces here")
    # Each backend brings its own HOME (the workspace) and PATH; the card's env is the
    # user's explicit choice and must override both.
    _, run = bind_exec(mode=mode, env={"HOME": "/configured/home", "PATH": "/usr/bin:/bin"})
    answer = run("bash -c 'echo \"[$HOME][$PATH]\"'")
    assert answer == "exit_code: 0\n--- stdout ---\n[/configured/home][/usr/bin:/bin]"


# What bash adds to the environment of a program it runs, on top of what it was given.
_SHELL_ADDED = ("PWD", "OLDPWD", "SHLVL", "_")


def environment_seen(run: Callable[[str], str]) -> dict[str, str]:
    """The environment a command of this sandbox starts with (less what bash adds)."""
    header, _, listing = run("bash -c env").partition("\n--- stdout ---\n")
    assert header == "exit_code: 0"
    seen = dict(line.split("=", 1) for line in listing.splitlines())
    for name in _SHELL_ADDED:
        seen.pop(name, None)
    return seen


@pytest.mark.parametrize("mode", ["local", "bwrap"])
def test_a_command_sees_exactly_the_backend_environment(
    bind_exec: Bind, mode: str, bwrap_works: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if mode == "bwrap" and not bwrap_works:
        pytest.skip("bubblewrap cannot create namespaces here")
    # The agent's PATH, unlike any default: a local command gets it (its programs are the
    # host's); under bwrap the system PATH of the sandbox replaces it.
    agent_path = "/opt/akgentic-test/bin:/usr/bin:/bin"
    monkeypatch.setenv("PATH", agent_path)
    _, run = bind_exec(mode=mode, workspace_id="env")
    assert environment_seen(run) == {
        "PATH": agent_path if mode == "local" else "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(resolve_workspace_dir("env").resolve()),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "PYTHONUNBUFFERED": "1",
    }


def test_an_agent_without_a_path_gives_local_commands_the_usual_system_one(
    bind_exec: Bind, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PATH")
    _, run = bind_exec(mode="local")
    assert environment_seen(run)["PATH"] == "/usr/local/bin:/usr/bin:/bin"


def test_bad_calls_ask_the_model_to_retry_and_run_nothing(bind_exec: Bind) -> None:
    tool, run = bind_exec(mode="local")
    for bad in ["", "   ", "echo 'unterminated", "echo \x00"]:
        with pytest.raises(ConformanceRetry):
            run(bad)
    # what the model is told, word for word
    told = {
        ("", ""): "cmd is empty; pass a shell command such as 'ls -la'",
        ("echo \x00", ""): "cmd contains a NUL byte; remove it and try again",
        ("ls", "a\x00b"): "cwd must be a directory path relative to the workspace",
        ("ls", 7): "cwd must be a directory path relative to the workspace",
    }
    for (command, cwd), message in told.items():
        with pytest.raises(RetriableError) as refused:
            tool.run(command, cwd)  # type: ignore[arg-type]
        assert str(refused.value) == message


def test_an_unbound_exec_tool_says_it_was_never_bound() -> None:
    with pytest.raises(
        RuntimeError, match=r"^ExecTool used before observer\(\) bound it to an agent$"
    ):
        ExecTool().run("ls")


def test_one_sandbox_actor_per_team_shared_by_every_agent(
    actor_system: ActorSystem, orchestrator: ActorAddress, bind_exec: Bind
) -> None:
    other = spawn_tool_agent(actor_system, orchestrator, name="@Other")
    _first, run_a = bind_exec(mode="local", workspace_id="team")
    second, run_b = bind_exec(agent=other, mode="local", workspace_id="team")
    run_a("bash -c 'echo from-a > a.txt'")
    assert run_b("cat a.txt") == "exit_code: 0\n--- stdout ---\nfrom-a"
    assert len(sandbox_children(actor_system, orchestrator)) == 1
    # The second card reuses the actor the first one created, settings included.
    assert second.resolved_mode == "local"


def test_a_card_asking_for_another_sandbox_is_told_which_one_it_got(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    bind_exec: Bind,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bind_exec(mode="local", workspace_id="team")
    agents = [spawn_tool_agent(actor_system, orchestrator, name=f"@Other{n}") for n in (1, 2)]
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.sandbox.tool"):
        bind_exec(agent=agents[0], mode="local", workspace_id="team")
        assert caplog.messages == []  # the same sandbox asked for: nothing to say
        elsewhere, _ = bind_exec(agent=agents[1], mode="local", workspace_id="elsewhere")
    asked, used = resolve_workspace_dir("elsewhere"), resolve_workspace_dir("team")
    assert caplog.messages == [
        f"ExecTool asked for mode=local in {asked}, but the team's #SandboxActor already runs "
        f"mode=local in {used}; the existing sandbox is used"
    ]
    assert elsewhere.resolved_mode == "local"


def test_a_card_outside_a_team_is_refused_with_the_reason() -> None:
    class Lone:
        """An observer with no orchestrator to host the sandbox."""

    with pytest.raises(RuntimeError) as refused:
        ExecTool(mode="local").observer(Lone())  # type: ignore[arg-type]
    assert str(refused.value) == (
        "ExecTool needs an agent that belongs to a team: its observer has no orchestrator "
        "to host the #SandboxActor"
    )


def test_later_cards_reuse_the_existing_actor_as_configured(
    actor_system: ActorSystem, orchestrator: ActorAddress, bind_exec: Bind
) -> None:
    other = spawn_tool_agent(actor_system, orchestrator, name="@Other")
    bind_exec(mode="local", timeout_seconds=1)
    _, run_b = bind_exec(agent=other, mode="local", timeout_seconds=50)
    assert "timed out after 1s" in run_b("python3 -c 'import time; time.sleep(30)'")


def test_a_slow_command_does_not_block_other_agents(
    actor_system: ActorSystem, orchestrator: ActorAddress, bind_exec: Bind
) -> None:
    """The first command waits for a file that only the second command creates.

    If the sandbox actor ran commands on its own thread, the second command would queue
    behind the first, the file would never appear, and the first would time out.
    """
    other = spawn_tool_agent(actor_system, orchestrator, name="@Other")
    _, run_a = bind_exec(mode="local", timeout_seconds=20)
    _, run_b = bind_exec(agent=other, mode="local", timeout_seconds=20)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        waiting = pool.submit(
            run_a, "bash -c 'while [ ! -e go ]; do sleep 0.02; done; echo released'"
        )
        eventually(lambda: run_b("bash -c 'touch go && echo sent'").endswith("sent"))
        assert waiting.result(timeout=30) == "exit_code: 0\n--- stdout ---\nreleased"


def test_workers_are_hash_named_tool_actors(
    actor_system: ActorSystem, orchestrator: ActorAddress, bind_exec: Bind
) -> None:
    _, run = bind_exec(mode="local")
    run("echo one")
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    started = [msg.config.name for msg in orch.get_messages(message_type=StartMessage)]
    workers = [name for name in started if name.startswith("#exec-")]
    assert len(workers) == 1, started
    # One-shot: the worker stopped itself after delivering.
    eventually(lambda: all(m.name != workers[0] for m in orch.get_team()))


def test_exposed_as_a_command_when_asked(workspaces_root: Path, tool_agent: ToolTestAgent) -> None:
    card = ExecTool(mode="local", exec_command=ExecCommand(expose={TOOL_CALL, COMMAND}))
    factory = ToolFactory([card], observer=tool_agent)
    assert factory.commands.execute('/exec_command "echo via-command"') == (
        "exit_code: 0\n--- stdout ---\nvia-command"
    )
    hidden = ExecTool(mode="local", exec_command=False)
    assert ToolFactory([hidden], observer=tool_agent).get_tools() == []


def test_instructions_reach_the_tool_description(
    workspaces_root: Path, tool_agent: ToolTestAgent
) -> None:
    card = ExecTool(mode="local", exec_command=ExecCommand(instructions="Run pytest -q only."))
    (tool,) = ToolFactory([card], observer=tool_agent).get_tools()
    assert tool.__name__ == "exec_command"
    assert tool.__doc__ is not None
    assert tool.__doc__.endswith("Run pytest -q only.")


def test_card_conformance(workspaces_root: Path, tool_agent: ToolTestAgent) -> None:
    assert_card_conformance(
        ExecTool(mode="local", timeout_seconds=2, network=True, env={"A": "b"}),
        observer=tool_agent,
        bad_calls={
            "exec_command": [
                {"cmd": ""},
                {"cmd": "echo 'open"},
            ]
        },
    )


def test_card_with_a_capability_param_round_trips() -> None:
    assert_card_conformance(
        ExecTool(
            mode="bwrap",
            run_as_uid=1234,
            exec_command=ExecCommand(expose={TOOL_CALL, COMMAND}, instructions="Be brief."),
        )
    )
    assert_card_conformance(ExecTool(exec_command=False))


def test_unknown_mode_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"mode 'e2b' is not a known sandbox backend"):
        ExecTool(mode="e2b")


class _LabelledSandboxActor(LocalSandboxActor):
    """A backend registered from outside: the local one, with a label in the environment."""

    def build_launch(self, command: str) -> Any:
        spec = super().build_launch(command)
        return spec.model_copy(update={"env": {**spec.env, "SANDBOX_LABEL": "registered"}})


def test_backends_can_be_registered(bind_exec: Bind) -> None:
    SANDBOX_ACTOR_CLASSES["labelled"] = _LabelledSandboxActor
    try:
        card, run = bind_exec(mode="labelled")
        assert run("bash -c 'echo $SANDBOX_LABEL'") == "exit_code: 0\n--- stdout ---\nregistered"
        assert card.resolved_mode == "labelled"
    finally:
        del SANDBOX_ACTOR_CLASSES["labelled"]


def test_a_card_outside_a_team_is_a_configuration_error(workspaces_root: Path) -> None:
    class Loner:
        orchestrator = None

        def notify_event(self, event: object) -> None:
            del event

    with pytest.raises(RuntimeError, match="belongs to a team"):
        ExecTool(mode="local").observer(Loner())


def test_a_stopped_sandbox_actor_is_reported_not_raised(
    actor_system: ActorSystem, orchestrator: ActorAddress, bind_exec: Bind
) -> None:
    _, run = bind_exec(mode="local")
    (address,) = sandbox_children(actor_system, orchestrator)
    actor_system.proxy_ask(address, SandboxActor).stop()
    eventually(lambda: not address.is_alive())
    assert run("echo hi").startswith("SandboxError: ActorDeadError")


def test_the_run_as_user_needs_privileges(bind_exec: Bind) -> None:
    if os.geteuid() == 0:
        pytest.skip("running as root: switching user is allowed here")
    _, run = bind_exec(mode="local", run_as_uid=0)
    assert run("echo hi").startswith("SandboxError: PermissionError")


def test_finished_workers_are_not_kept_by_the_actor(
    actor_system: ActorSystem, orchestrator: ActorAddress, bind_exec: Bind
) -> None:
    _, run = bind_exec(mode="local")
    for i in range(10):
        assert run(f"echo {i}").endswith(str(i))
    (address,) = sandbox_children(actor_system, orchestrator)
    sandbox = actor_system.proxy_ask(address, SandboxActor)
    stats = sandbox.stats()
    assert stats["spawned"] == 10
    # Each submit drops the workers that have stopped; at most the last one or two (a
    # worker stops just after delivering) can still be held.
    assert stats["children"] <= 2


def test_unparseable_lines_reaching_the_actor_are_reported() -> None:
    from akgentic.tool.sandbox.allowlist import check_command

    assert check_command("echo 'open", {"echo"}) == (
        "SandboxError: could not parse the command line (No closing quotation); check its quoting"
    )
    assert check_command("echo ok", {"echo"}) is None


def test_a_backend_that_cannot_prepare_answers_with_a_sandbox_error(
    bind_exec: Bind, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, run = bind_exec(mode="bwrap")
    monkeypatch.setenv("PATH", str(tmp_path))  # bwrap disappears after binding
    assert run("echo hi") == (
        "SandboxError: FileNotFoundError: bwrap is not on PATH; install bubblewrap or use "
        "mode='local'"
    )


def test_stopping_the_sandbox_kills_running_commands(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    bind_exec: Bind,
    running: Callable[[str], list[int]],
) -> None:
    """A stop does not wait for a running command's (long) timeout: it kills the command."""
    from concurrent.futures import ThreadPoolExecutor

    # A sleep of its own: the check below reads every process of the machine, and other
    # runs of this test (mutation testing runs several at once) must not count.
    sleep = f"time.sleep(299.{uuid.uuid4().int % 10**6:06d})"
    command = f"python3 -c 'import time; {sleep}'"
    _, run = bind_exec(mode="local", timeout_seconds=60)
    with ThreadPoolExecutor(max_workers=2) as pool:
        waiting = pool.submit(run, command)
        eventually(lambda: running(sleep))
        (address,) = sandbox_children(actor_system, orchestrator)
        stopper = pool.submit(actor_system.proxy_ask(address, SandboxActor).stop)
        # Were the command left running, stop() would block for its 60 s timeout.
        stopper.result(timeout=30)
        # The caller reads either the cancellation (if it polled before the actor went
        # away) or the dead actor: in both cases a SandboxError, not a hang or a raise.
        answer = waiting.result(timeout=30)
        assert answer.startswith(
            (
                f'SandboxError: Cancelled: Command "{command}" was killed because the sandbox '
                "stopped",
                "SandboxError: ActorDeadError",
            )
        ), answer
    eventually(lambda: not running(sleep))


def test_node_needs_more_address_space_than_the_default(bind_exec: Bind) -> None:
    """V8 reserves over 512 MiB of address space at start: raising memory_bytes fixes it."""
    import shutil
    import sys

    if shutil.which("node") is None or sys.platform != "linux":
        pytest.skip("needs node on Linux (where RLIMIT_AS applies)")
    _, run = bind_exec(mode="local", memory_bytes=2 * 1024**3)
    assert run("node -e 'console.log(6 * 7)'") == "exit_code: 0\n--- stdout ---\n42"


@pytest.mark.skipif(os.geteuid() != 0, reason="switching user and group needs root")
def test_a_command_runs_as_the_configured_user_and_group(
    bind_exec: Bind, unprivileged_root: tuple[Path, dict[str, Any]]
) -> None:
    _, as_user = unprivileged_root
    _, run = bind_exec(mode="local", workspace_id="ids", **as_user)
    ids = f"{as_user['run_as_uid']} {as_user['run_as_gid']}"
    assert run("bash -c 'echo $(id -u) $(id -g)'") == f"exit_code: 0\n--- stdout ---\n{ids}"
