"""Usage-triggered compaction at the head of every run.

``CompactionCapability`` looks at the input-token count the provider reported for the latest
response (``ContextManager.last_input_tokens``, no tokenizer involved). When it has reached
the armed threshold (``threshold_fn()``, e.g. ``trigger_ratio x context_length``), the history
is folded before the run reads it.

Placing it in the head of ``wrap_run`` makes "at most once per run" structural: no counter,
no guard, nothing to reset between runs. Every capability mounted after it sees only the folded
history, because its ``wrap_run`` encloses theirs.

:meth:`CompactionCapability.compact` is the single fold site. It writes twice, as one
operation: into the ``ContextManager`` (which emits ``LlmContextCompactedEvent``) and, when a
run is in flight, into that run's own history list. pydantic-ai seeds a run from a *copy* of
the history it is given, so neither write reaches the other by itself. The run's list is made
to mirror the context (same message objects) rather than folded a second time: a second fold
would double-fold, and the persistence cursor locates its anchor by identity.
``ReactAgent.compact()`` calls the same method with no run in flight.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.capabilities.abstract import WrapRunHandler
from pydantic_ai.messages import ModelMessage
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext

from akgentic.llm.compaction import CompactionResult, CompactionStrategy
from akgentic.llm.context import ContextManager
from akgentic.llm.event import LlmContextCompactedEvent

__all__ = ["CompactionCapability", "CompactionEventFactory", "compaction_event_factory"]


class CompactionEventFactory(Protocol):
    """Builds the event that describes one fold."""

    def __call__(
        self, result: CompactionResult, *, run_id: str | None, tokens_before: int | None
    ) -> LlmContextCompactedEvent: ...


def compaction_event_factory(
    strategy_id: str, summarizer_prompt_version: str = "v1"
) -> CompactionEventFactory:
    """An event factory stamping every event with ``strategy_id`` and the prompt version.

    ``strategy_id`` is what the fold dispatches on when the event is replayed, so it must be
    the resolved strategy id (a registry id or a dotted path), as ``ReactAgent`` passes it.
    """

    def build(
        result: CompactionResult, *, run_id: str | None, tokens_before: int | None
    ) -> LlmContextCompactedEvent:
        return LlmContextCompactedEvent(
            run_id=run_id,
            strategy_id=strategy_id,
            summary=result.summary,
            replaced_message_count=result.replaced_message_count,
            summarizer_prompt_version=summarizer_prompt_version,
            tokens_before=tokens_before,
            tokens_after=result.tokens_after,
        )

    return build


def _default_event_factory(strategy: CompactionStrategy) -> CompactionEventFactory:
    # Built-in strategies carry their registry id; anything else is named by its class path.
    strategy_id = getattr(strategy, "strategy_id", None)
    if not isinstance(strategy_id, str):
        cls = type(strategy)
        strategy_id = f"{cls.__module__}.{cls.__qualname__}"
    version = getattr(strategy, "prompt_version", "v1")
    return compaction_event_factory(strategy_id, version if isinstance(version, str) else "v1")


def _adapt_event_factory(
    factory: CompactionEventFactory | Callable[..., LlmContextCompactedEvent],
) -> CompactionEventFactory:
    """``factory`` as a ``CompactionEventFactory``, wrapping a one-argument (result) one."""
    try:
        inspect.signature(factory).bind(None, run_id=None, tokens_before=None)
    except TypeError:
        pass
    except ValueError:  # no signature to inspect: trust it takes the full form
        return cast(CompactionEventFactory, factory)
    else:
        return cast(CompactionEventFactory, factory)
    legacy = cast(Callable[[CompactionResult], LlmContextCompactedEvent], factory)

    def stamped(
        result: CompactionResult, *, run_id: str | None, tokens_before: int | None
    ) -> LlmContextCompactedEvent:
        event = legacy(result)
        updates: dict[str, Any] = {}
        if event.run_id is None and run_id is not None:
            updates["run_id"] = run_id
        if event.tokens_before is None and tokens_before is not None:
            updates["tokens_before"] = tokens_before
        return dataclasses.replace(event, **updates) if updates else event

    return stamped


def _never() -> int | None:
    return None


@dataclass(init=False, repr=False, eq=False)
class CompactionCapability(AbstractCapability[Any]):
    """Folds the conversation when the last reported input size crosses the threshold.

    ``threshold_fn`` returns the input-token count at which to fold, or ``None`` when
    auto-compaction is off. ``event_factory`` builds the ``LlmContextCompactedEvent`` (by
    default from the strategy's ``strategy_id``/class path and ``prompt_version``).

    A predecessor-style factory taking only the ``CompactionResult`` is accepted too; the
    event it returns is stamped with the run id and the size before the fold when it left
    them unset.
    """

    strategy: CompactionStrategy
    context: ContextManager
    threshold_fn: Callable[[], int | None]
    event_factory: CompactionEventFactory

    def __init__(
        self,
        strategy: CompactionStrategy,
        context: ContextManager,
        threshold_fn: Callable[[], int | None] = _never,
        event_factory: CompactionEventFactory
        | Callable[..., LlmContextCompactedEvent]
        | None = None,
    ) -> None:
        self.strategy = strategy
        self.context = context
        self.threshold_fn = threshold_fn
        self.event_factory = (
            _adapt_event_factory(event_factory)
            if event_factory is not None
            else _default_event_factory(strategy)
        )

    def should_compact(self) -> bool:
        """Whether the gate is armed and the last reported input size has reached it."""
        threshold = self.threshold_fn()
        tokens = self.context.last_input_tokens
        return threshold is not None and tokens is not None and tokens >= threshold

    async def wrap_run(
        self, ctx: RunContext[Any], *, handler: WrapRunHandler
    ) -> AgentRunResult[Any]:
        if self.should_compact():
            # ctx.messages is the run's own history list at this point (pydantic-ai's first
            # node has not rebound it yet), so mirroring into it reaches the run.
            await self.compact(live=ctx.messages, run_id=ctx.run_id)
        return await handler()

    async def compact(
        self,
        *,
        live: list[ModelMessage] | None = None,
        run_id: str | None = None,
    ) -> LlmContextCompactedEvent | None:
        """Fold the history now, whatever the gate says; return the event, or ``None``.

        ``None`` means the strategy replaces no message (``none``, or nothing to fold); then
        no event is emitted and the history is untouched.
        """
        context = self.context
        tokens_before = context.last_input_tokens
        result = await self.strategy.compact(context.messages)
        if result.replaced_message_count <= 0:
            return None
        event = self.event_factory(result, run_id=run_id, tokens_before=tokens_before)
        context.compact(event)
        if live is not None:
            live[:] = context.messages
        return event

    async def compact_now(
        self, live_messages: list[ModelMessage] | None = None
    ) -> LlmContextCompactedEvent | None:
        """The predecessor's name of :meth:`compact`: fold now, mirroring into
        ``live_messages`` (a running run's history list) when given."""
        return await self.compact(live=live_messages)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # bound to a live ContextManager and strategy
