"""Semantic task search with no API key: the team's real ``#VectorStore`` embeds with a
local model2vec model (a tiny one this test writes), so a query finds a task by meaning
where keyword search finds nothing.

Needs the vector store with its ``local-embeddings`` extra, which this package does not
depend on: skipped where they are not installed (the package's isolated run).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ToolRetry, ToolTestAgent, card_callables, eventually
from akgentic.tool.core.vector_store import lookup_vector_store
from akgentic.tool.planning import PLANNING_COLLECTION, PlanningTool

pytest.importorskip("model2vec")
store_tool = pytest.importorskip("akgentic.tool.vector_store.tool")
model_kit = pytest.importorskip("akgentic.tool.vector_store.testing")

TASKS = [
    {"description": "Repair the automobile", "owner": "@Alice"},
    {"description": "Bake the bread", "owner": "@Bob"},
    {"description": "Paint the fence"},
]


@pytest.fixture
def local_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No key anywhere, downloads off, and the local model pointed at a tiny folder."""
    for name in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    folder: Path = model_kit.write_static_model(tmp_path / "tiny-model")
    monkeypatch.setenv("AKGENTIC_LOCAL_EMBEDDING_MODEL", str(folder))
    return folder


def test_a_task_is_found_by_meaning_without_an_api_key(
    tool_agent: ToolTestAgent, local_only: Path
) -> None:
    cards = [store_tool.VectorStoreTool(), PlanningTool()]  # every default
    tools = card_callables(ToolFactory(cards, observer=tool_agent, retry_exception=ToolRetry))
    tools["update_planning"](create_tasks=TASKS)
    store = lookup_vector_store(tool_agent, "#VectorStore")
    assert store is not None
    eventually(lambda: store.collection_stats(PLANNING_COLLECTION).embedded == len(TASKS))

    result: Any = tools["search_planning"](query="car")
    assert [task.description for task in result.tasks] == ["Repair the automobile"]
    assert result.note is None  # semantic search answered: no degradation
    # Keyword search alone misses it: "car" is in none of the descriptions.
    assert tools["search_planning"](query="car", mode="keyword").tasks == []
    vector = tools["search_planning"](query="car", mode="vector")
    assert [task.description for task in vector.tasks] == ["Repair the automobile"]
