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

from pydantic import BaseModel, ConfigDict, Field

from akgentic.tool.core.channels import TOOL_CALL, Channels

__all__ = ["BaseToolParam", "resolve_param"]

F = TypeVar("F", bound=Callable[..., Any])
P = TypeVar("P", bound="BaseToolParam")


class BaseToolParam(BaseModel):
    """Base class of every capability's configuration.

    Subclasses change the default of ``expose`` to the channels their capability belongs
    on, and add fields that the card reads at bind time.
    """

    model_config = ConfigDict(extra="forbid")

    expose: set[Channels] = Field(default_factory=lambda: {TOOL_CALL})
    instructions: str | None = None

    def exposes(self, channel: Channels) -> bool:
        """Whether this capability is exposed on ``channel``."""
        return channel in self.expose

    def describe(self, fn: F) -> F:
        """Append ``instructions`` to ``fn``'s docstring (the description the model sees).

        Returns ``fn`` itself so a card can write ``return [param.describe(my_tool)]``.
        Each call site builds a fresh closure, so mutating its ``__doc__`` is safe.
        """
        if self.instructions:
            base = (fn.__doc__ or "").rstrip()
            fn.__doc__ = f"{base}\n\n{self.instructions}" if base else self.instructions
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
