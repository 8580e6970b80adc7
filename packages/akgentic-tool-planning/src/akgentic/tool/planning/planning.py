"""``PlanningTool``: the card that gives an agent the team's shared task board.

Binding gets or creates the team's ``#PlanningTool`` actor through the orchestrator (one
idempotent call, never check-then-create) and looks the vector store up by name when
semantic search is on. The callables capture the card, not the agent: the card holds its
agent weakly, so tools never keep a stopped agent alive.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self, cast

from pydantic import BaseModel, Field, ValidationError

from akgentic.tool.core.batch_update import joined_lists
from akgentic.tool.core.capability import insert_before_args
from akgentic.tool.core.channels import COMMAND, SYSTEM_PROMPT, TOOL_CALL, Channels
from akgentic.tool.core.input_limits import query_limit_note
from akgentic.tool.core.observer import ActorToolObserver, ToolObserver
from akgentic.tool.core.params import BaseToolParam
from akgentic.tool.core.vector_binding import (
    ConsumerBinding,
    VectorConsumerCard,
    consumer_settings,
)
from akgentic.tool.core.vector_store import CollectionConfig
from akgentic.tool.errors import RetriableError
from akgentic.tool.planning.input_limits import PlanInputLimits, cut_outputs, refuse_over_limit
from akgentic.tool.planning.models import (
    BATCH_MAX_ITEMS,
    OWNER_MAX_CHARS,
    QUERY_MAX_CHARS,
    TASK_STATUSES,
    Task,
    TaskCreate,
    TaskUpdate,
    UpdatePlan,
)
from akgentic.tool.planning.planning_actor import (
    PLANNING_ACTOR_NAME,
    PLANNING_ACTOR_ROLE,
    PLANNING_COLLECTION,
    PlanActor,
    PlanConfig,
    PlanSearchResult,
    SearchMode,
    planning_answer,
    search_mode_for,
)

__all__ = [
    "DEFAULT_PLANNING_SCORE_THRESHOLD",
    "DEFAULT_PLANNING_TOP_K",
    "PLANNING_ACTOR_NAME",
    "PLANNING_ACTOR_ROLE",
    "GetPlanning",
    "GetPlanningTask",
    "PlanningTool",
    "SearchPlanning",
    "UpdatePlanning",
]

DEFAULT_PLANNING_TOP_K = 10
DEFAULT_PLANNING_SCORE_THRESHOLD = 0.5


class GetPlanning(BaseToolParam):
    """The plan in the system prompt (and as a command).

    ``filter_by_agent``: list only the tasks the agent owns or created (the owner counts
    still cover the whole team). ``max_listed``: how many tasks the prompt lists at most.
    """

    expose: set[Channels] = {SYSTEM_PROMPT, COMMAND}
    filter_by_agent: bool = True
    max_listed: int = Field(default=100, ge=1)


class GetPlanningTask(BaseToolParam):
    """One task by id: tool call and command."""

    expose: set[Channels] = {TOOL_CALL, COMMAND}


class UpdatePlanning(BaseToolParam):
    """Batch create / update / delete of tasks: a tool call."""

    expose: set[Channels] = {TOOL_CALL}


class SearchPlanning(BaseToolParam):
    """Task search by status, owner, creator and text: tool call and command."""

    expose: set[Channels] = {TOOL_CALL, COMMAND}


class PlanningTool(VectorConsumerCard):
    """A task board shared by the whole team.

    ``vector_store``: ``True`` uses the team's ``#VectorStore`` for semantic search, a
    ``#``-name selects another store, ``False`` keeps search keyword-only (as does a team
    without a store).
    """

    get_planning: bool | GetPlanning = True
    get_planning_task: bool | GetPlanningTask = True
    update_planning: bool | UpdatePlanning = True
    search_planning: bool | SearchPlanning = True
    vector_store: bool | str = True
    collection: CollectionConfig = Field(default_factory=CollectionConfig)
    search_top_k: int = Field(default=DEFAULT_PLANNING_TOP_K, ge=1, le=100)
    search_score_threshold: float = Field(default=DEFAULT_PLANNING_SCORE_THRESHOLD, ge=0.0, le=1.0)
    input_limits: PlanInputLimits = Field(default_factory=PlanInputLimits)

    def observer(self, observer: ToolObserver) -> Self:
        super().observer(observer)
        shared = ConsumerBinding(
            "PlanningTool", PlanActor, what="The team plan", collection=PLANNING_COLLECTION
        )
        self._bind_shared(observer, shared, PlanConfig(**consumer_settings(self)))
        return self

    def _actor_observer(self) -> ActorToolObserver:
        return cast(ActorToolObserver, self.get_observer())

    def _plan(self) -> ConsumerBinding[PlanActor]:
        return cast(ConsumerBinding[PlanActor], self._shared_binding())

    def _agent_name(self) -> str:
        return str(self._actor_observer().myAddress.name)

    # -- callables: one _build_<field> per capability field -----------------------------

    def _build_get_planning(self, param: GetPlanning) -> Callable[[], str]:
        card = self
        filter_by_agent, max_listed = param.filter_by_agent, param.max_listed

        def get_planning() -> str:
            """The team plan: task counts per owner and the tasks that concern you."""
            observer = card.get_observer_or_none()
            agent = str(cast(ActorToolObserver, observer).myAddress.name) if observer else ""
            return card._plan().ask(lambda plan: plan.render(agent, filter_by_agent, max_listed))

        return get_planning

    def _build_get_planning_task(self, param: GetPlanningTask) -> Callable[[int], Task]:
        card = self

        def get_planning_task(task_id: int) -> Task:
            """Look up one task of the team plan by its integer id.

            Args:
                task_id: The task's id, as shown in the plan (``ID 7``).
            """
            if isinstance(task_id, bool) or not isinstance(task_id, int):
                raise RetriableError(
                    f"task_id must be an integer task id, got {_describe(task_id)}"
                )
            task = card._plan().ask(lambda plan: plan.get_task(task_id))
            if task is None:
                raise RetriableError(
                    f"unknown task id {task_id}: see the plan or use search_planning(...)"
                )
            return task

        return get_planning_task

    def _build_update_planning(self, param: UpdatePlanning) -> Callable[..., str]:
        card = self

        def update_planning(
            create_tasks: list[TaskCreate] | None = None,
            update_tasks: list[TaskUpdate] | None = None,
            delete_tasks: list[int] | None = None,
            update: UpdatePlan | None = None,
        ) -> str:
            """Create, update and delete tasks of the team plan in one call.

            A description holds at most 300 characters; an output at most 150 (longer
            outputs are cut); an owner at most 100. Status is one of: pending, started,
            completed, blocked, abort. Owners are agent names such as '@Alice'.
            Dependencies are ids of tasks that must be completed first: they must exist
            (a new task may depend on one created earlier in the same call) and may not
            form a cycle; deleting a task removes it from the others' dependencies. Each
            list holds at most 100 items. Valid items are applied even when others are
            rejected; the rejected ones are listed in the error.

            Args:
                create_tasks: New tasks (description, owner, status, output,
                    dependencies; id optional).
                update_tasks: Changes to existing tasks, by id.
                delete_tasks: Ids of tasks to delete.
                update: The same three lists in one object (create_tasks, update_tasks,
                    delete_tasks), the earlier form of this call; its items are added to
                    the lists above.
            """
            lists = joined_lists(
                {
                    "create_tasks": create_tasks,
                    "update_tasks": update_tasks,
                    "delete_tasks": delete_tasks,
                },
                update,
            )
            creates = _validate_list(TaskCreate, "create_tasks", lists["create_tasks"])
            updates = _validate_list(TaskUpdate, "update_tasks", lists["update_tasks"])
            deletes = _validate_ids("delete_tasks", lists["delete_tasks"])
            total = len(creates) + len(updates) + len(deletes)
            if total == 0:
                raise RetriableError(
                    "update_planning got no change: pass create_tasks, update_tasks or delete_tasks"
                )
            limits = card.input_limits
            refuse_over_limit(limits, creates, updates, deletes)
            creates = cut_outputs(creates, limits.output_max_chars)
            updates = cut_outputs(updates, limits.output_max_chars)
            agent = card._agent_name()
            report = card._plan().ask(
                lambda plan: plan.update_plan(creates, updates, deletes, agent)
            )
            return planning_answer(report, total)

        return insert_before_args(update_planning, card.input_limits.describe())

    def _build_search_planning(self, param: SearchPlanning) -> Callable[..., PlanSearchResult]:
        card = self

        def search_planning(
            status: str | None = None,
            owner: str | None = None,
            creator: str | None = None,
            query: str | None = None,
            mode: SearchMode = "hybrid",
            top_k: int | None = None,
            score_threshold: float | None = None,
        ) -> PlanSearchResult:
            """Find tasks of the team plan. Every given filter must hold.

            Args:
                status: pending, started, completed, blocked or abort.
                owner: Agent owning the task, e.g. '@Alice'; 'unassigned' for tasks
                    without an owner.
                creator: Agent that created the task.
                query: Words or a question matched against descriptions and outputs
                    (keyword match, plus semantic similarity when available); at most
                    500 characters.
                mode: How query matches: 'hybrid' (keyword and semantic, the default),
                    'keyword' (words only) or 'vector' (semantic only).
                top_k: Semantic matches considered (1 to 100; default from the tool).
                score_threshold: Minimum similarity of a semantic match (0 to 1;
                    default from the tool).
            """
            status = _optional_text("status", status, QUERY_MAX_CHARS)
            owner = _optional_text("owner", owner, OWNER_MAX_CHARS)
            creator = _optional_text("creator", creator, OWNER_MAX_CHARS)
            query = _optional_text("query", query, card.input_limits.query_max_chars)
            if status is not None and status not in TASK_STATUSES:
                raise RetriableError(
                    f"invalid status {status!r}: use one of {', '.join(TASK_STATUSES)}"
                )
            mode, embed = search_mode_for(card.vector_store, query, _check_mode(mode))
            k = _check_number("top_k", top_k, 1, 100, integer=True)
            threshold = _check_number("score_threshold", score_threshold, 0.0, 1.0)
            semantic: list[tuple[str, float]] = []
            note: str | None = None
            if embed and query is not None:
                semantic, note = card._vector_hits(
                    query,
                    top_k=card.search_top_k if k is None else int(k),
                    threshold=card.search_score_threshold if threshold is None else threshold,
                )
                if note is not None and mode == "vector":
                    # No semantic answer at all: keyword matches instead, and say so.
                    mode = "keyword"
                    note += "; keyword matches shown instead"
            search_mode = mode
            return card._plan().ask(
                lambda plan: plan.search(
                    status, owner, creator, query, semantic, note, mode=search_mode
                )
            )

        return insert_before_args(
            search_planning,
            query_limit_note(card.input_limits.query_max_chars, QUERY_MAX_CHARS),
        )


def _check_mode(mode: Any) -> SearchMode:
    if mode not in ("hybrid", "keyword", "vector"):
        raise RetriableError(f"mode must be 'hybrid', 'keyword' or 'vector', got {_describe(mode)}")
    return cast(SearchMode, mode)


def _check_number(
    name: str, value: Any, low: float, high: float, *, integer: bool = False
) -> float | None:
    """An optional numeric search argument, checked for type and range."""
    if value is None:
        return None
    number: float | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, float) and not integer:
        number = value
    if number is None or not low <= number <= high:
        kind = "an integer" if integer else "a number"
        raise RetriableError(
            f"{name} must be {kind} from {low:g} to {high:g}, or null; got {_describe(value)}"
        )
    return number


def _validate_list[M: BaseModel](model: type[M], name: str, items: Any) -> list[M]:
    """Validate a list argument item by item; errors name the item and the field."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise RetriableError(f"{name} must be a list, got {type(items).__name__}")
    _check_batch_size(name, items)
    result: list[M] = []
    problems: list[str] = []
    for index, item in enumerate(items):
        data = item.model_dump() if isinstance(item, BaseModel) else item
        try:
            result.append(model.model_validate(data))
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                where = "".join(f".{part}" for part in err["loc"])
                problems.append(f"{name}[{index}]{where}: {err['msg']}")
    if problems:
        raise RetriableError("Invalid arguments (nothing was changed): " + "; ".join(problems))
    return result


def _validate_ids(name: str, ids: Any) -> list[int]:
    if ids is None:
        return []
    if not isinstance(ids, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in ids
    ):
        raise RetriableError(
            f"{name} must be a list of integer task ids, got {_describe(ids)} (nothing was changed)"
        )
    _check_batch_size(name, ids)
    return list(ids)


def _check_batch_size(name: str, items: list[Any]) -> None:
    if len(items) > BATCH_MAX_ITEMS:
        raise RetriableError(
            f"{name} holds at most {BATCH_MAX_ITEMS} items per call, got {len(items)} "
            "(nothing was changed): split the batch over several calls"
        )


def _optional_text(name: str, value: Any, limit: int) -> str | None:
    """A search argument checked for type and length; a wrong one is a RetriableError."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise RetriableError(f"{name} must be a string or null, got {type(value).__name__}")
    if len(value) > limit:
        raise RetriableError(
            f"{name} holds at most {limit} characters, got {len(value)}: shorten it"
        )
    return value


def _describe(value: Any) -> str:
    """A short rendering of a bad argument: its type, and its text when that is short."""
    text = repr(value)
    return text if len(text) <= 80 else f"a {type(value).__name__} of {len(text)} characters"
