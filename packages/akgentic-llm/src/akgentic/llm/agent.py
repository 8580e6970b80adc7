"""``ReactAgent``: one pydantic-ai ``Agent`` plus the history it carries between runs.

A ``run()`` is a single awaited ``Agent.run()``: the agent hands its ``ContextManager``'s
history in as ``message_history`` and the mounted capabilities do the rest (budget,
persistence, dangling-call repair, recovery decision). ``ReactAgent`` itself only folds
buffered user prompts into the prompt, picks the per-call output type and limits, and turns a
run-tier breach into either a tool-free conclusion or a ``RunUsageLimitError``.

The synchronous bridge (``run_sync``) drives an event loop the agent owns, created by the first
synchronous call (an agent only ever awaited never pays for one); ``close()`` releases that loop
and lets go of the HTTP client. Both are idempotent.
"""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.capabilities import AbstractCapability, AgentCapability
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import BinaryContent

from akgentic.llm._shared_http import HttpLease
from akgentic.llm._surface import AgentSurface
from akgentic.llm.approvals import (
    ApprovalMismatchError,
    PendingToolCall,
    ToolCallDecision,
    deferred_results,
    pending_calls,
    registered_tools,
    superseded_results,
    with_deferred_output,
)
from akgentic.llm.capabilities._stack import InternalStack
from akgentic.llm.capabilities.errors import (
    RUN_LIMIT_HEALING_MESSAGE,
    AgentUsageLimitError,
    RunUsageLimitError,
    UsageLimitError,
    limit_message,
)
from akgentic.llm.capabilities.event_sourcing import EventSourcingCapability
from akgentic.llm.capabilities.healing import HealingCapability
from akgentic.llm.capabilities.limit_recovery import LimitRecoveryCapability
from akgentic.llm.compaction import CompactionStrategy, create_compaction
from akgentic.llm.config import ReactAgentConfig, RunUsageLimits
from akgentic.llm.event import ContextObserver
from akgentic.llm.providers import create_model, get_output_type

if TYPE_CHECKING:
    import httpx
    from pydantic_ai.models import Model

__all__ = [
    "RUN_LIMIT_HEALING_MESSAGE",
    "AgentUsageLimitError",
    "ReactAgent",
    "RunUsageLimitError",
    "UsageLimitError",
    "UserPrompt",
]

# A plain union (not a ``type`` statement) so that ``typing.get_args`` and pydantic see through it.
UserPrompt: TypeAlias = str | list[str | BinaryContent]  # noqa: UP040
"""What ``run()`` accepts: text, or a list mixing text and binary content (images, ...)."""

F = TypeVar("F")

# A conclusion has no tools, so one model request is all it can use.
_CONCLUSION_LIMITS = RunUsageLimits(run_request_limit=1).to_pydantic_ai()


def _given_model(model: Model | str) -> Model:
    """The caller's model: a pydantic-ai ``Model``, or a name pydantic-ai knows how to build."""
    from pydantic_ai.models import infer_model

    return infer_model(model)


def _wrap_for_model(model: Model, output_type: Any) -> Any:
    """Structured output for a caller's model, decided from the model's own profile.

    ``NativeOutput`` when the model says it honours a JSON schema; otherwise the type is left
    as given, so pydantic-ai uses the model's default mode (tool output for ``TestModel``;
    ``FunctionModel``'s profile claims JSON-schema support, so it gets ``NativeOutput``): no
    hidden profile is needed to run a structured example on either.
    """
    from pydantic_ai.output import NativeOutput, PromptedOutput, TextOutput, ToolOutput

    if output_type is str or output_type is None:
        return output_type
    if isinstance(output_type, NativeOutput | PromptedOutput | TextOutput | ToolOutput | list):
        return output_type
    if model.profile.get("supports_json_schema_output", False):
        return NativeOutput(output_type)
    return output_type


def _is_unusable(output: Any) -> bool:
    """``None`` or blank text: a conclusion that answered nothing."""
    return output is None or (isinstance(output, str) and not output.strip())


