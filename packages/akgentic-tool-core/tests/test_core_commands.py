"""CommandRegistry: `/`-command parsing, typed arguments, discovery models."""

from __future__ import annotations

from typing import Literal

import pytest

from akgentic.tool.core import CommandNotRecognized, CommandRegistry, RetriableError


def register_notification(content: str, delay_seconds: int) -> str:
    """Schedule a message to yourself.

    Args:
        content: What the message will say.
        delay_seconds: How long to wait, in seconds.
    """
    return f"{content}@{delay_seconds}"


def pending_notification(all: bool = False) -> str:
    """List pending notifications."""
    return f"all={all}"


def pick(
    mode: Literal["fast", "slow"], ratio: float | None = None, tags: list[str] | None = None
) -> str:
    """Pick a mode."""
    return f"{mode}:{ratio}:{tags}"


@pytest.fixture
def registry() -> CommandRegistry:
    return CommandRegistry([register_notification, pending_notification, pick])


def test_quoted_positional_arguments_are_typed(registry: CommandRegistry) -> None:
    assert registry.execute('/register_notification "check CI" 120') == "check CI@120"


def test_keyword_booleans(registry: CommandRegistry) -> None:
    assert registry.execute("/pending_notification all=true") == "all=True"
    assert registry.execute("/pending_notification") == "all=False"
    assert registry.execute("pending_notification all=no") == "all=False"


def test_literal_optional_and_list_arguments(registry: CommandRegistry) -> None:
    assert registry.execute("/pick slow ratio=0.5 tags=a,b") == "slow:0.5:['a', 'b']"
    assert registry.execute("/pick fast ratio=none") == "fast:None:None"
    with pytest.raises(RetriableError, match="argument mode='medium' is invalid"):
        registry.execute("/pick medium")


def test_unknown_command_lists_what_exists(registry: CommandRegistry) -> None:
    with pytest.raises(CommandNotRecognized, match="unknown command '/nope'.*pending_notification"):
        registry.execute("/nope 1")
    with pytest.raises(CommandNotRecognized):
        registry.call("missing")
    with pytest.raises(CommandNotRecognized, match="empty"):
        registry.execute("   ")


def test_bad_arguments_are_retriable_and_name_the_argument(registry: CommandRegistry) -> None:
    with pytest.raises(RetriableError, match="delay_seconds='soon' is invalid"):
        registry.execute('/register_notification "x" soon')
    with pytest.raises(RetriableError, match="missing required argument\\(s\\): delay_seconds"):
        registry.execute('/register_notification "x"')
    with pytest.raises(RetriableError, match="takes at most 1 argument"):
        registry.execute("/pending_notification true extra")
    with pytest.raises(RetriableError, match="cannot parse"):
        registry.execute('/register_notification "unterminated 5')
    with pytest.raises(RetriableError, match="positional argument"):
        registry.execute("/pick ratio=0.1 fast")


def test_duplicate_registration_is_refused(registry: CommandRegistry) -> None:
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(pick)
    assert "pick" in registry
    assert "/pick" in registry
    assert "other" not in registry
    assert registry.names() == ["register_notification", "pending_notification", "pick"]


def test_descriptors_come_from_signature_and_docstring(registry: CommandRegistry) -> None:
    described = {d.name: d for d in registry.descriptors()}
    reg = described["register_notification"]
    assert reg.description == "Schedule a message to yourself."
    assert [(a.name, a.type, a.required) for a in reg.args] == [
        ("content", "str", True),
        ("delay_seconds", "int", True),
    ]
    assert reg.args[1].description == "How long to wait, in seconds."
    pending = described["pending_notification"]
    assert pending.args[0].required is False
    assert pending.args[0].default is False
