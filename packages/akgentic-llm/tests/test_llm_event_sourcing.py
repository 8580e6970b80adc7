"""EventSourcingCapability on a bare pydantic-ai Agent: exactly once, in order, every path."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RunUsage

from akgentic.llm import (
    ContextManager,
    EventSourcingCapability,
    LlmMessageEvent,
    LlmSystemPromptEvent,
    LlmUsageEvent,
)


class Recorder:
    """The spec's example observer: keeps the messages it is told about."""

    def __init__(self) -> None:
        self.messages: list[ModelMessage] = []

    def notify_event(self, event: object) -> None:
        if isinstance(event, LlmMessageEvent):
            self.messages.append(event.message)


async def test_spec_example_bare_agent_persists_everything_once() -> None:
    context = ContextManager()
    recorder = Recorder()
    context.subscribe(recorder)

    agent = Agent(model=TestModel(), capabilities=[EventSourcingCapability(context)])
    result = await agent.run("hello")

    assert context.messages == list(result.all_messages())
    assert recorder.messages == context.messages


def _tool_then_answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    last = messages[-1]
    asked = any(isinstance(p, UserPromptPart) for p in last.parts)
    if asked and info.function_tools:
        return ModelResponse(parts=[ToolCallPart("lookup", {"key": "k"}, tool_call_id="t1")])
    return ModelResponse(parts=[TextPart("done")])


async def test_consecutive_runs_persist_only_their_own_messages(event_recorder: Any) -> None:
    context = ContextManager()
    context.subscribe(event_recorder)
    agent = Agent(
        FunctionModel(_tool_then_answer),
        system_prompt="Be brief.",
        capabilities=[EventSourcingCapability(context)],
    )

    @agent.tool_plain
    def lookup(key: str) -> str:
        return f"value of {key}"

    first = await agent.run("one")
    second = await agent.run("two", message_history=context.messages)

    assert context.messages == list(second.all_messages())
    persisted = [e.message for e in event_recorder.of_type(LlmMessageEvent)]
    assert persisted == context.messages
    assert len(persisted) == len(first.all_messages()) + len(second.new_messages())
    # every event of a run carries that run's id, and the two ids differ
    ids_by_type = {
        (type(e).__name__, e.run_id) for e in event_recorder.events if hasattr(e, "run_id")
    }
    assert {run_id for _, run_id in ids_by_type} == {first.run_id, second.run_id}
    assert first.run_id != second.run_id
    usage = event_recorder.of_type(LlmUsageEvent)
    assert len(usage) == sum(isinstance(m, ModelResponse) for m in context.messages)


SOURCE_REFERENCES = "... a deployment's source-reference block ..."


def _is_source_reference(message: ModelMessage) -> bool:
    return (
        isinstance(message, ModelRequest)
        and len(message.parts) == 1
        and isinstance(message.parts[0], UserPromptPart)
        and message.parts[0].content == SOURCE_REFERENCES
    )


def inject_source_reference(messages: list[ModelMessage]) -> list[ModelMessage]:
    if messages and _is_source_reference(messages[0]):
        return messages
    return [ModelRequest(parts=[UserPromptPart(content=SOURCE_REFERENCES)]), *messages]


def _persisting_agent(
    processor: Callable[[list[ModelMessage]], list[ModelMessage]],
) -> tuple[ContextManager, Recorder, Agent[None, str]]:
    """An agent persisting into a fresh context, with ``processor`` run inside the window."""
    context = ContextManager()
    recorder = Recorder()
    context.subscribe(recorder)
    agent: Agent[None, str] = Agent(
        TestModel(),
        capabilities=[EventSourcingCapability(context), ProcessHistory(processor=processor)],
    )
    return context, recorder, agent


async def test_prepending_processor_is_absorbed_by_the_identity_anchor() -> None:
    context, recorder, agent = _persisting_agent(inject_source_reference)
    await agent.run("first")
    # First run: no recorded tail yet, so the injected block is inside the window and recorded.
    assert sum(_is_source_reference(m) for m in context.messages) == 1
    before = len(context.messages)

    second = await agent.run("second", message_history=context.messages)
    new = context.messages[before:]
    assert [type(m) for m in new] == [ModelRequest, ModelResponse]
    assert new == list(second.new_messages())
    assert sum(_is_source_reference(m) for m in context.messages) == 1
    assert recorder.messages == context.messages  # nothing persisted twice


