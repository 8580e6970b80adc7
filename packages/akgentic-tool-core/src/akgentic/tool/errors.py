"""The exceptions a tool raises, and the two the machinery raises about tools.

`RetriableError` is the one a tool author uses daily: it marks a failure the model can
correct (a bad path, an unknown id, a value out of range). `ToolFactory` turns it into the
agent framework's own retry signal, so tool code never imports that framework.
"""

from __future__ import annotations

__all__ = ["CommandNotRecognized", "RetriableError", "ToolObserverGone"]


class RetriableError(Exception):
    """A recoverable tool failure whose message is shown to the model.

    Write the message for the model: say what was wrong and what to do instead
    ("File not found: notes.md. Use workspace_list to see what exists.").
    """


class CommandNotRecognized(Exception):  # noqa: N818 - public name fixed by the spec
    """A command name (or `/`-command line) that no registered tool answers to."""


class ToolObserverGone(RuntimeError):  # noqa: N818 - public name fixed by the spec
    """The agent that owned a tool has stopped (or none was ever attached).

    Tools hold their observer by weak reference so they never keep a stopped agent
    alive; reaching for it afterwards raises this instead of acting on a dead agent.
    """
