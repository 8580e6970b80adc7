"""ExecTool inside a pydantic-ai agent loop (akgentic-llm's ScriptedModel standing in for the LLM).

pydantic-ai is not a dependency of this package (the card is framework-neutral), so the
test is skipped where it is not installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai", reason="pydantic-ai is not installed with this package")

from pydantic_ai import Agent, ModelRetry

from akgentic.llm.testing import ScriptedCall, ScriptedModel
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.sandbox.tool import ExecTool


async def test_model_calls_the_tool_retries_after_bad_input_and_reads_the_output(
    workspaces_root: Path, tool_agent: ToolTestAgent
) -> None:
    factory = ToolFactory([ExecTool(mode="local")], observer=tool_agent, retry_exception=ModelRetry)
    script = ScriptedModel(
        ScriptedCall("exec_command", {"cmd": "echo 'unclosed"}),
        ScriptedCall("exec_command", {"cmd": "python3 -c 'print(6 * 7)'"}),
        lambda request: str(request.results[-1].content),  # answers with what the tool returned
    )
    agent = Agent(script, tools=factory.get_tools())
    result = await agent.run("compute")
    assert result.output == "exit_code: 0\n--- stdout ---\n42"
    assert script.served == 3  # the bad call, the fixed call, the answer
    assert script.offered == ["exec_command"]
    # an unoffered tool would come back as a second retry prompt ("unknown tool")
    (refusal,) = script.retried()
    assert "check its quotes" in refusal
