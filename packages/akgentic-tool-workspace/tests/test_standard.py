"""Core's standard tests, applied to the workspace card: conformance, stored forms, bad
calls that ask for a retry and leave every file as it was, and the package's public names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

import akgentic.tool.workspace as workspace
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import (
    BadInputTests,
    CardStandardTests,
    PublicSurfaceTests,
    StoredFormTests,
    Tools,
)
from akgentic.tool.workspace import WorkspaceRead, WorkspaceTool

STORED = StoredFormTests.stored_entries(__file__, yaml.safe_load)


def _card() -> WorkspaceTool:
    return WorkspaceTool(workspace_id="conf", workspace_read=WorkspaceRead(page_lines=10))


class TestWorkspaceCard(CardStandardTests):
    @pytest.fixture(autouse=True)
    def _root(self, roots: Path) -> None:
        """Workspaces live in a fresh root."""

    def make_card(self) -> ToolCard:
        return _card()


class TestWorkspaceBadInput(BadInputTests):
    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {
        "workspace_read": [{"path": "../x"}, {"path": "missing"}, {"path": "/etc/passwd"}],
        "workspace_grep": [{"pattern": "("}, {"pattern": "x", "path": "\x00"}],
        "workspace_edit": [
            {"path": "nope", "old_string": "a", "new_string": "b"},
            {"path": "notes.txt", "old_string": "absent", "new_string": "b"},
        ],
        "workspace_patch": [{"patch_text": "not a diff"}],
        "workspace_delete": [{"path": "."}, {"path": "../conf"}],
        "workspace_view": [{"path": "x.txt"}],
        "workspace_write": [
            {"path": "\ud800", "content": "x"},
            {"path": "../out.txt", "content": "x"},
        ],
    }

    @pytest.fixture(autouse=True)
    def _root(self, roots: Path) -> None:
        self.root = roots

    def make_card(self) -> ToolCard:
        return _card()

    def seed(self, tools: Tools) -> None:
        tools["workspace_write"](path="notes.txt", content="first line\n")

    def read_state(self, tools: Tools) -> Any:
        return sorted(
            (str(path.relative_to(self.root)), path.read_bytes() if path.is_file() else b"")
            for path in self.root.rglob("*")
        )


class TestWorkspaceStoredForms(StoredFormTests):
    stored_models = StoredFormTests.models_of(STORED, [WorkspaceTool])


class TestWorkspaceSurface(PublicSurfaceTests):
    module = workspace
    public_names = PublicSurfaceTests.names_listed_in(
        Path(__file__).parent / "fixtures" / "public_names.txt"
    )
