"""The public surface: the protocol module, what works without the numpy extra, the
predecessor's names (the public names and the modules of the lazy ones are pinned in
test_standard.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import akgentic.tool.core.vector_store as core_protocol
import akgentic.tool.vector_store as package
import akgentic.tool.vector_store.protocol as protocol
from akgentic.tool.vector_store.embedding_actor import EmbeddingError
from akgentic.tool.vector_store.vector import EmbeddingService, EmbeddingServiceError


def test_the_protocol_module_re_exports_core_unchanged() -> None:
    # Core owns the protocol (its names are pinned by the reference's surface check);
    # this module serves every one of them, as the very same objects, and adds the
    # predecessor's result models and protocols.
    assert set(core_protocol.__all__) <= set(protocol.__all__)
    assert set(protocol.__all__) - set(core_protocol.__all__) == {
        "CollectionStatus",
        "EmbeddingProvider",
        "SearchHit",
        "SearchResult",
        "VectorStoreService",
    }
    for name in core_protocol.__all__:
        assert getattr(protocol, name) is getattr(core_protocol, name)


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchThing"):
        package.NoSuchThing  # noqa: B018


_WITHOUT_NUMPY = r"""
import json, logging, sys
sys.modules["numpy"] = None  # as if the vector-search extra were not installed
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import spawn_tool_agent
from akgentic.tool.core.vector_store import lookup_vector_store
import akgentic.tool.vector_store as vs

report = {}
try:
    vs.VectorIndex
except ImportError as exc:
    report["error"] = str(exc)
system = ActorSystem()
try:
    orch = system.createActor(Orchestrator, config=BaseConfig(name="@O", role="Orchestrator"))
    agent = spawn_tool_agent(system, orch, "@Agent")
    card = vs.VectorStoreTool()
    factory = ToolFactory([card], observer=agent)
    report["address"] = card.store_address
    report["found"] = lookup_vector_store(agent, card.vector_store_name) is not None
    report["tools"] = len(factory.get_tools())
finally:
    system.shutdown(timeout=5)
print(json.dumps(report))
"""


def test_without_numpy_the_card_binds_nothing_and_names_the_install_command() -> None:
    run = subprocess.run(
        [sys.executable, "-c", _WITHOUT_NUMPY],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    report = json.loads(run.stdout.strip().splitlines()[-1])

    assert 'pip install "akgentic-tool-vector-store[vector-search]"' in report["error"]
    assert report["address"] is None
    assert report["found"] is False
    assert report["tools"] == 0
    assert "Consumers fall back to keyword search" in run.stderr


def test_embedding_error_is_the_message_model_and_the_old_exception_name_still_catches() -> None:
    import akgentic.tool.vector_store.vector as vector

    report = EmbeddingError(collection="notes", error="HTTP 500", request_id="r1")
    assert EmbeddingError.model_validate(report.model_dump()) == report
    assert not issubclass(EmbeddingError, BaseException)
    # ``vector.EmbeddingError`` was the exception's name in that module: it still is.
    assert vector.EmbeddingError is EmbeddingServiceError
    with pytest.raises(vector.EmbeddingError, match="expected 3"):
        EmbeddingService(embed_fn=lambda texts: [[1.0, 2.0]], dimension=3).embed(["x"])
