"""The public surface ``ReactAgent`` and the load-test ``MockReactAgent`` share.

Both keep a ``ContextManager``, the lifetime budget, the compaction and recovery
capabilities, a pydantic-ai ``Agent`` and an event loop of their own; everything that only
reads or drives those pieces lives here once, so the mock cannot drift from the real agent.
What differs (running a turn, what ``close`` releases) stays in each class.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, TypeVar, cast

from pydantic_ai import Agent

from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
from akgentic.llm.capabilities.compaction import CompactionCapability
from akgentic.llm.capabilities.healing import INTERRUPTED_CALL_MESSAGE, answer_dangling_calls
from akgentic.llm.capabilities.limit_recovery import LimitRecoveryCapability
from akgentic.llm.config import ReactAgentConfig
from akgentic.llm.context import ContextManager
from akgentic.llm.event import ContextObserver
from akgentic.llm.event_check import check_event_stream

F = TypeVar("F")


class AgentSurface:
    """Context, compaction, prompt/tool registration and lifecycle checks of an agent."""

    _config: ReactAgentConfig
    _context: ContextManager
    _budget: LifetimeBudgetCapability
    _compaction: CompactionCapability
    _limit_recovery: LimitRecoveryCapability
    _agent: Agent[Any, Any]
    _closed: bool

    def _sync_loop(self) -> asyncio.AbstractEventLoop:
        """The agent's own event loop, which the ``*_sync`` methods drive."""
        raise NotImplementedError

    # -------------------------------------------------------------- context

    @property
    def config(self) -> ReactAgentConfig:
        """The configuration the agent was built from."""
        return self._config

    @property
    def context(self) -> ContextManager:
        """The persistent history handed to every run."""
        return self._context

    def subscribe_context(self, observer: ContextObserver) -> None:
        """Deliver every future context event to ``observer``."""
        self._context.subscribe(observer)

    def restore_context(self, events: Sequence[Any]) -> None:
        """Rebuild history, dedup state and lifetime counters from a persisted event stream.

        Accepts envelopes carrying the event under ``.event`` (akgentic-core's
        ``EventMessage``) or the bare events; anything else is ignored. Nothing is re-emitted.

        The stream is checked before anything changes (see ``akgentic.llm.event_check``): a
        bad event raises ``TypeError``/``ValueError`` naming its index and leaves the agent as
        it was. When the restored history ends in tool calls nobody answered (the process
        stopped mid-call), each gets a tool result saying it was interrupted, added (and
        observed) like any message, so the next run is accepted by pydantic-ai and providers.
        """
        unwrapped = [getattr(item, "event", item) for item in events]
        checked = check_event_stream(unwrapped)
        self._context.replay(checked.events)
        self._budget.restore(checked.usage)
        answer_dangling_calls(self._context, INTERRUPTED_CALL_MESSAGE)

    async def acompact(self) -> str:
        """Fold the history now, whatever the auto-trigger says; returns a short report."""
        self._ensure_open()
        event = await self._compaction.compact(run_id=None)
        if event is None:
            return "Nothing to compact."
        return (
            f"Compacted {event.replaced_message_count} message(s) with the "
            f"'{event.strategy_id}' strategy."
        )

    def compact(self) -> str:
        """``acompact()`` driven on the agent's own event loop."""
        self._ensure_open()
        self._ensure_no_running_loop("compact", "acompact")
        return self._sync_loop().run_until_complete(self.acompact())

    def clear_context(self) -> str:
        """Drop the whole history (the system prompt is rendered again by the next run)."""
        self._ensure_open()
        removed = self._context.clear_context()
        return f"Cleared {removed} message(s) from the context."

    @property
    def compaction(self) -> CompactionCapability:
        """The mounted compaction capability (its strategy and gate)."""
        return self._compaction

    @property
    def lifetime_budget(self) -> LifetimeBudgetCapability:
        """The mounted agent-lifetime budget (its counters and limits)."""
        return self._budget

    @property
    def limit_recovery(self) -> LimitRecoveryCapability:
        """The run-tier recovery policy."""
        return self._limit_recovery

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

    # ------------------------------------------------------------ lifecycle

    @property
    def closed(self) -> bool:
        """Whether ``close()`` has run."""
        return self._closed

    @staticmethod
    def _in_running_loop() -> bool:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return False
        return True

    def _ensure_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"this {type(self).__name__} is closed; build a new one")

    def _ensure_no_running_loop(self, method: str, alternative: str | None = None) -> None:
        if not self._in_running_loop():
            return
        instead = f"await {alternative}() instead" if alternative else "await the async method"
        raise RuntimeError(
            f"{type(self).__name__}.{method}() cannot be called while an event loop is running "
            f"in this thread; {instead}"
        )
