"""Aggregating ``LlmUsageEvent``s into token and cost summaries.

Prices come from the data bundled with the installed ``genai-prices`` release (no network).
A model that data does not know costs 0.0, and its tokens are still counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field, model_validator

from akgentic.llm.event import LlmUsageEvent

__all__ = ["AgentUsageSummary", "ModelUsage", "RunUsageSummary", "aggregate_usage"]


class ModelUsage(BaseModel):
    """Tokens and estimated cost of one model."""

    model_name: str
    provider_name: str | None = None
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    estimated_cost_usd: float = 0.0

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


class _Totals(BaseModel):
    by_model: dict[str, ModelUsage] = Field(default_factory=dict)
    total_requests: int = 0
    total_input_tokens: int = 0
    total_output_tokens: int = 0
    total_cost_usd: float = 0.0
    total_cache_read_tokens: int = 0
    total_cache_write_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens over every model."""
        return self.total_input_tokens + self.total_output_tokens


class RunUsageSummary(_Totals):
    """Usage of one run, per model and in total.

    ``models`` lists the same ``ModelUsage`` entries as ``by_model``, in order: the
    predecessor's shape of the breakdown. A stored summary that carries only ``models`` gets
    its ``by_model`` rebuilt from it, and the other way round.
    """

    run_id: str | None
    models: list[ModelUsage] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _one_breakdown_from_the_other(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        has_models = bool(data.get("models"))
        has_by_model = bool(data.get("by_model"))
        if has_models and not has_by_model:
            data = dict(data)
            data["by_model"] = {
                (m["model_name"] if isinstance(m, dict) else m.model_name): m
                for m in data["models"]
            }
        elif has_by_model and not has_models:
            data = dict(data)
            data["models"] = list(data["by_model"].values())
        return data


class AgentUsageSummary(_Totals):
    """Usage of an agent (or any set of events): per model, per run on request, and in total."""

    runs: list[RunUsageSummary] = Field(default_factory=list)
    """One entry per run with ``aggregate_usage(..., by_run=True)``; empty otherwise."""


def _compute_cost(
    model_name: str,
    provider_name: str | None,
    *,
    input_tokens: int,
    output_tokens: int,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
) -> float:
    """USD price of the given token counts; 0.0 when genai-prices does not know the model."""
    from genai_prices import Usage, calc_price

    usage = Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cache_read_tokens or None,
        cache_write_tokens=cache_write_tokens or None,
    )
    try:
        price = calc_price(usage, model_ref=model_name, provider_id=provider_name or None)
    except LookupError:
        return 0.0
    return float(price.total_price)


def _by_model(events: Iterable[LlmUsageEvent]) -> dict[str, ModelUsage]:
    models: dict[str, ModelUsage] = {}
    for event in events:
        usage = models.get(event.model_name)
        if usage is None:
            usage = models[event.model_name] = ModelUsage(
                model_name=event.model_name, provider_name=event.provider_name
            )
        usage.requests += event.requests
        usage.input_tokens += event.input_tokens
        usage.output_tokens += event.output_tokens
        usage.cache_read_tokens += event.cache_read_tokens
        usage.cache_write_tokens += event.cache_write_tokens
    for usage in models.values():
        # Priced on the aggregate, once per model: tiered prices apply to the total.
        usage.estimated_cost_usd = _compute_cost(
            usage.model_name,
            usage.provider_name,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
        )
    return models


def _fill_totals(target: _Totals, by_model: dict[str, ModelUsage]) -> None:
    target.by_model = by_model
    target.total_requests = sum(u.requests for u in by_model.values())
    target.total_input_tokens = sum(u.input_tokens for u in by_model.values())
    target.total_output_tokens = sum(u.output_tokens for u in by_model.values())
    target.total_cost_usd = sum(u.estimated_cost_usd for u in by_model.values())
    target.total_cache_read_tokens = sum(u.cache_read_tokens for u in by_model.values())
    target.total_cache_write_tokens = sum(u.cache_write_tokens for u in by_model.values())
    if isinstance(target, RunUsageSummary):
        target.models = list(by_model.values())


def aggregate_usage(events: Iterable[object], by_run: bool = False) -> AgentUsageSummary:
    """Sum ``LlmUsageEvent``s (other objects are ignored) into an ``AgentUsageSummary``.

    With ``by_run=True`` the summary also lists one ``RunUsageSummary`` per ``run_id``, in the
    order runs first appear; otherwise ``runs`` is empty.
    """
    usage_events = [event for event in events if isinstance(event, LlmUsageEvent)]
    summary = AgentUsageSummary()
    _fill_totals(summary, _by_model(usage_events))
    if by_run:
        grouped: dict[str | None, list[LlmUsageEvent]] = {}
        for event in usage_events:
            grouped.setdefault(event.run_id, []).append(event)
        runs = []
        for run_id, run_events in grouped.items():
            run = RunUsageSummary(run_id=run_id)
            _fill_totals(run, _by_model(run_events))
            runs.append(run)
        summary.runs = runs
    return summary
