"""``PlanActor``: the team's one plan, the tool actor ``#PlanningTool``.

Every agent carrying a ``PlanningTool`` reaches this actor, so they all share the same
tasks, and their updates are serialised by its mailbox.

Persistence is core's ``DeltaToolActor`` protocol, as for the knowledge graph: one
``ToolStateEvent`` per update that changes something (net delta, ``seq`` per actor without
gaps), full snapshots on a schedule proportional to the amount of change and on stop, and
on restore a replay of the history's deltas newer than the snapshot before the first call
is served.

Semantic search: with the team's vector store available, the actor creates the ``planning``
collection on its first call (syncing it when its document count disagrees with the plan)
and sends it task descriptions as they are created or reworded. The
query itself is embedded and searched from the caller's thread (see ``planning``), so this
actor never waits for an embedding.

The task models are re-exported here: this module is where the plan's data lives for users.

Code written for the predecessor asks the actor directly with ``get_planning()``,
``get_planning_task(task_id)``, ``search_planning(...)`` and
``update_planning(update, actor_address)``; those work, with one difference from the
card's path: ``search_planning`` embeds its query on this actor's thread (blocking the
plan for that time), where the card embeds on the calling agent's. The predecessor's
stored state, ``PlanManagerState`` (a ``task_list``), is adopted by ``init_state``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from akgentic.core.actor_address import ActorAddress
from akgentic.core.agent_state import BaseState
from akgentic.tool.core.batch_update import raise_rejected
from akgentic.tool.core.delta_actor import DeltaToolActor, DeltaToolConfig
from akgentic.tool.core.vector_binding import (
    CollectionMirror,
    VectorConsumerConfig,
    VectorSearchClient,
)
from akgentic.tool.core.vector_store import VECTOR_STORE_NAME, VectorDocument, VectorStore
from akgentic.tool.errors import RetriableError
from akgentic.tool.planning._keywords import TaskKeywordIndex
from akgentic.tool.planning._update import apply_plan_update
from akgentic.tool.planning.event import PlanningStateEvent
from akgentic.tool.planning.models import (
    DESCRIPTION_MAX_CHARS,
    OUTPUT_MAX_CHARS,
    PROMPT_MAX_OWNERS,
    TASK_STATUSES,
    Task,
    TaskCreate,
    TaskStatus,
    TaskUpdate,
    UpdatePlan,
    normalize_agent,
)
from akgentic.tool.planning.state import PlanState

__all__ = [
    "DESCRIPTION_MAX_CHARS",
    "OUTPUT_MAX_CHARS",
    "PLANNING_ACTOR_NAME",
    "PLANNING_ACTOR_ROLE",
    "PLANNING_COLLECTION",
    "PLAN_COLLECTION",
    "TASK_STATUSES",
    "VS_ACTOR_NAME",
    "PlanActor",
    "PlanConfig",
    "PlanManagerState",
    "PlanSearchResult",
    "PlanUpdateReport",
    "Task",
    "TaskCreate",
    "TaskStatus",
    "TaskUpdate",
    "UpdatePlan",
]

PLANNING_ACTOR_NAME = "#PlanningTool"
PLANNING_ACTOR_ROLE = "ToolActor"
"""The plan actor's role, as persisted teams record it (the predecessor's value)."""
PLANNING_COLLECTION = "planning"
PLAN_COLLECTION = PLANNING_COLLECTION
"""The predecessor's name for :data:`PLANNING_COLLECTION`."""
VS_ACTOR_NAME = VECTOR_STORE_NAME
"""The team's default vector store (``#VectorStore``), under the predecessor's name."""
SearchMode = Literal["hybrid", "keyword", "vector"]
_TASK_PREFIX = "task:"
# Search results listed at most; the rest is counted so the model can narrow the query.
_MAX_RESULTS = 50


class PlanConfig(DeltaToolConfig, VectorConsumerConfig):
    """Configuration of the plan actor (built by ``PlanningTool``); the snapshot schedule
    fields come from ``DeltaToolConfig``, the vector-store ones from
    ``VectorConsumerConfig``."""

    name: str = PLANNING_ACTOR_NAME
    role: str = PLANNING_ACTOR_ROLE
    search_top_k: int = Field(
        default=10, ge=1, le=100, description="Semantic hits considered per query."
    )
    search_score_threshold: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Minimum cosine of a semantic hit."
    )


