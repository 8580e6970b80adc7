"""Token-free load testing: ``MockReactAgent`` plays a YAML scenario instead of calling a model.

Install with the ``loadtest`` extra (``pip install "akgentic-llm[loadtest]"``). The example
scenario shipped with the package is at ``EXAMPLE_SCENARIO``.
"""

from akgentic.llm.loadtest.mock_agent import MockReactAgent
from akgentic.llm.loadtest.scenario import (
    EXAMPLE_SCENARIO,
    SCENARIO_ENV_VAR,
    AgentScript,
    MatchSpec,
    MockProviderReachedError,
    ResponseRequest,
    ResponseSpec,
    Scenario,
    ScenarioConfig,
    ScenarioError,
    ScenarioState,
    ScenarioStep,
    ScriptedToolCall,
    ToolStub,
    load_scenario,
)

__all__ = [
    "EXAMPLE_SCENARIO",
    "SCENARIO_ENV_VAR",
    "AgentScript",
    "MatchSpec",
    "MockProviderReachedError",
    "MockReactAgent",
    "ResponseRequest",
    "ResponseSpec",
    "Scenario",
    "ScenarioConfig",
    "ScenarioError",
    "ScenarioState",
    "ScenarioStep",
    "ScriptedToolCall",
    "ToolStub",
    "load_scenario",
]
