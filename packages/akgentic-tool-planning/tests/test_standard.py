"""Core's standard tests, applied to planning: the card, its public names, bad input
and the plan actor's delta persistence. The standard stored-form tests run with the stored
configurations (test_planning_stored_config.py), the vector-search ones with the search
tests (test_planning_search.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

import akgentic.tool.planning as planning
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.delta_state import TrackedState
from akgentic.tool.core.testing import (
    BadCalls,
    CardStandardTests,
    DeltaPersistenceTests,
    PartialBatchTests,
    PublicSurfaceTests,
    Refusal,
    RefusalTests,
    Tools,
)
from akgentic.tool.planning import (
    PLANNING_ACTOR_NAME,
    PlanActor,
    PlanConfig,
    PlanningStateEvent,
    PlanningTool,
    PlanState,
)


class TestPlanningCard(CardStandardTests):
    def make_card(self) -> ToolCard:
        return PlanningTool(search_top_k=3, vector_store="#Elsewhere")


class TestPlanningBadInput(RefusalTests):
    bad_calls: ClassVar[BadCalls] = {
        "update_planning": [
            {},
            {"create_tasks": [{"description": "ok"}, {"owner": "@A"}]},
            # A batch mixing valid and invalid items applies the valid ones (documented):
            # only calls with nothing valid in them belong here.
            {"update_tasks": [{"id": 99}]},
            {"delete_tasks": [42]},
            {"update_tasks": [{"id": 1, "status": "bogus"}]},
            {"create_tasks": [{"owner": "@A"}]},
            {"create_tasks": "nope"},
            {"delete_tasks": ["x"]},
            {"update_tasks": [{"id": 3}]},
        ],
        "get_planning_task": [{"task_id": 7}, {"task_id": None}],
        "search_planning": [{"status": "bogus"}, {"query": "q" * 5000}],
    }
    # The refusal names the argument at fault and what it should be.
    refusals: ClassVar[Mapping[str, Sequence[Refusal]]] = {
        "update_planning": [
            (
                {"create_tasks": [{"description": "ok"}, {"description": "d" * 301}]},
                "(nothing was changed): create_tasks[1].description: String should have at most",
            ),
            ({"create_tasks": "write the spec"}, "create_tasks must be a list, got str"),
            ({"update_tasks": {"id": 1}}, "update_tasks must be a list, got dict"),
            ({"delete_tasks": "1"}, "delete_tasks must be a list of integer task ids"),
            ({"delete_tasks": [1, "2"]}, "delete_tasks must be a list of integer task ids"),
            ({"create_tasks": ["spec"]}, "create_tasks[0]: Input should be a valid dictionary"),
            ({"create_tasks": [{"description": 5}]}, "create_tasks[0].description: Input should"),
            ({"create_tasks": [{"description": "d", "owner": 7}]}, "create_tasks[0].owner"),
            (
                {"update_tasks": [{"id": "one"}]},
                "update_tasks[0].id: Input should be a valid integer",
            ),
            ({"update_tasks": [{"id": 1, "status": ["started"]}]}, "update_tasks[0].status"),
        ],
        "search_planning": [
            ({"status": 3}, "status must be a string or null, got int"),
            ({"owner": ["@Al"]}, "owner must be a string or null, got list"),
            ({"creator": {"name": "@Al"}}, "creator must be a string or null, got dict"),
            ({"query": 7.5}, "query must be a string or null, got float"),
        ],
    }

    def make_card(self) -> ToolCard:
        return PlanningTool(vector_store=False)

    def seed(self, tools: Tools) -> None:
        tools["update_planning"](create_tasks=[{"description": "write the report"}])

    def read_state(self, tools: Tools) -> Any:
        return tools["get_planning"]()


class TestPlanningPartialBatch(PartialBatchTests):
    batch_tool = "update_planning"
    tool_id = PLANNING_ACTOR_NAME
    mixed_batch: ClassVar[Mapping[str, Any]] = {
        "create_tasks": [{"description": "second"}, {"description": "bad", "status": "done"}],
        "update_tasks": [{"id": 99, "status": "started"}, {"id": 1, "status": "finished"}],
        "delete_tasks": [42],
    }
    changes = 5
    rejected: ClassVar[Sequence[str]] = [
        "create_tasks[1]: invalid status 'done'",
        "update_tasks[0] (task 99): unknown task id 99",
        "update_tasks[1] (task 1): invalid status 'finished'",
        "delete_tasks[0]: unknown task id 42",
    ]
    applied = "created #2"
    seed_batch: ClassVar[Mapping[str, Any]] = {"create_tasks": [{"description": "first"}]}

    def make_card(self) -> ToolCard:
        return PlanningTool(vector_store=False)

    def check_applied(self, tools: Tools, delta: BaseModel) -> None:
        assert isinstance(delta, PlanningStateEvent)
        assert [t.description for t in delta.tasks_added] == ["second"]
        assert (delta.tasks_modified, delta.tasks_removed) == ([], [])
        assert tools["get_planning_task"](1).status == "pending"


class TestPlanPersistence(DeltaPersistenceTests):
    actor_class = PlanActor

    def make_card(self) -> ToolCard:
        return PlanningTool(vector_store=False)

    def actor_config(self) -> BaseConfig:
        return PlanConfig(vector_store=False)

    def add_batch(self, tools: Tools, index: int, size: int) -> None:
        tools["update_planning"](
            create_tasks=[
                {"description": f"task {index}-{i}", "owner": "@Tester"} for i in range(size)
            ]
        )

    def edit(self, tools: Tools) -> None:
        tools["update_planning"](
            update_tasks=[
                {"id": 2, "status": "completed", "output": "done well"},
                {"id": 1, "owner": ""},
                {"id": 4, "description": "reworded", "status": "blocked"},
            ],
            delete_tasks=[3, 5],
        )

    def restate(self, tools: Tools) -> None:
        tools["update_planning"](update_tasks=[{"id": 1, "owner": "@Tester"}])  # as it is

    def calls_after_stop(self, tools: Tools) -> list[Callable[[], Any]]:
        return [
            lambda: tools["get_planning_task"](1),
            lambda: tools["search_planning"](query="task"),
        ]

    def live_state(self, actor: Any) -> TrackedState:
        state: PlanState = actor.plan()
        return state

    def empty_state(self) -> TrackedState:
        return PlanState()

    def same_state(self, left: TrackedState, right: TrackedState) -> bool:
        assert isinstance(left, PlanState)
        assert isinstance(right, PlanState)
        # Ids keep counting after a replay too (issue 21: next_id past every replayed task).
        return left.same_plan(right) and left.next_id == right.next_id

    def check_resumed(self, tools: Tools, expected: TrackedState) -> None:
        assert isinstance(expected, PlanState)
        assert tools["get_planning_task"](2).output == "done well"
        assert tools["get_planning_task"](4).status == "blocked"
        created = tools["update_planning"](create_tasks=[{"description": "after resume"}])
        assert created == f"Planning updated: created #{expected.next_id}."


class TestPlanningSurface(PublicSurfaceTests):
    module = planning
    public_names = PublicSurfaceTests.names_listed_in(
        Path(__file__).parent / "fixtures" / "public_names.txt"
    )
    aliases: ClassVar[Mapping[str, object]] = {
        "akgentic.tool.planning.planning:PlanningTool": PlanningTool,
        "akgentic.tool.planning.planning_actor:PlanActor": PlanActor,
        "akgentic.tool.planning.planning_actor:PlanConfig": PlanConfig,
        "akgentic.tool.planning.planning_actor:Task": planning.Task,
    }
