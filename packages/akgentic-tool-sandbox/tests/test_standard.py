"""Core's standard tests, applied to the exec card in local mode (conformance, bad
commands that ask for a retry without touching the workspace) and to the stored forms of
the card and the sandbox actor's state."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from pydantic import BaseModel

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import BadInputTests, CardStandardTests, StoredFormTests
from akgentic.tool.sandbox import ExecTool, SandboxState

Tools = dict[str, Callable[..., Any]]

STORED: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "fixtures" / "stored_config.yaml").read_text(encoding="utf-8")
)


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


class TestSandboxStoredForms(StoredFormTests):
    # A SandboxConfig resolves its workspace from the environment when it is validated:
    # its round trip, under a test's workspaces root, stays in test_sandbox_stored_config.py.
    stored_models: ClassVar[Sequence[BaseModel]] = [
        {"ExecTool": ExecTool, "SandboxState": SandboxState}[entry["card"]].model_validate(
            entry["config"]
        )
        for entry in STORED
        if entry["card"] != "SandboxConfig"
    ]
