"""The akgentic.tool root: eager core names, lazy domain names, helpful failures."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

import akgentic.tool
import akgentic.tool.core
from akgentic.tool.core import ToolCard, registry


@pytest.fixture
def fake_exports(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    table: dict[str, str] = {}
    monkeypatch.setattr(registry, "exported_names", lambda: table)
    yield table
    for name in ("FakeTool", "FakeHelper"):
        akgentic.tool.__dict__.pop(name, None)


def test_core_names_are_on_the_root() -> None:
    from akgentic.tool import RetriableError, ToolFactory, ToolStateEvent

    assert ToolFactory is akgentic.tool.core.ToolFactory
    assert RetriableError.__module__ == "akgentic.tool.errors"
    assert ToolStateEvent.__module__ == "akgentic.tool.core.event"


def test_root_and_core_surfaces_are_pinned() -> None:
    expected = {
        "COMMAND", "SYSTEM_PROMPT", "TOOL_CALL", "ActorToolObserver", "BaseToolParam",
        "CardDependencyError", "Channels", "CommandArg", "CommandDescriptor",
        "CommandNotRecognized", "CommandRegistry", "CommandsAnnouncedEvent", "RetriableError",
        "ToolCard", "ToolFactory", "ToolObserver", "ToolObserverGone", "ToolStateEvent",
        "order_cards", "resolve_param", "Capability",
        # approval gates
        "ApprovalDecidedEvent", "ApprovalDecision", "ApprovalGate", "ApprovalRequestedEvent",
        "PendingApproval",
    }  # fmt: skip
    assert set(akgentic.tool.__all__) == expected
    assert set(akgentic.tool.core.__all__) == expected
    for name in expected:
        assert getattr(akgentic.tool, name) is getattr(akgentic.tool.core, name)


def test_installed_export_resolves_lazily(fake_exports: dict[str, str]) -> None:
    fake_exports["FakeTool"] = "akgentic.tool.core.card:ToolCard"
    assert akgentic.tool.FakeTool is ToolCard
    assert "FakeTool" in dir(akgentic.tool)
    assert registry.installed_cards() == {"FakeTool": ToolCard}


def test_nested_attribute_exports(fake_exports: dict[str, str]) -> None:
    fake_exports["FakeHelper"] = "akgentic.tool.core.registry:KNOWN_EXPORTS.get"
    assert akgentic.tool.FakeHelper("ExecTool") == ("akgentic-tool-sandbox", "sandbox")
    assert registry.installed_cards() == {}


def test_missing_distribution_names_what_to_install(fake_exports: dict[str, str]) -> None:
    with pytest.raises(
        ImportError, match=r"pip install akgentic-tool-planning .*akgentic-framework\[planning\]"
    ):
        from akgentic.tool import PlanningTool  # noqa: F401


def test_unknown_name_is_an_attribute_error(fake_exports: dict[str, str]) -> None:
    with pytest.raises(AttributeError, match="has no attribute 'NotATool'"):
        akgentic.tool.NotATool  # noqa: B018
    with pytest.raises(AttributeError):
        akgentic.tool.__wrapped__  # noqa: B018


def test_core_names_load_on_first_use() -> None:
    code = (
        "import sys, akgentic.tool; before = 'akgentic.tool.core.factory' in sys.modules;"
        "from akgentic.tool import ToolFactory; import akgentic.tool.core as c;"
        "print(before, 'akgentic.tool.core.factory' in sys.modules, ToolFactory is c.ToolFactory)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "True"]
    with pytest.raises(AttributeError, match="akgentic.tool.core' has no attribute 'Nope'"):
        akgentic.tool.core.Nope  # noqa: B018
    assert "ToolFactory" in dir(akgentic.tool.core)


def test_refresh_rereads_entry_points() -> None:
    registry.refresh()
    first = registry.exported_names()
    registry.refresh()
    assert registry.exported_names() == first


def test_importing_the_root_imports_no_domain_and_no_heavy_dependency() -> None:
    code = (
        "import sys, json, akgentic.tool, akgentic.tool.core;"
        "print(json.dumps(sorted(m for m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    domains = {
        f"akgentic.tool.{d}"
        for d in (
            "workspace", "planning", "knowledge_graph", "vector_store", "search", "team",
            "notification", "mcp", "sandbox",
        )
    }  # fmt: skip
    assert not loaded & domains
    for heavy in ("pydantic_ai", "numpy", "openai", "mcp", "markitdown", "akgentic.llm"):
        assert heavy not in loaded
    # Even the required dependencies wait until a contract is first used.
    assert "pydantic" not in loaded
    assert "akgentic.core" not in loaded
    assert "akgentic.tool.core.registry" not in loaded
