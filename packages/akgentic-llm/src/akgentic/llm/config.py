"""Configuration models for the LLM layer.

Everything a ``ReactAgent`` needs to know is described here as pydantic models: which model
to call (``ModelConfig``), how much a single run and the agent's whole life may spend
(``RunUsageLimits`` / ``AgentUsageLimits``), how HTTP and the pydantic-ai loop behave
(``HttpClientConfig`` / ``RuntimeConfig``), and how history is compacted
(``CompactionConfig``). ``ReactAgentConfig`` composes them.

Every model forbids unknown keys: a misspelt field (``request_limt=...``) is a validation error
that names the field instead of a setting that silently does nothing.

The pre-split ``UsageLimits`` name and the ``ReactAgentConfig(usage_limits=...)`` keyword are
kept as a deprecated shim: they warn on every use, map onto the new fields, refuse to be mixed
with the new names, and are read-only views (serialization only knows the new keys).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:
    from pydantic_ai.usage import UsageLimits as _PydanticUsageLimits

__all__ = [
    "AgentUsageLimits",
    "CompactionConfig",
    "HttpClientConfig",
    "ModelConfig",
    "ProviderName",
    "ReactAgentConfig",
    "RunUsageLimits",
    "RuntimeConfig",
    "TokenUsageLimits",
    "UsageLimits",
]

ProviderName = Literal["openai", "azure", "anthropic", "nvidia", "google-gla", "mistral"]
"""The providers ``create_model()`` knows how to build."""

_STRICT = ConfigDict(extra="forbid")


def _supports_native_output(model_cfg: ModelConfig) -> bool:
    """Whether the provider/model pair accepts a JSON-schema constrained response.

    NVIDIA NIM serves OpenAI's open-weight models (``openai/...``) behind an API that honours
    ``response_format``; every other NIM model, Gemini through the GLA endpoint and Mistral do
    not reliably, so those fall back to prompt-based extraction.
    """
    provider = model_cfg.provider
    if provider in ("openai", "azure", "anthropic"):
        return True
    if provider == "nvidia":
        return model_cfg.model.startswith("openai/")
    return False


def _warn_deprecated(message: str) -> None:
    """A ``DeprecationWarning`` pointing at the line that called the deprecated constructor.

    Called from ``__init__`` (not from a validator, which pydantic calls from deeper down), so
    that line is two frames up.
    """
    warnings.warn(message, DeprecationWarning, stacklevel=3)


def _renamed_keyword(data: Any, old: str, new: str) -> Any:
    """``data`` (a constructor's raw input) with the deprecated keyword ``old`` moved to its
    new name ``new``; giving both is refused rather than silently preferring one."""
    if isinstance(data, dict) and old in data:
        if new in data:
            raise ValueError(f"pass either `{old}` (deprecated) or `{new}`, not both")
        data = dict(data)
        data[new] = data.pop(old)
    return data


class ModelConfig(BaseModel):
    """Which model to call and with which sampling settings."""

    model_config = _STRICT

    provider: ProviderName = "openai"
    model: str = Field(default="gpt-5.2", min_length=1)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    seed: int | None = None
    max_tokens: int | None = Field(default=None, gt=0)
    context_length: int | None = Field(default=None, gt=0)
    reasoning_effort: Literal["low", "medium", "high"] | None = None
    fallback_models: list[ModelConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check_fallback_chain(self) -> Self:
        # The output wrapper (NativeOutput or prompt-based) is picked once, from the primary,
        # before any request is sent; a fallback that disagrees would receive a request shape
        # it cannot honour. A nested chain would make "declaration order" ambiguous.
        primary_native = _supports_native_output(self)
        for index, entry in enumerate(self.fallback_models):
            where = f"fallback_models[{index}]"
            if entry.fallback_models:
                raise ValueError(
                    f"{where} ({entry.provider}:{entry.model}) declares its own fallback_models; "
                    "the fallback chain must be flat"
                )
            if _supports_native_output(entry) != primary_native:
                raise ValueError(
                    f"{where} ({entry.provider}:{entry.model}) "
                    f"{'does not support' if primary_native else 'supports'} native structured "
                    f"output while the primary ({self.provider}:{self.model}) "
                    f"{'does' if primary_native else 'does not'}; every fallback must agree "
                    "with the primary"
                )
        return self


class TokenUsageLimits(BaseModel):
    """Token ceilings shared by both usage tiers (internal base class)."""

    model_config = _STRICT

    input_tokens_limit: int | None = Field(default=None, gt=0)
    output_tokens_limit: int | None = Field(default=None, gt=0)
    total_tokens_limit: int | None = Field(default=None, gt=0)


class RunUsageLimits(TokenUsageLimits):
    """Budget of ONE ``run()`` call, reset on the next one; enforced by pydantic-ai."""

    run_request_limit: int | None = Field(default=50, gt=0)
    tool_calls_limit: int | None = Field(default=None, gt=0)

    @property
    def request_limit(self) -> int | None:
        """Deprecated read-only alias of ``run_request_limit``."""
        warnings.warn(
            "`request_limit` is deprecated; read `run_request_limit` instead",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.run_request_limit

    def to_pydantic_ai(self) -> _PydanticUsageLimits:
        """The equivalent ``pydantic_ai.usage.UsageLimits`` handed to ``Agent.run``."""
        from pydantic_ai.usage import UsageLimits as PydanticUsageLimits

        return PydanticUsageLimits(
            request_limit=self.run_request_limit,
            tool_calls_limit=self.tool_calls_limit,
            input_tokens_limit=self.input_tokens_limit,
            output_tokens_limit=self.output_tokens_limit,
            total_tokens_limit=self.total_tokens_limit,
        )


class UsageLimits(RunUsageLimits):
    """Deprecated pre-split name of ``RunUsageLimits``.

    Accepts the old ``request_limit`` keyword (mapped to ``run_request_limit``) and warns on
    every construction. It is a ``RunUsageLimits``, so it can be passed wherever one is expected.
    """

    def __init__(self, **data: Any) -> None:
        _warn_deprecated(
            "`UsageLimits` is deprecated; use `RunUsageLimits` (with `run_request_limit`)"
        )
        super().__init__(**data)

    @model_validator(mode="before")
    @classmethod
    def _map_old_keyword(cls, data: Any) -> Any:
        return _renamed_keyword(data, "request_limit", "run_request_limit")


class AgentUsageLimits(TokenUsageLimits):
    """Budget over the agent's whole lifetime, checked before every run.

    ``agent_request_limit`` caps the runs admitted (each ``run()`` call and each tool-free
    conclusion), not the model requests they make. The token limits sum every run's spend and
    are also checked before each model request, so concurrent runs cannot outspend them.
    """

    agent_request_limit: int | None = Field(default=None, gt=0)


class HttpClientConfig(BaseModel):
    """Timeout and retry policy of the HTTP client shared by the agent's models."""

    model_config = _STRICT

    timeout: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=5, ge=0)
    backoff_multiplier: float = Field(default=0.5, gt=0)
    backoff_max: float = Field(default=60.0, gt=0)
    # ``timeout`` bounds each operation (connect, one read, ...); this bounds one attempt as a
    # whole, from sending to the last byte, so a trickling server cannot hold it open. ``None``
    # switches it off. Retries and their waits come on top, bounded by ``max_retries``.
    attempt_deadline: float | None = Field(default=600.0, gt=0)


