"""Fixtures of this package's tests: core's testing kit plus a vector store in the team."""

from __future__ import annotations

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing import LocalVectorStore, spawn_local_vector_store

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
    return spawn_local_vector_store(actor_system, orchestrator)
