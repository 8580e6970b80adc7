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

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import LocalVectorStore, spawn_local_vector_store


@pytest.fixture
def vector_store(actor_system: ActorSystem, orchestrator: ActorAddress) -> LocalVectorStore:
    """A ``#VectorStore`` in the team (ask proxy)."""
    return spawn_local_vector_store(actor_system, orchestrator)