def rebuild_from_copies(messages: list[ModelMessage]) -> list[ModelMessage]:
    return [copy.deepcopy(m) for m in messages]


async def test_rebuilding_processor_is_absorbed_by_the_positional_cursor() -> None:
    context, recorder, agent = _persisting_agent(rebuild_from_copies)
    await agent.run("first")
    await agent.run("second", message_history=context.messages)
    await agent.run("third", message_history=context.messages)
    prompts = [
        p.content
        for m in context.messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, UserPromptPart)
    ]
    assert prompts == ["first", "second", "third"]
    assert len(context.messages) == 6
    assert len(recorder.messages) == 6


async def test_a_failing_run_still_persists_what_it_produced(event_recorder: Any) -> None:
    context = ContextManager()
    context.subscribe(event_recorder)

    def call_then_crash(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("explode", {}, tool_call_id="x1")])

    agent = Agent(
        FunctionModel(call_then_crash),
        system_prompt="rules",
        capabilities=[EventSourcingCapability(context)],
    )

    @agent.tool_plain
    def explode() -> str:
        raise RuntimeError("tool blew up")

    with pytest.raises(RuntimeError, match="tool blew up"):
        await agent.run("go")

    kinds = [type(m) for m in context.messages]
    assert kinds == [ModelRequest, ModelResponse]
    dangling = context.messages[-1]
    assert isinstance(dangling, ModelResponse)
    assert dangling.parts[0].tool_name == "explode"  # type: ignore[union-attr]
    # the system-prompt record happens on the failure path too
    [prompt_event] = event_recorder.of_type(LlmSystemPromptEvent)
    assert prompt_event.parts[0].content == "rules"
    messages = [e.message for e in event_recorder.of_type(LlmMessageEvent)]
    assert messages == context.messages


