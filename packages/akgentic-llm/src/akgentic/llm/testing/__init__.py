"""Token-free stand-ins for a provider's model, for tests, examples and benchmarks.

``ScriptedModel`` is a pydantic-ai ``FunctionModel`` that answers each request with the next
turn of a script: a tool call (``ScriptedCall``), parallel calls, a text answer, or a function
of the ``ScriptedRequest`` choosing one of those. Give it to a ``ReactAgent`` through
``model=`` (or to a bare ``pydantic_ai.Agent``).
``tool_results(messages)`` picks out what the tools sent back in a history.
"""

from akgentic.llm.testing.scripted_model import (
    Reply,
    ScriptedCall,
    ScriptedModel,
    ScriptedRequest,
    ToolResult,
    Turn,
    tool_results,
)

__all__ = [
    "Reply",
    "ScriptedCall",
    "ScriptedModel",
    "ScriptedRequest",
    "ToolResult",
    "Turn",
    "tool_results",
]