class RuntimeConfig(BaseModel):
    """How the pydantic-ai loop itself behaves."""

    model_config = _STRICT

    retries: int = Field(default=3, ge=0)
    end_strategy: Literal["early", "exhaustive"] = "exhaustive"
    # Validated and kept for compatibility; nothing in ReactAgent forwards it to a model.
    parallel_tool_calls: bool = True
    http_client_config: HttpClientConfig = Field(default_factory=HttpClientConfig)
    # Agents with equal ``http_client_config`` use one process-wide client (pool per event
    # loop, SSL context, retry transport); ``False`` gives this agent a client of its own.
    share_http_client: bool = True


class CompactionConfig(BaseModel):
    """When and how the conversation history is folded."""

    model_config = _STRICT

    strategy: str = Field(default="summarize", min_length=1)
    auto_trigger: bool = True
    trigger_ratio: float = Field(default=0.85, gt=0.0, le=1.0)
    keep_recent_messages: int = Field(default=4, ge=0)
    summary_target_tokens: int = Field(default=2000, gt=0)
    summarizer_prompt_version: str = Field(default="v1", min_length=1)
    summary_model_cfg: ModelConfig | None = None
    # The summarizer's request is bounded: the newest part of the transcript that fits is
    # sent, with a note saying how much older history was left out (about 100k tokens).
    summarizer_max_input_chars: int = Field(default=400_000, gt=0)


