"""Fixtures of this package's tests: core's testing kit plus a vector store in the team."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# Test modules import their helpers from plan_support (pytest runs with importlib mode).
sys.path.insert(0, str(Path(__file__).parent))

from plan_support import LocalVectorStore

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.vector_store import VECTOR_STORE_NAME

_KIT = "akgentic.tool.core.testing"


def pytest_configure(config: pytest.Config) -> None:
    """Load core's testing kit (fixtures actor_system, orchestrator, tool_agent).

    Registered here rather than through ``pytest_plugins``, which pytest accepts only in
    the rootdir's conftest: this suite runs on its own and as part of the whole repository.
    """
    if not config.pluginmanager.has_plugin(_KIT):
        config.pluginmanager.import_plugin(_KIT)


@pytest.fixture
def vector_store(actor_system: ActorSystem, orchestrator: ActorAddress) -> LocalVectorStore:
    """A ``#VectorStore`` in the team (ask proxy)."""
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(
        LocalVectorStore, BaseConfig(name=VECTOR_STORE_NAME, role="VectorStore")
    )
    store: LocalVectorStore = actor_system.proxy_ask(address, LocalVectorStore)
    return store