class ReactAgent(AgentSurface):
    """A pydantic-ai agent with persistent context, limits, retries and observable events."""

    def __init__(
        self,
        config: ReactAgentConfig,
        deps_type: type[Any] | None = None,
        tools: list[Any] | None = None,
        toolsets: list[Any] | None = None,
        result_type: type[Any] = str,
        observer: ContextObserver | None = None,
        capabilities: Sequence[AgentCapability[Any]] | None = None,
        limit_recovery: LimitRecoveryCapability | None = None,
        *,
        model: Model | str | None = None,
    ) -> None:
        # Everything that can fail on a bad config (credentials, fallback chain) runs first;
        # an httpx client that never sent a request holds no socket.
        self._given = model is not None
        self._http = self._lease_http_client(config)
        try:
            self._model, compaction_strategy = self._build_models(config, model)
        except BaseException:
            # A failed construction must not keep its share of a client other agents use.
            if self._http is not None:
                self._http.release_without_loop()
            raise
        super().__init__(config, observer, limit_recovery, compaction_strategy)
        # Created by the first *_sync call: a loop costs a self-pipe (file descriptors and a
        # selector registration, about half of an agent's construction time).
        self._loop: asyncio.AbstractEventLoop | None = None
        self._run_limits = config.run_usage_limits.to_pydantic_ai()
        self._event_sourcing = EventSourcingCapability(self._context)
        self._healing = HealingCapability(self._context)

        runtime = config.runtime_cfg
        agent_kwargs: dict[str, Any] = {}
        if deps_type is not None:
            agent_kwargs["deps_type"] = deps_type
        registered = registered_tools(tools or ())
        self._pending: list[PendingToolCall] = []
        self._agent: Agent[Any, Any] = Agent(
            self._model,
            output_type=self._output_type(result_type),
            tools=registered,
            toolsets=toolsets,
            retries=runtime.retries,
            end_strategy=runtime.end_strategy,
            capabilities=self._capability_stack(capabilities),
            **agent_kwargs,
        )

    def _build_models(
        self, config: ReactAgentConfig, model: Model | str | None
    ) -> tuple[Model, CompactionStrategy]:
        """The agent's model (the caller's, else built from ``model_cfg``) and its compaction
        strategy, which reuses that model as summarizer unless told otherwise."""
        built = (
            _given_model(model)
            if model is not None
            else create_model(config.model_cfg, self.http_client)
        )
        strategy = create_compaction(
            config.compaction_cfg, config.model_cfg, self.http_client, model=built
        )
        return built, strategy

    def _sync_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            try:
                self._loop = asyncio.new_event_loop()
            except OSError as exc:
                if exc.errno != errno.EMFILE:
                    raise
                raise _descriptors_exhausted() from exc
        return self._loop

    def _lease_http_client(self, config: ReactAgentConfig) -> HttpLease | None:
        """The HTTP client this agent's models are built on, or ``None`` when none is needed.

        A caller's model brings its own transport; a client is then only taken for a
        summarizer built from ``compaction_cfg.summary_model_cfg``.
        """
        if self._given and config.compaction_cfg.summary_model_cfg is None:
            return None
        runtime = config.runtime_cfg
        return HttpLease(runtime.http_client_config, shared=runtime.share_http_client)

    @property
    def http_client(self) -> httpx.AsyncClient | None:
        """The HTTP client the agent's models use (shared with agents of equal settings unless
        ``runtime_cfg.share_http_client`` is ``False``); ``None`` when a caller's ``model=``
        needs none."""
        return None if self._http is None else self._http.client

    # ------------------------------------------------------ capability stack

    def _capability_stack(
        self, extra: Sequence[AgentCapability[Any]] | None
    ) -> list[AgentCapability[Any]]:
        """THE capability stack, outermost first. The order is load-bearing:

        1. ``LifetimeBudgetCapability`` outermost, so a spent agent is refused before anything
           (compaction's summarizer call included) costs money.
        2. ``CompactionCapability``: after the budget (a refused run pays no summarizer) and
           before event sourcing (the persistence cursor opens on the folded history).
        3. ``EventSourcingCapability``: inside every internal ``wrap_run`` but outside the
           caller's hooks, so the caller's durable ``after_*`` edits are what gets persisted.
        4. ``LimitRecoveryCapability`` then 5. ``HealingCapability``: ``on_run_error`` is walked
           innermost first, so the context is healed before the recovery seam looks at it.
        6. The caller's capabilities.

        The internal five are mounted through one ``InternalStack`` entry, which dispatches
        exactly like pydantic-ai's own chain over the same list but spares the per-capability
        ``RunContext`` copy pydantic-ai makes on every hook (see ``capabilities/_stack.py``).
        """
        internal: list[AbstractCapability[Any]] = [
            self._budget,
            self._compaction,
            self._event_sourcing,
            self._limit_recovery,
            self._healing,
        ]
        return [InternalStack(internal), *(extra or ())]

    # ------------------------------------------------------ prompts & tools

    def system_prompt(self, func: F) -> F:
        """Register ``func`` as a dynamic system prompt, re-rendered before every model call."""
        self._agent.system_prompt(dynamic=True)(cast(Any, func))
        return func

    def tool(self, func: F) -> F:
        """Register ``func`` (first parameter: ``RunContext``) as a tool."""
        self._agent.tool(cast(Any, func))
        return func

    @property
    def pydantic_agent(self) -> Agent[Any, Any]:
        """The wrapped pydantic-ai ``Agent`` (e.g. for ``override(model=TestModel())``)."""
        return self._agent

    # -------------------------------------------------------------- running

    async def run(
        self,
        user_prompt: UserPrompt,
        deps: Any = None,
        output_type: Any = None,
    ) -> Any:
        """Run one turn on top of the persistent history and return its output.

        A run-tier breach is offered to the ``limit_recovery`` policy: when it asks to
        conclude, one tool-free conclusion runs and its output is returned; otherwise (or when
        the conclusion fails or answers nothing) ``RunUsageLimitError`` is raised from the
        original breach.
        """
        self._ensure_open()
        prompt = self._fold_pending_prompts(user_prompt)
        # Calls still waiting for a decision are refused, so the history keeps no open call.
        superseded = superseded_results(self._pending) if self._pending else None
        return await self._run_recovering(prompt, deps, output_type, superseded)

    async def resume(
        self,
        decisions: Sequence[ToolCallDecision],
        *,
        deps: Any = None,
        output_type: Any = None,
    ) -> Any:
        """Continue the run that ended waiting for approvals, with one decision per open call.

        Approved calls run (with ``override_args`` when given), refused ones hand the model
        their ``reason``; then the model goes on and the output is returned like ``run()``'s
        (it may be ``DeferredToolRequests`` again). Raises ``ApprovalMismatchError``, with
        nothing changed, unless ``decisions`` answer exactly the open calls with plain
        approvals bound to their arguments' digest, or when no call is waiting at all.
        """
        self._ensure_open()
        if not self._pending:
            # Without this, pydantic-ai would be handed results for calls it never saw.
            raise ApprovalMismatchError(
                "no tool call is waiting for a decision: the last run did not stop for an "
                "approval (see pending_tool_calls)"
            )
        results = deferred_results(self._pending, decisions)
        return await self._run_recovering(None, deps, output_type, results)

    @property
    def pending_tool_calls(self) -> list[PendingToolCall]:
        """The calls the last run left waiting for a decision (empty when none)."""
        return list(self._pending)

    def clear_context(self) -> str:
        """Drop the whole history, open calls included (nothing is left to resume)."""
        self._pending = []
        return super().clear_context()

    async def _run_recovering(
        self,
        prompt: UserPrompt | None,
        deps: Any,
        output_type: Any,
        deferred: DeferredToolResults | None,
    ) -> Any:
        try:
            return await self._run_core(prompt, deps, output_type, self._run_limits, deferred)
        except UsageLimitExceeded as breach:
            return await self._recover_run_limit(breach, deps, output_type)

    async def conclude_without_tools(
        self,
        reason: str,
        *,
        deps: Any = None,
        output_type: Any = None,
    ) -> Any:
        """One run with every tool removed and a one-request budget, prompted with ``reason``.

        Never recovered itself: a breach here raises ``RunUsageLimitError``.
        """
        self._ensure_open()
        return await self._conclude(reason, deps, output_type)

    async def _conclude(self, reason: str, deps: Any, output_type: Any) -> Any:
        # ``override`` REPLACES what is registered; a per-run toolsets=[] would only add.
        with self._agent.override(tools=[], toolsets=[]):
            try:
                return await self._run_core(reason, deps, output_type, _CONCLUSION_LIMITS)
            except UsageLimitExceeded as breach:
                raise RunUsageLimitError(limit_message(breach)) from breach

    async def _recover_run_limit(
        self,
        breach: UsageLimitExceeded,
        deps: Any,
        output_type: Any,
    ) -> Any:
        """Run-tier recovery: act on the decision the mounted policy recorded for ``breach``."""
        decision = self._limit_recovery.take_decision(breach)
        if decision is None:
            raise RunUsageLimitError(limit_message(breach)) from breach
        try:
            answer = await self._conclude(decision.reason, deps, output_type)
        except Exception:
            # Escalation parity: the caller always sees the breach that started the turn.
            raise RunUsageLimitError(limit_message(breach)) from breach
        if _is_unusable(answer):
            raise RunUsageLimitError(limit_message(breach)) from breach
        return answer

    async def _run_core(
        self,
        prompt: UserPrompt | None,
        deps: Any,
        output_type: Any,
        usage_limits: Any,
        deferred: DeferredToolResults | None = None,
    ) -> Any:
        """The one ``Agent.run`` every path goes through (runs and conclusions alike)."""
        # The open calls are answered by this run (or, if it fails, by the healing
        # capability): from here on none of them waits for a decision.
        self._pending = []
        result = await self._agent.run(
            prompt,
            deps=deps,
            message_history=self._context.messages,
            output_type=None if output_type is None else self._output_type(output_type),
            usage_limits=usage_limits,
            deferred_tool_results=deferred,
        )
        if isinstance(result.output, DeferredToolRequests):
            self._pending = pending_calls(result.output)
        return result.output

    def _output_type(self, output_type: Any) -> Any:
        if self._given:
            wrapped = _wrap_for_model(self._model, output_type)
        else:
            wrapped = get_output_type(self._config.model_cfg, output_type)
        # Every run may end with calls held for approval (see ``approvals``), whatever holds
        # them: a flagged callable, a ``Tool(requires_approval=True)`` in a toolset,
        # pydantic-ai's ``ApprovalRequiredToolset``, or a tool raising ``ApprovalRequired``.
        # Guessing from the tools given missed the last three and failed the run instead.
        return with_deferred_output(wrapped)

    def _fold_pending_prompts(self, user_prompt: UserPrompt) -> UserPrompt:
        """Prefix the user turns buffered before the first run to this run's prompt."""
        pending = self._context.drain_pending_user_prompts()
        if not pending:
            return user_prompt
        if isinstance(user_prompt, str):
            return "\n\n".join([*pending, user_prompt])
        return [*pending, *user_prompt]

    def compact(self) -> str:
        """``acompact()`` driven on the agent's own event loop."""
        self._ensure_open()
        self._ensure_no_running_loop("compact", "acompact")
        return self._sync_loop().run_until_complete(self.acompact())

    def run_sync(
        self,
        user_prompt: UserPrompt,
        deps: Any = None,
        output_type: Any = None,
    ) -> Any:
        """``run()`` driven to completion on the agent's own event loop."""
        self._ensure_open()
        self._ensure_no_running_loop("run_sync")
        return self._sync_loop().run_until_complete(self.run(user_prompt, deps, output_type))

    def resume_sync(
        self,
        decisions: Sequence[ToolCallDecision],
        *,
        deps: Any = None,
        output_type: Any = None,
    ) -> Any:
        """``resume()`` driven to completion on the agent's own event loop."""
        self._ensure_open()
        self._ensure_no_running_loop("resume_sync")
        return self._sync_loop().run_until_complete(
            self.resume(decisions, deps=deps, output_type=output_type)
        )

    def conclude_without_tools_sync(
        self,
        reason: str,
        *,
        deps: Any = None,
        output_type: Any = None,
    ) -> Any:
        """``conclude_without_tools()`` driven to completion on the agent's own event loop."""
        self._ensure_open()
        self._ensure_no_running_loop("conclude_without_tools_sync")
        return self._sync_loop().run_until_complete(
            self.conclude_without_tools(reason, deps=deps, output_type=output_type)
        )

    # ------------------------------------------------------------- teardown

    async def aclose(self) -> None:
        """Let go of the HTTP client; the agent's event loop stays open.

        An own client (``share_http_client=False``) is closed. A shared one is closed only by
        its last user; agents still holding it keep working.
        """
        if self._http is not None:
            own_loop = asyncio.get_running_loop() is self._loop
            await self._http.release(own_loop=own_loop)

    def close(self) -> None:
        """Let go of the HTTP client and close the agent's event loop. Safe to call more than once.

        Called from inside a running event loop (async code), the agent's own loop cannot be
        driven: the client is let go of without closing anything another agent might use, and
        the loop is closed. ``await aclose()`` first to close an own client cleanly.
        """
        if self._closed:
            return
        self._closed = True
        loop = self._loop
        try:
            if self._in_running_loop():
                if self._http is not None:
                    self._http.release_without_loop()
            elif loop is not None:
                if self._http is not None:
                    loop.run_until_complete(self._http.release(own_loop=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
            elif self._http is not None:
                self._http.release_blocking()
        finally:
            # Whatever the pool did on its way out, the loop this agent created is released.
            if loop is not None:
                loop.close()


def _descriptors_exhausted() -> OSError:
    """The error for a process out of file descriptors, saying what to change.

    A big team meets this first: every agent that has run synchronously keeps its own event
    loop (an epoll descriptor and a wake-up socket pair) until it is closed.
    """
    try:
        import resource  # Unix only; where the limit is known, the message gives it
    except ImportError:  # pragma: no cover - Windows
        limit = "its limit of open files"
    else:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        limit = f"its limit of {soft} open files (RLIMIT_NOFILE, hard limit {hard})"
    return OSError(
        errno.EMFILE,
        f"cannot create this agent's event loop: the process has reached {limit}. Each "
        "agent that has run synchronously holds 3 descriptors (its event loop) until "
        "close(), plus its connections: close agents you no longer need, or raise the "
        "limit before starting a big team (`ulimit -n`, or resource.setrlimit in the "
        "process)",
    )
