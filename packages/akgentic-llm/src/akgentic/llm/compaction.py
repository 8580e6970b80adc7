"""Compaction strategies, their registry, and the fold that applies a compaction.

A *strategy* decides what a compaction says (``CompactionResult``: the summary text and how
many non-system messages it replaces). The *fold* (:func:`fold_compaction`, also reachable as
``ContextManager.fold_compaction``) turns the history plus the emitted
``LlmContextCompactedEvent`` into the new history. The fold reads only the event and the
messages, never the strategy, so replaying a persisted event stream reproduces exactly the
history the live agent had.

Fold rules:

- ``strategy_id == "summarize"``: full fold. The first request keeps only its system-prompt
  parts (a user prompt pydantic-ai fused into it goes too), the summary is appended to that
  same request as a user-prompt part, and every other message is dropped. The count in the
  event is not consulted.
- any other strategy: head drop. The system-prompt parts stay at the head, followed by the
  summary (when not empty), then the non-system messages minus the first
  ``replaced_message_count`` of them. A kept tail never starts with tool results whose calls
  were dropped.

The synthetic part carries the timestamp of the last message it replaces, so a live fold and
a replayed fold build equal messages.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from akgentic.llm.config import CompactionConfig, ModelConfig

if TYPE_CHECKING:
    import httpx
    from pydantic_ai.models import Model

    from akgentic.llm.event import LlmContextCompactedEvent

__all__ = [
    "COMPACTION_STRATEGIES",
    "SUMMARY_INSTRUCTIONS",
    "CompactionResult",
    "CompactionStrategy",
    "CompactionStrategyFactory",
    "NoCompaction",
    "NoOpCompaction",
    "SlidingWindowCompaction",
    "SlidingWindowStrategy",
    "SummarizeStrategy",
    "SummarizingCompaction",
    "create_compaction",
    "fold_compaction",
]


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """What a strategy decided: the text that stands in for the history, and how much it replaces.

    ``replaced_message_count`` counts non-system messages. ``tokens_after`` is an optional
    estimate of the context size after the fold (``None`` when the strategy has none).
    """

    summary: str
    replaced_message_count: int
    tokens_after: int | None = None


@runtime_checkable
class CompactionStrategy(Protocol):
    """Anything with an async ``compact(messages)`` returning a ``CompactionResult``."""

    async def compact(self, messages: Sequence[ModelMessage]) -> CompactionResult:
        """Decide how ``messages`` are folded; must not mutate them."""
        ...


CompactionStrategyFactory = Callable[
    [CompactionConfig, ModelConfig, "httpx.AsyncClient | None"], CompactionStrategy
]
"""Builds a strategy from the compaction config, the agent's model config and its HTTP client."""


_DEFAULT_SUMMARY_INSTRUCTIONS = """\
You condense a conversation between a user, an AI assistant and the tools the assistant \
used, so that the assistant can carry on the work from your summary alone: the original \
messages will be discarded.

Write a faithful, neutral summary that keeps:
- the user's goals, requests, constraints and stated preferences;
- decisions taken and the reasons given for them;
- facts, figures, names, identifiers, file paths and URLs that later steps may need;
- what the tools returned, when it still matters;
- work that is finished, work that is in progress, and open questions or next steps.

Leave out greetings, repetition and reasoning that led nowhere. Do not invent anything and \
do not answer the user yourself. Write plain prose or short bullet points, without a preamble.\
"""

SUMMARY_INSTRUCTIONS: dict[str, str] = {"v1": _DEFAULT_SUMMARY_INSTRUCTIONS}
"""Summarizer system prompts keyed by ``CompactionConfig.summarizer_prompt_version``.

Mutable on purpose: replace ``"v1"`` or add a named variant before building agents. An
unknown version falls back to the built-in default text.
"""

SUMMARY_PREFIX = "Summary of the earlier conversation (the original messages were folded away):\n"
"""Prefix of the user-prompt part that carries a summary in the folded history."""

TRUNCATION_MARKER = (
    "[The earlier conversation ({count} message(s)) was removed to free context space; "
    "no summary could be produced.]"
)
"""Summary used by ``summarize`` when the summarizer call fails."""

