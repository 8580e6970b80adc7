"""Bind a card to a test agent the way an agent does, and call what it exposes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.errors import RetriableError

__all__ = ["ToolRetry", "Tools", "bind_card", "card_callables", "expect_retry"]

Tools = dict[str, Callable[..., Any]]
"""A bound card's callables (tools and system prompts) by function name."""


class ToolRetry(Exception):  # noqa: N818 - stands for the agent framework's retry signal
    """The retry exception :func:`bind_card` injects into ``ToolFactory``.

    A tool raising ``RetriableError`` reaches the test as ``ToolRetry`` (the original error
    is its ``__cause__``), exactly as it reaches pydantic-ai as ``ModelRetry``.
    """


def card_callables(factory: ToolFactory) -> Tools:
    """A factory's tools and system prompts, by function name."""
    found = {getattr(fn, "__name__", ""): fn for fn in factory.get_tools()}
    found.update({getattr(fn, "__name__", ""): fn for fn in factory.get_system_prompts()})
    return found


def bind_card(observer: ToolObserver, card: ToolCard) -> Tools:
    """Attach ``card`` to ``observer`` as an agent would; return its callables by name."""
    return card_callables(ToolFactory([card], observer=observer, retry_exception=ToolRetry))


def expect_retry(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """Call a tool bound by :func:`bind_card` that must ask for a retry; return the message.

    Fails the test when the call succeeds or raises anything but a retry caused by a
    ``RetriableError``.
    """
    with pytest.raises(ToolRetry) as info:
        fn(*args, **kwargs)
    if not isinstance(info.value.__cause__, RetriableError):
        raise AssertionError(f"retry not caused by a RetriableError: {info.value.__cause__!r}")
    return str(info.value)
