"""InternalStack dispatches like pydantic-ai's own chain over the same list."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelResponse
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RunUsage

from akgentic.llm.capabilities._stack import InternalStack, _dispatch_plan


class Tracing(AbstractCapability[Any]):
    """Logs each hook it sees into a shared list."""

    def __init__(self, name: str, log: list[str], *, fail_with: BaseException | None = None):
        self.name = name
        self.log = log
        self.fail_with = fail_with

    async def wrap_run(self, ctx: RunContext[Any], *, handler: Any) -> AgentRunResult[Any]:
        self.log.append(f"{self.name}:wrap_run:enter")
        try:
            return await handler()
        finally:
            self.log.append(f"{self.name}:wrap_run:exit")

    async def before_node_run(self, ctx: RunContext[Any], *, node: Any) -> Any:
        self.log.append(f"{self.name}:before_node")
        return node

    async def after_node_run(self, ctx: RunContext[Any], *, node: Any, result: Any) -> Any:
        self.log.append(f"{self.name}:after_node")
        return result

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: Any, response: ModelResponse
    ) -> ModelResponse:
        self.log.append(f"{self.name}:after_request")
        return response

    async def on_run_error(self, ctx: RunContext[Any], *, error: BaseException) -> Any:
        self.log.append(f"{self.name}:on_error:{type(error).__name__}")
        if self.fail_with is not None:
            raise self.fail_with from error
        raise error


async def _trace(capabilities: list[AbstractCapability[Any]], model: Any) -> None:
    agent = Agent(model, capabilities=capabilities)
    await agent.run("go")


async def test_same_hook_order_as_a_plain_chain() -> None:
    flat: list[str] = []
    grouped: list[str] = []
    await _trace([Tracing("a", flat), Tracing("b", flat), Tracing("c", flat)], TestModel())
    await _trace(
        [InternalStack([Tracing("a", grouped), Tracing("b", grouped)]), Tracing("c", grouped)],
        TestModel(),
    )
    assert grouped == flat
    assert flat[:3] == ["a:wrap_run:enter", "b:wrap_run:enter", "c:wrap_run:enter"]
    assert "c:after_node" in flat
    first_after = flat.index("c:after_node")
    assert flat[first_after : first_after + 3] == ["c:after_node", "b:after_node", "a:after_node"]


async def test_error_walk_is_reversed_and_hands_on_the_latest_error() -> None:
    def broken(messages: Any, info: Any) -> ModelResponse:
        raise ValueError("model down")

    log: list[str] = []
    stack = InternalStack(
        [Tracing("outer", log), Tracing("inner", log, fail_with=KeyError("translated"))]
    )
    with pytest.raises(KeyError, match="translated"):
        await _trace([stack], FunctionModel(broken))
    errors = [entry for entry in log if ":on_error:" in entry]
    assert errors == ["inner:on_error:ValueError", "outer:on_error:KeyError"]


def test_members_with_unforwarded_hooks_are_refused() -> None:
    class ToolHook(AbstractCapability[Any]):
        async def before_tool_execute(self, ctx: Any, **kwargs: Any) -> Any:  # type: ignore[override]
            return kwargs

    with pytest.raises(TypeError, match=r"ToolHook overrides \['before_tool_execute'\]") as info:
        InternalStack([ToolHook()])
    # the message says what to do instead
    assert str(info.value).endswith("mount it as its own capability")


async def test_for_run_rebinds_members_with_per_run_instances() -> None:
    class PerRun(AbstractCapability[Any]):
        async def for_run(self, ctx: RunContext[Any]) -> PerRun:
            return PerRun()

    shared = Tracing("shared", [])
    per_run = PerRun()
    stack = InternalStack([shared, per_run])
    ctx = RunContext[None](deps=None, model=TestModel(), usage=RunUsage())
    bound = await stack.for_run(ctx)
    assert isinstance(bound, InternalStack)
    assert bound is not stack
    assert bound.members[0] is shared
    assert bound.members[1] is not per_run
    unchanged = InternalStack([shared])
    assert await unchanged.for_run(ctx) is unchanged


def test_the_dispatch_plan_is_read_once_per_combination_of_classes() -> None:
    log: list[str] = []
    InternalStack([Tracing("a", log), Tracing("b", log)])
    before = _dispatch_plan.cache_info()
    for name in ("c", "d", "e"):
        InternalStack([Tracing(name, log), Tracing(name, log)])
    after = _dispatch_plan.cache_info()
    assert (after.misses, after.hits) == (before.misses, before.hits + 3)


def test_a_member_with_its_own_ordering_is_refused() -> None:
    from pydantic_ai.capabilities.abstract import CapabilityOrdering

    class Ordered(AbstractCapability[Any]):
        def get_ordering(self) -> CapabilityOrdering:
            return CapabilityOrdering(position="outermost")

    with pytest.raises(TypeError, match=r"Ordered overrides \['get_ordering'\]"):
        InternalStack([Ordered()])


class Witness(AbstractCapability[Any]):
    """Keeps what each hook was handed, to compare with what the run itself had."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        self.seen.append(("for_run ctx", ctx))
        return self

    async def after_node_run(self, ctx: RunContext[Any], *, node: Any, result: Any) -> Any:
        self.seen.append(("after_node node", node))
        return result

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: Any, response: ModelResponse
    ) -> ModelResponse:
        self.seen += [("after_request ctx", ctx), ("request_context", request_context)]
        return response


async def test_members_are_handed_the_run_context_node_and_request_as_given() -> None:
    inside, outside = Witness(), Witness()
    await _trace([InternalStack([inside]), outside], TestModel())
    kinds = [kind for kind, _ in outside.seen]
    assert [kind for kind, _ in inside.seen] == kinds
    assert None not in [value for _, value in inside.seen]
    # the same kind of object a plain chain member receives, hook by hook
    assert [type(value) for _, value in inside.seen] == [type(v) for _, v in outside.seen]