class PlanManagerState(BaseState):
    """The predecessor's plan state: the tasks as a list.

    A team persisted by the predecessor restores its plan actor with one of these;
    :meth:`PlanActor.init_state` adopts it as a :class:`PlanState` (same tasks, the next id
    after the highest).
    """

    task_list: list[Task] = Field(default_factory=list)

    def to_plan_state(self) -> PlanState:
        """The same tasks as this package's state."""
        return PlanState.model_validate({"task_list": self.task_list})


class PlanUpdateReport(BaseModel):
    """What an update did: summary, rejected items, ids created, the event's ``seq``;
    ``refused`` says why the whole batch was turned down (nothing applied)."""

    summary: str
    errors: list[str] = Field(default_factory=list)
    created: list[int] = Field(default_factory=list)
    seq: int | None = None
    refused: str | None = None


def search_mode_for(
    vector_store: bool | str, query: str | None, mode: SearchMode
) -> tuple[SearchMode, bool]:
    """The mode a plan search runs in, and whether its query is embedded first.

    Both search entry points (the card's tool and :meth:`PlanActor.search_planning`)
    decide this the same way. With semantic search off (``vector_store=False``) every mode
    matches keywords, and silently: that is the card's setting, not a failure. A missing
    or blank query has nothing to embed.
    """
    if vector_store is False:
        mode = "keyword"
    return mode, query is not None and bool(query.strip()) and mode != "keyword"


def planning_answer(report: PlanUpdateReport, total: int) -> str:
    """What an update of ``total`` changes tells the model: its summary, or a
    ``RetriableError`` when the batch was refused whole or any change was rejected."""
    if report.refused is not None:
        raise RetriableError(report.refused)
    raise_rejected(report.errors, total, report.summary)
    return f"Planning updated: {report.summary}."


class PlanSearchResult(BaseModel):
    """Tasks matching a search, best first, and how many matched in total."""

    tasks: list[Task] = Field(default_factory=list)
    total: int = 0
    note: str | None = Field(default=None, description="Set when part of the search was off.")


