"""Card defaults and pure plan logic (public names and conformance: test_standard.py)."""

from __future__ import annotations

import pytest

import akgentic.tool.planning as planning
from akgentic.tool.core.testing import ToolTestAgent, bind_card
from akgentic.tool.planning import PlanConfig, PlanningTool, PlanState, TaskCreate, TaskUpdate
from akgentic.tool.planning._update import apply_plan_update
from akgentic.tool.planning.models import normalize_agent, truncate_output


def test_defaults() -> None:
    card = PlanningTool()
    assert card.search_top_k == 10
    assert card.search_score_threshold == 0.5
    assert card.vector_store is True
    assert PlanConfig().name == "#PlanningTool"
    assert "VectorStoreTool" not in PlanningTool(vector_store=False).depends_on
    with pytest.raises(ValueError, match="starts with '#'"):
        PlanningTool(vector_store="store")


def test_instructions_reach_the_description(tool_agent: ToolTestAgent) -> None:
    card = PlanningTool(
        vector_store=False,
        update_planning=planning.UpdatePlanning(instructions="Keep tasks small."),
    )
    doc = bind_card(tool_agent, card)["update_planning"].__doc__ or ""
    assert doc.rstrip().endswith("Keep tasks small.")


def test_truncate_and_normalize() -> None:
    assert truncate_output("  short  ") == "short"
    cut = truncate_output("a" * 200)
    assert len(cut) == 150
    assert cut.endswith("…")
    assert normalize_agent(" Alice ") == "@Alice"
    assert normalize_agent("@Bob") == "@Bob"
    assert normalize_agent("") == ""
    assert TaskUpdate(id=1, output="b" * 500).output == "b" * 149 + "…"


def test_net_delta_and_ids() -> None:
    state = PlanState()
    outcome = apply_plan_update(
        state,
        [TaskCreate(description="a"), TaskCreate(description="b")],
        [TaskUpdate(id=2, owner="Zoe")],
        [1],
        "Me",
    )
    assert outcome.errors == []
    assert outcome.created == [2]
    assert [(t.id, t.owner, t.creator) for t in outcome.delta.tasks_added] == [(2, "@Zoe", "@Me")]
    assert outcome.delta.tasks_removed == []  # 1 came and went in the same call
    assert outcome.summary == "created #2"
    assert state.next_id == 3


def test_snapshot_copy_is_independent() -> None:
    state = PlanState()
    apply_plan_update(state, [TaskCreate(description="a")], [], [], "@Me")
    copy = state.serializable_copy()
    state.remove_task(1)
    assert 1 in copy.tasks
    assert copy.same_plan(PlanState.model_validate_json(copy.model_dump_json()))
