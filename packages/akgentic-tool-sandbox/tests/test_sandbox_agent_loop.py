"""ExecTool inside a pydantic-ai agent loop (FunctionModel standing in for the LLM).

pydantic-ai is not a dependency of this package (the card is framework-neutral), so the
test is skipped where it is not installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai", reason="pydantic-ai is not installed with this package")

from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.sandbox.tool import ExecTool


async def test_model_calls_the_tool_retries_after_bad_input_and_reads_the_output(
    workspaces_root: Path, tool_agent: ToolTestAgent
) -> None:
    factory = ToolFactory([ExecTool(mode="local")], observer=tool_agent, retry_exception=ModelRetry)
    seen: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert [tool.name for tool in info.function_tools] == ["exec_command"]
        last = messages[-1].parts[-1]
        if isinstance(last, ToolReturnPart):
            return ModelResponse(parts=[TextPart(str(last.content))])
        if isinstance(last, RetryPromptPart):
            seen.append(str(last.content))
            return ModelResponse(
                parts=[ToolCallPart("exec_command", {"cmd": "python3 -c 'print(6 * 7)'"})]
            )
        return ModelResponse(parts=[ToolCallPart("exec_command", {"cmd": "echo 'unclosed"})])

    agent = Agent(FunctionModel(model), tools=factory.get_tools())
    result = await agent.run("compute")
    assert result.output == "exit_code: 0\n--- stdout ---\n42"
    assert len(seen) == 1
    assert "check its quotes" in seen[0]