WINDOW_MARKER = "[{count} earlier message(s) were dropped to keep the context within its window.]"
"""Summary written by ``sliding_window`` in front of the messages it keeps."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def summary_instructions(version: str) -> str:
    """The summarizer prompt registered for ``version``, or the built-in default."""
    return SUMMARY_INSTRUCTIONS.get(version, _DEFAULT_SUMMARY_INSTRUCTIONS)


# --------------------------------------------------------------------------------------------
# The fold


def _split_head(
    messages: Sequence[ModelMessage],
) -> tuple[list[SystemPromptPart], ModelRequest | None, list[ModelMessage]]:
    """Separate the system prompt from the rest of the history.

    Returns the system-prompt parts of the first message (when it is a request), that
    request itself, and the non-system messages: the first request reduced to its other
    parts (if it has any), followed by everything after it.
    """
    if not messages or not isinstance(messages[0], ModelRequest):
        return [], None, list(messages)
    first = messages[0]
    system = [p for p in first.parts if isinstance(p, SystemPromptPart)]
    if not system:
        return [], first, list(messages)
    rest_parts = [p for p in first.parts if not isinstance(p, SystemPromptPart)]
    body: list[ModelMessage] = []
    if rest_parts:
        body.append(_request_like(first, rest_parts))
    body.extend(messages[1:])
    return system, first, body


def _request_like(template: ModelRequest, parts: Sequence[ModelRequestPart]) -> ModelRequest:
    return ModelRequest(
        parts=list(parts),
        timestamp=template.timestamp,
        instructions=template.instructions,
        run_id=template.run_id,
        conversation_id=template.conversation_id,
    )


def _message_timestamp(message: ModelMessage) -> datetime:
    if isinstance(message, ModelResponse):
        return message.timestamp
    if message.timestamp is not None:
        return message.timestamp
    stamps: list[datetime] = [
        stamp for p in message.parts if isinstance(stamp := getattr(p, "timestamp", None), datetime)
    ]
    return max(stamps) if stamps else _EPOCH


def _answers_tool_call(message: ModelMessage) -> bool:
    return isinstance(message, ModelRequest) and any(
        isinstance(p, ToolReturnPart | RetryPromptPart) and _is_tool_answer(p)
        for p in message.parts
    )


def _is_tool_answer(part: ToolReturnPart | RetryPromptPart) -> bool:
    return not isinstance(part, RetryPromptPart) or part.tool_name is not None


def clean_cut(body: Sequence[ModelMessage], cut: int) -> int:
    """Move ``cut`` forward past tool results whose calls would be dropped.

    A kept tail may start with a model response or a plain request, never with a request
    answering tool calls that lie before the cut.
    """
    cut = max(0, min(cut, len(body)))
    while 0 < cut < len(body) and _answers_tool_call(body[cut]):
        cut += 1
    return cut


def _unanswered_before(body: Sequence[ModelMessage], start: int) -> int:
    """One past the last response in ``body[start:]`` with a call nothing after it answers.

    Returns ``start`` when every call in that tail is answered.
    """
    answered: set[str] = set()
    for index in range(len(body) - 1, start - 1, -1):
        message = body[index]
        if isinstance(message, ModelRequest):
            answered.update(
                p.tool_call_id
                for p in message.parts
                if isinstance(p, ToolReturnPart | RetryPromptPart) and _is_tool_answer(p)
            )
        elif any(
            isinstance(p, ToolCallPart) and p.tool_call_id not in answered for p in message.parts
        ):
            return index + 1
    return start


def valid_tail_cut(body: Sequence[ModelMessage], cut: int) -> int:
    """Move ``cut`` forward until the kept tail is a history a provider accepts.

    The tail then neither starts with tool results whose calls were dropped
    (:func:`clean_cut`) nor holds a tool call that nothing answers (the process died
    mid-call): such a call, and everything before it, is dropped too.
    """
    cut = clean_cut(body, cut)
    past_unanswered = _unanswered_before(body, cut)
    if past_unanswered > cut:
        cut = clean_cut(body, past_unanswered)
    return cut


def fold_compaction(
    messages: Sequence[ModelMessage], event: LlmContextCompactedEvent
) -> list[ModelMessage]:
    """Return the history that results from applying ``event`` to ``messages``.

    Pure and deterministic: the live path and the replay path call it with the same inputs
    and get equal outputs. Messages that are kept are the same objects (identity preserved).
    """
    system, first, body = _split_head(messages)
    if event.strategy_id == "summarize":
        drop = len(body)
    else:
        drop = clean_cut(body, event.replaced_message_count)
    dropped = body[:drop]
    kept = body[drop:]
    if not dropped:
        # A summary only ever stands in for dropped messages: nothing dropped, nothing changes.
        return list(messages)

    folded: list[ModelMessage] = []
    if event.summary:
        stamp = _message_timestamp(dropped[-1])
        summary_part = UserPromptPart(content=SUMMARY_PREFIX + event.summary, timestamp=stamp)
        if first is not None and system:
            folded.append(_request_like(first, [*system, summary_part]))
        else:
            folded.append(ModelRequest(parts=[summary_part], timestamp=stamp))
    elif first is not None and system:
        # Nothing replaces the dropped messages: the system prompt alone heads the history,
        # as the original object when it held nothing else (identity is the cursor's anchor).
        only_system = len(system) == len(first.parts)
        folded.append(first if only_system else _request_like(first, system))
    folded.extend(kept)
    return folded


# --------------------------------------------------------------------------------------------
# Token estimate


def estimate_tokens(messages: Sequence[ModelMessage]) -> int:
    """Rough context size: about four characters per token, no tokenizer needed.

    Only used for the ``tokens_after`` field, which is observability, not a trigger.
    """
    return sum(len(_render_message(m, include_system=True)) for m in messages) // 4


# --------------------------------------------------------------------------------------------
# Transcript rendering for the summarizer


def _render_user_content(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return " ".join(_render_user_content(item) for item in content)
    if isinstance(content, BinaryContent):
        return f"[{content.media_type} attachment]"
    return f"[{type(content).__name__} attachment]"


def _render_value(value: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, default=str, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _render_message(message: ModelMessage, *, include_system: bool = False) -> str:
    lines: list[str] = []
    if isinstance(message, ModelRequest):
        for part in message.parts:
            if isinstance(part, SystemPromptPart):
                if include_system:
                    lines.append(f"System: {part.content}")
            elif isinstance(part, UserPromptPart):
                lines.append(f"User: {_render_user_content(part.content)}")
            elif isinstance(part, ToolReturnPart):
                lines.append(f"Tool result ({part.tool_name}): {_render_value(part.content)}")
            elif isinstance(part, RetryPromptPart):
                where = f" ({part.tool_name})" if part.tool_name else ""
                lines.append(f"Retry request{where}: {_render_value(part.content)}")
    else:
        for response_part in message.parts:
            if isinstance(response_part, TextPart):
                lines.append(f"Assistant: {response_part.content}")
            elif isinstance(response_part, ToolCallPart):
                lines.append(
                    f"Assistant called {response_part.tool_name}"
                    f"({response_part.args_as_json_str()})"
                )
    return "\n".join(lines)


DEFAULT_SUMMARIZER_INPUT_CHARS = 400_000
"""Default bound of the transcript a ``summarize`` fold sends (about 100k tokens)."""

_LEFT_OUT_NOTE = (
    "[Left out to fit the summarizer's input limit of {limit} characters: the {count} oldest "
    "message(s){cut}. Say in the summary that earlier context is missing.]"
)


def bounded_transcript(messages: Sequence[ModelMessage], max_chars: int) -> str:
    """The newest part of :func:`render_transcript` that fits in ``max_chars`` characters.

    Whole messages are kept from the newest back; when even the newest does not fit, its end
    is kept. Whatever is left out is announced by a note in front (the note itself is not
    counted). Older messages are never rendered, so the cost is bounded by what is sent.
    """
    kept: list[str] = []
    used = 0
    left_out = 0
    cut = 0
    for index in range(len(messages) - 1, -1, -1):
        text = _render_message(messages[index])
        if not text:
            continue
        cost = len(text) + (1 if kept else 0)  # the newline joining it to the next one
        if used + cost <= max_chars:
            kept.append(text)
            used += cost
            continue
        if not kept:  # the newest message alone is over the limit: keep its end
            kept.append(text[len(text) - max_chars :])
            cut = len(text) - max_chars
            left_out = index
        else:
            left_out = index + 1
        break
    transcript = "\n".join(reversed(kept))
    if not (left_out or cut):
        return transcript
    cut_text = f", and the first {cut} characters of the newest one" if cut else ""
    note = _LEFT_OUT_NOTE.format(limit=max_chars, count=left_out, cut=cut_text)
    return f"{note}\n{transcript}"


def render_transcript(messages: Sequence[ModelMessage]) -> str:
    """The non-system history as plain text, one line per part, in order."""
    rendered = (_render_message(m) for m in messages)
    return "\n".join(text for text in rendered if text)


# --------------------------------------------------------------------------------------------
# Built-in strategies


class SummarizeStrategy:
    """Folds the whole non-system history into one LLM-written summary.

    The summarizer is sent at most ``max_input_chars`` characters of transcript: the newest
    messages that fit, behind a note saying how many older ones were left out (they are still
    folded away; the note asks the summary to say that earlier context is missing).

    When the summarizer call fails (or returns nothing), the fold still happens with a
    truncation marker as its summary, so an over-long context always shrinks.
    """

    strategy_id = "summarize"

    def __init__(
        self,
        model: Model,
        *,
        prompt_version: str = "v1",
        summary_target_tokens: int = 2000,
        max_input_chars: int = DEFAULT_SUMMARIZER_INPUT_CHARS,
    ) -> None:
        if max_input_chars < 1:
            raise ValueError(f"max_input_chars must be at least 1, got {max_input_chars}")
        self.model = model
        self.prompt_version = prompt_version
        self.summary_target_tokens = summary_target_tokens
        self.max_input_chars = max_input_chars

    async def compact(self, messages: Sequence[ModelMessage]) -> CompactionResult:
        system, _, body = _split_head(messages)
        if not body:
            return CompactionResult(summary="", replaced_message_count=0)
        summary = await self._summarize(body)
        if summary is None:
            summary = TRUNCATION_MARKER.format(count=len(body))
        head = ModelRequest(parts=[*system, UserPromptPart(content=SUMMARY_PREFIX + summary)])
        return CompactionResult(
            summary=summary,
            replaced_message_count=len(body),
            tokens_after=estimate_tokens([head]),
        )

    async def _summarize(self, body: Sequence[ModelMessage]) -> str | None:
        from pydantic_ai import Agent

        summarizer: Agent[None, str] = Agent(
            self.model,
            instructions=summary_instructions(self.prompt_version),
            output_type=str,
        )
        prompt = (
            f"Summarize the conversation below in at most about {self.summary_target_tokens} "
            f"tokens.\n\n<conversation>\n{bounded_transcript(body, self.max_input_chars)}"
            "\n</conversation>"
        )
        try:
            result = await summarizer.run(prompt)
        except Exception:  # any summarizer failure degrades to the marker
            return None
        text = result.output.strip()
        return text or None


class SlidingWindowStrategy:
    """Keeps the last ``keep_recent_messages`` non-system messages; no LLM call.

    The kept tail is moved forward when needed (:func:`valid_tail_cut`) so that it never
    starts with orphan tool results nor keeps a tool call that nothing answers.
    """

    strategy_id = "sliding_window"

    def __init__(self, keep_recent_messages: int) -> None:
        self.keep_recent_messages = keep_recent_messages

    async def compact(self, messages: Sequence[ModelMessage]) -> CompactionResult:
        system, _, body = _split_head(messages)
        drop = valid_tail_cut(body, len(body) - self.keep_recent_messages)
        if drop == 0:
            return CompactionResult(summary="", replaced_message_count=0)
        summary = WINDOW_MARKER.format(count=drop)
        head = ModelRequest(parts=[*system, UserPromptPart(content=SUMMARY_PREFIX + summary)])
        return CompactionResult(
            summary=summary,
            replaced_message_count=drop,
            tokens_after=estimate_tokens([head, *body[drop:]]),
        )


class NoCompaction:
    """Never folds anything."""

    strategy_id = "none"

    async def compact(self, messages: Sequence[ModelMessage]) -> CompactionResult:
        return CompactionResult(summary="", replaced_message_count=0)


class SummarizingCompaction(SummarizeStrategy):
    """The ``summarize`` strategy built from configuration (the predecessor's class name).

    The summarizer is ``cfg.summary_model_cfg`` when set, else ``model_cfg``, built with
    ``create_model`` on ``http_client``; prompt version and target size come from ``cfg``.
    ``model``, when given, is the agent's own model: it is reused instead of building a
    second one from ``model_cfg`` (it is ignored when ``summary_model_cfg`` is set).
    """

    def __init__(
        self,
        cfg: CompactionConfig,
        model_cfg: ModelConfig,
        http_client: httpx.AsyncClient | None = None,
        *,
        model: Model | None = None,
    ) -> None:
        from akgentic.llm.providers import create_model

        if model is None or cfg.summary_model_cfg is not None:
            model = create_model(cfg.summary_model_cfg or model_cfg, http_client=http_client)
        super().__init__(
            model,
            prompt_version=cfg.summarizer_prompt_version,
            summary_target_tokens=cfg.summary_target_tokens,
            max_input_chars=cfg.summarizer_max_input_chars,
        )


NoOpCompaction = NoCompaction
"""The predecessor's name of ``NoCompaction`` (the same class)."""

SlidingWindowCompaction = SlidingWindowStrategy
"""The predecessor's name of ``SlidingWindowStrategy`` (the same class)."""


def _summarize_factory(
    cfg: CompactionConfig, model_cfg: ModelConfig, http_client: httpx.AsyncClient | None
) -> CompactionStrategy:
    return SummarizingCompaction(cfg, model_cfg, http_client)


def _sliding_window_factory(
    cfg: CompactionConfig, model_cfg: ModelConfig, http_client: httpx.AsyncClient | None
) -> CompactionStrategy:
    return SlidingWindowStrategy(cfg.keep_recent_messages)


def _none_factory(
    cfg: CompactionConfig, model_cfg: ModelConfig, http_client: httpx.AsyncClient | None
) -> CompactionStrategy:
    return NoCompaction()


COMPACTION_STRATEGIES: dict[str, CompactionStrategyFactory] = {
    "summarize": _summarize_factory,
    "sliding_window": _sliding_window_factory,
    "none": _none_factory,
}
"""Strategy factories by id. Mutable on purpose: register your own before building agents."""


def _import_dotted(path: str) -> Any:
    module_name, _, attr = path.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(
            f"compaction_cfg.strategy={path!r}: cannot import module {module_name!r} ({exc})"
        ) from exc
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ValueError(
            f"compaction_cfg.strategy={path!r}: module {module_name!r} has no attribute {attr!r}"
        ) from None


def create_compaction(
    cfg: CompactionConfig,
    model_cfg: ModelConfig,
    http_client: httpx.AsyncClient | None = None,
    *,
    model: Model | None = None,
) -> CompactionStrategy:
    """Build the strategy ``cfg.strategy`` names: a registry id, else a dotted class path.

    A dotted path may name a class (built with ``from_config(cfg, model_cfg, http_client)``
    when it defines that classmethod, otherwise with no arguments) or a factory function with
    the registry's signature. The resolved object must have an async ``compact`` method.

    ``model`` is the agent's already built model: the built-in ``summarize`` strategy reuses
    it when ``summary_model_cfg`` is unset (one model per agent, not two). Other factories
    keep their three-argument signature and never see it.
    """
    name = cfg.strategy
    factory = COMPACTION_STRATEGIES.get(name)
    strategy: CompactionStrategy
    if factory is _summarize_factory:
        strategy = SummarizingCompaction(cfg, model_cfg, http_client, model=model)
    elif factory is not None:
        strategy = factory(cfg, model_cfg, http_client)
    elif "." in name:
        target = _import_dotted(name)
        if isinstance(target, type) and not callable(getattr(target, "compact", None)):
            raise ValueError(
                f"compaction_cfg.strategy={name!r} names {target.__name__}, "
                "which has no async compact(messages) method"
            )
        if not callable(target):
            raise ValueError(f"compaction_cfg.strategy={name!r} is neither a class nor a factory")
        try:
            if isinstance(target, type):
                from_config = getattr(target, "from_config", None)
                strategy = from_config(cfg, model_cfg, http_client) if from_config else target()
            else:
                strategy = target(cfg, model_cfg, http_client)
        except TypeError as exc:
            raise ValueError(f"compaction_cfg.strategy={name!r} could not be built: {exc}") from exc
    else:
        known = ", ".join(sorted(COMPACTION_STRATEGIES))
        raise ValueError(
            f"compaction_cfg.strategy={name!r} is not a registered strategy ({known}) "
            "nor a dotted class path"
        )
    if not isinstance(strategy, CompactionStrategy):
        raise ValueError(
            f"compaction_cfg.strategy={name!r} built {type(strategy).__name__}, "
            "which has no async compact(messages) method"
        )
    return strategy
