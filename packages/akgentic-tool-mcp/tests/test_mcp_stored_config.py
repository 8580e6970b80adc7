"""Stored MCPTool configurations of akgentic-tool 1.6 load, round-trip and work.

Each entry of ``fixtures/stored_config.yaml`` is a card configuration written with the
predecessor's field names. It must validate, survive ``model_dump()`` and validation again,
and drive a real server: the card is wired by a ``ToolFactory`` to an agent of a real team,
and a scripted model calls the server's tools through the factory's toolsets.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp_harness import SERVER_SCRIPT, ServerProcess
from pydantic_ai import Agent
from pydantic_ai.messages import ToolReturnPart

from akgentic.llm.testing import ScriptedCall, ScriptedModel
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.mcp import MCPTool

FIXTURE = Path(__file__).parent / "fixtures" / "stored_config.yaml"
CARDS = {"MCPTool": MCPTool}


def load_entries(substitutions: dict[str, str]) -> list[dict[str, Any]]:
    text = FIXTURE.read_text(encoding="utf-8")
    for name, value in substitutions.items():
        text = text.replace("${" + name + "}", value)
    entries: list[dict[str, Any]] = yaml.safe_load(text)
    return entries


ENTRY_COUNT = len(load_entries({}))


@pytest.fixture
def entries(
    tmp_path: Path, streamable_server: ServerProcess, sse_server: ServerProcess
) -> list[dict[str, Any]]:
    return load_entries(
        {
            "PYTHON": sys.executable,
            "DEMO_SERVER": SERVER_SCRIPT,
            "WORKDIR": str(tmp_path.resolve()),
            "STREAMABLE_URL": streamable_server.url,
            "SSE_URL": sse_server.url,
        }
    )


def test_the_fixture_covers_every_connection_field_of_the_predecessor() -> None:
    stored = {key for entry in load_entries({}) for key in entry["config"]["connection"]}
    assert {
        "transport",
        "stdio_command",
        "stdio_args",
        "stdio_env",
        "stdio_cwd",
        "bearer_token",
        "stdio_token_env_var",
        "timeout",
        "read_timeout",
        "tool_prefix",
        "url",
    } <= stored


@pytest.mark.parametrize("index", range(ENTRY_COUNT))
async def test_a_stored_card_loads_round_trips_and_works(
    index: int, entries: list[dict[str, Any]], tool_agent: ToolTestAgent
) -> None:
    entry = entries[index]
    card_class = CARDS[entry["card"]]
    card = card_class.model_validate(entry["config"])
    again = card_class.model_validate(card.model_dump())
    assert again == card
    assert card_class.model_validate_json(card.model_dump_json()) == card
    # A stored `timeout` is the connection bound in force.
    stored_timeout = entry["config"]["connection"].get("timeout")
    if stored_timeout is not None:
        assert card.connection.init_timeout == stored_timeout

    factory = ToolFactory([again], observer=tool_agent)
    script = ScriptedModel(
        *(ScriptedCall(call["tool"], call["args"]) for call in entry["calls"]), "finished"
    )
    agent = Agent(script, tools=factory.get_tools(), toolsets=factory.get_toolsets())
    result = await agent.run("use the stored server")
    assert result.output == "finished"
    outcomes = script.tool_results()
    assert len(outcomes) == len(entry["calls"])
    for call, outcome in zip(entry["calls"], outcomes, strict=True):
        assert isinstance(outcome, ToolReturnPart), outcome
        assert outcome.content == call["expect"]
