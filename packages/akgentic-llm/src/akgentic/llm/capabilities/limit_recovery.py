"""The run-tier recovery policy: whether a breached turn degrades into an answer.

``LimitRecoveryCapability`` is consulted from ``on_run_error`` when pydantic-ai aborts a run
with ``UsageLimitExceeded``. It never runs anything itself: it records the decision of its
``handle_limit_exceeded`` seam and re-raises, and whoever mounted it (``ReactAgent.run``)
reads the decision back with :meth:`LimitRecoveryCapability.take_decision` and drives the
tool-free conclusion as a sibling run.

Why ``on_run_error`` and not ``wrap_run``: pydantic-ai offers the error hooks only after the
exception has left the whole ``wrap_run`` chain. A capability that swallowed the breach in
its ``wrap_run`` would keep ``HealingCapability.on_run_error`` from ever running, and the
conclusion would start from a history that still ends in unanswered tool calls.
"""

from __future__ import annotations

import inspect
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, cast

from pydantic import BaseModel, ConfigDict
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext

__all__ = [
    "DEFAULT_CONCLUSION_REASON",
    "ConclusionDecision",
    "LimitRecoveryCapability",
]

DEFAULT_CONCLUSION_REASON = (
    "This turn has run out of its budget, this is your last chance to answer.\nAnswer "
    "now with what you have already gathered. State your conclusion plainly, say "
    "explicitly which parts you could not check or finish, and do not promise "
    "follow-up work — the turn ends with this answer."
)
"""User prompt of the tool-free conclusion when the default policy concludes.

One wording for every kind of run-tier breach (requests, tool calls, tokens).
"""


_MAX_RECORDED = 64


class ConclusionDecision(BaseModel):
    """Ask for one tool-free conclusion, prompted with ``reason``."""

    model_config = ConfigDict(frozen=True)

    reason: str = DEFAULT_CONCLUSION_REASON


@dataclass(init=False, repr=False, eq=False)
class LimitRecoveryCapability(AbstractCapability[Any]):
    """Decides, on a run-tier breach, whether the turn concludes without tools.

    Subclass and override :meth:`handle_limit_exceeded` to change the policy; return
    ``None`` to let the breach surface unchanged. Mount the subclass through
    ``ReactAgent(limit_recovery=...)``: that instance is the one whose decision is acted on.
    """

    def __init__(self) -> None:
        # Decisions keyed by the identity of the error they answer, so a reader never acts on
        # a decision that belongs to another (possibly concurrent) run's breach. Bounded: a
        # decision nobody takes (a bare-Agent mount, a conclusion's own breach) is dropped
        # once enough newer ones were recorded.
        self._recorded: OrderedDict[int, tuple[BaseException, ConclusionDecision | None]] = (
            OrderedDict()
        )

    async def handle_limit_exceeded(
        self, ctx: RunContext[Any], *, error: UsageLimitExceeded
    ) -> ConclusionDecision | None:
        """The seam: return a decision to conclude, or ``None`` to let the breach raise.

        The default concludes every run-tier breach with ``DEFAULT_CONCLUSION_REASON``.
        """
        return ConclusionDecision()

    async def on_run_error(
        self, ctx: RunContext[Any], *, error: BaseException
    ) -> AgentRunResult[Any]:
        # Anything that is not pydantic-ai's run-tier breach (an AgentUsageLimitError, a
        # provider error, a cancellation) passes through without consulting the seam.
        if isinstance(error, UsageLimitExceeded):
            decision = await self._decide(ctx, error)
            self._recorded[id(error)] = (error, decision)
            while len(self._recorded) > _MAX_RECORDED:
                self._recorded.popitem(last=False)
        raise error

    async def _decide(
        self, ctx: RunContext[Any], error: UsageLimitExceeded
    ) -> ConclusionDecision | None:
        # The seam is a coroutine, but an override written as a plain ``def`` (as the
        # predecessor's docs showed it) is honoured too instead of failing with a TypeError.
        outcome: Any = self.handle_limit_exceeded(ctx, error=error)
        if inspect.isawaitable(outcome):
            outcome = await outcome
        return cast("ConclusionDecision | None", outcome)

    def consume_decision(self) -> ConclusionDecision | None:
        """Return, and forget, the most recently recorded decision (the predecessor's form).

        With one run at a time this is the decision of the breach that just surfaced. With
        concurrent runs it may belong to another run's breach: ``take_decision(error)``
        returns exactly the one recorded for ``error`` and is what ``ReactAgent`` uses.
        """
        if not self._recorded:
            return None
        _, (_, decision) = self._recorded.popitem(last=True)
        return decision

    def take_decision(self, error: BaseException) -> ConclusionDecision | None:
        """Return, and forget, the decision recorded for exactly ``error``.

        ``None`` when the seam declined, or when no decision was recorded for this error
        (the capability was not consulted, or the decision was already taken).
        """
        recorded = self._recorded.pop(id(error), None)
        if recorded is None or recorded[0] is not error:
            return None
        return recorded[1]
