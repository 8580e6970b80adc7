"""bind_shared_actor with the proxy cache turned off (the benchmark's "before" setting):
each call builds its own ask proxy, and that proxy reaches the shared actor.
"""

from __future__ import annotations

import pytest

from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core import shared_actor
from akgentic.tool.core.shared_actor import bind_shared_actor
from akgentic.tool.core.testing import LocalVectorStore, ToolTestAgent
from akgentic.tool.core.vector_store import CollectionConfig


def test_without_the_proxy_cache_each_binding_still_reaches_the_same_actor(
    tool_agent: ToolTestAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shared_actor._PROXIES, "enabled", False)
    config = BaseConfig(name="#SharedStore", role="VectorStoreTool")
    first = bind_shared_actor(tool_agent, LocalVectorStore, config, card="VectorStoreTool")
    first.create_collection("notes", CollectionConfig(dimension=8))
    second = bind_shared_actor(tool_agent, LocalVectorStore, config, card="VectorStoreTool")
    assert second is not first  # built per call
    assert second.list_collections() == ["notes"]