async def test_a_cancelled_run_persists_its_tail() -> None:
    context = ContextManager()
    started = asyncio.Event()

    def call_slow_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("slow", {}, tool_call_id="s1")])

    agent = Agent(FunctionModel(call_slow_tool), capabilities=[EventSourcingCapability(context)])

    @agent.tool_plain
    async def slow() -> str:
        started.set()
        await asyncio.sleep(3600)
        return "never"

    task = asyncio.create_task(agent.run("go"))
    await asyncio.wait_for(started.wait(), timeout=10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [type(m) for m in context.messages] == [ModelRequest, ModelResponse]
    assert context.messages[-1].parts[0].tool_name == "slow"  # type: ignore[union-attr]


async def test_a_model_error_after_some_steps_keeps_earlier_steps() -> None:
    context = ContextManager()
    calls = 0

    def tool_then_fail(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            return ModelResponse(parts=[ToolCallPart("noop", {}, tool_call_id="n1")])
        raise ConnectionError("provider went away")

    agent = Agent(FunctionModel(tool_then_fail), capabilities=[EventSourcingCapability(context)])

    @agent.tool_plain
    def noop() -> str:
        return "ok"

    with pytest.raises(ConnectionError):
        await agent.run("go")
    # request, tool-call response, tool-return request (sent, never answered)
    assert [type(m) for m in context.messages] == [ModelRequest, ModelResponse, ModelRequest]


async def test_observer_failure_does_not_cause_double_persistence() -> None:
    context = ContextManager()
    seen: list[ModelMessage] = []

    class FailsOnce:
        failed = False

        def notify_event(self, event: object) -> None:
            if isinstance(event, LlmMessageEvent):
                seen.append(event.message)
                if not self.failed:
                    self.failed = True
                    raise RuntimeError("observer hiccup")

    context.subscribe(FailsOnce())
    agent = Agent(TestModel(), capabilities=[EventSourcingCapability(context)])
    with pytest.raises(RuntimeError, match="observer hiccup"):
        await agent.run("hello")
    assert len(seen) == len(context.messages)
    assert len({id(m) for m in context.messages}) == len(context.messages)


def keep_last_two(messages: list[ModelMessage]) -> list[ModelMessage]:
    return messages[-2:]


async def test_a_trimming_processor_loses_nothing_of_the_run() -> None:
    """The processor moves the anchor to the head of a shorter list: found by identity at
    index 0, the cursor goes just past it, and every later message is persisted once."""
    context = ContextManager()
    recorder = Recorder()
    context.subscribe(recorder)
    agent: Agent[None, str] = Agent(
        FunctionModel(_tool_then_answer),
        capabilities=[EventSourcingCapability(context), ProcessHistory(processor=keep_last_two)],
    )

    @agent.tool_plain
    def lookup(key: str) -> str:
        return f"value of {key}"

    for prompt in ("first", "second"):
        await agent.run(prompt, message_history=context.messages)
    kinds = [[type(part).__name__ for part in message.parts] for message in context.messages]
    one_run = [["UserPromptPart"], ["ToolCallPart"], ["ToolReturnPart"], ["TextPart"]]
    assert kinds == one_run * 2
    assert recorder.messages == context.messages


@pytest.mark.parametrize("behind_the_tail", [False, True], ids=["tail-last", "turn-behind-tail"])
async def test_a_history_longer_than_the_context_is_persisted_once(behind_the_tail: bool) -> None:
    """The caller hands in more than the context holds: a block in front and, maybe, a turn
    of its own behind the context's tail. The cursor opens just past the tail, found by
    identity wherever it sits: the turn behind it is persisted, the tail is not again."""
    context = ContextManager()
    recorder = Recorder()
    context.subscribe(recorder)
    agent: Agent[None, str] = Agent(TestModel(), capabilities=[EventSourcingCapability(context)])
    await agent.run("first", message_history=context.messages)
    before = list(context.messages)
    block = ModelRequest(parts=[UserPromptPart(content=SOURCE_REFERENCES)])
    aside: list[ModelMessage] = (
        [ModelResponse(parts=[TextPart("an answer given elsewhere")])] if behind_the_tail else []
    )
    second = await agent.run("second", message_history=[block, *context.messages, *aside])
    assert context.messages[: len(before)] == before
    assert context.messages[len(before) :] == [*aside, *second.new_messages()]
    assert recorder.messages == context.messages  # nothing persisted twice


# -- the node hooks driven directly: what one hook must hand over --------------------------------


def _run_context(live: list[ModelMessage]) -> RunContext[None]:
    return RunContext(deps=None, model=TestModel(), usage=RunUsage(), messages=live, run_id="r1")


def _said(text: str) -> ModelRequest:
    return ModelRequest(parts=[UserPromptPart(content=text)])


async def test_every_message_a_node_leaves_behind_is_handed_over_by_its_hook() -> None:
    """A node may append more than one message (a processor, a merged request): the hook after
    it hands all of them over, in order, not one per hook."""
    context = ContextManager()
    live: list[ModelMessage] = []
    run = _run_context(live)
    capability = await EventSourcingCapability(context).for_run(run)
    node: Any = None
    burst: list[ModelMessage] = [_said("a"), ModelResponse(parts=[TextPart("b")]), _said("c")]
    live.extend(burst)  # already there when the first hook opens on an empty context
    await capability.before_node_run(run, node=node)
    assert context.messages == burst
    more: list[ModelMessage] = [ModelResponse(parts=[TextPart("d")]), _said("e")]
    live.extend(more)
    await capability.after_node_run(run, node=node, result=node)
    assert context.messages == burst + more


async def test_a_history_of_equal_copies_opens_past_the_contexts_length() -> None:
    """A processor rebuilt the history from copies: the context's tail is not in it by
    identity, so the run's messages are taken to start where the context's length ends."""
    context = ContextManager()
    earlier, tail = _said("earlier"), ModelResponse(parts=[TextPart("tail")])
    context.add_message(earlier)
    context.add_message(tail)
    new = _said("new")
    live: list[ModelMessage] = [copy.deepcopy(earlier), copy.deepcopy(tail), new]
    run = _run_context(live)
    capability = await EventSourcingCapability(context).for_run(run)
    node: Any = None
    await capability.after_node_run(run, node=node, result=node)
    assert context.messages == [earlier, tail, new]


async def test_a_history_holding_only_the_contexts_tail_opens_just_past_it() -> None:
    """The caller hands in just the last message of a longer context: the run's own messages
    start right after it, wherever the context's length would put them."""
    context = ContextManager()
    earlier, tail = _said("earlier"), ModelResponse(parts=[TextPart("tail")])
    context.add_message(earlier)
    context.add_message(tail)
    new = _said("new")
    live: list[ModelMessage] = [tail, new]
    run = _run_context(live)
    capability = await EventSourcingCapability(context).for_run(run)
    node: Any = None
    await capability.after_node_run(run, node=node, result=node)
    assert context.messages == [earlier, tail, new]
