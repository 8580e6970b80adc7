"""A synchronous call made from async code is refused with an error naming the agent's class,
the method, and what to await instead."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic_ai.models.test import TestModel

from akgentic.llm import ModelConfig, ReactAgent, ReactAgentConfig


class LibraryAgent(ReactAgent):
    """A subclass: the message names the class the caller actually uses."""


def _agent(closing: Any) -> LibraryAgent:
    config = ReactAgentConfig(model_cfg=ModelConfig(provider="openai", model="gpt-4o"))
    agent: LibraryAgent = closing(LibraryAgent(config, model=TestModel()))
    return agent


@pytest.mark.parametrize(
    ("method", "call", "instead"),
    [
        ("run_sync", lambda agent: agent.run_sync("hi"), "await the async method"),
        ("compact", lambda agent: agent.compact(), r"await acompact\(\) instead"),
    ],
)
async def test_a_sync_call_inside_a_running_loop_names_the_class_and_the_fix(
    closing: Any, method: str, call: Callable[[LibraryAgent], object], instead: str
) -> None:
    agent = _agent(closing)
    message = rf"LibraryAgent\.{method}\(\) cannot be called while an event loop is running"
    with pytest.raises(RuntimeError, match=rf"{message}.*; {instead}"):
        call(agent)
