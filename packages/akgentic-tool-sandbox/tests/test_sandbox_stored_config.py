"""Stored sandbox configurations of akgentic-tool 1.6 load, round-trip and work.

Each entry of ``fixtures/stored_config.yaml`` uses the predecessor's field names. Every
entry passes core's standard stored-form checks (round trips, its ``__model__`` path).
Cards are then wired by a ``ToolFactory`` to an agent of a real team and their
``exec_command`` tool is called (with the predecessor's ``cmd`` and ``cwd`` parameters).
Stored actor configurations build a real sandbox actor in the team, whose ``exec`` runs a
command; the stored actor state validates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ConformanceRetry, StoredFormTests, ToolTestAgent
from akgentic.tool.sandbox import (
    SANDBOX_ACTOR_CLASSES,
    ExecTool,
    SandboxActor,
    SandboxConfig,
    SandboxState,
)

ENTRIES = StoredFormTests.stored_entries(__file__, yaml.safe_load)
STORED_CLASSES = (ExecTool, SandboxConfig, SandboxState)


class TestSandboxStoredForms(StoredFormTests):
    """Core's standard stored-form checks, on every stored entry.

    A SandboxConfig resolves its workspace from the environment when it is validated, so
    the models are validated under each test's workspaces root.
    """

    @pytest.fixture(autouse=True)
    def _root(self, workspaces_root: Path) -> None:
        """Stored configurations resolve their workspace in a fresh root."""

    @property
    def stored_models(self) -> list[BaseModel]:  # type: ignore[override]
        return StoredFormTests.models_of(ENTRIES, STORED_CLASSES)


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["about"] for entry in ENTRIES])
def test_a_stored_configuration_loads_and_works(
    entry: dict[str, Any],
    workspaces_root: Path,
    bwrap_works: bool,
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
) -> None:
    if entry.get("needs") == "bwrap" and not bwrap_works:
        pytest.skip("bubblewrap cannot create namespaces here")
    # Round trips are standard tests (TestSandboxStoredForms); here the loaded model works.
    (loaded,) = StoredFormTests.models_of([entry], STORED_CLASSES)

    if isinstance(loaded, ExecTool):
        factory = ToolFactory([loaded], observer=tool_agent, retry_exception=ConformanceRetry)
        (tool,) = factory.get_tools()
        for call in entry["calls"]:
            args = {key: call[key] for key in ("cmd", "cwd") if key in call}
            output = tool(**args)
            assert call["expect"] in output, output
        if loaded.workspace_id:
            assert (workspaces_root / loaded.workspace_id).is_dir()
    elif isinstance(loaded, SandboxConfig):
        # Without workspace_dir, the stored names say where the workspace is.
        expected = workspaces_root / (entry["config"].get("workspace_id") or loaded.team_id)
        assert Path(loaded.workspace_dir) == expected.resolve()
        assert loaded.role == "ToolActor"
        orch = actor_system.proxy_ask(orchestrator, Orchestrator)
        address = orch.getChildrenOrCreate(SANDBOX_ACTOR_CLASSES[loaded.mode], loaded)
        sandbox = actor_system.proxy_ask(address, SandboxActor, 30)
        for call in entry["calls"]:
            result = sandbox.exec(call["cmd"], call.get("cwd", ""))
            assert call["expect"] in result.render(), result
    else:
        assert isinstance(loaded, SandboxState)
        assert loaded.workspace_path == Path(entry["config"]["workspace_path"])
        assert loaded.container_name == entry["config"]["container_name"]
