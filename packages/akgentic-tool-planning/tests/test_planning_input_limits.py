"""Bounds on what the model writes to the plan can be lowered per card (``input_limits``).

The schema's ceilings stay the defaults; a lowered bound is enforced at the tool's entry
with a RetriableError naming the field, its length and the limit, and the plan is left as
it was; an output past its bound is cut, as the ceiling's is.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from akgentic.tool.core.testing import (
    ToolTestAgent,
    bind_card,
    expect_retry,
)
from akgentic.tool.planning import (
    BATCH_MAX_ITEMS,
    DESCRIPTION_MAX_CHARS,
    OUTPUT_MAX_CHARS,
    OWNER_MAX_CHARS,
    QUERY_MAX_CHARS,
    PlanInputLimits,
    PlanningTool,
)

TIGHT = PlanInputLimits(
    description_max_chars=20,
    output_max_chars=10,
    owner_max_chars=8,
    query_max_chars=15,
    tasks_per_call=3,
)


@pytest.fixture
def tight(tool_agent: ToolTestAgent) -> dict[str, Any]:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False, input_limits=TIGHT))
    tools["update_planning"](create_tasks=[{"description": "write the report"}])
    return tools


def test_defaults_are_the_schema_ceilings() -> None:
    limits = PlanInputLimits()
    assert (
        limits.description_max_chars,
        limits.output_max_chars,
        limits.owner_max_chars,
        limits.query_max_chars,
        limits.tasks_per_call,
    ) == (
        DESCRIPTION_MAX_CHARS,
        OUTPUT_MAX_CHARS,
        OWNER_MAX_CHARS,
        QUERY_MAX_CHARS,
        BATCH_MAX_ITEMS,
    )
    with pytest.raises(ValidationError, match="description_max_chars"):
        PlanningTool(input_limits={"description_max_chars": DESCRIPTION_MAX_CHARS + 1})


def test_lowered_limits_name_each_field_and_its_limit(
    tight: dict[str, Any],
) -> None:
    # That such a call changes nothing is a standard test (test_standard.py, tight limits).
    message = expect_retry(
        tight["update_planning"],
        create_tasks=[{"description": "d" * 25, "owner": "@Bartholomew"}],
        update_tasks=[{"id": 1, "description": "e" * 21}],
    )
    assert "nothing was changed" in message
    assert (
        "create_tasks[0].description: 25 characters, at most 20 "
        "(input_limits.description_max_chars)"
    ) in message
    assert "create_tasks[0].owner: 12 characters, at most 8" in message
    assert "update_tasks[0].description: 21 characters, at most 20" in message
    message = expect_retry(tight["update_planning"], delete_tasks=[1, 2, 3, 4])
    assert "delete_tasks: 4 items, at most 3 per call (input_limits.tasks_per_call)" in message


def test_a_lowered_output_limit_cuts_the_output(tight: dict[str, Any]) -> None:
    tight["update_planning"](update_tasks=[{"id": 1, "output": "finished it all, on time"}])
    output = tight["get_planning_task"](1).output
    assert len(output) <= 10
    assert output.endswith("…")


def test_a_lowered_query_limit(tight: dict[str, Any]) -> None:
    message = expect_retry(tight["search_planning"], query="q" * 16)
    assert "query holds at most 15 characters, got 16" in message
    assert [t.id for t in tight["search_planning"](query="report", mode="keyword").tasks] == [1]


def test_the_tool_descriptions_state_the_lowered_limits(tight: dict[str, Any]) -> None:
    assert "tighter limits: descriptions 20, outputs 10, owners 8, items per list 3" in (
        tight["update_planning"].__doc__
    )
    assert "limits the query to 15 characters" in tight["search_planning"].__doc__


def test_default_descriptions_are_unchanged(tool_agent: ToolTestAgent) -> None:
    tools = bind_card(tool_agent, PlanningTool(vector_store=False))
    assert "tighter" not in tools["update_planning"].__doc__
    assert "limits the query" not in tools["search_planning"].__doc__
