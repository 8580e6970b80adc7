"""Type and size checks of the arguments the model hands the notification callables.

The callables are usually reached through a framework that validates arguments against
their signature, but nothing guarantees it: a scripted model or a restored conversation
calls them directly. Each check turns a wrong type or an oversize value into a
``RetriableError`` naming the parameter, what it expects and, for text, the limit; the
value itself is never echoed back, since it may be huge.
"""

from __future__ import annotations

from typing import Any

from akgentic.tool.errors import RetriableError
from akgentic.tool.notification.models import NOTIFICATION_ID_MAX_CHARS

__all__ = ["check_bool", "check_notification_id", "check_seconds", "check_text"]


def check_text(name: str, value: Any, limit: int) -> str:
    """``value`` as a string of at most ``limit`` characters."""
    if not isinstance(value, str):
        raise RetriableError(
            f"{name} must be a string, got {type(value).__name__}; nothing was changed"
        )
    if len(value) > limit:
        raise RetriableError(
            f"{name} holds at most {limit} characters, got {len(value)}; shorten it "
            "(nothing was changed)"
        )
    return value


def check_seconds(name: str, value: Any) -> int:
    """``value`` as a whole number of seconds; a float without fraction counts as one."""
    # bool is an int subclass: True would silently mean one second.
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise RetriableError(
        f"{name} must be an integer number of seconds, got {type(value).__name__}"
        + (f" {value!r}" if isinstance(value, float | bool) else "")
        + "; nothing was changed"
    )


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a boolean: only ``True`` and ``False`` (a string 'false' is truthy)."""
    if not isinstance(value, bool):
        raise RetriableError(
            f"{name} must be a boolean (true or false), got {type(value).__name__}"
        )
    return value


def check_notification_id(name: str, value: Any) -> int:
    """``value`` as a notification id: an integer, or its digits as text (``"3"``, ``" 3 "``).

    Text longer than ``NOTIFICATION_ID_MAX_CHARS`` is refused without being looked at.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        if len(value) > NOTIFICATION_ID_MAX_CHARS:
            raise RetriableError(
                f"{name} holds at most {NOTIFICATION_ID_MAX_CHARS} characters, got "
                f"{len(value)}; give the number register_notification returned "
                "(nothing was changed)"
            )
        text = value.strip().removeprefix("#")
        if text.isascii() and text.isdigit():
            return int(text)
        raise RetriableError(
            f"{name} must be an integer, the number register_notification returned; got the "
            f"text {value!r} (nothing was changed)"
        )
    raise RetriableError(
        f"{name} must be an integer, got {type(value).__name__}; nothing was changed"
    )
