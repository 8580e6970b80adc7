"""The README's examples run as written."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

from akgentic.tool.core.testing import ToolTestAgent

README = Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_tool_and_its_test_run(tool_agent: ToolTestAgent) -> None:
    blocks = _python_blocks()
    module = types.ModuleType("akgentic_core_readme_example")
    sys.modules[module.__name__] = module  # pydantic resolves annotations through it
    namespace: dict[str, Any] = module.__dict__
    exec(blocks[0], namespace)  # the GlossaryTool definition
    assert "pytest_plugins" in blocks[1]
    exec(blocks[2], namespace)  # the test written against the kit
    namespace["test_glossary"](tool_agent)
    card = namespace["GlossaryTool"](
        terms={"a": "1", "ab": "2", "b": "3"}, lookup=namespace["Lookup"](max_results=1)
    )
    assert card.get_tools()[0]("a") == ["a: 1"]


def test_readme_output_bound_example_runs() -> None:
    blocks = _python_blocks()
    module = types.ModuleType("akgentic_core_readme_bound")
    sys.modules[module.__name__] = module
    namespace: dict[str, Any] = module.__dict__
    exec(blocks[0], namespace)  # GlossaryTool
    bound = next(block for block in blocks if "max_output_chars" in block)
    exec(bound, namespace)


def test_readme_approval_gate_example_runs() -> None:
    blocks = _python_blocks()
    module = types.ModuleType("akgentic_core_readme_approval")
    sys.modules[module.__name__] = module
    namespace: dict[str, Any] = module.__dict__
    exec(blocks[0], namespace)  # GlossaryTool
    gate = next(block for block in blocks if "approval_required" in block)
    exec(gate, namespace)
    assert namespace["resumed"][0].call_id == "c1"
