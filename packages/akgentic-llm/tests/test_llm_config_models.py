"""Configuration models: defaults, validation, fallback chain rules and the deprecated shim."""

from __future__ import annotations

import inspect
import json
import warnings

import pytest
from pydantic import ValidationError

from akgentic.llm import (
    AgentUsageLimits,
    CompactionConfig,
    HttpClientConfig,
    ModelConfig,
    ReactAgentConfig,
    RuntimeConfig,
    RunUsageLimits,
    UsageLimits,
)
from akgentic.llm.config import TokenUsageLimits


def test_defaults_match_the_documented_values() -> None:
    model = ModelConfig()
    assert (model.provider, model.model) == ("openai", "gpt-5.2")
    assert model.temperature is None
    assert model.seed is None
    assert model.max_tokens is None
    assert model.context_length is None
    assert model.reasoning_effort is None
    assert model.fallback_models == []

    run = RunUsageLimits()
    assert run.run_request_limit == 50
    assert run.tool_calls_limit is None
    assert (run.input_tokens_limit, run.output_tokens_limit, run.total_tokens_limit) == (
        None,
        None,
        None,
    )
    assert isinstance(run, TokenUsageLimits)
    agent = AgentUsageLimits()
    assert agent.agent_request_limit is None
    assert agent.total_tokens_limit is None

    http = HttpClientConfig()
    assert (http.timeout, http.max_retries, http.backoff_multiplier, http.backoff_max) == (
        120.0,
        5,
        0.5,
        60.0,
    )
    runtime = RuntimeConfig()
    assert runtime.retries == 3
    assert runtime.end_strategy == "exhaustive"
    assert runtime.parallel_tool_calls is True
    assert runtime.http_client_config == HttpClientConfig()

    compaction = CompactionConfig()
    assert compaction.strategy == "summarize"
    assert compaction.auto_trigger is True
    assert compaction.trigger_ratio == 0.85
    assert compaction.keep_recent_messages == 4
    assert compaction.summary_target_tokens == 2000
    assert compaction.summarizer_prompt_version == "v1"
    assert compaction.summary_model_cfg is None


def test_spec_configuration_examples_construct() -> None:
    ModelConfig(provider="openai", model="gpt-4o", temperature=0.7)
    ModelConfig(
        provider="anthropic",
        model="claude-3-5-sonnet-20241022",
        temperature=0.0,
        seed=42,
        max_tokens=2000,
    )
    ModelConfig(provider="openai", model="o1", reasoning_effort="high")
    RunUsageLimits(run_request_limit=10, total_tokens_limit=5_000)
    assert RunUsageLimits(run_request_limit=None).run_request_limit is None
    AgentUsageLimits(agent_request_limit=100, total_tokens_limit=1_000_000)
    config = ReactAgentConfig(
        model_cfg=ModelConfig(
            provider="anthropic", model="claude-3-5-sonnet-20241022", temperature=0.7
        ),
        run_usage_limits=RunUsageLimits(run_request_limit=10, total_tokens_limit=50_000),
        agent_usage_limits=AgentUsageLimits(agent_request_limit=100),
        runtime_cfg=RuntimeConfig(
            end_strategy="exhaustive",
            http_client_config=HttpClientConfig(timeout=180.0, max_retries=3),
        ),
    )
    assert config.runtime_cfg.http_client_config.timeout == 180.0
    assert config.agent_usage_limits.agent_request_limit == 100
    ModelConfig(provider="nvidia", model="openai/gpt-oss-120b")
    ModelConfig(provider="nvidia", model="meta/llama-3.1-8b-instruct")
    ModelConfig(
        provider="openai",
        model="gpt-5.2",
        fallback_models=[
            ModelConfig(provider="anthropic", model="claude-sonnet-4-5"),
            ModelConfig(provider="azure", model="gpt-4o-mini"),
        ],
    )


