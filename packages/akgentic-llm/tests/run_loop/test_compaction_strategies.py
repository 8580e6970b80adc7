"""Compaction strategies, their registry, the summarizer prompt registry and the fold."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.llm.compaction import (
    COMPACTION_STRATEGIES,
    SUMMARY_INSTRUCTIONS,
    SUMMARY_PREFIX,
    CompactionResult,
    NoCompaction,
    SlidingWindowStrategy,
    SummarizeStrategy,
    create_compaction,
    fold_compaction,
    render_transcript,
)
from akgentic.llm.config import CompactionConfig, ModelConfig
from akgentic.llm.event import LlmContextCompactedEvent

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _history() -> list[ModelMessage]:
    """System prompt fused with the first user prompt, a tool round-trip, then a chat turn."""
    return [
        ModelRequest(
            parts=[
                SystemPromptPart("You are helpful.", timestamp=T0),
                SystemPromptPart("Today is Monday.", timestamp=T0, dynamic_ref="today"),
                UserPromptPart("Find the report.", timestamp=T0),
            ]
        ),
        ModelResponse(parts=[ToolCallPart("search", {"q": "report"}, tool_call_id="s1")]),
        ModelRequest(parts=[ToolReturnPart("search", "report.pdf", tool_call_id="s1")]),
        ModelResponse(parts=[TextPart("It is report.pdf.")]),
        ModelRequest(parts=[UserPromptPart("Thanks, and the summary?")]),
        ModelResponse(parts=[TextPart("Sales grew 4%.")]),
    ]


def _event(strategy_id: str, summary: str, count: int) -> LlmContextCompactedEvent:
    return LlmContextCompactedEvent(
        run_id=None,
        strategy_id=strategy_id,
        summary=summary,
        replaced_message_count=count,
        summarizer_prompt_version="v1",
    )


@pytest.fixture
def restore_registries() -> Iterator[None]:
    strategies = dict(COMPACTION_STRATEGIES)
    instructions = dict(SUMMARY_INSTRUCTIONS)
    yield
    COMPACTION_STRATEGIES.clear()
    COMPACTION_STRATEGIES.update(strategies)
    SUMMARY_INSTRUCTIONS.clear()
    SUMMARY_INSTRUCTIONS.update(instructions)


def _summarizer(reply: str, seen: list[tuple[str | None, str]]) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        request = messages[-1]
        assert isinstance(request, ModelRequest)
        prompt = next(p.content for p in request.parts if isinstance(p, UserPromptPart))
        seen.append((request.instructions, str(prompt)))
        return ModelResponse(parts=[TextPart(reply)])

    return FunctionModel(respond)


# ------------------------------------------------------------------ the fold


def test_summarize_fold_keeps_system_parts_only_and_one_summary() -> None:
    history = _history()
    folded = fold_compaction(history, _event("summarize", "They found report.pdf.", 999))
    assert len(folded) == 1
    (head,) = folded
    assert isinstance(head, ModelRequest)
    kinds = [p.part_kind for p in head.parts]
    assert kinds == ["system-prompt", "system-prompt", "user-prompt"]
    assert head.parts[0] is history[0].parts[0]  # the system parts are kept as they were
    assert head.parts[2].content == SUMMARY_PREFIX + "They found report.pdf."
    # the fused user prompt "Find the report." is folded away
    assert "Find the report." not in str(head.parts)


def test_summarize_fold_ignores_replaced_message_count() -> None:
    history = _history()
    a = fold_compaction(history, _event("summarize", "S", 1))
    b = fold_compaction(history, _event("summarize", "S", 5))
    assert a == b
    assert len(a) == 1


def test_head_drop_fold_keeps_the_tail_and_never_orphans_tool_results() -> None:
    history = _history()
    # non-system body: [user "Find", call, return, text, user, text]; dropping 2 would
    # leave the tool return first: the cut moves past it.
    folded = fold_compaction(history, _event("sliding_window", "marker", 2))
    assert folded[1:] == history[3:]
    assert all(a is b for a, b in zip(folded[1:], history[3:], strict=True))
    head = folded[0]
    assert isinstance(head, ModelRequest)
    assert [p.part_kind for p in head.parts] == ["system-prompt", "system-prompt", "user-prompt"]


def test_empty_summary_head_drop_keeps_system_request() -> None:
    history = [
        ModelRequest(parts=[SystemPromptPart("sys")]),
        ModelRequest(parts=[UserPromptPart("a")]),
        ModelResponse(parts=[TextPart("b")]),
        ModelRequest(parts=[UserPromptPart("c")]),
    ]
    folded = fold_compaction(history, _event("keep_last", "", 2))
    assert folded == [history[0], history[3]]
    assert folded[0] is history[0]


def test_noop_event_changes_nothing() -> None:
    history = _history()
    assert fold_compaction(history, _event("none", "", 0)) == history


def test_fold_is_deterministic_for_replay() -> None:
    history = _history()
    for strategy_id in ("summarize", "sliding_window"):
        event = _event(strategy_id, "S", 3)
        first, second = fold_compaction(history, event), fold_compaction(list(history), event)
        assert first == second
        # the synthetic summary part is stamped from the history, not from the clock
        assert first[0].parts[-1].timestamp == history[2].parts[0].timestamp or (
            strategy_id == "summarize" and first[0].parts[-1].timestamp == history[-1].timestamp
        )


def test_fold_without_system_prompt() -> None:
    history = _history()[1:]
    history.insert(0, ModelRequest(parts=[UserPromptPart("plain")]))
    folded = fold_compaction(history, _event("summarize", "S", 0))
    assert len(folded) == 1
    assert [p.part_kind for p in folded[0].parts] == ["user-prompt"]


# ------------------------------------------------------------ the strategies


async def test_summarize_strategy_calls_the_summarizer_with_versioned_instructions(
    restore_registries: None,
) -> None:
    SUMMARY_INSTRUCTIONS["legal"] = "Summarize like a lawyer."
    seen: list[tuple[str | None, str]] = []
    strategy = SummarizeStrategy(
        _summarizer("  The user found report.pdf.  ", seen),
        prompt_version="legal",
        summary_target_tokens=123,
    )
    result = await strategy.compact(_history())
    assert result.summary == "The user found report.pdf."
    assert result.replaced_message_count == 6
    assert result.tokens_after is not None
    assert result.tokens_after > 0
    instructions, prompt = seen[0]
    assert instructions == "Summarize like a lawyer."
    assert "123" in prompt
    assert "User: Find the report." in prompt
    assert 'Assistant called search({"q":"report"})' in prompt
    assert "You are helpful." not in prompt  # the system prompt is kept, not summarized


async def test_unknown_prompt_version_falls_back_to_the_default(restore_registries: None) -> None:
    seen: list[tuple[str | None, str]] = []
    await SummarizeStrategy(_summarizer("s", seen), prompt_version="nope").compact(_history())
    assert seen[0][0] == SUMMARY_INSTRUCTIONS["v1"]
    SUMMARY_INSTRUCTIONS["v1"] = "Replaced in place."
    await SummarizeStrategy(_summarizer("s", seen)).compact(_history())
    assert seen[1][0] == "Replaced in place."


async def test_summarizer_failure_degrades_to_a_truncation_marker() -> None:
    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ConnectionError("summarizer unreachable")

    result = await SummarizeStrategy(FunctionModel(broken)).compact(_history())
    assert result.replaced_message_count == 6
    assert "removed" in result.summary
    assert "6 message(s)" in result.summary

    seen: list[tuple[str | None, str]] = []
    empty = await SummarizeStrategy(_summarizer("   ", seen)).compact(_history())
    assert "no summary could be produced" in empty.summary


async def test_summarize_on_a_system_only_history_folds_nothing() -> None:
    seen: list[tuple[str | None, str]] = []
    history: list[ModelMessage] = [ModelRequest(parts=[SystemPromptPart("sys")])]
    result = await SummarizeStrategy(_summarizer("s", seen)).compact(history)
    assert result == CompactionResult(summary="", replaced_message_count=0)
    assert seen == []


async def test_sliding_window_keeps_recent_messages_without_an_llm() -> None:
    history = _history()
    result = await SlidingWindowStrategy(keep_recent_messages=3).compact(history)
    assert result.replaced_message_count == 3
    folded = fold_compaction(history, _event("sliding_window", result.summary, 3))
    assert folded[1:] == history[3:]
    assert "3 earlier message(s)" in result.summary
    # a window larger than the history folds nothing
    assert (await SlidingWindowStrategy(50).compact(history)).replaced_message_count == 0


async def test_none_strategy_never_folds() -> None:
    result = await NoCompaction().compact(_history())
    assert result == CompactionResult(summary="", replaced_message_count=0)


def test_transcript_renders_parts_in_order() -> None:
    text = render_transcript(_history())
    assert text.splitlines() == [
        "User: Find the report.",
        'Assistant called search({"q":"report"})',
        "Tool result (search): report.pdf",
        "Assistant: It is report.pdf.",
        "User: Thanks, and the summary?",
        "Assistant: Sales grew 4%.",
    ]


# -------------------------------------------------------------- the registry


class KeepLastOnly:
    async def compact(self, messages: Sequence[ModelMessage]) -> CompactionResult:
        return CompactionResult(summary="", replaced_message_count=max(0, len(messages) - 1))


def test_builtin_ids_resolve() -> None:
    model_cfg = ModelConfig()
    window = create_compaction(
        CompactionConfig(strategy="sliding_window", keep_recent_messages=7), model_cfg
    )
    assert isinstance(window, SlidingWindowStrategy)
    assert window.keep_recent_messages == 7
    assert isinstance(create_compaction(CompactionConfig(strategy="none"), model_cfg), NoCompaction)


def test_summarize_builds_its_model_from_the_summary_or_agent_config(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    agent_cfg = ModelConfig(provider="openai", model="gpt-4o")
    strategy = create_compaction(CompactionConfig(summarizer_prompt_version="x"), agent_cfg)
    assert isinstance(strategy, SummarizeStrategy)
    assert strategy.model.model_name == "gpt-4o"
    assert strategy.prompt_version == "x"
    own = ModelConfig(provider="anthropic", model="claude-3-5-haiku-latest")
    strategy = create_compaction(CompactionConfig(summary_model_cfg=own), agent_cfg)
    assert isinstance(strategy, SummarizeStrategy)
    assert strategy.model.model_name == "claude-3-5-haiku-latest"


def test_registered_factory_is_used(restore_registries: None) -> None:
    received: list[Any] = []

    def factory(cfg: CompactionConfig, model_cfg: ModelConfig, http_client: Any) -> KeepLastOnly:
        received.append((cfg.strategy, model_cfg.model, http_client))
        return KeepLastOnly()

    COMPACTION_STRATEGIES["keep_last"] = factory
    strategy = create_compaction(CompactionConfig(strategy="keep_last"), ModelConfig(model="m"))
    assert isinstance(strategy, KeepLastOnly)
    assert received == [("keep_last", "m", None)]


def test_dotted_class_path_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("custom_compaction_mod")

    class FromConfig(KeepLastOnly):
        def __init__(self, keep: int) -> None:
            self.keep = keep

        @classmethod
        def from_config(cls, cfg: CompactionConfig, model_cfg: ModelConfig, http: Any) -> Any:
            return cls(cfg.keep_recent_messages)

    module.KeepLastOnly = KeepLastOnly  # type: ignore[attr-defined]
    module.FromConfig = FromConfig  # type: ignore[attr-defined]
    module.factory = lambda cfg, model_cfg, http: KeepLastOnly()  # type: ignore[attr-defined]
    module.not_a_strategy = 3  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "custom_compaction_mod", module)
    model_cfg = ModelConfig()

    plain = create_compaction(
        CompactionConfig(strategy="custom_compaction_mod.KeepLastOnly"), model_cfg
    )
    assert isinstance(plain, KeepLastOnly)
    configured = create_compaction(
        CompactionConfig(strategy="custom_compaction_mod.FromConfig", keep_recent_messages=9),
        model_cfg,
    )
    assert isinstance(configured, FromConfig)
    assert configured.keep == 9
    built = create_compaction(CompactionConfig(strategy="custom_compaction_mod.factory"), model_cfg)
    assert isinstance(built, KeepLastOnly)
    with pytest.raises(ValueError, match="neither a class nor a factory"):
        create_compaction(
            CompactionConfig(strategy="custom_compaction_mod.not_a_strategy"), model_cfg
        )


@pytest.mark.parametrize(
    ("strategy", "message"),
    [
        ("bogus", "not a registered strategy"),
        ("no_such_module_xyz.Strategy", "cannot import module 'no_such_module_xyz'"),
        ("akgentic.llm.compaction.Missing", "has no attribute 'Missing'"),
        ("akgentic.llm.compaction.CompactionResult", "no async compact"),
        ("akgentic.llm.compaction.SlidingWindowStrategy", "could not be built"),
    ],
)
def test_bad_strategy_names_fail_naming_the_field(strategy: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        create_compaction(CompactionConfig(strategy=strategy), ModelConfig())
    assert "compaction_cfg.strategy" in str(info.value)


def test_transcript_renders_attachments_retries_and_structured_results() -> None:
    from pydantic_ai.messages import BinaryContent, ImageUrl, RetryPromptPart

    loop: list[Any] = []
    loop.append(loop)  # not JSON-serializable: falls back to str()
    history: list[ModelMessage] = [
        ModelRequest(
            parts=[
                UserPromptPart(
                    [
                        "Look at this",
                        BinaryContent(data=b"\x89PNG", media_type="image/png"),
                        ImageUrl(url="https://example.com/a.png"),
                    ]
                )
            ]
        ),
        ModelResponse(parts=[ToolCallPart("measure", {"x": 1}, tool_call_id="m")]),
        ModelRequest(
            parts=[
                RetryPromptPart("x must be positive", tool_name="measure", tool_call_id="m"),
            ]
        ),
        ModelResponse(parts=[ToolCallPart("measure", {"x": 2}, tool_call_id="n")]),
        ModelRequest(parts=[ToolReturnPart("measure", {"width": 3}, tool_call_id="n")]),
        ModelRequest(parts=[ToolReturnPart("loop", loop, tool_call_id="l")]),
        ModelRequest(parts=[RetryPromptPart("answer in JSON")]),
    ]
    lines = render_transcript(history).splitlines()
    assert lines[0] == "User: Look at this [image/png attachment] [ImageUrl attachment]"
    assert lines[2] == "Retry request (measure): x must be positive"
    assert lines[4] == 'Tool result (measure): {"width": 3}'
    assert lines[5].startswith("Tool result (loop): [[")
    assert lines[6] == "Retry request: answer in JSON"


def test_transcript_renders_dates_and_non_ascii_text_as_readable_json() -> None:
    from datetime import date

    from pydantic_ai.messages import RetryPromptPart

    content = {"when": date(2026, 1, 2), "city": "Zürich"}
    history: list[ModelMessage] = [
        ModelRequest(parts=[ToolReturnPart("weather", content, tool_call_id="w")]),
        ModelRequest(parts=[RetryPromptPart(["Größe"], tool_name="weather", tool_call_id="v")]),
    ]
    assert render_transcript(history).splitlines() == [
        'Tool result (weather): {"when": "2026-01-02", "city": "Zürich"}',
        'Retry request (weather): ["Größe"]',
    ]


def test_a_fold_keeps_the_first_requests_metadata() -> None:
    first = ModelRequest(
        parts=[SystemPromptPart("You are helpful.", timestamp=T0), UserPromptPart("Hi.")],
        timestamp=T0,
        instructions="Be brief.",
        run_id="run-1",
        conversation_id="conv-1",
    )
    history: list[ModelMessage] = [first, ModelResponse(parts=[TextPart("Hello.")])]
    for event in (_event("summarize", "gist", 0), _event("sliding_window", "", 1)):
        head = fold_compaction(history, event)[0]
        assert isinstance(head, ModelRequest)
        assert isinstance(head.parts[0], SystemPromptPart)
        assert (head.timestamp, head.instructions, head.run_id, head.conversation_id) == (
            T0,
            "Be brief.",
            "run-1",
            "conv-1",
        )


def _call(call_id: str) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart("measure", {"x": 1}, tool_call_id=call_id)])


async def test_the_window_never_keeps_a_retry_prompt_whose_call_it_dropped() -> None:
    from pydantic_ai.messages import RetryPromptPart

    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("Measure it.")]),
        _call("1"),
        ModelRequest(parts=[RetryPromptPart("x too small", tool_name="measure", tool_call_id="1")]),
        _call("2"),
        ModelRequest(parts=[ToolReturnPart("measure", 3, tool_call_id="2")]),
        ModelResponse(parts=[TextPart("It is 3.")]),
    ]
    # keeping 4 would start the tail with the retry prompt answering the dropped call "1"
    result = await SlidingWindowStrategy(keep_recent_messages=4).compact(history)
    assert result.replaced_message_count == 3


async def test_the_window_drops_a_call_left_unanswered_at_the_end() -> None:
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("a")]),
        ModelResponse(parts=[TextPart("b")]),
        ModelRequest(parts=[UserPromptPart("c")]),
        _call("died-mid-call"),
    ]
    result = await SlidingWindowStrategy(keep_recent_messages=3).compact(history)
    assert result.replaced_message_count == 4


async def test_a_window_that_drops_nothing_says_nothing() -> None:
    result = await SlidingWindowStrategy(keep_recent_messages=50).compact(_history())
    assert result == CompactionResult(summary="", replaced_message_count=0)


async def test_the_window_estimates_the_size_of_the_history_it_leaves() -> None:
    from akgentic.llm.compaction import estimate_tokens

    history = _history()
    result = await SlidingWindowStrategy(keep_recent_messages=2).compact(history)
    folded = fold_compaction(
        history, _event("sliding_window", result.summary, result.replaced_message_count)
    )
    assert result.tokens_after == estimate_tokens(folded)
    assert result.tokens_after is not None
    assert result.tokens_after > estimate_tokens(folded[1:])  # the summary head counts


async def test_the_summarizer_reads_past_a_message_with_nothing_to_render() -> None:
    seen: list[tuple[str | None, str]] = []
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("Find the report.")]),
        ModelResponse(parts=[TextPart("Found it.")]),
        ModelResponse(parts=[]),  # renders to nothing: skipped, not the end of the transcript
    ]
    await SummarizeStrategy(_summarizer("gist", seen)).compact(history)
    ((_, prompt),) = seen
    transcript = "User: Find the report.\nAssistant: Found it."
    assert prompt.endswith(f"<conversation>\n{transcript}\n</conversation>")


def _tool_round(call_id: str) -> list[ModelMessage]:
    return [
        _call(call_id),
        ModelRequest(parts=[ToolReturnPart("measure", 3, tool_call_id=call_id)]),
    ]


def test_a_head_drop_of_one_never_keeps_the_result_of_the_call_it_dropped() -> None:
    # the system prompt stands alone, so the tool call is the first non-system message
    system = ModelRequest(parts=[SystemPromptPart("You are helpful.")])
    history: list[ModelMessage] = [system, *_tool_round("t"), ModelResponse([TextPart("3.")])]
    folded = fold_compaction(history, _event("sliding_window", "gist", 1))
    assert folded[1:] == history[3:]


def test_a_head_drop_of_nothing_keeps_even_a_leading_tool_result() -> None:
    # a window on the context may already have dropped the call: nothing is dropped anyway
    orphan = ModelRequest(parts=[ToolReturnPart("measure", 3, tool_call_id="gone")])
    history: list[ModelMessage] = [orphan, ModelResponse([TextPart("3.")])]
    assert fold_compaction(history, _event("sliding_window", "gist", 0)) == history


def _summarizing_strategy(built: str, client: httpx.AsyncClient) -> Any:
    """A summarizing strategy built one of the two ways, handed ``client``."""
    agent_model = ModelConfig(provider="openai", model="gpt-4o")
    if built == "registry factory":
        # the summarizer is built from the agent's model config
        return COMPACTION_STRATEGIES["summarize"](
            CompactionConfig(summarizer_prompt_version="x"), agent_model, client
        )
    # summary_model_cfg set: a second model, which must not build a client of its own (it
    # would lose the shared pool and the retries)
    return create_compaction(
        CompactionConfig(summary_model_cfg=ModelConfig(provider="openai", model="gpt-4o-mini")),
        agent_model,
        client,
        model=_unused_model(),
    )


@pytest.mark.parametrize("built", ["registry factory", "own summarizer"])
async def test_a_summarizer_talks_through_the_client_it_is_given(
    serve: Any, chat_completion: Any, clean_provider_env: pytest.MonkeyPatch, built: str
) -> None:
    server = serve((200, {"Content-Type": "application/json"}, chat_completion("gist")))
    clean_provider_env.setenv("OPENAI_API_KEY", "sk-test")
    clean_provider_env.setenv("OPENAI_BASE_URL", server.url)
    sent: list[str] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request.url.path)

    async with httpx.AsyncClient(event_hooks={"request": [record]}) as client:
        strategy = _summarizing_strategy(built, client)
        result = await strategy.compact(_history())
    assert isinstance(strategy, SummarizeStrategy)
    assert result.summary == "gist"
    assert [path.rsplit("/", 2)[-2:] for path in sent] == [["chat", "completions"]]
    if built == "registry factory":
        assert strategy.prompt_version == "x"


def _unused_model() -> FunctionModel:
    def refuse(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise AssertionError("the agent's own model was asked to summarize")

    return FunctionModel(refuse)


def test_a_message_of_several_parts_renders_one_line_per_part() -> None:
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("First."), UserPromptPart("Second.")]),
    ]
    assert render_transcript(history) == "User: First.\nUser: Second."


async def test_the_window_estimates_about_four_characters_per_token() -> None:
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("x" * 37)]),
        ModelResponse(parts=[TextPart("y" * 41)]),
        ModelRequest(parts=[UserPromptPart("z" * 43)]),
        ModelResponse(parts=[TextPart("w" * 45)]),
    ]
    result = await SlidingWindowStrategy(keep_recent_messages=2).compact(history)
    rendered = [
        f"User: {SUMMARY_PREFIX}{result.summary}",
        "User: " + "z" * 43,
        "Assistant: " + "w" * 45,
    ]
    assert result.tokens_after == sum(len(line) for line in rendered) // 4


async def test_the_summary_estimate_is_the_size_of_the_folded_history() -> None:
    from akgentic.llm.compaction import estimate_tokens

    history = _history()
    strategy = SummarizeStrategy(_summarizer("They found the report.", []))
    result = await strategy.compact(history)
    folded = fold_compaction(history, _event("summarize", result.summary, 0))
    assert result.tokens_after == estimate_tokens(folded)


def test_a_summary_without_a_system_prompt_is_stamped_with_the_last_dropped_message() -> None:
    later = datetime(2026, 1, 2, tzinfo=UTC)
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("a", timestamp=T0)], timestamp=T0, run_id="run-0"),
        ModelResponse(parts=[TextPart("b")], timestamp=later),
        ModelRequest(parts=[UserPromptPart("c", timestamp=later)]),
    ]
    head = fold_compaction(history, _event("sliding_window", "gist", 2))[0]
    assert isinstance(head, ModelRequest)
    assert (head.timestamp, head.run_id) == (later, None)
    assert [type(part) for part in head.parts] == [UserPromptPart]


def test_an_empty_summary_without_a_system_prompt_adds_no_head() -> None:
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("a")]),
        ModelResponse(parts=[TextPart("b")]),
        ModelRequest(parts=[UserPromptPart("c")]),
    ]
    assert fold_compaction(history, _event("sliding_window", "", 1)) == history[1:]


def test_a_dropped_request_without_any_timestamp_stamps_the_summary_at_the_epoch() -> None:
    history: list[ModelMessage] = [
        ModelRequest(parts=[], timestamp=None),
        ModelRequest(parts=[UserPromptPart("c")]),
    ]
    head = fold_compaction(history, _event("sliding_window", "gist", 1))[0]
    assert head.parts[0].timestamp == datetime(1970, 1, 1, tzinfo=UTC)


def test_every_builder_receives_the_config_the_model_config_and_the_client(
    restore_registries: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    received: list[tuple[str, str, str | None, Any]] = []

    class Recording(KeepLastOnly):
        @classmethod
        def from_config(cls, cfg: CompactionConfig, model_cfg: ModelConfig, http: Any) -> Any:
            received.append(("from_config", cfg.strategy, model_cfg.model, http))
            return cls()

    def factory(cfg: CompactionConfig, model_cfg: ModelConfig, http: Any) -> KeepLastOnly:
        received.append(("factory", cfg.strategy, model_cfg.model, http))
        return KeepLastOnly()

    module = types.ModuleType("recording_compaction_mod")
    module.Recording = Recording  # type: ignore[attr-defined]
    module.factory = factory  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "recording_compaction_mod", module)
    COMPACTION_STRATEGIES["recording"] = factory
    client = httpx.AsyncClient()  # only handed on, never used to send
    names = ["recording", "recording_compaction_mod.Recording", "recording_compaction_mod.factory"]
    for name in names:
        create_compaction(CompactionConfig(strategy=name), ModelConfig(model="m"), client)
    assert received == [
        ("factory", "recording", "m", client),
        ("from_config", "recording_compaction_mod.Recording", "m", client),
        ("factory", "recording_compaction_mod.factory", "m", client),
    ]


def test_bad_strategy_errors_read_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("odd_compaction_mod")
    module.number = lambda cfg, model_cfg, http: 3  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "odd_compaction_mod", module)
    expected = {
        "bogus": "compaction_cfg.strategy='bogus' is not a registered strategy "
        "(none, sliding_window, summarize) nor a dotted class path",
        "akgentic.llm.compaction.CompactionResult": "compaction_cfg.strategy="
        "'akgentic.llm.compaction.CompactionResult' names CompactionResult, "
        "which has no async compact(messages) method",
        "odd_compaction_mod.number": "compaction_cfg.strategy='odd_compaction_mod.number' "
        "built int, which has no async compact(messages) method",
    }
    for name, message in expected.items():
        with pytest.raises(ValueError) as info:
            create_compaction(CompactionConfig(strategy=name), ModelConfig())
        assert str(info.value) == message


def test_an_agent_hands_its_model_config_and_client_to_the_strategy(
    restore_registries: None, make_agent: Any
) -> None:
    from akgentic.llm import ReactAgentConfig

    received: list[tuple[str | None, Any]] = []

    def factory(cfg: CompactionConfig, model_cfg: ModelConfig, http: Any) -> KeepLastOnly:
        received.append((model_cfg.model, http))
        return KeepLastOnly()

    COMPACTION_STRATEGIES["recording"] = factory
    agent = make_agent(
        ReactAgentConfig(
            model_cfg=ModelConfig(provider="openai", model="gpt-4o"),
            compaction_cfg=CompactionConfig(strategy="recording"),
        )
    )
    assert agent.http_client is not None
    assert received == [("gpt-4o", agent.http_client)]
