"""The summarize fold sends a bounded transcript (issue 20, finding 8).

Before the bound, the whole non-system history went to the summarizer in one request: a
history a prompt-injected model had grown to hundreds of megabytes became a request of that
size. The summarizer here is a FunctionModel that records the exact prompt it received.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.llm import CompactionConfig, ModelConfig, ReactAgent, ReactAgentConfig
from akgentic.llm.compaction import (
    DEFAULT_SUMMARIZER_INPUT_CHARS,
    SummarizeStrategy,
    SummarizingCompaction,
    bounded_transcript,
    render_transcript,
)


class RecordingSummarizer:
    """Answers with a fixed summary and keeps every prompt it was sent."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        request = messages[-1]
        assert isinstance(request, ModelRequest)
        self.prompts.extend(str(p.content) for p in request.parts if isinstance(p, UserPromptPart))
        return ModelResponse(parts=[TextPart("the gist")])

    @property
    def model(self) -> FunctionModel:
        return FunctionModel(self.respond)


def _history(turns: int, size: int) -> list[ModelMessage]:
    history: list[ModelMessage] = [ModelRequest(parts=[SystemPromptPart("sys")])]
    for n in range(turns):
        history.append(ModelRequest(parts=[UserPromptPart(f"<q{n}>" + "q" * size)]))
        history.append(ModelResponse(parts=[TextPart(f"<a{n}>" + "a" * size)]))
    return history


async def test_the_summarizer_receives_at_most_the_bound_newest_first() -> None:
    summarizer = RecordingSummarizer()
    strategy = SummarizeStrategy(summarizer.model, max_input_chars=5_000)
    history = _history(turns=100, size=1_000)  # ~200k characters of transcript
    result = await strategy.compact(history)

    (prompt,) = summarizer.prompts
    transcript = prompt.split("<conversation>\n", 1)[1].removesuffix("\n</conversation>")
    note, kept = transcript.split("\n", 1)
    assert len(kept) <= 5_000
    assert "<a99>" in kept
    assert "<q98>" in kept
    assert "<q0>" not in prompt
    kept_messages = kept.count("User: ") + kept.count("Assistant: ")
    assert note == (
        "[Left out to fit the summarizer's input limit of 5000 characters: the "
        f"{200 - kept_messages} oldest message(s). Say in the summary that earlier context "
        "is missing.]"
    )
    # The fold itself is unchanged: the whole history is still replaced by the summary.
    assert result.replaced_message_count == 200
    assert result.summary == "the gist"


async def test_a_single_oversized_message_is_cut_to_its_end() -> None:
    summarizer = RecordingSummarizer()
    huge = ModelRequest(parts=[UserPromptPart("HEAD" + "x" * 50_000 + "TAIL")])
    await SummarizeStrategy(summarizer.model, max_input_chars=1_000).compact(
        [ModelRequest(parts=[SystemPromptPart("sys")]), huge]
    )
    (prompt,) = summarizer.prompts
    assert "TAIL" in prompt
    assert "HEAD" not in prompt
    assert len(prompt) < 1_000 + 400  # the bound plus the fixed instructions and the note
    assert "the 0 oldest message(s), and the first 49014 characters of the newest one" in prompt


async def test_the_default_bound_holds_for_a_runaway_history() -> None:
    summarizer = RecordingSummarizer()
    history = _history(turns=4, size=250_000)  # 2 MB of transcript
    await SummarizeStrategy(summarizer.model).compact(history)
    (prompt,) = summarizer.prompts
    assert DEFAULT_SUMMARIZER_INPUT_CHARS == 400_000
    assert len(prompt) < DEFAULT_SUMMARIZER_INPUT_CHARS + 1_000


def test_a_transcript_within_the_bound_is_sent_whole() -> None:
    history = _history(turns=3, size=10)[1:]
    assert bounded_transcript(history, 10_000) == render_transcript(history)
    exact = len(render_transcript(history))
    assert bounded_transcript(history, exact) == render_transcript(history)
    assert bounded_transcript(history, exact - 1).startswith("[Left out")


def test_the_bound_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_input_chars must be at least 1, got 0"):
        SummarizeStrategy(RecordingSummarizer().model, max_input_chars=0)
    smallest = SummarizeStrategy(RecordingSummarizer().model, max_input_chars=1)
    # Built directly, it aims at the same summary length as CompactionConfig's default.
    assert (smallest.max_input_chars, smallest.summary_target_tokens) == (1, 2000)
    with pytest.raises(ValueError, match="summarizer_max_input_chars"):
        CompactionConfig(summarizer_max_input_chars=0)


async def test_the_configured_bound_reaches_the_agent_summarizer(
    make_agent: Callable[..., ReactAgent],
) -> None:
    cfg = CompactionConfig(summarizer_max_input_chars=2_000)
    config = ReactAgentConfig(
        model_cfg=ModelConfig(provider="openai", model="gpt-4o"), compaction_cfg=cfg
    )
    assert SummarizingCompaction(cfg, config.model_cfg).max_input_chars == 2_000
    agent = make_agent(config)
    summarizer = RecordingSummarizer()
    strategy = agent.compaction.strategy
    assert isinstance(strategy, SummarizeStrategy)
    strategy.model = summarizer.model  # the agent's own strategy, only its model swapped
    agent.context.restore(_history(turns=20, size=1_000))
    report = await agent.acompact()
    assert report == "Compacted 40 message(s) with the 'summarize' strategy."
    (prompt,) = summarizer.prompts
    assert len(prompt) < 2_000 + 400
    assert isinstance(agent.context.messages[0], ModelRequest)
