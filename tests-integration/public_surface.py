"""Every public import path the two reference manuals show, checked in one interpreter.

Run as a script (``python public_surface.py``) it imports each module and name and prints
a JSON report; the bundle test runs it inside virtual environments built from our wheels,
and ``test_public_surface.py`` runs it against the workspace.
"""

from __future__ import annotations

import importlib
import json
import sys
import warnings

# module -> names it must provide ([] when only the module itself is documented)
PUBLIC: dict[str, list[str]] = {
    "akgentic.tool": [
        "ToolCard", "BaseToolParam", "ToolFactory", "Channels", "CommandRegistry",
        "ToolObserver", "ActorToolObserver", "TeamManagementToolObserver", "ToolStateEvent",
        "CommandArg", "CommandDescriptor", "CommandsAnnouncedEvent", "RetriableError",
        "WorkspaceTool", "NotificationTool", "PlanningTool", "KnowledgeGraphTool",
        "VectorStoreTool", "SearchTool", "TeamTool", "MCPTool", "ExecTool",
        "VectorEntry", "EmbeddingService", "VectorIndex",
    ],
    "akgentic.tool.core": [
        "ToolCard", "BaseToolParam", "ToolFactory", "Channels", "CommandRegistry",
        "COMMAND", "TOOL_CALL", "SYSTEM_PROMPT",
    ],
    "akgentic.tool.core.channels": ["Channels"],
    "akgentic.tool.core.params": ["BaseToolParam"],
    "akgentic.tool.core.card": ["ToolCard"],
    "akgentic.tool.core.dependencies": [],
    "akgentic.tool.core.commands": ["CommandRegistry"],
    "akgentic.tool.core.factory": ["ToolFactory"],
    "akgentic.tool.core.event": [
        "ToolStateEvent", "CommandArg", "CommandDescriptor", "CommandsAnnouncedEvent",
    ],
    "akgentic.tool.core.observer": ["ToolObserver", "ActorToolObserver"],
    "akgentic.tool.core.deferred": ["DeferredResultActor", "DeferredWorker", "poll_deferred"],
    "akgentic.tool.errors": ["RetriableError", "CommandNotRecognized", "ToolObserverGone"],
    "akgentic.tool.event": [
        "ToolStateEvent", "CommandArg", "CommandDescriptor", "CommandsAnnouncedEvent",
    ],
    "akgentic.tool.vector_store": ["VectorStoreTool"],
    "akgentic.tool.vector_store.vector": ["VectorEntry", "EmbeddingService", "VectorIndex"],
    "akgentic.tool.vector_store.protocol": ["CollectionConfig"],
    "akgentic.tool.vector_store.inmemory": [],
    "akgentic.tool.vector_store.actor": ["VectorStoreActor"],
    "akgentic.tool.vector_store.embedding_actor": ["EmbeddingActor"],
    "akgentic.tool.vector_store.tool": ["VectorStoreTool"],
    "akgentic.tool.planning": ["PlanningTool", "GetPlanning"],
    "akgentic.tool.planning.planning_actor": ["PlanActor", "PlanConfig"],
    "akgentic.tool.planning.planning": ["PlanningTool"],
    "akgentic.tool.knowledge_graph": ["KnowledgeGraphTool"],
    "akgentic.tool.knowledge_graph.models": ["Entity", "Relation", "SearchQuery"],
    "akgentic.tool.knowledge_graph.event": ["KnowledgeGraphStateEvent"],
    "akgentic.tool.knowledge_graph.kg_actor": ["KnowledgeGraphActor"],
    "akgentic.tool.knowledge_graph.kg_tool": ["KnowledgeGraphTool"],
    "akgentic.tool.search": ["SearchTool"],
    "akgentic.tool.search.search": ["SearchTool"],
    "akgentic.tool.team": ["ActivitySummarizer", "GetTeamActivity", "TeamTool"],
    "akgentic.tool.team.team": ["TeamTool"],
    "akgentic.tool.team.observer": ["TeamManagementToolObserver"],
    "akgentic.tool.team.activity": [
        "GetTeamActivity", "ActivitySummarizer", "TeamActivityActor", "SummarizerWorker",
    ],
    "akgentic.tool.notification": [
        "NotificationTool", "RegisterNotification", "CancelNotification", "NotificationActor",
    ],
    "akgentic.tool.notification.models": [
        "PendingNotification", "NotificationConfig", "NotificationState", "resolve_message_class",
    ],
    "akgentic.tool.notification.actor": ["NotificationActor"],
    "akgentic.tool.notification.tool": ["NotificationTool", "RegisterNotification"],
    "akgentic.tool.mcp": ["MCPTool", "MCPHTTPConnectionConfig", "MCPStdioConnectionConfig"],
    "akgentic.tool.mcp.mcp": ["MCPTool", "MCPHTTPConnectionConfig", "MCPStdioConnectionConfig"],
    "akgentic.tool.mcp.oauth_handler": [],
    "akgentic.tool.workspace": ["WorkspaceTool"],
    "akgentic.tool.workspace.workspace": ["Filesystem", "get_workspace"],
    "akgentic.tool.workspace.edit": ["EditMatcher", "FilePatch", "parse_patch"],
    "akgentic.tool.workspace.readers": ["DocumentReader", "TEXT_EXTENSIONS"],
    "akgentic.tool.workspace.tool": ["WorkspaceTool"],
    "akgentic.tool.sandbox": ["ExecTool"],
    "akgentic.tool.sandbox.actor": ["SandboxActor", "SandboxConfig", "ALLOWED_COMMANDS"],
    "akgentic.tool.sandbox.local": ["LocalSandboxActor"],
    "akgentic.tool.sandbox.docker": ["DockerSandboxActor"],
    "akgentic.tool.sandbox.seatbelt": ["SeatbeltSandboxActor"],
    "akgentic.tool.sandbox.bwrap": ["BwrapSandboxActor"],
    "akgentic.tool.sandbox.tool": ["ExecTool", "SANDBOX_ACTOR_CLASSES"],
    "akgentic.llm": [
        "ReactAgent", "ReactAgentConfig", "ModelConfig", "RunUsageLimits", "AgentUsageLimits",
        "UsageLimits", "HttpClientConfig", "RuntimeConfig", "CompactionConfig",
        "UsageLimitError", "RunUsageLimitError", "AgentUsageLimitError", "ConclusionDecision",
        "LimitRecoveryCapability", "EventSourcingCapability", "ContextManager",
        "LlmMessageEvent", "LlmUsageEvent", "LlmSystemPromptEvent", "SystemPromptPartSnapshot",
        "LlmContextCompactedEvent", "LlmContextClearedEvent", "ToolCallEvent", "ToolReturnEvent",
        "aggregate_usage", "AgentUsageSummary", "ModelUsage", "RunUsageSummary",
        "PromptTemplate", "current_datetime_prompt", "json_output_reminder_prompt",
        "COMPACTION_STRATEGIES", "SUMMARY_INSTRUCTIONS", "CompactionResult",
        "create_model", "create_http_client", "get_output_type", "create_model_settings",
    ],
    "akgentic.llm.agent": [
        "ReactAgent", "UserPrompt", "UsageLimitError", "RunUsageLimitError",
        "AgentUsageLimitError", "RUN_LIMIT_HEALING_MESSAGE",
    ],
    "akgentic.llm.capabilities": [],
    "akgentic.llm.capabilities.budget": ["LifetimeBudgetCapability"],
    "akgentic.llm.capabilities.compaction": ["CompactionCapability"],
    "akgentic.llm.capabilities.errors": [
        "UsageLimitError", "RunUsageLimitError", "AgentUsageLimitError",
        "RUN_LIMIT_HEALING_MESSAGE",
    ],
    "akgentic.llm.capabilities.event_sourcing": ["EventSourcingCapability"],
    "akgentic.llm.capabilities.healing": ["HealingCapability"],
    "akgentic.llm.capabilities.limit_recovery": [
        "LimitRecoveryCapability", "ConclusionDecision", "DEFAULT_CONCLUSION_REASON",
    ],
    "akgentic.llm.compaction": [
        "COMPACTION_STRATEGIES", "SUMMARY_INSTRUCTIONS", "CompactionStrategy",
        "CompactionResult", "create_compaction",
    ],
    "akgentic.llm.config": [
        "ModelConfig", "CompactionConfig", "TokenUsageLimits", "RunUsageLimits",
        "AgentUsageLimits", "UsageLimits", "HttpClientConfig", "RuntimeConfig",
        "ReactAgentConfig",
    ],
    "akgentic.llm.context": ["ContextManager"],
    "akgentic.llm.event": [
        "LlmMessageEvent", "LlmUsageEvent", "LlmSystemPromptEvent", "SystemPromptPartSnapshot",
        "LlmContextCompactedEvent", "LlmContextClearedEvent", "ToolCallEvent",
        "ToolReturnEvent", "ContextObserver", "EventMessage",
    ],
    "akgentic.llm.pricing": ["ModelUsage", "RunUsageSummary", "AgentUsageSummary", "aggregate_usage"],
    "akgentic.llm.prompts": ["PromptTemplate", "current_datetime_prompt", "json_output_reminder_prompt"],
    "akgentic.llm.providers": [
        "create_model", "create_http_client", "get_output_type", "create_model_settings",
    ],
}  # fmt: skip

# Paths that need an optional extra: checked only where that extra is installed.
NEEDS_EXTRA: dict[str, list[str]] = {
    "akgentic.tool.vector_store.weaviate": [],
    "akgentic.llm.loadtest": ["MockReactAgent"],
    "akgentic.llm.loadtest.mock_agent": ["MockReactAgent"],
    "akgentic.llm.loadtest.scenario": [],
}


def check(table: dict[str, list[str]]) -> list[str]:
    """Import every module and name of ``table``; return what failed."""
    failures: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for module_name, names in table.items():
            try:
                module = importlib.import_module(module_name)
            except Exception as exc:
                failures.append(f"import {module_name}: {type(exc).__name__}: {exc}")
                continue
            for name in names:
                try:
                    getattr(module, name)
                except Exception as exc:
                    failures.append(f"{module_name}.{name}: {type(exc).__name__}: {exc}")
    return failures


if __name__ == "__main__":
    tables = [PUBLIC, NEEDS_EXTRA] if "--extras" in sys.argv else [PUBLIC]
    failed = [failure for table in tables for failure in check(table)]
    print(json.dumps({"checked": sum(len(t) for t in tables), "failures": failed}))
    sys.exit(1 if failed else 0)
