"""``AgentSurface``: the history-keeping half of ``ReactAgent``.

Everything here only reads or drives the agent's ``ContextManager``, its lifetime budget, its
compaction and its run-tier recovery policy, which this base builds from the configuration and
owns. The model, the pydantic-ai ``Agent``, the runs, the event loop and the teardown are
``ReactAgent``'s (``agent.py``); the load-test ``MockReactAgent`` is a ``ReactAgent`` too, so
there is one constructor and one capability stack.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
from akgentic.llm.capabilities.compaction import CompactionCapability, compaction_event_factory
from akgentic.llm.capabilities.healing import INTERRUPTED_CALL_MESSAGE, answer_dangling_calls
from akgentic.llm.capabilities.limit_recovery import LimitRecoveryCapability
from akgentic.llm.compaction import CompactionStrategy
from akgentic.llm.config import ReactAgentConfig
from akgentic.llm.context import ContextManager
from akgentic.llm.event import ContextObserver
from akgentic.llm.event_check import check_event_stream


class AgentSurface:
    """History, compaction, lifetime budget, recovery policy and the closed-agent checks."""

    def __init__(
        self,
        config: ReactAgentConfig,
        observer: ContextObserver | None,
        limit_recovery: LimitRecoveryCapability | None,
        compaction_strategy: CompactionStrategy,
    ) -> None:
        self._config = config
        self._closed = False
        self._context = ContextManager(max_messages=config.max_messages)
        if observer is not None:
            self._context.subscribe(observer)
        self._limit_recovery = (
            limit_recovery if limit_recovery is not None else LimitRecoveryCapability()
        )
        self._budget = LifetimeBudgetCapability(config.agent_usage_limits)
        compaction_cfg = config.compaction_cfg
        self._compaction = CompactionCapability(
            compaction_strategy,
            self._context,
            threshold_fn=config.compaction_threshold,
            # The event names the strategy as configured (registry id or dotted path): that
            # is what a replay dispatches the fold on.
            event_factory=compaction_event_factory(
                compaction_cfg.strategy, compaction_cfg.summarizer_prompt_version
            ),
        )

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