@pytest.mark.parametrize(
    ("factory", "field"),
    [
        (lambda: ModelConfig(temperature=2.5), "temperature"),
        (lambda: ModelConfig(provider="bedrock"), "provider"),  # type: ignore[arg-type]
        (lambda: ModelConfig(max_tokens=0), "max_tokens"),
        (lambda: RunUsageLimits(tool_calls_limit=0), "tool_calls_limit"),
        (lambda: RunUsageLimits(request_limit=3), "request_limit"),  # type: ignore[call-arg]
        (lambda: HttpClientConfig(max_retries=-1), "max_retries"),
        (lambda: RuntimeConfig(end_strategy="graceful"), "end_strategy"),  # type: ignore[arg-type]
        (lambda: CompactionConfig(trigger_ratio=1.5), "trigger_ratio"),
    ],
)
def test_bad_values_are_rejected_naming_the_field(factory: object, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        factory()  # type: ignore[operator]
    assert field in str(info.value)


def test_fallback_chain_must_be_flat() -> None:
    nested = ModelConfig(
        provider="anthropic",
        model="claude-sonnet-4-5",
        fallback_models=[ModelConfig(provider="openai", model="gpt-4o")],
    )
    with pytest.raises(ValidationError, match=r"fallback_models\[0\].*flat"):
        ModelConfig(provider="openai", model="gpt-4o", fallback_models=[nested])


def test_fallback_entries_must_agree_on_native_output() -> None:
    with pytest.raises(ValidationError, match=r"fallback_models\[1\] \(mistral:mistral-large"):
        ModelConfig(
            provider="openai",
            fallback_models=[
                ModelConfig(provider="azure", model="gpt-4o"),
                ModelConfig(provider="mistral", model="mistral-large-latest"),
            ],
        )
    with pytest.raises(ValidationError, match="supports native structured output"):
        ModelConfig(
            provider="google-gla",
            model="gemini-2.0-flash",
            fallback_models=[ModelConfig(provider="nvidia", model="openai/gpt-oss-120b")],
        )
    # Agreeing entries (both prompt-based) are fine.
    ModelConfig(
        provider="mistral",
        model="mistral-large-latest",
        fallback_models=[ModelConfig(provider="nvidia", model="meta/llama-3.1-8b-instruct")],
    )


def test_run_token_limit_below_compaction_threshold_is_rejected() -> None:
    with pytest.raises(ValidationError, match=r"run_usage_limits.total_tokens_limit=1000"):
        ReactAgentConfig(
            model_cfg=ModelConfig(context_length=100_000),
            run_usage_limits=RunUsageLimits(total_tokens_limit=1000),
        )
    # The agent tier never blocks construction, and nor does a disabled trigger.
    ReactAgentConfig(
        model_cfg=ModelConfig(context_length=100_000),
        agent_usage_limits=AgentUsageLimits(total_tokens_limit=1000),
    )
    ReactAgentConfig(
        model_cfg=ModelConfig(context_length=100_000),
        run_usage_limits=RunUsageLimits(total_tokens_limit=1000),
        compaction_cfg=CompactionConfig(auto_trigger=False),
    )


def test_run_usage_limits_translate_to_pydantic_ai() -> None:
    limits = RunUsageLimits(
        run_request_limit=7,
        tool_calls_limit=3,
        input_tokens_limit=100,
        output_tokens_limit=50,
        total_tokens_limit=120,
    ).to_pydantic_ai()
    assert limits.request_limit == 7
    assert limits.tool_calls_limit == 3
    assert (limits.input_tokens_limit, limits.output_tokens_limit) == (100, 50)
    assert limits.total_tokens_limit == 120


def test_config_round_trips_through_json() -> None:
    config = ReactAgentConfig(
        model_cfg=ModelConfig(
            provider="anthropic",
            model="claude-sonnet-4-5",
            fallback_models=[ModelConfig(provider="openai", model="gpt-4o")],
        ),
        run_usage_limits=RunUsageLimits(run_request_limit=4),
    )
    again = ReactAgentConfig.model_validate_json(config.model_dump_json())
    assert again == config


# ------------------------------------------------------------- deprecation shim


def test_usage_limits_maps_request_limit_and_warns() -> None:
    with pytest.warns(DeprecationWarning, match="UsageLimits"):
        limits = UsageLimits(request_limit=10)
    assert isinstance(limits, RunUsageLimits)
    assert limits.run_request_limit == 10
    with pytest.warns(DeprecationWarning, match="request_limit"):
        assert limits.request_limit == 10
    assert limits.model_dump()["run_request_limit"] == 10
    assert "request_limit" not in limits.model_dump()


def test_deprecation_warnings_point_at_the_callers_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DeprecationWarning)
        line = inspect.currentframe().f_lineno  # type: ignore[union-attr]
        UsageLimits(request_limit=1)
        ReactAgentConfig(usage_limits=RunUsageLimits())  # type: ignore[call-arg]
    found = [(w.filename, w.lineno) for w in caught if w.category is DeprecationWarning]
    assert found == [(__file__, line + 1), (__file__, line + 2)]


def test_usage_limits_rejects_both_names() -> None:
    with (
        pytest.warns(DeprecationWarning, match="UsageLimits"),
        pytest.raises(ValidationError, match="not both"),
    ):
        UsageLimits(request_limit=1, run_request_limit=2)


def test_react_agent_config_usage_limits_keyword_is_shimmed() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = UsageLimits(request_limit=10)
    with pytest.warns(DeprecationWarning, match="run_usage_limits"):
        config = ReactAgentConfig(usage_limits=old)  # type: ignore[call-arg]
    assert config.run_usage_limits.run_request_limit == 10
    with pytest.warns(DeprecationWarning, match="run_usage_limits"):
        assert config.usage_limits is config.run_usage_limits
    dumped = json.loads(config.model_dump_json())
    assert "usage_limits" not in dumped
    assert dumped["run_usage_limits"]["run_request_limit"] == 10


def test_react_agent_config_rejects_both_names_and_assignment() -> None:
    with (
        pytest.warns(DeprecationWarning, match="usage_limits"),
        pytest.raises(ValidationError, match="not both"),
    ):
        ReactAgentConfig(  # type: ignore[call-arg]
            usage_limits=RunUsageLimits(), run_usage_limits=RunUsageLimits()
        )
    config = ReactAgentConfig()
    with pytest.raises(AttributeError):
        config.usage_limits = RunUsageLimits()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        config.run_usage_limits.request_limit = 3  # type: ignore[misc]


def test_new_names_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        config = ReactAgentConfig(run_usage_limits=RunUsageLimits(run_request_limit=3))
        assert config.run_usage_limits.run_request_limit == 3


def test_the_usage_limits_keyword_warning_reads_in_full() -> None:
    with pytest.warns(DeprecationWarning, match="usage_limits") as caught:
        ReactAgentConfig(usage_limits=RunUsageLimits())  # type: ignore[call-arg]
    assert [str(w.message) for w in caught] == [
        "`ReactAgentConfig(usage_limits=...)` is deprecated; use `run_usage_limits=` instead"
    ]
