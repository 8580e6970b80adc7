"""The team task board tool: one shared plan per team, with keyword and semantic search.

``PlanningTool`` is the card agents carry; ``PlanActor`` (``#PlanningTool``) holds the team's
plan; ``PlanningStateEvent`` is the delta each change emits.
"""

from akgentic.tool.planning.event import PlanningStateEvent
from akgentic.tool.planning.input_limits import PlanInputLimits
from akgentic.tool.planning.models import (
    BATCH_MAX_ITEMS,
    DEPENDENCIES_MAX,
    DESCRIPTION_MAX_CHARS,
    OUTPUT_MAX_CHARS,
    OWNER_MAX_CHARS,
    PLAN_MAX_TASKS,
    PROMPT_MAX_OWNERS,
    QUERY_MAX_CHARS,
    TASK_STATUSES,
    Task,
    TaskCreate,
    TaskStatus,
    TaskUpdate,
    UpdatePlan,
)
from akgentic.tool.planning.planning import (
    DEFAULT_PLANNING_SCORE_THRESHOLD,
    DEFAULT_PLANNING_TOP_K,
    GetPlanning,
    GetPlanningTask,
    PlanningTool,
    SearchPlanning,
    UpdatePlanning,
)
from akgentic.tool.planning.planning_actor import (
    PLAN_COLLECTION,
    PLANNING_ACTOR_NAME,
    PLANNING_ACTOR_ROLE,
    PLANNING_COLLECTION,
    VS_ACTOR_NAME,
    PlanActor,
    PlanConfig,
    PlanManagerState,
    PlanSearchResult,
    PlanUpdateReport,
)
from akgentic.tool.planning.state import PlanState

__all__ = [
    "BATCH_MAX_ITEMS",
    "DEFAULT_PLANNING_SCORE_THRESHOLD",
    "DEFAULT_PLANNING_TOP_K",
    "DEPENDENCIES_MAX",
    "DESCRIPTION_MAX_CHARS",
    "OUTPUT_MAX_CHARS",
    "OWNER_MAX_CHARS",
    "PLANNING_ACTOR_NAME",
    "PLANNING_ACTOR_ROLE",
    "PLANNING_COLLECTION",
    "PLAN_COLLECTION",
    "PLAN_MAX_TASKS",
    "PROMPT_MAX_OWNERS",
    "QUERY_MAX_CHARS",
    "TASK_STATUSES",
    "VS_ACTOR_NAME",
    "GetPlanning",
    "GetPlanningTask",
    "PlanActor",
    "PlanConfig",
    "PlanInputLimits",
    "PlanManagerState",
    "PlanSearchResult",
    "PlanState",
    "PlanUpdateReport",
    "PlanningStateEvent",
    "PlanningTool",
    "SearchPlanning",
    "Task",
    "TaskCreate",
    "TaskStatus",
    "TaskUpdate",
    "UpdatePlan",
    "UpdatePlanning",
]
