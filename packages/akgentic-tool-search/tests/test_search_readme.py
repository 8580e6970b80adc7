"""The README's Python examples run as written: its own stand-in, the tools, the stop."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

README = Path(__file__).parent.parent / "README.md"


def test_readme_examples_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert len(blocks) == 3, "stand-in, usage, stop"
    # The blocks set the key and base URL; monkeypatch puts both back afterwards.
    monkeypatch.setenv("TAVILY_API_KEY", "")
    monkeypatch.setenv("TAVILY_API_BASE_URL", "")
    module = types.ModuleType("akgentic_search_readme")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    for block in blocks:  # each continues the previous one
        exec(compile(block, str(README), "exec"), module.__dict__)
    assert capsys.readouterr().out.splitlines() == ["Pykka 20000"]
