"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).parent.parent / "README.md"


def test_readme_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    server = [b for b in blocks if b.startswith("# server.py")]
    assert len(server) == 1, "the README shows one server.py"
    (tmp_path / "server.py").write_text(server[0])
    monkeypatch.chdir(tmp_path)
    ran = 0
    namespace: dict[str, object] = {}
    for block in blocks:
        if block.startswith("# server.py"):
            continue
        if "authorize_mcp_server_sync(" in block:
            # Needs a person at a browser and a live server; test_mcp_oauth_flow.py runs the
            # same flow against a local authorization server.
            continue
        namespace = {"__name__": "readme"}
        exec(compile(block, str(README), "exec"), namespace)
        ran += 1
    assert ran == 2
    # TestModel called the server's `add` tool over stdio and reported its answer.
    output = namespace["result"].output  # type: ignore[attr-defined]
    assert '"add":0' in str(output).replace(" ", "")
