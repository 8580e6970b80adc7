"""Usage-limit errors of both budget tiers, and the instruction healing writes.

The tier is carried by the exception class, never by its text: pydantic-ai words a
run-tier token breach and this package words an agent-tier token breach identically, so a
consumer that needs the tier uses ``isinstance``. ``UsageLimitError`` is the catch-all base;
nothing raises it directly.

These classes deliberately do not derive from pydantic-ai's ``UsageLimitExceeded``: the
run-tier recovery seam is consulted for that class only, and the agent tier must never
reach it.
"""

from __future__ import annotations

from pydantic_ai.exceptions import UsageLimitExceeded

__all__ = [
    "RUN_LIMIT_HEALING_MESSAGE",
    "AgentUsageLimitError",
    "RunUsageLimitError",
    "UsageLimitError",
]

RUN_LIMIT_HEALING_MESSAGE = (
    "This turn's tool and request budget is exhausted, so this tool call was aborted "
    "and no further tool calls are possible. Answer now using what you already have, "
    "and say plainly what you could not verify."
)
"""Tool result written for every call a run-tier breach left unanswered.

It is read by the model, not by an operator: a follow-up run (the tool-free conclusion, or
the caller's next turn) reasons from this sentence instead of from a traceback.
"""


class UsageLimitError(Exception):
    """Base of both usage-limit tiers; catch it to handle any budget breach."""


class RunUsageLimitError(UsageLimitError):
    """One ``run()`` call exhausted its ``RunUsageLimits`` and recovery did not rescue it.

    Always raised ``from`` the pydantic-ai ``UsageLimitExceeded`` that started the turn.
    """


class AgentUsageLimitError(UsageLimitError):
    """The agent-lifetime ``AgentUsageLimits`` budget is spent.

    Raised when a run is refused admission (``agent_request_limit`` counts admitted runs, not
    model requests; the message names it ``run_count``), or, for the token limits, before a
    model request of a run already in flight once the lifetime total is above the limit and
    another run took it there. Terminal: the run that would pay for a follow-up is exactly what
    is refused.
    """


def limit_message(error: UsageLimitExceeded) -> str:
    """Return pydantic-ai's breach text without the documentation hint it appends.

    ``UsageLimitExceeded`` suffixes every message with a link to its own docs. Our errors
    carry the bare sentence (``Exceeded the total_tokens_limit of 10 (total_tokens=12)``),
    so both tiers read the same way; the hinted original stays reachable as ``__cause__``.
    """
    text = str(error)
    suffix = f". {UsageLimitExceeded._HINT}"
    if text.endswith(suffix):
        return text[: -len(suffix)]
    return text
