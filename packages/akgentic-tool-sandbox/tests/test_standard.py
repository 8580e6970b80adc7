"""Core's standard tests, applied to the exec card in local mode (conformance, bad
commands that ask for a retry without touching the workspace) and to the package's public
names (the stored forms' standard tests are in test_sandbox_stored_config.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

import akgentic.tool.sandbox as sandbox
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import BadInputTests, CardStandardTests, PublicSurfaceTests, Tools
from akgentic.tool.sandbox import ExecTool


def _card() -> ExecTool:
    return ExecTool(mode="local", timeout_seconds=2, network=True, env={"A": "b"})


class TestExecCard(CardStandardTests):
    @pytest.fixture(autouse=True)
    def _root(self, workspaces_root: Path) -> None:
        """Sandboxes work in a fresh workspaces root."""

    def make_card(self) -> ToolCard:
        return _card()


class TestExecBadInput(BadInputTests):
    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {
        "exec_command": [{"cmd": ""}, {"cmd": "echo 'open"}, {"cmd": "ls", "cwd": "../.."}]
    }

    @pytest.fixture(autouse=True)
    def _root(self, workspaces_root: Path) -> None:
        self.root = workspaces_root

    def make_card(self) -> ToolCard:
        return _card()

    def seed(self, tools: Tools) -> None:
        tools["exec_command"](cmd="echo kept > kept.txt")

    def read_state(self, tools: Tools) -> Any:
        return sorted(
            (str(path.relative_to(self.root)), path.read_bytes() if path.is_file() else b"")
            for path in self.root.rglob("*")
        )


class TestSandboxSurface(PublicSurfaceTests):
    module = sandbox
    public_names = PublicSurfaceTests.names_listed_in(
        Path(__file__).parent / "fixtures" / "public_names.txt"
    )
    aliases: ClassVar[Mapping[str, object]] = {
        "akgentic.tool.sandbox.tool:SANDBOX_ACTOR_CLASSES": sandbox.SANDBOX_ACTOR_CLASSES,
    }
