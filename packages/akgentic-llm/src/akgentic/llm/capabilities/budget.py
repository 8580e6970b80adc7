"""The agent-lifetime usage budget, enforced around every run.

``LifetimeBudgetCapability`` is the only place ``AgentUsageLimits`` is enforced. Its
``wrap_run`` head refuses a spent agent before anything inside the run happens (no
compaction call, no model request), so a refusal is free. Its ``finally`` folds what the run
burned into the lifetime totals, so tokens spent by a run that then failed still count.

Checks are pre-flight and ordered tokens first, then the run count: a token refusal must not
consume a run. A run is counted when it is admitted, before it executes, so a run that fails
(including one that ends in a run-tier breach) is still paid for, and a refused run is not.
The counters live in memory; :meth:`LifetimeBudgetCapability.restore` recomputes them from the
persisted ``LlmUsageEvent`` stream of a resumed agent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.capabilities.abstract import WrapRunHandler
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RunUsage
from pydantic_ai.usage import UsageLimits as _PydanticUsageLimits

from akgentic.llm.capabilities.errors import AgentUsageLimitError, limit_message
from akgentic.llm.config import AgentUsageLimits
from akgentic.llm.event import LlmUsageEvent

__all__ = ["LifetimeBudgetCapability"]


class LifetimeBudgetCapability(AbstractCapability[Any]):
    """Refuses runs once the agent's lifetime budget is spent; accounts every admitted run.

    Mount it outermost: its ``wrap_run`` head runs before any other capability or model
    request, so refusing a run spends nothing.
    """

    def __init__(self, limits: AgentUsageLimits | None = None) -> None:
        self.limits = limits if limits is not None else AgentUsageLimits()
        self._run_count = 0
        self._input_tokens = 0
        self._output_tokens = 0

    @property
    def run_count(self) -> int:
        """Runs admitted over the agent's lifetime (refused calls are not counted)."""
        return self._run_count

    @property
    def input_tokens(self) -> int:
        """Input tokens spent over the agent's lifetime."""
        return self._input_tokens

    @property
    def output_tokens(self) -> int:
        """Output tokens spent over the agent's lifetime."""
        return self._output_tokens

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens spent over the agent's lifetime."""
        return self._input_tokens + self._output_tokens

    def check(self) -> None:
        """Raise ``AgentUsageLimitError`` if no further run may start; change nothing.

        Tokens are checked before the run count so that the cheaper-to-explain refusal (the
        agent has spent its tokens) wins, and so a token refusal never touches the counter.
        """
        limits = self.limits
        token_limits = _PydanticUsageLimits(
            request_limit=None,
            input_tokens_limit=limits.input_tokens_limit,
            output_tokens_limit=limits.output_tokens_limit,
            total_tokens_limit=limits.total_tokens_limit,
        )
        spent = RunUsage(input_tokens=self._input_tokens, output_tokens=self._output_tokens)
        try:
            token_limits.check_tokens(spent)
        except UsageLimitExceeded as exc:
            # pydantic-ai's wording, so both tiers read alike; the class carries the tier.
            raise AgentUsageLimitError(limit_message(exc)) from None
        limit = limits.agent_request_limit
        if limit is not None and self._run_count >= limit:
            raise AgentUsageLimitError(
                f"Exceeded the agent_request_limit of {limit} (run_count={self._run_count})"
            )

    async def wrap_run(
        self, ctx: RunContext[Any], *, handler: WrapRunHandler
    ) -> AgentRunResult[Any]:
        # Check and admit with no await in between: concurrent runs cannot both slip
        # through the last unit of budget.
        self.check()
        self._run_count += 1
        try:
            return await handler()
        finally:
            # ctx.usage is the run's live RunUsage object; by now it holds every response
            # the run received, including those of a run that is failing.
            self._input_tokens += ctx.usage.input_tokens
            self._output_tokens += ctx.usage.output_tokens

    def restore(self, events: Iterable[object]) -> None:
        """Recompute the counters from a persisted event stream, replacing the current ones.

        Runs are the distinct ``run_id`` values of the ``LlmUsageEvent``s; tokens sum over
        every usage event (a run with three model round-trips counts once, spends thrice).
        A run that never reached the model left no usage event and is not counted.
        """
        run_ids: set[str | None] = set()
        input_tokens = 0
        output_tokens = 0
        for event in events:
            if isinstance(event, LlmUsageEvent):
                run_ids.add(event.run_id)
                input_tokens += event.input_tokens
                output_tokens += event.output_tokens
        self._run_count = len(run_ids)
        self._input_tokens = input_tokens
        self._output_tokens = output_tokens

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds live counters; not constructible from a spec
