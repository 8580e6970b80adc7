"""Per-capability configuration: which channels it is exposed on, plus extra guidance.

A card declares each capability as a ``bool | SomeParam`` field. ``False`` switches the
capability off everywhere; ``True`` switches it on as configured by default; an instance of
the param customises it (fewer channels in ``expose``, extra ``instructions``). Every field
of a param subclass must be read when the card builds its callables; fields that only mirror
the model-facing signature would be configuration that configures nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from akgentic.tool.core.channels import TOOL_CALL, Channels
from akgentic.tool.core.tagged import TaggedModel

__all__ = ["BaseToolParam", "resolve_param"]

F = TypeVar("F", bound=Callable[..., Any])
P = TypeVar("P", bound="BaseToolParam")


class BaseToolParam(TaggedModel):
    """Base class of every capability's configuration.

    Subclasses change the default of ``expose`` to the channels their capability belongs
    on, and add fields that the card reads at bind time. (A set default is copied for each
    instance, so writing ``expose: set[Channels] = {TOOL_CALL, COMMAND}`` is safe.)
    """

    expose: set[Channels] = {TOOL_CALL}
    instructions: str | None = None

    def exposes(self, channel: Channels) -> bool:
        """Whether this capability is exposed on ``channel``."""
        return channel in self.expose

    def format_docstring(self, original: str) -> str:
        """``original`` (a tool's docstring) with ``instructions`` appended after a blank line.

        Without instructions the docstring comes back unchanged.
        """
        if not self.instructions:
            return original
        base = original.rstrip()
        return f"{base}\n\n{self.instructions}" if base else self.instructions

    def describe(self, fn: F) -> F:
        """Append ``instructions`` to ``fn``'s docstring (the description the model sees).

        Returns ``fn`` itself so a card can write ``return [param.describe(my_tool)]``.
        Each call site builds a fresh closure, so mutating its ``__doc__`` is safe.
        """
        if self.instructions:
            fn.__doc__ = self.format_docstring(fn.__doc__ or "")
        return fn


def resolve_param(value: bool | P | None, param_cls: type[P]) -> P | None:
    """Resolve a ``bool | Param`` capability field to a param, or ``None`` when disabled."""
    if value is None or value is False:
        return None
    if value is True:
        return param_cls()
    if not isinstance(value, param_cls):
        raise TypeError(
            f"expected bool or {param_cls.__name__} for this capability, got {type(value).__name__}"
        )
    return value
