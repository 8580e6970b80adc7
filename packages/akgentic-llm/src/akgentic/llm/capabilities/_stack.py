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

from collections.abc import Awaitable, Callable, Sequence
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


def _overrides(member: AbstractCapability[Any], hook: str) -> bool:
    return getattr(type(member), hook) is not getattr(AbstractCapability, hook)


class InternalStack(AbstractCapability[Any]):
    """Forward run-level and node-level hooks to ``members``, in ``CombinedCapability`` order."""

    def __init__(self, members: Sequence[AbstractCapability[Any]]) -> None:
        for member in members:
            unsupported = [hook for hook in _NOT_FORWARDED if _overrides(member, hook)]
            if unsupported or member.get_ordering() is not None:
                raise TypeError(
                    f"{type(member).__name__} overrides {unsupported or ['get_ordering']}, "
                    "which InternalStack does not forward; mount it as its own capability"
                )
        self.members = tuple(members)
        self._wrap_run = tuple(m for m in self.members if _overrides(m, "wrap_run"))
        self._before_node = tuple(m for m in self.members if _overrides(m, "before_node_run"))
        self._after_node = tuple(
            m for m in reversed(self.members) if _overrides(m, "after_node_run")
        )
        self._on_error = tuple(m for m in reversed(self.members) if _overrides(m, "on_run_error"))
        self._before_request = tuple(
            m for m in self.members if _overrides(m, "before_model_request")
        )
        self._after_request = tuple(
            m for m in reversed(self.members) if _overrides(m, "after_model_request")
        )

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
