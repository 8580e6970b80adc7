"""Defaults akgentic.tool.team promises (its pinned names are a standard test, in
test_standard.py)."""

from __future__ import annotations

import akgentic.tool.team as team
import akgentic.tool.team.observer as observer_module


def test_observer_lives_in_the_observer_module() -> None:
    assert observer_module.__all__ == ["TeamManagementToolObserver"]
    assert team.TEAM_ACTIVITY_ACTOR_NAME == "#TeamActivity"


def test_default_card_values() -> None:
    card = team.TeamTool()
    assert card.get_team_activity is True
    param = team.GetTeamActivity()
    assert (param.max_task_chars, param.stale_after_seconds, param.summarizer) == (200, 300.0, None)
    assert {c.value for c in param.expose} == {"tool_call", "command"}
    summarizer = team.ActivitySummarizer(model="openai:gpt-5.2-mini")
    assert (summarizer.poll_attempts, summarizer.poll_delay_seconds) == (5, 0.4)
    persisted = team.TeamTool.model_validate_json(
        team.TeamTool(get_team_activity=False).model_dump_json()
    )
    assert persisted.get_team_activity is False


def test_summarizer_configuration_round_trips() -> None:
    card = team.TeamTool(
        fire_members=False,
        get_team_activity=team.GetTeamActivity(
            max_task_chars=120,
            summarizer=team.ActivitySummarizer(model="openai:gpt-5.2-mini", poll_attempts=3),
        ),
    )
    again = team.TeamTool.model_validate_json(card.model_dump_json())
    assert again == card
    assert isinstance(again.get_team_activity, team.GetTeamActivity)
    assert again.get_team_activity.summarizer is not None
    assert again.get_team_activity.summarizer.poll_attempts == 3
