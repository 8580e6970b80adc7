"""The README's Python examples run as written (against the local embedding server)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from akgentic.tool.vector_store.vector import EmbeddingService

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_every_python_example_runs(tool_agent: Any, openai_env: Any, capsys: Any) -> None:
    openai_env.dimension = 1536  # the examples use the default collection dimension
    # Load the openai client's lazy modules first: in a fresh process that takes seconds,
    # longer than the example's poll budget (the README says so).
    EmbeddingService(max_retries=0).embed(["warm up"])
    blocks = _blocks()
    assert len(blocks) == 3
    namespace: dict[str, Any] = {"agent": tool_agent}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)

    printed = capsys.readouterr().out
    assert namespace["result"].status == "ok"
    assert "keyword-only answer" not in printed
    assert {hit.ref for hit in namespace["result"].hits} <= {"n1", "n2"}
    assert namespace["local"].embed(["hi", "hello"]).shape == (2, 2)
    assert namespace["index"].search([0.9, 0.1, 0.0], top_k=2)[0][0] == "a"
