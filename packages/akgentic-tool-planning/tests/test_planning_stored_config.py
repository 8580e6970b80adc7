"""Stored planning configurations of akgentic-tool 1.6 load and work.

Each entry of ``fixtures/stored_config.yaml`` is validated (its round trip is a standard
test, in test_standard.py), then put to work on a real team: a card through
``ToolFactory`` (its tools called), the actor configuration by creating the plan actor
with it, the predecessor's state by restoring a plan actor from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import yaml
from pydantic import BaseModel

from akgentic.core.utils.deserializer import deserialize_object
from akgentic.tool.core.testing import (
    LiveTeam,
    StoredFormTests,
    StoredUseTests,
    ToolTestAgent,
    bind_card,
    team_tool_actor,
)
from akgentic.tool.planning import (
    PlanActor,
    PlanConfig,
    PlanManagerState,
    PlanningTool,
    PlanSearchResult,
    Task,
    UpdatePlanning,
)

ENTRIES = StoredFormTests.stored_entries(__file__, yaml.safe_load)
STORED_CLASSES = [PlanningTool, PlanConfig, PlanManagerState]


class TestPlanningStoredUse(StoredUseTests):
    # Round trips and the stored class paths: the stored-form tests below.
    stored_models = StoredFormTests.models_of(ENTRIES, STORED_CLASSES)

    def put_to_work(self, model: BaseModel, team: LiveTeam) -> None:
        if isinstance(model, PlanningTool):
            _use_card(model, team.agent)
        elif isinstance(model, PlanConfig):
            plan = team_tool_actor(team.system, team.orchestrator, PlanActor, model)
            assert plan.get_planning() == []
            assert plan.update_planning(
                {"create_tasks": [{"id": 1, "description": "x", "status": "pending", "owner": ""}]},
                team.agent.myAddress,
            ) == ("Planning updated: created #1.")
            assert [t.creator for t in plan.get_planning()] == ["@Tester"]
        else:
            assert isinstance(model, PlanManagerState)
            plan = team_tool_actor(
                team.system, team.orchestrator, PlanActor, PlanConfig(vector_store=False)
            )
            plan.init_state(model)
            tasks = plan.get_planning()
            assert [(t.id, t.status, t.dependencies) for t in tasks] == [
                (1, "completed", []),
                (2, "started", [1]),
                (3, "abort", [2]),
            ]
            text = plan.render("@Bob", False, 100)
            assert "- ID 3 [abort] Benchmark against the old parser — Depends on: #2" in text
            report = plan.update_plan([], [], [2], "@Bob")
            assert report.summary == "updated #3; deleted #2"
            assert plan.get_planning_task(3).dependencies == []


def _use_card(card: PlanningTool, agent: ToolTestAgent) -> None:
    callables = bind_card(agent, card)  # tools and system prompts, by name
    if card.update_planning is False:
        assert "update_planning" not in callables
        return
    update = callables["update_planning"]
    if isinstance(card.update_planning, UpdatePlanning) and card.update_planning.instructions:
        assert card.update_planning.instructions in (update.__doc__ or "")
    # The predecessor's call shape, with its required fields and a status it allowed.
    assert (
        update(
            update={
                "create_tasks": [
                    {"id": 1, "description": "Draft", "status": "abort", "owner": "@Tester"},
                    {
                        "id": 2,
                        "description": "Redo",
                        "status": "pending",
                        "owner": "",
                        "dependencies": [1],
                    },
                ]
            }
        )
        == "Planning updated: created #1, #2."
    )
    if "get_planning_task" in callables:
        task = callables["get_planning_task"](2)
        assert isinstance(task, Task)
        assert task.dependencies == [1]
    if "search_planning" in callables:
        found = callables["search_planning"](status="abort", mode="keyword", top_k=5)
        assert isinstance(found, PlanSearchResult)
        assert [t.id for t in found.tasks] == [1]
    if "get_planning" in callables:
        assert "Depends on: #1" in callables["get_planning"]()


def test_stored_state_deserializes_by_its_module_path() -> None:
    """A persisted snapshot names its class by module path, as the predecessor's did."""
    data = PlanManagerState.model_validate(ENTRIES[-1]["config"]).model_dump()
    assert data["__model__"] == "akgentic.tool.planning.planning_actor.PlanManagerState"
    restored = deserialize_object(data)
    assert isinstance(restored, PlanManagerState)
    assert restored.to_plan_state().next_id == 4


class TestPlanningStoredForms(StoredFormTests):
    stored_models = StoredFormTests.models_of(ENTRIES, STORED_CLASSES)
    model_paths: ClassVar[Mapping[type[BaseModel], str]] = {
        # The predecessor's snapshots name this path: it must never move.
        PlanManagerState: "akgentic.tool.planning.planning_actor.PlanManagerState",
        PlanningTool: "akgentic.tool.planning.planning.PlanningTool",
    }
