"""``InternalStack``: ReactAgent's internal capabilities mounted as ONE entry of the chain.

Why this exists: pydantic-ai's ``CombinedCapability`` calls every hook on every mounted
capability and copies the ``RunContext`` (``dataclasses.replace``) for each of them, whether
or not the capability overrides that hook. With four or five internal capabilities that copy
dominated ``ReactAgent.run``'s overhead over a bare ``Agent`` (measured: four no-op
capabilities cost +23% on a 50-turn run). Mounted through this dispatcher, pydantic-ai pays
for one entry, and the dispatcher forwards each hook only to the members that override it.

Semantics are those of ``CombinedCapability`` over the same list, so the documented order
holds unchanged: ``wrap_run`` nests with the first member outermost, ``before_node_run`` runs
and ``before_model_request`` in list order, ``after_node_run``, ``after_model_request``
and ``on_run_error`` in reverse, and ``for_run`` rebinds
members that return a per-run instance. A member overriding any other hook is refused at
construction, so a new capability cannot be silently half-mounted.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.capabilities.abstract import AgentNode, NodeResult, WrapRunHandler
from pydantic_ai.messages import ModelResponse
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext

__all__ = ["InternalStack"]

_FORWARDED = frozenset(
    {
        "for_run",
        "wrap_run",
        "on_run_error",
        "before_node_run",
        "after_node_run",
        "before_model_request",
        "after_model_request",
    }
)
# Hooks and contributions pydantic-ai would call on a mounted capability; overriding one that
# is not forwarded above would be silently ignored, so it is refused instead.
_NOT_FORWARDED = tuple(
    name
    for name, value in vars(AbstractCapability).items()
    if callable(value)
    and not name.startswith("_")
    and name not in _FORWARDED
    and name
    not in {
        "apply",
        "get_serialization_name",
        "from_spec",
        "prefix_tools",
        "get_ordering",
        "for_agent",
    }
)


def _overrides(kind: type[AbstractCapability[Any]], hook: str) -> bool:
    return getattr(kind, hook) is not getattr(AbstractCapability, hook)


@dataclass(frozen=True)
class _Plan:
    """Which members (by position) each forwarded hook goes to, in dispatch order."""

    wrap_run: tuple[int, ...]
    before_node: tuple[int, ...]
    after_node: tuple[int, ...]
    on_error: tuple[int, ...]
    before_request: tuple[int, ...]
    after_request: tuple[int, ...]


@functools.lru_cache(maxsize=256)
def _dispatch_plan(kinds: tuple[type[AbstractCapability[Any]], ...]) -> _Plan:
    """The plan for members of these classes; read once per combination of classes, not per
    agent and per run (``for_run`` rebuilds the stack each run: event sourcing is per run)."""
    for kind in kinds:
        unsupported = [hook for hook in _NOT_FORWARDED if _overrides(kind, hook)]
        if unsupported:
            raise _refused(kind, unsupported)

    def forward(hook: str, *, reverse: bool = False) -> tuple[int, ...]:
        order = range(len(kinds) - 1, -1, -1) if reverse else range(len(kinds))
        return tuple(i for i in order if _overrides(kinds[i], hook))

    return _Plan(
        wrap_run=forward("wrap_run"),
        before_node=forward("before_node_run"),
        after_node=forward("after_node_run", reverse=True),
        on_error=forward("on_run_error", reverse=True),
        before_request=forward("before_model_request"),
        after_request=forward("after_model_request", reverse=True),
    )


def _refused(kind: type[Any], hooks: list[str]) -> TypeError:
    return TypeError(
        f"{kind.__name__} overrides {hooks}, which InternalStack does not forward; "
        "mount it as its own capability"
    )


class InternalStack(AbstractCapability[Any]):
    """Forward run-level and node-level hooks to ``members``, in ``CombinedCapability`` order."""

    def __init__(self, members: Sequence[AbstractCapability[Any]]) -> None:
        plan = _dispatch_plan(tuple(type(member) for member in members))
        for member in members:
            if member.get_ordering() is not None:
                raise _refused(type(member), ["get_ordering"])
        self.members = tuple(members)

        def pick(positions: tuple[int, ...]) -> tuple[AbstractCapability[Any], ...]:
            return tuple(self.members[i] for i in positions)

        self._wrap_run = pick(plan.wrap_run)
        self._before_node = pick(plan.before_node)
        self._after_node = pick(plan.after_node)
        self._on_error = pick(plan.on_error)
        self._before_request = pick(plan.before_request)
        self._after_request = pick(plan.after_request)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds live members

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        members = [await member.for_run(ctx) for member in self.members]
        if all(new is old for new, old in zip(members, self.members, strict=True)):
            return self
        return InternalStack(members)

    async def wrap_run(
        self, ctx: RunContext[Any], *, handler: WrapRunHandler
    ) -> AgentRunResult[Any]:
        chain: Callable[[], Awaitable[AgentRunResult[Any]]] = handler
        for member in reversed(self._wrap_run):
            chain = _bind_wrap_run(member, ctx, chain)
        return await chain()

    async def before_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any]
    ) -> AgentNode[Any]:
        for member in self._before_node:
            node = await member.before_node_run(ctx, node=node)
        return node

    async def after_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any], result: NodeResult[Any]
    ) -> NodeResult[Any]:
        for member in self._after_node:
            result = await member.after_node_run(ctx, node=node, result=result)
        return result

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        for member in self._before_request:
            request_context = await member.before_model_request(ctx, request_context)
        return request_context

    async def after_model_request(
        self,
        ctx: RunContext[Any],
        *,
        request_context: ModelRequestContext,
        response: ModelResponse,
    ) -> ModelResponse:
        for member in self._after_request:
            response = await member.after_model_request(
                ctx, request_context=request_context, response=response
            )
        return response

    async def on_run_error(
        self, ctx: RunContext[Any], *, error: BaseException
    ) -> AgentRunResult[Any]:
        for member in self._on_error:
            try:
                recovered: AgentRunResult[Any] = await member.on_run_error(ctx, error=error)
            except BaseException as raised:
                # Like pydantic-ai's own walk: the next member sees what this one raised.
                error = raised
            else:
                return recovered
        raise error


def _bind_wrap_run(
    member: AbstractCapability[Any],
    ctx: RunContext[Any],
    inner: Callable[[], Awaitable[AgentRunResult[Any]]],
) -> Callable[[], Awaitable[AgentRunResult[Any]]]:
    async def run() -> AgentRunResult[Any]:
        return await member.wrap_run(ctx, handler=inner)

    return run
