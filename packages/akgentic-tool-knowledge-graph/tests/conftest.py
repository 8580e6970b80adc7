"""Fixtures of this package's tests: a vector store in the team (and ``graph_builders``
importable by name).

The team itself (``actor_system``, ``orchestrator``, ``tool_agent``) comes from core's
testing kit, a pytest plugin installed with akgentic-tool-core.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# pytest runs with --import-mode=importlib, which does not put this folder on sys.path; the
# tests import the graph builders by name (appended: nothing here shadows an installed module).
sys.path.append(str(Path(__file__).parent))

from collections.abc import Callable
from typing import Any

from graph_builders import graph_actor

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import (
    LocalVectorStore,
    ToolTestAgent,
    bind_card,
    spawn_local_vector_store,
)
from akgentic.tool.knowledge_graph import KnowledgeGraphActor, KnowledgeGraphTool


@pytest.fixture
def vector_store(actor_system: ActorSystem, orchestrator: ActorAddress) -> LocalVectorStore:
    """A ``#VectorStore`` in the team (ask proxy)."""
    return spawn_local_vector_store(actor_system, orchestrator)


@pytest.fixture
def keyword_graph(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> Callable[..., KnowledgeGraphActor]:
    """Seeds the team's graph: ``keyword_graph(**update)`` applies ``update`` through a
    keyword-only card carried by ``tool_agent`` and returns the graph actor (ask proxy)."""

    def seeded(**update: Any) -> KnowledgeGraphActor:
        bind_card(tool_agent, KnowledgeGraphTool(vector_store=False))["update_graph"](**update)
        return graph_actor(actor_system, orchestrator)

    return seeded
