"""Bounds on what the model writes to the plan can be lowered per card (``input_limits``).

The schema's ceilings stay the defaults; a lowered bound is stated in the tool
descriptions and enforced at the tool's entry with a RetriableError naming the field, its
length and the limit, and the plan is left as it was (core's standard lowered-limits
tests); an output past its bound is cut, as the ceiling's is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.input_limits import LowerableLimits
from akgentic.tool.core.testing import (
    LoweredLimitsTests,
    Refusal,
    Tools,
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


class TestPlanningLoweredLimits(LoweredLimitsTests):
    lowered = TIGHT
    ceilings: ClassVar[Mapping[str, int]] = {
        "description_max_chars": DESCRIPTION_MAX_CHARS,
        "output_max_chars": OUTPUT_MAX_CHARS,
        "owner_max_chars": OWNER_MAX_CHARS,
        "query_max_chars": QUERY_MAX_CHARS,
        "tasks_per_call": BATCH_MAX_ITEMS,
    }
    described: ClassVar[Mapping[str, Sequence[str]]] = {
        "update_planning": [
            "tighter limits: descriptions 20, outputs 10, owners 8, items per list 3"
        ],
        "search_planning": ["limits the query to 15 characters"],
    }
    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {
        "update_planning": [{"create_tasks": [{"description": "d" * 25}]}],
        "search_planning": [{"query": "q" * 16}],
    }
    refusals: ClassVar[Mapping[str, Sequence[Refusal]]] = {
        "update_planning": [
            (
                {"create_tasks": [{"description": "d" * 25}]},
                "(nothing was changed): create_tasks[0].description: 25 characters, at most 20 "
                "(input_limits.description_max_chars)",
            ),
            (
                # past two bounds: the second is named too
                {"create_tasks": [{"description": "d" * 25, "owner": "@Bartholomew"}]},
                "create_tasks[0].owner: 12 characters, at most 8",
            ),
            (
                {"update_tasks": [{"id": 1, "description": "e" * 21}]},
                "update_tasks[0].description: 21 characters, at most 20",
            ),
            (
                {"delete_tasks": [1, 2, 3, 4]},
                "delete_tasks: 4 items, at most 3 per call (input_limits.tasks_per_call)",
            ),
        ],
        "search_planning": [({"query": "q" * 16}, "query holds at most 15 characters, got 16")],
    }

    def card_with(self, limits: LowerableLimits) -> ToolCard:
        assert isinstance(limits, PlanInputLimits)
        return PlanningTool(vector_store=False, input_limits=limits)

    def seed(self, tools: Tools) -> None:
        tools["update_planning"](create_tasks=[{"description": "write the report"}])

    def read_state(self, tools: Tools) -> Any:
        return tools["get_planning"]()


@pytest.fixture
def tight(tool_agent: ToolTestAgent) -> Tools:
    return TestPlanningLoweredLimits().seeded_tools(tool_agent)  # TIGHT, with task 1


def test_a_lowered_output_limit_cuts_the_output(tight: Tools) -> None:
    tight["update_planning"](update_tasks=[{"id": 1, "output": "finished it all, on time"}])
    output = tight["get_planning_task"](1).output
    assert len(output) <= 10
    assert output.endswith("…")


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ("0123456789", "0123456789"),  # at the bound: kept
        ("0123456789a", "012345678…"),  # past it: the bound's length, marked
        ("abcd      zz", "abcd…"),  # blanks before the cut are dropped
    ],
)
def test_a_lowered_output_limit_cuts_past_the_bound_only(
    tight: Tools, written: str, stored: str
) -> None:
    tight["update_planning"](update_tasks=[{"id": 1, "output": written}])
    assert tight["get_planning_task"](1).output == stored


@pytest.mark.parametrize(
    ("name", "item"), [("create_tasks", {"description": "d"}), ("update_tasks", {"id": 1})]
)
def test_a_list_past_the_lowered_count_is_named(
    tight: Tools, name: str, item: dict[str, Any]
) -> None:
    message = expect_retry(tight["update_planning"], **{name: [item] * 4})
    assert f"{name}: 4 items, at most 3 per call" in message


def test_fields_left_out_are_not_measured(tool_agent: ToolTestAgent) -> None:
    tiny = PlanInputLimits(description_max_chars=3, owner_max_chars=3)
    tools = bind_card(tool_agent, PlanningTool(vector_store=False, input_limits=tiny))
    tools["update_planning"](create_tasks=[{"description": "abc"}])
    tools["update_planning"](update_tasks=[{"id": 1, "status": "started"}])
    assert tools["get_planning_task"](1).status == "started"


def test_a_query_within_the_lowered_limit_is_answered(tight: Tools) -> None:
    assert [t.id for t in tight["search_planning"](query="report", mode="keyword").tasks] == [1]
