"""The public surface of the loadtest extra is pinned."""

from __future__ import annotations

import akgentic.llm.loadtest as loadtest


def test_loadtest_all_is_pinned() -> None:
    assert sorted(loadtest.__all__) == [
        "AgentScript",
        "EXAMPLE_SCENARIO",
        "MatchSpec",
        "MockProviderReachedError",
        "MockReactAgent",
        "ResponseRequest",
        "ResponseSpec",
        "SCENARIO_ENV_VAR",
        "Scenario",
        "ScenarioConfig",
        "ScenarioError",
        "ScenarioState",
        "ScenarioStep",
        "ScriptedToolCall",
        "ToolStub",
        "load_scenario",
    ]
    for name in loadtest.__all__:
        assert getattr(loadtest, name) is not None
    assert loadtest.EXAMPLE_SCENARIO.is_file()
