"""The README's examples run as written, and its table of names tells the truth.

Every block also runs in ``tests-integration/test_readme_blocks.py``; this file runs them in
this package's own environment (``scripts/test_package.py``) and checks what a block alone
cannot: the test the README shows passes against a real team member, and each name of the
"pieces" table imports from where the table says.
"""

from __future__ import annotations

import importlib
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from akgentic.tool.core.testing import ToolTestAgent

README = Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def _namespace(name: str) -> dict[str, Any]:
    module = types.ModuleType(name)
    sys.modules[module.__name__] = module  # pydantic resolves annotations through it
    return module.__dict__


def _block_with(text: str) -> str:
    (block,) = [block for block in _python_blocks() if text in block]
    return block


def test_readme_card_serves_every_channel() -> None:
    namespace = _namespace("akgentic_core_readme_channels")
    exec(_block_with("class GlossaryTool(ToolCard)"), namespace)
    exec(_block_with("FunctionModel(scripted)"), namespace)  # asserts tool, prompt, event
    assert namespace["answer"].startswith("From the glossary")
    card = namespace["GlossaryTool"](
        terms={"a": "1", "ab": "2", "b": "3"}, lookup=namespace["Lookup"](max_results=1)
    )
    assert card.get_tools()[0]("a") == ["a: 1"]  # max_results is read
    assert card.get_system_prompts()[0]() == (
        "Glossary terms you can look up with glossary_lookup: a, ab, b."
    )
    off = namespace["GlossaryTool"](overview=False, lookup=namespace["Lookup"](expose=set()))
    assert (off.get_tools(), off.get_system_prompts(), off.get_commands()) == ([], [], {})


def test_readme_tool_and_its_test_run(tool_agent: ToolTestAgent) -> None:
    namespace = _namespace("akgentic_core_readme_example")
    exec(_block_with("class GlossaryTool(ToolCard)"), namespace)
    exec(_block_with("def test_glossary"), namespace)
    namespace["test_glossary"](tool_agent)


def test_readme_miss_event_reaches_a_team_member(tool_agent: ToolTestAgent) -> None:
    namespace = _namespace("akgentic_core_readme_member")
    exec(_block_with("class GlossaryTool(ToolCard)"), namespace)
    from akgentic.tool import ToolFactory

    factory = ToolFactory([namespace["GlossaryTool"](terms={"a": "1"})], observer=tool_agent)
    assert factory.get_tools()[0]("zz") == []
    assert any(type(e).__name__ == "GlossaryMiss" for e in tool_agent.events)


def test_readme_output_bound_example_runs() -> None:
    namespace = _namespace("akgentic_core_readme_bound")
    exec(_block_with("class GlossaryTool(ToolCard)"), namespace)
    exec(_block_with("max_output_chars"), namespace)


def test_readme_approval_gate_example_runs() -> None:
    namespace = _namespace("akgentic_core_readme_approval")
    exec(_block_with("class GlossaryTool(ToolCard)"), namespace)
    exec(_block_with("approval_required"), namespace)
    assert namespace["resumed"][0].call_id == "c1"


def _table_rows() -> list[tuple[list[str], str]]:
    section = README.read_text().split("## The pieces", 1)[1].split("\n## ", 1)[0]
    rows: list[tuple[list[str], str]] = []
    for line in section.splitlines():
        cells = line.split(" | ")
        if not line.startswith("| `") or len(cells) < 3:
            continue
        names = list(re.findall(r"`([A-Za-z_]+)`", cells[0]))
        rows.append((names, cells[1]))
    return rows


@pytest.mark.parametrize(("names", "where"), _table_rows(), ids=lambda v: str(v)[:40])
def test_pieces_table_says_where_each_name_imports_from(names: list[str], where: str) -> None:
    import akgentic.tool
    import akgentic.tool.core

    modules = re.findall(r"`(akgentic\.tool[a-z_.]*)`", where)
    on_facade = where.startswith("`akgentic.tool` (")
    home = importlib.import_module(modules[-1])
    for name in names:
        assert hasattr(home, name), f"{name} is not in {modules[-1]}"
        exported = name in akgentic.tool.__all__ and name in akgentic.tool.core.__all__
        assert exported == on_facade, f"{name}: the table says on_facade={on_facade}"
