"""Stored tool configurations of the former single distribution, all tools at once.

Each tool package keeps a fixture of configurations written with the predecessor's field
names (`tests/fixtures/stored_config.yaml`) and tests each entry on its own. Here every card
entry of every package is loaded the way an agent catalog or a persisted team would be:
validated by its class name (cards, actor configurations and states, from the package that
owns them), dumped and validated again; then one card per tool goes into a single
`ToolFactory` on a real team member.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool import ToolCard, ToolFactory
from akgentic.tool.core.testing import spawn_tool_agent
from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(ROOT.glob("packages/*/tests/fixtures/stored_config.yaml"))


def _card_entries() -> list[tuple[str, str, dict[str, Any]]]:
    entries = []
    for fixture in FIXTURES:
        package = fixture.parents[2].name
        for entry in yaml.safe_load(fixture.read_text()) or []:
            config = entry.get("config")
            # entries filled in at run time by their package's test (servers, interpreters)
            if "card" not in entry or "${" in repr(config):
                continue
            entries.append((package, entry["card"], config or {}))
    return entries


ENTRIES = _card_entries()


def test_every_tool_package_keeps_a_fixture() -> None:
    packages = {p.parents[2].name for p in FIXTURES}
    tools = {p.name for p in ROOT.glob("packages/akgentic-tool-*")} - {"akgentic-tool-core"}
    assert tools <= packages
    assert {card for _, card, _ in ENTRIES} >= {
        "WorkspaceTool",
        "PlanningTool",
        "KnowledgeGraphTool",
        "VectorStoreTool",
        "SearchTool",
        "TeamTool",
        "NotificationTool",
        "ExecTool",
    }


def _model(package: str, name: str) -> Any:
    module = "akgentic.tool." + package.removeprefix("akgentic-tool-").replace("-", "_")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("package", "card", "config"), ENTRIES)
def test_a_stored_model_loads_and_round_trips(
    package: str, card: str, config: dict[str, Any]
) -> None:
    cls = _model(package, card)
    loaded = cls.model_validate(config)
    again = cls.model_validate(loaded.model_dump())
    assert again.model_dump() == loaded.model_dump()


def test_one_card_per_tool_builds_one_working_factory(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(WORKSPACES_ROOT_ENV, str(tmp_path / "workspaces"))
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test-not-used")
    chosen: dict[str, ToolCard] = {}
    for package, name, config in ENTRIES:
        cls = _model(package, name)
        # MCP needs a live server: its package's own test starts one
        is_card = isinstance(cls, type) and issubclass(cls, ToolCard)
        if is_card and name not in chosen and name != "MCPTool":
            chosen[name] = cls.model_validate(config)
    agent = spawn_tool_agent(actor_system, orchestrator, name="@Catalogued")
    factory = ToolFactory(list(chosen.values()), observer=agent)
    tools = {tool.__name__: tool for tool in factory.get_tools()}
    assert {"workspace_write", "update_planning", "update_graph", "exec_command"} <= set(tools)
    assert "Created notes.md" in tools["workspace_write"]("notes.md", "stored configs work\n")
    assert "stored configs work" in tools["workspace_read"]("notes.md")
    assert (tmp_path / "workspaces").is_dir()
