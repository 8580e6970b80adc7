"""The run-loop capabilities ``ReactAgent`` mounts, each usable on a bare ``pydantic_ai.Agent``.

Composition
-----------
``ReactAgent`` hands pydantic-ai this stack, outermost first::

    [LifetimeBudgetCapability, CompactionCapability, EventSourcingCapability,
     LimitRecoveryCapability, HealingCapability, *caller_capabilities]

``before_*`` hooks fire in list order, ``after_*`` hooks in reverse, and each ``wrap_run``
encloses everything after it. ``on_run_error`` is walked innermost first, after every
``wrap_run`` has unwound. That gives each position its reason:

* the budget is outermost, so refusing a spent agent costs nothing downstream;
* compaction folds the history before the persistence cursor opens on it;
* event sourcing sits outside the caller's hooks, so their durable edits are what it persists,
  and its closing sweep (in ``wrap_run``'s ``finally``) runs before any error hook;
* healing fires before limit recovery (reverse walk), so the recovery policy sees a context
  whose dangling tool calls are already answered.

The persistence cursor
----------------------
``EventSourcingCapability`` remembers the last message it persisted (the anchor) and a
position just past it. At each node hook it finds the anchor again in the run's live history,
by identity first (absorbs prepends) and by position second (absorbs rebuilds from equal
copies), and persists what follows. See :mod:`akgentic.llm.capabilities.event_sourcing`.
"""

from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
from akgentic.llm.capabilities.compaction import CompactionCapability
from akgentic.llm.capabilities.errors import (
    RUN_LIMIT_HEALING_MESSAGE,
    AgentUsageLimitError,
    RunUsageLimitError,
    UsageLimitError,
)
from akgentic.llm.capabilities.event_sourcing import EventSourcingCapability
from akgentic.llm.capabilities.healing import HealingCapability
from akgentic.llm.capabilities.limit_recovery import (
    DEFAULT_CONCLUSION_REASON,
    ConclusionDecision,
    LimitRecoveryCapability,
)

__all__ = [
    "DEFAULT_CONCLUSION_REASON",
    "RUN_LIMIT_HEALING_MESSAGE",
    "AgentUsageLimitError",
    "CompactionCapability",
    "ConclusionDecision",
    "EventSourcingCapability",
    "HealingCapability",
    "LifetimeBudgetCapability",
    "LimitRecoveryCapability",
    "RunUsageLimitError",
    "UsageLimitError",
]
