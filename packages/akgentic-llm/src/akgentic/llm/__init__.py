"""akgentic-llm: the LLM execution layer of akgentic agents.

``ReactAgent`` runs a pydantic-ai agent on top of a persistent ``ContextManager``; providers,
the retrying HTTP client, usage limits, events, cost aggregation and prompt helpers live in
the modules re-exported here. Provider SDKs are imported only when a model of that provider
is built.
"""

from akgentic.llm.agent import ReactAgent, UserPrompt
from akgentic.llm.approvals import (
    ApprovalMismatchError,
    PendingToolCall,
    ToolCallDecision,
    args_digest,
)
from akgentic.llm.capabilities import (
    AgentUsageLimitError,
    CompactionCapability,
    ConclusionDecision,
    EventSourcingCapability,
    HealingCapability,
    LifetimeBudgetCapability,
    LimitRecoveryCapability,
    RunUsageLimitError,
    UsageLimitError,
)
from akgentic.llm.compaction import (
    COMPACTION_STRATEGIES,
    SUMMARY_INSTRUCTIONS,
    CompactionResult,
    CompactionStrategy,
    create_compaction,
)
from akgentic.llm.config import (
    AgentUsageLimits,
    CompactionConfig,
    HttpClientConfig,
    ModelConfig,
    ReactAgentConfig,
    RuntimeConfig,
    RunUsageLimits,
    UsageLimits,
)
from akgentic.llm.context import ContextManager
from akgentic.llm.event import (
    ContextObserver,
    EventMessage,
    LlmContextClearedEvent,
    LlmContextCompactedEvent,
    LlmMessageEvent,
    LlmSystemPromptEvent,
    LlmUsageEvent,
    SystemPromptPartSnapshot,
    ToolCallEvent,
    ToolReturnEvent,
)
from akgentic.llm.pricing import AgentUsageSummary, ModelUsage, RunUsageSummary, aggregate_usage
from akgentic.llm.prompts import (
    PromptTemplate,
    current_datetime_prompt,
    json_output_reminder_prompt,
)
from akgentic.llm.providers import (
    create_http_client,
    create_model,
    create_model_settings,
    get_output_type,
)

__all__ = [
    "COMPACTION_STRATEGIES",
    "SUMMARY_INSTRUCTIONS",
    "AgentUsageLimitError",
    "AgentUsageLimits",
    "AgentUsageSummary",
    "ApprovalMismatchError",
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
]
