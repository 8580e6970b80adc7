"""The agent-lifetime usage budget, enforced around every run and before every model request.

``LifetimeBudgetCapability`` is the only place ``AgentUsageLimits`` is enforced. It is the
ledger shared by every run of one agent; ``for_run`` hands each run its own
``_RunAccount``, which talks to the ledger at three points:

* **admission** (``wrap_run`` head): tokens are checked first, then the run count, and the
  run is counted, all under one lock. Nothing is awaited between check and count, and the
  lock is a ``threading.Lock``, so neither asyncio tasks nor threads (each driving its own
  event loop) can admit more runs than ``agent_request_limit`` allows. A refusal happens
  before any inner capability or model request, so it is free. A refused run is not counted;
  an admitted run is, even if it then fails.
* **each model request** (``before_model_request``): the run first folds whatever usage it
  received that the ledger has not seen, then the token limits are checked against the
  ledger, which holds the usage of every run (in flight or finished). Once a token limit is
  exceeded, every run is refused its next request, except the one run whose response pushed
  the total over: the documented rule that the run crossing the line completes normally is
  kept, and concurrency adds nothing else to the overshoot but the requests other runs had
  already sent when the line was crossed (at most one per other in-flight run).
* **each response** (``after_model_request``) is folded into the ledger as it arrives, so
  another run's next request (or admission) sees it before this run's tools have even run.

When the run ends (``finally``), the ledger is reconciled with the run's own ``RunUsage``, so
the lifetime totals equal the sum of what every run recorded, including responses a failing
run received and responses that bypassed ``after_model_request``.

The counters live in memory; :meth:`LifetimeBudgetCapability.restore` recomputes them from the
persisted ``LlmUsageEvent`` stream of a resumed agent.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.capabilities.abstract import WrapRunHandler
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelResponse
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RequestUsage, RunUsage
from pydantic_ai.usage import UsageLimits as _PydanticUsageLimits

from akgentic.llm.capabilities.errors import AgentUsageLimitError, limit_message
from akgentic.llm.config import AgentUsageLimits
from akgentic.llm.event import LlmUsageEvent
from akgentic.llm.event_check import check_event_stream

__all__ = ["LifetimeBudgetCapability"]


@dataclass(init=False, repr=False, eq=False)
class LifetimeBudgetCapability(AbstractCapability[Any]):
    """Refuses runs and requests once the agent's lifetime budget is spent; accounts usage.

    Mount it outermost: its ``wrap_run`` head runs before any other capability or model
    request, so refusing a run spends nothing. One instance is shared by all runs of an agent,
    concurrent ones included; its counters are guarded by a lock.
    """

    limits: AgentUsageLimits

    def __init__(self, limits: AgentUsageLimits | None = None) -> None:
        self.limits = limits if limits is not None else AgentUsageLimits()
        # Never held across an await: every critical section below is plain arithmetic.
        self._lock = threading.Lock()
        self._run_count = 0
        self._input_tokens = 0
        self._output_tokens = 0
        self._requests = 0
        self._in_flight = 0
        # The run whose folded usage first took the totals over a token limit; it alone may
        # keep requesting (sequential semantics: the crossing run completes normally).
        self._crossing_run: _RunAccount | None = None

    @property
    def run_count(self) -> int:
        """Runs admitted over the agent's lifetime (refused calls are not counted)."""
        return self._run_count

    @property
    def runs_in_flight(self) -> int:
        """Runs admitted and not yet finished."""
        return self._in_flight

    @property
    def input_tokens(self) -> int:
        """Input tokens spent over the agent's lifetime, in-flight runs included."""
        return self._input_tokens

    @property
    def output_tokens(self) -> int:
        """Output tokens spent over the agent's lifetime, in-flight runs included."""
        return self._output_tokens

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens spent over the agent's lifetime, in-flight runs included."""
        return self._input_tokens + self._output_tokens

    @property
    def usage(self) -> RunUsage:
        """Lifetime spend as a ``RunUsage``: tokens (in-flight runs included) and model
        requests (each counted as soon as its response arrives)."""
        with self._lock:
            return RunUsage(
                requests=self._requests,
                input_tokens=self._input_tokens,
                output_tokens=self._output_tokens,
            )

    def seed(self, run_count: int, usage: RunUsage) -> None:
        """Set the counters to ``run_count`` runs and ``usage``'s requests and tokens.

        For a caller that persisted the counters itself; :meth:`restore` recomputes them
        from the ``LlmUsageEvent`` stream instead.
        """
        if run_count < 0:
            raise ValueError(f"run_count must not be negative, got {run_count}")
        with self._lock:
            self._run_count = run_count
            self._requests = usage.requests
            self._input_tokens = usage.input_tokens
            self._output_tokens = usage.output_tokens

    def check(self) -> None:
        """Raise ``AgentUsageLimitError`` if no further run may start; change nothing.

        Tokens are checked before the run count so that the cheaper-to-explain refusal (the
        agent has spent its tokens) wins, and so a token refusal never touches the counter.
        """
        with self._lock:
            self._check_admission()

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        return _RunAccount(self)

    def restore(self, events: Iterable[object]) -> None:
        """Recompute the counters from a persisted event stream, replacing the current ones.

        Runs are the distinct ``run_id`` values of the ``LlmUsageEvent``s; tokens sum over
        every usage event (a run with three model round-trips counts once, spends thrice).
        A run that never reached the model left no usage event and is not counted.

        The stream is checked first (``akgentic.llm.event_check``): negative usage is a
        ``ValueError`` and changes nothing, a duplicated response is counted once, and a
        response whose usage event is missing (or reports less than the response itself) is
        counted from the response, so a lost event cannot lift a spent budget.
        """
        run_ids: set[str | None] = set()
        input_tokens = 0
        output_tokens = 0
        requests = 0
        for event in check_event_stream(events).usage:
            if isinstance(event, LlmUsageEvent):
                run_ids.add(event.run_id)
                input_tokens += event.input_tokens
                output_tokens += event.output_tokens
                requests += event.requests
        with self._lock:
            self._run_count = len(run_ids)
            self._requests = requests
            self._input_tokens = input_tokens
            self._output_tokens = output_tokens

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds live counters; not constructible from a spec

    # ----------------------------------------- ledger arithmetic (call with the lock held)

    def _over_token_limit(self) -> bool:
        # Plain comparisons, same rule as pydantic-ai's check_tokens (strictly above the
        # limit): this runs on every request and response, the exception only on a breach.
        limits = self.limits
        spent_in, spent_out = self._input_tokens, self._output_tokens
        return (
            (limits.input_tokens_limit is not None and spent_in > limits.input_tokens_limit)
            or (limits.output_tokens_limit is not None and spent_out > limits.output_tokens_limit)
            or (
                limits.total_tokens_limit is not None
                and spent_in + spent_out > limits.total_tokens_limit
            )
        )

    def _raise_token_breach(self) -> None:
        if not self._over_token_limit():
            return
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

    def _check_admission(self) -> None:
        self._raise_token_breach()
        limit = self.limits.agent_request_limit
        if limit is not None and self._run_count >= limit:
            raise AgentUsageLimitError(
                f"Exceeded the agent_request_limit of {limit} (run_count={self._run_count})"
            )

    def _add(self, run: _RunAccount, input_tokens: int, output_tokens: int, requests: int) -> None:
        if requests:
            self._requests += requests
            run.folded_requests += requests
        if not (input_tokens or output_tokens):
            return
        was_within = not self._over_token_limit()
        self._input_tokens += input_tokens
        self._output_tokens += output_tokens
        run.folded_input += input_tokens
        run.folded_output += output_tokens
        if was_within and self._over_token_limit():
            self._crossing_run = run

    def _reconcile(self, run: _RunAccount, usage: RunUsage) -> None:
        """Bring the ledger to exactly what ``usage`` (the run's own record) says it spent."""
        self._add(
            run,
            usage.input_tokens - run.folded_input,
            usage.output_tokens - run.folded_output,
            usage.requests - run.folded_requests,
        )

    # ------------------------------------------- the three moments a run meets the ledger

    def _admit(self) -> None:
        """Check then count, atomically: the run count can never overshoot its limit."""
        with self._lock:
            self._check_admission()
            self._run_count += 1
            self._in_flight += 1

    def _before_request(self, run: _RunAccount, usage: RunUsage) -> None:
        with self._lock:
            self._reconcile(run, usage)
            if self._crossing_run is not run:
                self._raise_token_breach()

    def _received(self, run: _RunAccount, usage: RequestUsage) -> None:
        # A response is one request, counted now like its tokens: the ledger read during a
        # tool call then agrees with the run's own record instead of trailing it by one.
        with self._lock:
            self._add(run, usage.input_tokens, usage.output_tokens, 1)

    def _settle(self, run: _RunAccount, usage: RunUsage) -> None:
        with self._lock:
            self._reconcile(run, usage)
            self._in_flight -= 1
            if self._crossing_run is run:
                self._crossing_run = None


class _RunAccount(AbstractCapability[Any]):
    """One run's view of the shared ledger: what it has folded so far, and its three hooks."""

    def __init__(self, ledger: LifetimeBudgetCapability) -> None:
        self.ledger = ledger
        self.folded_input = 0
        self.folded_output = 0
        self.folded_requests = 0

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # per-run state

    async def wrap_run(
        self, ctx: RunContext[Any], *, handler: WrapRunHandler
    ) -> AgentRunResult[Any]:
        self.ledger._admit()
        try:
            return await handler()
        finally:
            # ctx.usage is the run's live RunUsage; by now it holds every response the run
            # received, including those of a run that is failing.
            self.ledger._settle(self, ctx.usage)

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self.ledger._before_request(self, ctx.usage)
        return request_context

    async def after_model_request(
        self,
        ctx: RunContext[Any],
        *,
        request_context: ModelRequestContext,
        response: ModelResponse,
    ) -> ModelResponse:
        # Called before pydantic-ai adds the response to ctx.usage: fold it now so other runs
        # see it at once; the next reconcile finds ctx.usage caught up and adds nothing.
        self.ledger._received(self, response.usage)
        return response
