"""The rules of a load-test scenario, read without an agent: which step a run plays, how the
predecessor's per-agent format maps onto steps, and what loading a file reports.

Each test calls the public models (``Scenario``, ``ScenarioConfig``, ``MatchSpec``...) and
``load_scenario`` and checks what they return or raise.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from akgentic.llm.loadtest import (
    MatchSpec,
    MockProviderReachedError,
    ResponseSpec,
    Scenario,
    ScenarioConfig,
    ScenarioError,
    ScenarioState,
    load_scenario,
)


def _scenario(*steps: dict[str, Any], **fields: Any) -> Scenario:
    return Scenario.model_validate({"steps": list(steps), **fields})


# ------------------------------------------------------------------ step selection


def test_a_cycling_scenario_wraps_around_to_an_earlier_matching_step() -> None:
    scenario = _scenario({"match": "^a", "reply": "A"}, {"match": "^b", "reply": "B"})
    # one step consumed; only the first step matches: the scan wraps back to it
    assert scenario.pick(1, "again a") == (1, scenario.steps[0])


def test_a_scenario_that_errors_when_exhausted_never_wraps_back() -> None:
    scenario = _scenario(
        {"match": "^a", "reply": "A"}, {"match": "^b", "reply": "B"}, on_exhausted="error"
    )
    with pytest.raises(MockProviderReachedError, match="no step matches"):
        scenario.pick(1, "again a")


def test_a_cursor_past_the_end_of_a_cycle_continues_where_the_cycle_is() -> None:
    scenario = _scenario({"reply": "one"}, {"reply": "two"})
    # three steps consumed of two: the fourth run plays the second step
    assert scenario.pick(3, "x") == (2, scenario.steps[1])


def test_exhausted_with_error_names_the_setting_at_fault() -> None:
    scenario = _scenario({"reply": "one"}, on_exhausted="error")
    with pytest.raises(MockProviderReachedError, match=r"on_exhausted: error"):
        scenario.pick(1, "x")


def test_repeat_last_plays_the_last_of_several_steps_and_checks_its_match() -> None:
    scenario = _scenario(
        {"reply": "one"},
        {"reply": "two"},
        {"match": "^last", "reply": "three"},
        on_exhausted="repeat_last",
    )
    assert scenario.pick(3, "last call") == (3, scenario.steps[2])
    with pytest.raises(MockProviderReachedError, match="last step does not match 'other'"):
        scenario.pick(3, "other")


def test_first_match_starts_from_the_top_whatever_the_cursor() -> None:
    scenario = _scenario(
        {"match": "^a", "reply": "A"}, {"reply": "anything"}, selection="first_match"
    )
    assert scenario.pick(1, "a prompt") == (1, scenario.steps[0])
    assert scenario.pick(1, "b prompt") == (1, scenario.steps[1])
    strict = _scenario({"match": "^a", "reply": "A"}, selection="first_match")
    with pytest.raises(MockProviderReachedError, match="no step matches the prompt 'b'"):
        strict.pick(0, "b")


def test_describe_names_a_step_by_position_name_or_pattern() -> None:
    scenario = _scenario({"reply": "plain"}, {"match": "^two", "reply": "x"}, {"name": "third"})
    assert scenario.describe(scenario.steps[0]) == "step 1"
    assert scenario.describe(scenario.steps[1]) == "step 2 (match '^two')"
    assert scenario.describe(scenario.steps[2]) == "step 3 (third)"
    outside = scenario.steps[0].model_copy()
    assert scenario.describe(outside) == "the conclusion step"


# ------------------------------------------------------- the predecessor's format


def test_match_spec_patterns() -> None:
    assert MatchSpec().to_pattern() is None
    regex = MatchSpec(regex="ab+c").to_pattern()
    assert regex is not None
    assert re.search(regex, "xx abbbc yy")
    assert not re.search(regex, "xx ac yy")
    both = MatchSpec(contains="urgent", regex="ticket-[0-9]+").to_pattern()
    assert both is not None
    assert re.search(both, "ticket-42 is urgent")
    assert not re.search(both, "ticket-42 can wait")
    assert not re.search(both, "urgent, no number")


def test_a_response_with_neither_text_nor_messages_answers_empty_text() -> None:
    assert ResponseSpec().to_reply() == ""


def test_a_state_becomes_a_named_step_with_its_latency_in_seconds() -> None:
    state = ScenarioState.model_validate(
        {"id": "hire", "respond": {"text": "hired"}, "latency_ms": 250}
    )
    step = state.to_step()
    assert (step.name, step.reply, step.latency_s) == ("hire", "hired", 0.25)
    assert ScenarioState().to_step().latency_s is None


def test_for_agent_builds_a_first_match_scenario_named_for_the_file() -> None:
    config = ScenarioConfig.model_validate(
        {
            "name": "team-load",
            "default_latency_ms": 250,
            "agents": {
                "@Lead": {
                    "states": [{"id": "hire", "when": {"contains": "hire"}}],
                    # a condition on the default state is dropped: it answers everything
                    "default": {"when": {"contains": "never"}, "respond": {"text": "default"}},
                }
            },
        }
    )
    scenario = config.for_agent("@Lead")
    assert scenario.name == "team-load"
    assert scenario.latency_s == 0.25
    assert scenario.selection == "first_match"
    assert [step.name for step in scenario.steps] == ["hire", "default"]
    assert scenario.pick(1, "hire please") == (1, scenario.steps[0])
    assert scenario.pick(1, "hello") == (1, scenario.steps[1])


@pytest.mark.parametrize("key", ["*", "default"])
def test_a_wildcard_script_serves_any_agent(key: str) -> None:
    config = ScenarioConfig.model_validate(
        {"name": "s", "agents": {key: {"default": {"respond": {"text": "shared"}}}}}
    )
    assert config.for_agent("@Anyone", None).steps[-1].reply == "shared"
    assert config.for_agent().steps[-1].reply == "shared"


def test_a_missing_script_lists_the_agents_that_have_one() -> None:
    config = ScenarioConfig.model_validate({"name": "s", "agents": {"@Lead": {}, "@Dev": {}}})
    with pytest.raises(MockProviderReachedError, match=r"'@Other'.*@Dev, @Lead"):
        config.for_agent("@Other")


# ------------------------------------------------------------------- loading files


def test_a_yaml_string_error_names_its_default_source() -> None:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_yaml("name: x")
    assert str(info.value).startswith("<string>: steps")


def test_a_file_error_names_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("steps: [", encoding="utf-8")
    with pytest.raises(ScenarioError, match="not valid YAML") as info:
        load_scenario(broken)
    assert str(info.value).startswith(f"{broken}: ")

    invalid = tmp_path / "invalid.yaml"
    invalid.write_text("steps: [{reply: hi, tokens: 3}]\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"steps\.0\.tokens") as info:
        load_scenario(invalid)
    assert str(info.value).startswith(f"{invalid}: ")


def test_a_predecessor_file_error_names_the_file_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "team.yaml"
    path.write_text(
        "name: team\nagents:\n  '@Lead':\n    states:\n      - latency_ms: -1\n",
        encoding="utf-8",
    )
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert message.startswith(f"{path}: agents.@Lead.states.0.latency_ms: ")
    assert "greater than or equal to 0" in message


def test_a_steps_file_with_an_agents_key_is_read_as_steps(tmp_path: Path) -> None:
    # a file holding both keys is a steps scenario with an unknown key, not the old format
    path = tmp_path / "both.yaml"
    path.write_text("steps: [{reply: hi}]\nagents: {}\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r": agents: Extra inputs"):
        load_scenario(path)


def test_a_yaml_list_is_refused_as_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- agents\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="must be a mapping"):
        load_scenario(path)


def test_an_edit_is_seen_when_only_the_time_or_only_the_size_changes(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("steps:\n  - reply: one\n", encoding="utf-8")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    assert load_scenario(path).steps[0].reply == "one"  # type: ignore[union-attr]

    # same size, another modification time
    path.write_text("steps:\n  - reply: two\n", encoding="utf-8")
    os.utime(path, ns=(2_000_000_000, 2_000_000_000))
    assert load_scenario(path).steps[0].reply == "two"  # type: ignore[union-attr]

    # same modification time, another size
    path.write_text("steps:\n  - reply: three\n", encoding="utf-8")
    os.utime(path, ns=(2_000_000_000, 2_000_000_000))
    assert load_scenario(path).steps[0].reply == "three"  # type: ignore[union-attr]
