"""The demo with ``--semantic``: the team's vector store embeds with a local model (a tiny
one written here, downloads off, no key), and the demo says so in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from akgentic_examples import demo

model_kit = pytest.importorskip("akgentic.tool.vector_store.testing")
pytest.importorskip("model2vec")


def test_the_semantic_demo_says_what_embeds_and_embeds_locally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN"):
        # set then removed: whatever the environment had comes back afterwards
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    folder = model_kit.write_static_model(tmp_path / "tiny-model")
    monkeypatch.setenv("AKGENTIC_LOCAL_EMBEDDING_MODEL", str(folder))
    lines: list[str] = []
    demo.run("scripted", tmp_path / "workspaces", write=lines.append, semantic=True)

    store_lines = [line for line in lines if line.startswith("vector stores:")]
    assert store_lines == [f"vector stores: #VectorStore embeds with local ({folder})"]
    assert any("[#VectorStore #" in line and "planning:" in line for line in lines)
    assert any("[#VectorStore #" in line and "knowledge_graph:" in line for line in lines)


def test_the_default_demo_says_it_has_no_vector_store(tmp_path: Path) -> None:
    lines: list[str] = []
    demo.run("scripted", tmp_path, write=lines.append)
    assert [line for line in lines if line.startswith("vector stores:")] == [
        "vector stores: none (plan and graph search by keyword; --semantic adds one)"
    ]