class PlanActor(DeltaToolActor[PlanConfig, PlanState]):
    """Holds the plan; every public method is called through an ask proxy."""

    delta_type = PlanningStateEvent
    subject = "plan"

    def on_start(self) -> None:
        self.state = PlanState().observer(self)
        super().on_start()
        self._renders: dict[tuple[str, bool, int], tuple[int, str]] = {}
        self._keywords = TaskKeywordIndex()  # stateless: the plan keeps the index
        self._collection = CollectionMirror.for_actor(self.config, PLANNING_COLLECTION)

    def init_state(self, state: PlanState | PlanManagerState) -> None:
        """Adopt a restored snapshot; newer deltas are replayed before the next call.

        The predecessor's ``PlanManagerState`` is converted to a ``PlanState`` first.
        """
        if isinstance(state, PlanManagerState):
            state = state.to_plan_state()
        super().init_state(state)
        self._renders.clear()  # cached for the previous state object

    # -- public API (ask proxy) ---------------------------------------------------------

    def update_plan(
        self,
        creates: list[TaskCreate],
        updates: list[TaskUpdate],
        deletes: list[int],
        creator: str,
    ) -> PlanUpdateReport:
        """Apply a batch; emit its net delta (if any) before returning."""
        outcome = apply_plan_update(self.state, creates, updates, deletes, creator)
        seq = self._emit(outcome.delta)
        return PlanUpdateReport(
            summary=outcome.summary,
            errors=outcome.errors,
            created=outcome.created,
            seq=seq,
            refused=outcome.refused,
        )

    def get_task(self, task_id: int) -> Task | None:
        """The task with this id, or None."""
        return self.state.tasks.get(task_id)

    def tasks(self) -> list[Task]:
        """Every task, by id."""
        return [self.state.tasks[i] for i in sorted(self.state.tasks)]

    def plan(self) -> PlanState:
        """An independent copy of the current plan (without observer)."""
        return self.state.serializable_copy()

    def search(
        self,
        status: str | None,
        owner: str | None,
        creator: str | None,
        query: str | None,
        semantic: list[tuple[str, float]],
        note: str | None = None,
        mode: SearchMode = "hybrid",
    ) -> PlanSearchResult:
        """Tasks passing every filter and, with a query, matching it.

        A task matches the query when its text holds every word of it (keyword, unless
        ``mode='vector'``) or when the caller's ``semantic`` hits (vector-store ref,
        cosine) name it. Keyword matches come first, then the rest by similarity.
        """
        candidates = self.state.tasks
        filters = _filters(status, owner, creator)
        if query is not None and query.strip():
            keyword = set() if mode == "vector" else set(self._keywords.search(self.state, query))
            cosines: dict[int, float] = {}
            for ref, cosine in semantic:
                if ref.startswith(_TASK_PREFIX) and ref[len(_TASK_PREFIX) :].isdigit():
                    task_id = int(ref[len(_TASK_PREFIX) :])
                    if task_id in candidates:
                        cosines[task_id] = cosines.get(task_id, 0.0) + cosine
            # Keyword matches first, even before a perfect cosine; then by similarity.
            selected = sorted(
                keyword | cosines.keys(), key=lambda i: (i not in keyword, -cosines.get(i, 0.0), i)
            )
            if filters:
                passing = self.state.filtered_ids(filters)
                selected = [task_id for task_id in selected if task_id in passing]
        elif filters:
            # The plan's filter index: the cost follows the tasks passing the most
            # selective filter, not the size of the plan.
            selected = sorted(self.state.filtered_ids(filters))
        else:
            selected = sorted(candidates)
        total = len(selected)
        if total > _MAX_RESULTS:
            extra = f"showing {_MAX_RESULTS} of {total} matches; narrow the search"
            note = f"{note}; {extra}" if note else extra
        tasks = [candidates[i] for i in selected[:_MAX_RESULTS]]
        return PlanSearchResult(tasks=tasks, total=total, note=note)

    def render(self, agent: str, filter_by_agent: bool, max_listed: int) -> str:
        """The plan as shown in an agent's system prompt (cached until the plan changes)."""
        key = (normalize_agent(agent), filter_by_agent, max_listed)
        cached = self._renders.get(key)
        if cached is not None and cached[0] == self.state.version:
            return cached[1]
        text = _render(self.state, key[0], filter_by_agent, max_listed)
        if len(self._renders) > 256:  # bounded: one entry per agent and setting in practice
            self._renders.clear()
        self._renders[key] = (self.state.version, text)
        return text

    def semantic_enabled(self) -> bool:
        """Whether the plan is mirrored into a vector store (looking for one if due)."""
        return self._vector_store() is not None

    # -- the predecessor's calls ------------------------------------------------------------

    def get_planning(self) -> list[Task]:
        """Every task of the plan, by id (the predecessor's name for :meth:`tasks`)."""
        return self.tasks()

    def get_planning_task(self, task_id: int) -> Task | None:
        """The task with this id, or None (the predecessor's name for :meth:`get_task`)."""
        return self.get_task(task_id)

    def update_planning(
        self, update: UpdatePlan | dict[str, Any], actor_address: ActorAddress
    ) -> str:
        """Apply ``update`` (an ``UpdatePlan`` or its dict) on behalf of the agent at
        ``actor_address`` (its name becomes the creator of new tasks); the delta is
        emitted before this returns or raises.

        Returns the summary; raises ``RetriableError`` for an invalid ``update`` (nothing
        applied), listing rejected items (the valid ones are applied), or when the batch
        would overfill the plan (nothing applied).
        """
        try:
            update = UpdatePlan.model_validate(
                update.model_dump() if isinstance(update, BaseModel) else update
            )
        except ValidationError as exc:
            raise RetriableError(f"Invalid update (nothing was changed): {exc}") from exc
        creates, updates = list(update.create_tasks), list(update.update_tasks)
        deletes = list(update.delete_tasks)
        report = self.update_plan(creates, updates, deletes, str(actor_address.name))
        return planning_answer(report, len(creates) + len(updates) + len(deletes))

    def search_planning(
        self,
        status: str | None = None,
        owner: str | None = None,
        creator: str | None = None,
        query: str | None = None,
        mode: SearchMode = "hybrid",
        top_k: int | None = None,
        score_threshold: float | None = None,
    ) -> list[Task]:
        """Tasks passing every filter and matching ``query`` (see :meth:`search`).

        ``mode``: ``hybrid`` (keyword and semantic), ``keyword`` or ``vector``;
        ``top_k`` / ``score_threshold`` default to the configuration's. The semantic part
        embeds the query here, on the actor's thread.
        """
        semantic: list[tuple[str, float]] = []
        mode, embed = search_mode_for(self.config.vector_store, query, mode)
        if embed and query is not None:
            client = VectorSearchClient(self.config.name, PLANNING_COLLECTION)
            semantic, note = client.vector_hits(
                self,
                self.config.vector_store,
                lambda: self._vector_store() is not None,
                query,
                top_k=top_k or self.config.search_top_k,
                threshold=(
                    self.config.search_score_threshold
                    if score_threshold is None
                    else score_threshold
                ),
            )
            if note is not None and mode == "vector":
                mode = "keyword"  # no semantic answer at all: keyword matches instead
        return self.search(status, owner, creator, query, semantic, mode=mode).tasks

    # -- internals ----------------------------------------------------------------------

    def on_ready(self) -> None:
        """Bind the vector store once the plan caught up with the history."""
        self._vector_store()

    def _vector_store(self) -> VectorStore | None:
        """The store the plan is mirrored into, bound on first need (see
        ``CollectionMirror.store``: the whole plan is sent when the store's count differs)."""
        return self._collection.store(
            self,
            len(self.state.tasks),
            lambda: [_document(task) for task in self.state.tasks.values()],
        )

    def on_delta(self, delta: PlanningStateEvent) -> None:
        """Send new or reworded descriptions to the vector store; drop deleted tasks."""
        if self._vector_store() is None:
            return
        self._collection.apply(
            upserts=[_document(task) for task in (*delta.tasks_added, *delta.tasks_modified)],
            deletes=[f"{_TASK_PREFIX}{task_id}" for task_id in delta.tasks_removed],
        )


