"""What the planning callables tell a model that called them wrongly, and where each
argument's range ends.

A refusal is only useful if the model can act on it: it must name the argument, show the
bad value when that is short, list the values allowed and keep one entry per bad item.
Core's standard bad-input tests (test_standard.py) check that refusals happen and leave the
plan alone; these check what they say and the exact edges of the ranges.
"""

from __future__ import annotations

from typing import Any

import pytest

from akgentic.tool.core.testing import Tools, ToolTestAgent, bind_card, expect_retry
from akgentic.tool.planning import TASK_STATUSES, PlanningTool

ALLOWED_STATUSES = ", ".join(TASK_STATUSES)


@pytest.fixture
def tools(tool_agent: ToolTestAgent) -> Tools:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    tools["update_planning"](create_tasks=[{"description": "write the report"}])
    return tools


@pytest.mark.parametrize("lists", [{}, {"create_tasks": [], "delete_tasks": []}])
def test_a_call_without_changes_names_the_lists_to_fill(
    tools: Tools, lists: dict[str, Any]
) -> None:
    message = expect_retry(tools["update_planning"], **lists)
    for name in ("create_tasks", "update_tasks", "delete_tasks"):
        assert name in message


@pytest.mark.parametrize(
    ("tool", "arguments", "shown"),
    [
        ("get_planning_task", {"task_id": "three"}, "got 'three'"),
        ("search_planning", {"query": "x", "mode": "fuzzy"}, "got 'fuzzy'"),
        ("search_planning", {"top_k": 0}, "got 0"),
        ("search_planning", {"score_threshold": 2}, "got 2"),
        ("update_planning", {"delete_tasks": ["x"]}, "got ['x']"),
    ],
)
def test_a_short_bad_value_is_shown_back(
    tools: Tools, tool: str, arguments: dict[str, Any], shown: str
) -> None:
    assert shown in expect_retry(tools[tool], **arguments)


def test_a_bad_value_is_shown_up_to_80_characters_then_described(tools: Tools) -> None:
    shown = "x" * 78  # its repr, quotes included, is 80 characters long
    assert repr(shown) in expect_retry(tools["get_planning_task"], shown)
    message = expect_retry(tools["get_planning_task"], shown + "x")
    assert "got a str of 81 characters" in message
    assert shown not in message


def test_top_k_runs_from_1_to_100(tools: Tools) -> None:
    search = tools["search_planning"]
    for top_k in (1, 100):
        assert [t.id for t in search(query="report", top_k=top_k).tasks] == [1]
    for top_k in (0, 101):
        assert "top_k must be an integer from 1 to 100" in expect_retry(search, top_k=top_k)


def test_score_threshold_runs_from_0_to_1(tools: Tools) -> None:
    search = tools["search_planning"]
    for threshold in (0.0, 0.5, 1, 1.0):
        assert [t.id for t in search(query="report", score_threshold=threshold).tasks] == [1]
    for threshold in (-0.01, 1.01):
        message = expect_retry(search, score_threshold=threshold)
        assert "score_threshold must be a number from 0 to 1" in message


@pytest.mark.parametrize(
    ("argument", "value", "expected"),
    [
        ("top_k", 2.5, "top_k must be an integer"),
        ("top_k", True, "top_k must be an integer"),
        ("top_k", "5", "top_k must be an integer"),
        ("score_threshold", True, "score_threshold must be a number"),
        ("score_threshold", "0.5", "score_threshold must be a number"),
    ],
)
def test_numbers_of_the_wrong_type_are_refused(
    tools: Tools, argument: str, value: object, expected: str
) -> None:
    assert expected in expect_retry(tools["search_planning"], **{argument: value})


@pytest.mark.parametrize(
    ("tool", "call"),
    [
        ("search_planning", {"status": "open"}),
        ("update_planning", {"update_tasks": [{"id": 1, "status": "done"}]}),
        ("update_planning", {"create_tasks": [{"description": "d", "status": "done"}]}),
    ],
)
def test_an_invalid_status_is_answered_with_the_valid_ones(
    tools: Tools, tool: str, call: dict[str, Any]
) -> None:
    assert f"use one of {ALLOWED_STATUSES}" in expect_retry(tools[tool], **call)


def test_a_bad_value_inside_an_item_is_named_by_its_full_path(tools: Tools) -> None:
    message = expect_retry(
        tools["update_planning"], create_tasks=[{"description": "d", "dependencies": [1, "two"]}]
    )
    assert "create_tasks[0].dependencies.1: Input should be a valid integer" in message


def test_each_bad_item_is_listed_on_its_own(tools: Tools) -> None:
    message = expect_retry(
        tools["update_planning"],
        create_tasks=[{"description": ""}, {"description": "ok", "owner": 7}],
    )
    listed = message.split("(nothing was changed): ", 1)[1].split("; ")
    assert [problem.split(": ")[0] for problem in listed] == [
        "create_tasks[0].description",
        "create_tasks[1].owner",
    ]


def test_items_may_be_models_read_from_the_plan(tools: Tools) -> None:
    # A task read back from the plan is read by its fields, whatever its class.
    task = tools["get_planning_task"](1)
    tools["update_planning"](update_tasks=[task.model_copy(update={"status": "completed"})])
    assert tools["get_planning_task"](1).status == "completed"
