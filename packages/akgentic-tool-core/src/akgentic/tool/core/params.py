"""Per-capability configuration: which channels it is exposed on, plus extra guidance.

A card declares each capability as a ``bool | SomeParam`` field. ``False`` switches the
capability off everywhere; ``True`` switches it on as configured by default; an instance of
the param customises it (fewer channels in ``expose``, extra ``instructions``). Every field
of a param subclass must be read when the card builds its callables; fields that only mirror
the model-facing signature would be configuration that configures nothing.

``requires_approval=True`` on any param gates its capability: the tool callable the card
builds carries ``requires_approval = True``, which an agent runtime reads to hold each call
until a person decides (see :mod:`akgentic.tool.core.approval`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import Field

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
    requires_approval: bool = Field(
        default=False,
        exclude=True,
        repr=False,
        description=(
            "Hold every model call of this capability until a person approves it. Kept out "
            "of dumps unless set, so an ungated param's stored form is unchanged."
        ),
    )

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        # A subclass may override describe() without calling super(); the approval flag
        # must reach the callable all the same, so every override is wrapped once here.
        own = cls.__dict__.get("describe")
        if own is not None and not getattr(own, "_marks_approval", False):
            cls.describe = _marking(own)  # type: ignore[method-assign,assignment]

    def _complete_dump(self, data: dict[str, Any]) -> dict[str, Any]:
        if self.requires_approval:
            data["requires_approval"] = True
        return data

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

        Returns ``fn`` itself (flagged by :meth:`mark_approval`) so a card can write
        ``return [param.describe(my_tool)]``. Each call site builds a fresh closure, so
        mutating its ``__doc__`` is safe.
        """
        if self.instructions:
            fn.__doc__ = self.format_docstring(fn.__doc__ or "")
        return self.mark_approval(fn)

    def mark_approval(self, fn: F) -> F:
        """``fn`` flagged ``requires_approval`` when this capability is gated, else as is.

        A callable that takes no attributes (a bound method, a builtin) is wrapped first.
        """
        if not self.requires_approval:
            return fn
        # Imported here: the approval module pulls in the command machinery, which a card
        # that gates nothing never needs.
        from akgentic.tool.core.approval import flag_requires_approval

        return flag_requires_approval(fn)


def _marking(describe: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    @functools.wraps(describe)
    def marking_describe(self: BaseToolParam, fn: Any) -> Any:
        return self.mark_approval(describe(self, fn))

    marking_describe._marks_approval = True  # type: ignore[attr-defined]
    return marking_describe


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
