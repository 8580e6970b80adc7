"""Stored WorkspaceTool configurations of akgentic-tool 1.6 load and work.

Each entry of ``fixtures/stored_config.yaml`` uses the predecessor's field names. The
card is validated (its round trip is a standard test, in test_standard.py), then wired
by a ``ToolFactory`` to an agent of a real team; its tools and commands are called with
the predecessor's parameter names and their results checked on the files of the
workspace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ConformanceRetry, StoredFormTests, ToolTestAgent
from akgentic.tool.workspace import (
    EditItem,
    ExpandMediaRefs,
    MediaContent,
    Resource,
    WorkspaceGrep,
    WorkspaceRead,
    WorkspaceTool,
)

ENTRIES = StoredFormTests.stored_entries(__file__, yaml.safe_load)


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["about"] for entry in ENTRIES])
def test_a_stored_configuration_loads_and_works(
    entry: dict[str, Any], roots: Path, tool_agent: ToolTestAgent
) -> None:
    assert entry["card"] == "WorkspaceTool"
    card = WorkspaceTool.model_validate(entry["config"])  # round trip: test_standard.py
    factory = ToolFactory([card], observer=tool_agent, retry_exception=ConformanceRetry)
    tools = {fn.__name__: fn for fn in factory.get_tools()}
    commands = factory.get_command_registry()
    for name in entry.get("absent_tools", []):
        assert name not in tools
    for name in entry.get("absent_commands", []):
        assert not commands.has(name)
    for call in entry["calls"]:
        args = dict(call["args"])
        if call["tool"] in tools:
            if "edits" in args:
                args["edits"] = [EditItem.model_validate(item) for item in args["edits"]]
            result = tools[call["tool"]](**args)
            shown = result.media_type if hasattr(result, "media_type") else result
            assert call["expect"] in shown, shown
        else:
            parts = commands.callable(call["tool"])(**args)
            assert sum(isinstance(part, MediaContent) for part in parts) == call["images"]
            if call["images"] == 0:
                assert parts == [args["text"]]
    root = roots / (card.workspace_id or str(tool_agent.team_id))
    for relative, content in entry.get("files", {}).items():
        assert (root / relative).read_text() == content


def test_the_stored_names_reach_the_runtime_settings() -> None:
    tuned = next(entry for entry in ENTRIES if entry["about"].startswith("tuned"))
    card = WorkspaceTool.model_validate(tuned["config"])
    assert isinstance(card.workspace_read, WorkspaceRead)
    assert card.workspace_read.page_lines == card.workspace_read.default_limit == 2
    assert card.workspace_read.document_reader is not True
    assert card.workspace_read.document_reader is not False
    assert card.workspace_read.document_reader.llm_client is None
    assert isinstance(card.workspace_grep, WorkspaceGrep)
    assert card.workspace_grep.max_matches == card.workspace_grep.max_results == 1
    assert isinstance(card.expand_media_refs, ExpandMediaRefs)
    shared = next(entry for entry in ENTRIES if entry["about"].startswith("a shared"))
    resources = WorkspaceTool.model_validate(shared["config"]).resources
    assert [type(item) for item in resources] == [Resource, Resource]
    assert resources[1].to_bytes().startswith(b"\x89PNG")
