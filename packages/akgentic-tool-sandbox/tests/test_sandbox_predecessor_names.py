"""The shapes akgentic-tool 1.6 had, and what they do here, on real sandboxes.

- the model's tool is ``exec_command(cmd, cwd="")``, as in the predecessor's schema;
- ``cwd`` runs the command in a workspace subdirectory, and cannot leave the workspace;
- ``SandboxActor.exec(cmd, cwd="")`` runs a command for code that asks the actor directly,
  raising ``CommandNotAllowedError`` for a program outside the allowlist;
- the actor's role is ``ToolActor`` and its ``SandboxState`` records the workspace.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import (
    ConformanceRetry,
    TeamRecorder,
    ToolTestAgent,
    eventually,
    record_team,
    settle,
)
from akgentic.tool.errors import RetriableError
from akgentic.tool.sandbox import (
    ALLOWED_COMMANDS,
    DOCKER_EXEC_TIMEOUT,
    SANDBOX_ACTOR_NAME,
    SANDBOX_ACTOR_ROLE,
    CommandNotAllowedError,
    ExecCommand,
    ExecResult,
    ExecTool,
    LocalSandboxActor,
    SandboxActor,
    SandboxConfig,
    SandboxState,
)
from akgentic.tool.sandbox import tool as tool_module

Bind = Callable[..., tuple[ExecTool, Callable[..., str]]]


def test_constants_keep_their_values() -> None:
    assert SANDBOX_ACTOR_ROLE == "ToolActor"
    assert SANDBOX_ACTOR_NAME == "#SandboxActor"
    assert tool_module.SANDBOX_ACTOR_NAME == SANDBOX_ACTOR_NAME
    assert tool_module.ALLOWED_COMMANDS is ALLOWED_COMMANDS
    assert DOCKER_EXEC_TIMEOUT == 60
    assert SandboxConfig(workspace_dir="/w").role == "ToolActor"
    assert ExecResult.model_validate({"exit_code": 0, "stdout": "x", "stderr": ""}).stdout == "x"


async def test_the_model_calls_exec_command_with_cmd_and_cwd(
    workspaces_root: Path, tool_agent: ToolTestAgent
) -> None:
    card = ExecTool(mode="local")
    factory = ToolFactory([card], observer=tool_agent)
    (workspace,) = list(workspaces_root.iterdir())
    (workspace / "app").mkdir()
    seen: dict[str, Any] = {}

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        (tool,) = info.function_tools
        seen["schema"] = tool.parameters_json_schema
        if len(messages) == 1:
            return ModelResponse(
                parts=[ToolCallPart("exec_command", {"cmd": "bash -c pwd", "cwd": "app"})]
            )
        seen["answer"] = messages[-1].parts[0].content  # type: ignore[union-attr]
        return ModelResponse(parts=[TextPart("done")])

    await Agent(FunctionModel(respond), tools=factory.get_tools()).run("where am I")
    schema = seen["schema"]
    # The predecessor's shape (tool-schemas.json): cmd required, cwd optional, both strings.
    assert schema["required"] == ["cmd"]
    assert schema["properties"]["cmd"]["type"] == "string"
    assert schema["properties"]["cwd"]["type"] == "string"
    assert seen["answer"].endswith(str(workspace / "app"))


def test_cwd_runs_in_a_workspace_subdirectory(bind_exec: Bind, workspaces_root: Path) -> None:
    _, run = bind_exec(mode="local")
    assert run("mkdir -p 'a b/c'").startswith("exit_code: 0")
    assert run("bash -c pwd", "a b/c").endswith("/a b/c")
    assert run("bash -c pwd", ".") == run("bash -c pwd")
    assert run("bash -c pwd", "a b/c/..").endswith("/a b")


@pytest.mark.parametrize("cwd", ["..", "../..", "/etc", "a/../../x"])
def test_cwd_cannot_leave_the_workspace(bind_exec: Bind, cwd: str) -> None:
    _, run = bind_exec(mode="local")
    with pytest.raises(ConformanceRetry):
        run("ls", cwd)


def test_cwd_must_exist_and_links_out_are_refused(bind_exec: Bind, workspaces_root: Path) -> None:
    _, run = bind_exec(mode="local")
    with pytest.raises(ConformanceRetry, match="not a directory"):
        run("ls", "missing")
    (workspace,) = list(workspaces_root.iterdir())
    (workspace / "out").symlink_to("/etc")
    with pytest.raises(ConformanceRetry):
        run("ls", "out")


def test_cwd_inside_bubblewrap(require_bwrap: None, bind_exec: Bind) -> None:
    _, run = bind_exec(mode="bwrap")
    assert run("mkdir -p pkg").startswith("exit_code: 0")
    # Inside bwrap the workspace has another path; the cd is relative to it.
    inside_root = run("bash -c pwd").splitlines()[-1]
    assert run("bash -c pwd", "pkg").splitlines()[-1] == f"{inside_root.rstrip('/')}/pkg"


def test_the_allowlist_still_applies_with_a_cwd(bind_exec: Bind) -> None:
    _, run = bind_exec(mode="local")
    assert run("mkdir sub").startswith("exit_code: 0")
    assert run("nc -l 1", "sub").startswith("CommandNotAllowedError: Command 'nc'")


def test_instructions_go_through_format_docstring(
    workspaces_root: Path, tool_agent: ToolTestAgent
) -> None:
    param = ExecCommand(instructions="Use pytest -q.")
    assert param.format_docstring("Run it.\n") == "Run it.\n\nUse pytest -q."
    assert ExecCommand().format_docstring("Run it.") == "Run it."
    (tool,) = ToolFactory(
        [ExecTool(mode="local", exec_command=param)],
        observer=tool_agent,
        retry_exception=ConformanceRetry,
    ).get_tools()
    assert tool.__doc__ is not None
    assert tool.__doc__.endswith("Use pytest -q.")


def _sandbox(
    actor_system: ActorSystem, orchestrator: ActorAddress, workspace: Path, **fields: Any
) -> SandboxActor:
    config = SandboxConfig(mode="local", workspace_dir=str(workspace), **fields)
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(LocalSandboxActor, config)
    sandbox: SandboxActor = actor_system.proxy_ask(address, SandboxActor, 30)
    return sandbox


def test_exec_runs_a_command_on_the_actor(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> None:
    sandbox = _sandbox(actor_system, orchestrator, tmp_path / "ws")
    (tmp_path / "ws" / "sub").mkdir()
    result = sandbox.exec("bash -c pwd", "sub")
    assert result.exit_code == 0
    assert result.stdout.strip() == str((tmp_path / "ws" / "sub").resolve())
    failed = sandbox.exec("bash -c 'echo no >&2; exit 4'")
    assert (failed.exit_code, failed.stderr.strip()) == (4, "no")
    with pytest.raises(CommandNotAllowedError, match="'nc' is not in the allowed commands"):
        sandbox.exec("nc -l 1")
    with pytest.raises(RetriableError, match="not a directory"):
        sandbox.exec("ls", "missing")


def test_exec_is_bounded_by_the_timeout(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> None:
    config = SandboxConfig(
        name="#SandboxActor-fast", mode="local", workspace_dir=str(tmp_path), timeout_seconds=1
    )
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    sandbox = actor_system.proxy_ask(
        orch.getChildrenOrCreate(LocalSandboxActor, config), SandboxActor, 30
    )
    result = sandbox.exec("python3 -c 'import time; time.sleep(20)'")
    assert result.timed_out
    assert result.error is not None
    assert result.error.startswith("SandboxError: TimeoutExpired")


def test_the_actor_state_records_the_workspace(
    actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path
) -> None:
    recorder = record_team(actor_system, orchestrator)
    sandbox = _sandbox(actor_system, orchestrator, tmp_path / "ws")
    assert sandbox.describe().role == "ToolActor"
    settle(actor_system, orchestrator)
    state = eventually(lambda: _recorded_state(recorder))
    assert isinstance(state, SandboxState)
    assert state.workspace_path == tmp_path / "ws"
    assert state.container_name is None  # only docker has a container


def _recorded_state(recorder: TeamRecorder) -> Any:
    try:
        return recorder.record.state_of(SANDBOX_ACTOR_NAME)
    except KeyError:
        return None


def test_stored_config_without_workspace_dir_resolves_it(workspaces_root: Path) -> None:
    by_team = SandboxConfig.model_validate({"team_id": "team-7", "mode": "local"})
    assert Path(by_team.workspace_dir) == (workspaces_root / "team-7").resolve()
    assert not (workspaces_root / "team-7").exists()  # validation creates nothing
    by_name = SandboxConfig.model_validate({"team_id": "team-7", "workspace_id": "shared"})
    assert Path(by_name.workspace_dir) == (workspaces_root / "shared").resolve()
    with pytest.raises(ValueError, match="workspace_id or team_id"):
        SandboxConfig.model_validate({"mode": "local"})
    with pytest.raises(ValueError, match="outside"):
        SandboxConfig.model_validate({"workspace_id": "../escape"})
    dumped = json.loads(by_name.model_dump_json())
    assert SandboxConfig.model_validate(dumped).workspace_dir == by_name.workspace_dir