def _document(task: Task) -> VectorDocument:
    return VectorDocument(ref=f"{_TASK_PREFIX}{task.id}", text=task.description)


def _render(state: PlanState, agent: str, filter_by_agent: bool, max_listed: int) -> str:
    tasks = state.tasks
    if not tasks:
        return "**Team planning:** no tasks yet. Create them with update_planning(...)."
    lines = [
        f"**Team planning:** {len(tasks)} tasks total",
        "Owners: " + " | ".join(_owner_parts(state.value_counts("owner"))),
        "",
    ]
    if filter_by_agent:
        # The plan's filter index: the tasks the agent owns or created, not a pass over all.
        mine = state.filtered_ids({"owner": agent}) | state.filtered_ids({"creator": agent})
        listed = [tasks[i] for i in sorted(mine)]
        heading = f"**Your tasks** (owner or creator: {agent or 'unknown'}):"
    else:
        listed = [tasks[i] for i in sorted(tasks)]
        heading = "**All tasks:**"
    lines.append(heading if listed else f"{heading} none")
    lines.extend(task.line() for task in listed[:max_listed])
    if len(listed) > max_listed:
        lines.append(f"- ... and {len(listed) - max_listed} more (use search_planning)")
    lines.append("")
    lines.append(
        "Use get_planning_task(id) for exact ID lookup or search_planning(...) to filter tasks."
    )
    return "\n".join(lines)


def _owner_parts(counts: dict[str, int]) -> list[str]:
    """The owner line's entries (from the tasks per owner), busiest first; past
    ``PROMPT_MAX_OWNERS`` names the rest are summed, so the line every teammate reads stays
    short however many owners exist."""
    owners = dict(counts)
    unassigned = owners.pop("", 0)
    ranked = sorted(owners.items(), key=_by_count)
    parts = [f"{name}: {count}" for name, count in ranked[:PROMPT_MAX_OWNERS]]
    rest = ranked[PROMPT_MAX_OWNERS:]
    if rest:
        parts.append(f"{len(rest)} other owners: {sum(count for _, count in rest)}")
    if unassigned:
        parts.append(f"unassigned: {unassigned}")
    return parts


def _filters(status: str | None, owner: str | None, creator: str | None) -> dict[str, str]:
    """The field values a listing asks for (``status`` / ``owner`` / ``creator``)."""
    wanted = {"status": status, "owner": _owner_filter(owner)}
    wanted["creator"] = normalize_agent(creator) if creator else None
    return {field: value for field, value in wanted.items() if value is not None}


def _owner_filter(owner: str | None) -> str | None:
    """The owner value to match: ``None`` (no filter), ``""`` for 'unassigned', or ``@Name``."""
    if owner is None or not owner.strip():
        return None
    if owner.strip().lower() == "unassigned":
        return ""
    return normalize_agent(owner)


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return (-item[1], item[0])
