"""``EventSourcingCapability``: every message of a run reaches ``ContextManager`` exactly once.

How the cursor works
--------------------
A run's history is not one stable list. pydantic-ai copies the history it is handed, then its
first node rebinds the run to a *normalised* copy (consecutive requests merged, orphaned tool
results dropped), and a history processor may rewrite that list in place (prepend a block,
rebuild it from copies). A length taken at the start of the run therefore does not say where
the run's own messages begin.

So the capability keeps two things per run: the *anchor* (the last message it handed to the
context, or the context's tail when the run starts) and a positional *cursor* just past it.
At every node hook it re-reads the live list (``RunContext.messages``) and checks that the
anchor still sits right before the cursor. When it does not:

1. it looks the anchor up by **identity** (a prepend shifts the anchor without changing which
   object it is, so identity absorbs the shift);
2. failing that, it keeps the **position** (a rebuild from equal copies keeps positions).

Everything after the cursor is then handed to ``ContextManager.add_message`` in order.

The steady state runs in ``after_node_run`` so events stream out while the run progresses;
``before_node_run`` re-anchors on the list the node is about to extend; the closing sweep in
``wrap_run``'s ``finally`` catches what a failing or cancelled run appended after its last
node hook, and records the run's system-prompt rendering (on every path, failure included).

Per-run state lives on a fresh instance returned by ``for_run``, so concurrent runs of one
agent never share a cursor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.capabilities.abstract import AgentNode, NodeResult, WrapRunHandler
from pydantic_ai.messages import ModelMessage
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext

from akgentic.llm.context import ContextManager

__all__ = ["EventSourcingCapability"]


@dataclass(init=False, repr=False, eq=False)
class EventSourcingCapability(AbstractCapability[Any]):
    """Persist every message a run produces into ``context``, once, in run order.

    Mountable on any ``pydantic_ai.Agent``::

        agent = Agent(model, capabilities=[EventSourcingCapability(context)])
    """

    # A dataclass field, as in the predecessor: ``EventSourcingCapability(context=...)``.
    context: ContextManager

    def __init__(self, context: ContextManager) -> None:
        self.context = context
        # Per-run state; only meaningful on the instance returned by ``for_run``.
        self._live: list[ModelMessage] | None = None
        self._anchor: ModelMessage | None = None
        self._cursor = 0
        self._run_id: str | None = None

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # bound to a live ContextManager; not constructible from a spec

    async def for_run(self, ctx: RunContext[Any]) -> EventSourcingCapability:
        return type(self)(self.context)

    # ---------------------------------------------------------------- hooks

    async def wrap_run(
        self, ctx: RunContext[Any], *, handler: WrapRunHandler
    ) -> AgentRunResult[Any]:
        self._run_id = ctx.run_id
        try:
            return await handler()
        finally:
            # The closing sweep: a run that raised or was cancelled may have appended
            # messages after its last node hook (a partial response, a tool-return request).
            self._sweep()
            if ctx.run_id is not None:
                self.context.record_system_prompt(ctx.run_id)

    async def before_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any]
    ) -> AgentNode[Any]:
        self._follow(ctx.messages)
        return node

    async def after_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], result: NodeResult[Any]
    ) -> NodeResult[Any]:
        self._follow(ctx.messages)
        return result

    # --------------------------------------------------------------- cursor

    def _follow(self, live: list[ModelMessage]) -> None:
        if self._live is None:
            self._open(live)
        elif not self._anchor_holds(live):
            self._reanchor(live)
        self._live = live
        self._sweep()

    def _open(self, live: list[ModelMessage]) -> None:
        """Place the cursor for the first time, just past the context's tail in ``live``."""
        tail = self.context.last_message
        self._anchor = tail
        if tail is None:
            self._cursor = 0
            return
        index = _rfind_identity(live, tail)
        self._cursor = index + 1 if index >= 0 else min(len(self.context), len(live))

    def _anchor_holds(self, live: list[ModelMessage]) -> bool:
        cursor = self._cursor
        if self._anchor is None:
            return cursor == 0
        return 0 < cursor <= len(live) and live[cursor - 1] is self._anchor

    def _reanchor(self, live: list[ModelMessage]) -> None:
        anchor = self._anchor
        if anchor is None:
            self._cursor = 0
            return
        index = _rfind_identity(live, anchor)
        self._cursor = index + 1 if index >= 0 else min(self._cursor, len(live))

    def _sweep(self) -> None:
        live = self._live
        if live is None:
            return
        context = self.context
        run_id = self._run_id
        while self._cursor < len(live):
            message = live[self._cursor]
            # Advance before handing over: an observer that raises must not make the next
            # sweep persist the same message twice.
            self._cursor += 1
            self._anchor = message
            context.add_message(message, run_id=run_id)


def _rfind_identity(messages: list[ModelMessage], target: ModelMessage) -> int:
    """Index of the last element that IS ``target`` (identity, not equality), or -1."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index] is target:
            return index
    return -1
