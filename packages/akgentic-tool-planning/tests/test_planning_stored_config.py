"""Stored planning configurations of akgentic-tool 1.6 load and work.

Each entry of ``fixtures/stored_config.yaml`` is validated (its round trip is a standard
test, in test_standard.py), then put to work on a real team: a card through
``ToolFactory`` (its tools called), the actor configuration by creating the plan actor
with it, the predecessor's state by restoring a plan actor from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from pydantic import BaseModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.utils.deserializer import deserialize_object
from akgentic.tool.core import ToolFactory
from akgentic.tool.core.testing import StoredFormTests, ToolRetry, ToolTestAgent, team_tool_actor
from akgentic.tool.planning import (
    PlanActor,
    PlanConfig,
    PlanManagerState,
    PlanningTool,
    PlanSearchResult,
    Task,
    UpdatePlanning,
)

ENTRIES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "fixtures" / "stored_config.yaml").read_text()
)
MODELS: dict[str, type[Any]] = {
    "PlanningTool": PlanningTool,
    "PlanConfig": PlanConfig,
    "PlanManagerState": PlanManagerState,
}


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e['card']}-{i}" for i, e in enumerate(ENTRIES)])
def test_stored_entry_loads_round_trips_and_works(
    entry: dict[str, Any],
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    tool_agent: ToolTestAgent,
) -> None:
    # Round trips and the stored class paths are checked in test_standard.py.
    loaded = MODELS[entry["card"]].model_validate(entry["config"])
    if isinstance(loaded, PlanningTool):
        _use_card(loaded, tool_agent)
    elif isinstance(loaded, PlanConfig):
        plan = team_tool_actor(actor_system, orchestrator, PlanActor, loaded)
        assert plan.get_planning() == []
        assert plan.update_planning(
            {"create_tasks": [{"id": 1, "description": "x", "status": "pending", "owner": ""}]},
            tool_agent.myAddress,
        ) == ("Planning updated: created #1.")
        assert [t.creator for t in plan.get_planning()] == ["@Tester"]
    else:
        assert isinstance(loaded, PlanManagerState)
        plan = team_tool_actor(
            actor_system, orchestrator, PlanActor, PlanConfig(vector_store=False)
        )
        plan.init_state(loaded)
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
    factory = ToolFactory([card], observer=agent, retry_exception=ToolRetry)
    tools = {fn.__name__: fn for fn in factory.get_tools()}
    prompts = {fn.__name__: fn for fn in factory.get_system_prompts()}
    if card.update_planning is False:
        assert "update_planning" not in tools
        return
    update = tools["update_planning"]
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
    if "get_planning_task" in tools:
        task = tools["get_planning_task"](2)
        assert isinstance(task, Task)
        assert task.dependencies == [1]
    if "search_planning" in tools:
        found = tools["search_planning"](status="abort", mode="keyword", top_k=5)
        assert isinstance(found, PlanSearchResult)
        assert [t.id for t in found.tasks] == [1]
    if "get_planning" in prompts:
        assert "Depends on: #1" in prompts["get_planning"]()


def test_stored_state_deserializes_by_its_module_path() -> None:
    """A persisted snapshot names its class by module path, as the predecessor's did."""
    data = PlanManagerState.model_validate(ENTRIES[-1]["config"]).model_dump()
    assert data["__model__"] == "akgentic.tool.planning.planning_actor.PlanManagerState"
    restored = deserialize_object(data)
    assert isinstance(restored, PlanManagerState)
    assert restored.to_plan_state().next_id == 4


class TestPlanningStoredForms(StoredFormTests):
    stored_models: ClassVar[Sequence[BaseModel]] = [
        MODELS[entry["card"]].model_validate(entry["config"]) for entry in ENTRIES
    ]
    model_paths: ClassVar[Mapping[type[BaseModel], str]] = {
        # The predecessor's snapshots name this path: it must never move.
        PlanManagerState: "akgentic.tool.planning.planning_actor.PlanManagerState",
        PlanningTool: "akgentic.tool.planning.planning.PlanningTool",
    }