class ReactAgentConfig(BaseModel):
    """Everything a ``ReactAgent`` is built from."""

    model_config = _STRICT

    model_cfg: ModelConfig = Field(default_factory=ModelConfig)
    run_usage_limits: RunUsageLimits = Field(default_factory=RunUsageLimits)
    agent_usage_limits: AgentUsageLimits = Field(default_factory=AgentUsageLimits)
    runtime_cfg: RuntimeConfig = Field(default_factory=RuntimeConfig)
    compaction_cfg: CompactionConfig = Field(default_factory=CompactionConfig)
    max_messages: int | None = Field(default=None, gt=0)
    """Sliding window of the agent's ``ContextManager``: at most this many messages are
    handed to each run (system-prompt messages are never dropped); ``None`` keeps all."""

    def __init__(self, **data: Any) -> None:
        if "usage_limits" in data:
            _warn_deprecated(
                "`ReactAgentConfig(usage_limits=...)` is deprecated; "
                "use `run_usage_limits=` instead"
            )
        super().__init__(**data)

    @model_validator(mode="before")
    @classmethod
    def _map_deprecated_usage_limits(cls, data: Any) -> Any:
        return _renamed_keyword(data, "usage_limits", "run_usage_limits")

    @model_validator(mode="after")
    def _check_compaction_reachable(self) -> Self:
        # A run-tier token ceiling below the compaction threshold would end every long run in a
        # usage-limit breach before the fold could ever fire. Only the run tier is checked: the
        # agent tier bounds a lifetime, not a single history, so it never blocks construction.
        threshold = self.compaction_threshold()
        if threshold is None:
            return self
        limits = self.run_usage_limits
        for name in ("input_tokens_limit", "total_tokens_limit"):
            value = getattr(limits, name)
            if value is not None and value < threshold:
                raise ValueError(
                    f"run_usage_limits.{name}={value} is below the compaction threshold "
                    f"{threshold} (compaction_cfg.trigger_ratio="
                    f"{self.compaction_cfg.trigger_ratio} x model_cfg.context_length="
                    f"{self.model_cfg.context_length}); raise the limit, lower trigger_ratio or "
                    "disable compaction_cfg.auto_trigger"
                )
        return self

    def compaction_threshold(self) -> int | None:
        """Input-token count at which auto-compaction fires, or ``None`` when it cannot fire."""
        cfg = self.compaction_cfg
        context_length = self.model_cfg.context_length
        if context_length is None or not cfg.auto_trigger or cfg.strategy == "none":
            return None
        return int(cfg.trigger_ratio * context_length)

    @property
    def usage_limits(self) -> RunUsageLimits:
        """Deprecated read-only alias of ``run_usage_limits``."""
        warnings.warn(
            "`ReactAgentConfig.usage_limits` is deprecated; read `run_usage_limits` instead",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.run_usage_limits
