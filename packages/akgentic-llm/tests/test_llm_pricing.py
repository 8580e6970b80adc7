"""aggregate_usage: per-model and per-run totals, priced with genai-prices' bundled data."""

from __future__ import annotations

import pytest
from genai_prices import Usage, calc_price

from akgentic.llm import (
    AgentUsageSummary,
    LlmMessageEvent,
    LlmUsageEvent,
    aggregate_usage,
)
from akgentic.llm.pricing import _compute_cost


def usage(run_id: str, model: str, provider: str | None, inp: int, out: int) -> LlmUsageEvent:
    return LlmUsageEvent(
        run_id=run_id,
        model_name=model,
        provider_name=provider,
        input_tokens=inp,
        output_tokens=out,
    )


EVENTS = [
    usage("r1", "gpt-4o", "openai", 1000, 200),
    usage("r1", "gpt-4o", "openai", 3000, 100),
    usage("r2", "claude-3-5-sonnet-20241022", "anthropic", 2000, 500),
    usage("r2", "in-house-model-x", None, 700, 70),
]


def expected_price(model: str, provider: str | None, inp: int, out: int) -> float:
    price = calc_price(
        Usage(input_tokens=inp, output_tokens=out), model_ref=model, provider_id=provider
    )
    return float(price.total_price)


def test_totals_and_per_model_breakdown() -> None:
    summary = aggregate_usage(EVENTS)
    assert isinstance(summary, AgentUsageSummary)
    assert summary.runs == []
    assert summary.total_input_tokens == 6700
    assert summary.total_output_tokens == 870
    assert summary.total_tokens == 7570
    assert summary.total_requests == 4
    gpt = summary.by_model["gpt-4o"]
    assert (gpt.requests, gpt.input_tokens, gpt.output_tokens) == (2, 4000, 300)
    assert gpt.estimated_cost_usd == pytest.approx(expected_price("gpt-4o", "openai", 4000, 300))
    assert gpt.estimated_cost_usd > 0
    claude = summary.by_model["claude-3-5-sonnet-20241022"]
    assert claude.estimated_cost_usd == pytest.approx(
        expected_price("claude-3-5-sonnet-20241022", "anthropic", 2000, 500)
    )
    unknown = summary.by_model["in-house-model-x"]
    assert unknown.estimated_cost_usd == 0.0  # unpriced, but counted
    assert unknown.input_tokens == 700
    assert summary.total_cost_usd == pytest.approx(
        gpt.estimated_cost_usd + claude.estimated_cost_usd
    )


def test_per_run_breakdown_in_order_of_appearance() -> None:
    summary = aggregate_usage(EVENTS, by_run=True)
    assert summary.runs
    assert [run.run_id for run in summary.runs] == ["r1", "r2"]
    first, second = summary.runs
    assert list(first.by_model) == ["gpt-4o"]
    assert first.total_input_tokens == 4000
    assert set(second.by_model) == {"claude-3-5-sonnet-20241022", "in-house-model-x"}
    assert sum(r.total_cost_usd for r in summary.runs) == pytest.approx(summary.total_cost_usd)


def test_other_events_are_ignored_and_empty_input_is_zero() -> None:
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    noise = LlmMessageEvent(message=ModelRequest(parts=[UserPromptPart(content="x")]))
    summary = aggregate_usage([noise, *EVENTS[:1]])
    assert summary.total_requests == 1
    empty = aggregate_usage([])
    assert (empty.total_tokens, empty.total_cost_usd, empty.by_model) == (0, 0.0, {})


def test_cache_tokens_are_priced() -> None:
    plain = _compute_cost("gpt-4o", "openai", input_tokens=10_000, output_tokens=0)
    cached = _compute_cost(
        "gpt-4o", "openai", input_tokens=10_000, output_tokens=0, cache_read_tokens=8_000
    )
    assert 0 < cached < plain  # cached reads are cheaper than fresh input
    assert plain == pytest.approx(expected_price("gpt-4o", "openai", 10_000, 0))  # no cache


def test_cache_reads_and_writes_of_the_events_are_priced() -> None:
    # Anthropic bills a cache write above fresh input and a cache read far below it; the
    # events' counts reach the price (and the model's totals) as they were recorded.
    claude = "claude-3-5-sonnet-20241022"
    events = [
        LlmUsageEvent("r", claude, "anthropic", 10_000, 1_000, cache_write_tokens=8_000),
        LlmUsageEvent("r", claude, "anthropic", 10_000, 1_000, cache_read_tokens=6_000),
    ]
    usage = aggregate_usage(events).by_model[claude]
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (6_000, 8_000)
    expected = calc_price(
        Usage(
            input_tokens=20_000,
            output_tokens=2_000,
            cache_read_tokens=6_000,
            cache_write_tokens=8_000,
        ),
        model_ref=claude,
        provider_id="anthropic",
    )
    assert usage.estimated_cost_usd == pytest.approx(float(expected.total_price))
    writes_only = aggregate_usage(events[:1]).by_model[claude].estimated_cost_usd
    assert writes_only > expected_price(claude, "anthropic", 10_000, 1_000)


def test_the_provider_of_the_events_selects_the_price() -> None:
    # genai-prices knows this model name only under groq: without the provider the model
    # would be unpriced.
    summary = aggregate_usage([usage("r", "llama-3.3-70b-versatile", "groq", 1_000_000, 0)])
    entry = summary.by_model["llama-3.3-70b-versatile"]
    assert entry.provider_name == "groq"
    assert entry.estimated_cost_usd == pytest.approx(
        expected_price("llama-3.3-70b-versatile", "groq", 1_000_000, 0)
    )
    assert entry.estimated_cost_usd > 0


def test_spec_aggregation_example(capsys: pytest.CaptureFixture[str]) -> None:
    class Collector:
        def __init__(self) -> None:
            self.collected_events: list[LlmUsageEvent] = []

        def notify_event(self, event: object) -> None:
            if isinstance(event, LlmUsageEvent):
                self.collected_events.append(event)

    my_observer = Collector()
    for event in EVENTS:
        my_observer.notify_event(event)

    events: list[LlmUsageEvent] = my_observer.collected_events
    summary = aggregate_usage(events)
    print(f"Total cost: ${summary.total_cost_usd:.4f}")
    print(f"Input tokens: {summary.total_input_tokens}")
    for model_name, model_usage in summary.by_model.items():
        print(f"  {model_name}: ${model_usage.estimated_cost_usd:.4f}")
    summary = aggregate_usage(events, by_run=True)
    for run in summary.runs or []:
        print(f"Run {run.run_id}: ${run.total_cost_usd:.4f}")

    out = capsys.readouterr().out
    assert "Input tokens: 6700" in out
    assert "in-house-model-x: $0.0000" in out
    assert "Run r1:" in out
    assert "Run r2:" in out
