"""The public surface of akgentic.llm is pinned: a name cannot vanish unnoticed."""

from __future__ import annotations

import akgentic.llm
import akgentic.llm.capabilities

EXPECTED = {
    "AgentUsageLimitError",
    "AgentUsageLimits",
    "AgentUsageSummary",
    "ApprovalMismatchError",
    "COMPACTION_STRATEGIES",
    "CompactionCapability",
    "CompactionConfig",
    "CompactionResult",
    "CompactionStrategy",
    "ConclusionDecision",
    "ContextManager",
    "ContextObserver",
    "EventMessage",
    "EventSourcingCapability",
    "HealingCapability",
    "HttpClientConfig",
    "LifetimeBudgetCapability",
    "LimitRecoveryCapability",
    "LlmContextClearedEvent",
    "LlmContextCompactedEvent",
    "LlmMessageEvent",
    "LlmSystemPromptEvent",
    "LlmUsageEvent",
    "ModelConfig",
    "ModelUsage",
    "PendingToolCall",
    "PromptTemplate",
    "ReactAgent",
    "ReactAgentConfig",
    "RunUsageLimitError",
    "RunUsageLimits",
    "RunUsageSummary",
    "RuntimeConfig",
    "SUMMARY_INSTRUCTIONS",
    "SystemPromptPartSnapshot",
    "ToolCallDecision",
    "ToolCallEvent",
    "ToolReturnEvent",
    "UsageLimitError",
    "UsageLimits",
    "UserPrompt",
    "aggregate_usage",
    "args_digest",
    "create_compaction",
    "create_http_client",
    "create_model",
    "create_model_settings",
    "current_datetime_prompt",
    "get_output_type",
    "json_output_reminder_prompt",
}


def test_all_is_pinned_and_resolvable() -> None:
    assert set(akgentic.llm.__all__) == EXPECTED
    assert len(akgentic.llm.__all__) == len(EXPECTED)
    for name in akgentic.llm.__all__:
        assert getattr(akgentic.llm, name) is not None, name


def test_default_conclusion_reason_is_not_exported_at_the_root() -> None:
    assert "DEFAULT_CONCLUSION_REASON" not in akgentic.llm.__all__
    assert isinstance(akgentic.llm.capabilities.DEFAULT_CONCLUSION_REASON, str)


def test_errors_keep_their_old_home_in_agent() -> None:
    from akgentic.llm import agent, capabilities

    for name in (
        "UsageLimitError",
        "RunUsageLimitError",
        "AgentUsageLimitError",
        "RUN_LIMIT_HEALING_MESSAGE",
    ):
        assert getattr(agent, name) is getattr(capabilities, name)
