"""Where a tool capability surfaces: to the model, in its context, or as a command."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["COMMAND", "SYSTEM_PROMPT", "TOOL_CALL", "Channels"]


class Channels(StrEnum):
    """The three surfaces a capability can be exposed on.

    - ``TOOL_CALL``: a function the model calls during its reasoning loop.
    - ``SYSTEM_PROMPT``: text rendered into the model's context before each call.
    - ``COMMAND``: a callable other agents, the orchestrator or a human (``/name``) invoke.
    """

    TOOL_CALL = "tool_call"
    SYSTEM_PROMPT = "system_prompt"
    COMMAND = "command"


TOOL_CALL = Channels.TOOL_CALL
SYSTEM_PROMPT = Channels.SYSTEM_PROMPT
COMMAND = Channels.COMMAND
