"""A card's capability table: each capability declared once, by its field and its builder.

A capability is a card field typed ``bool | SomeParam`` (``bool`` and exactly one param
class) and a card method ``_build_<field>``: given the resolved param, the builder returns
the callable (a model tool, a system prompt or a command). The card class states nothing
more: when it is defined, its table is derived from its fields, one row per such field, in
field order. From the rows ``ToolCard`` derives ``get_tools``, ``get_system_prompts`` and
``get_commands``: a capability switched off (``False``) is built for no channel; one
switched on is built once for each channel in its param's ``expose``, and nowhere else;
every callable goes through ``param.describe``, which appends the param's ``instructions``
and flags it ``requires_approval`` when gated (by the param, or by the field's name in the
card's ``approval_required``). ``Card.capabilities`` reads the rows, as :class:`Capability`.

Three variations cover the cards of this repository:

* a command that differs from the tool (the team's ``hire_member`` beside ``hire_members``):
  the card defines ``_build_<field>_command`` too, which builds the ``COMMAND`` callable;
* something costly that every builder shares (an open workspace, an API client): the card
  overrides ``_capability_context()``; it runs at most once per ``get_*`` call, only when a
  builder is about to run, and each builder then takes it as a second argument;
* a capability that changes the team's data: the card names its field in the class
  variable ``writing_capabilities``, and it is left out on every channel while the card's
  ``read_only`` field is true.

The alternative, for special cases (rows in another order than the fields, a field left
to a hand-written ``get_*``), is an explicit table: a ``capabilities`` tuple of
``Capability(field, Param, writes=...)`` in the class body. It replaces the derivation for
that class; a subclass keeps its rows and derives rows for the param fields it adds.

A card whose param fields have no builder at all writes its ``get_*`` methods by hand (the
style before the table) and gets no rows; once one of them has a builder, each needs one.

The table is checked and resolved once per class, when the class is defined: a row naming
a missing field, a field whose type does not hold the row's param class, a missing
builder, or a writing name that is no derived row raises ``TypeError`` naming the card and
the field. A ``get_*`` call then costs one attribute read per row, and a ``resolve_param``
for a row set to a param.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from akgentic.tool.core.channels import COMMAND, Channels
from akgentic.tool.core.params import BaseToolParam, resolve_param

if TYPE_CHECKING:
    from akgentic.tool.core.card import ToolCard

__all__ = ["Capability", "insert_before_args"]

Builder = Callable[..., Callable[..., Any]]


@dataclass(frozen=True, slots=True)
class Capability:
    """One row of a card's capability table.

    Args:
        field: The card field (typed ``bool | param``) that switches and configures it.
        param: The param class the field holds.
        writes: Left out on every channel while the card's ``read_only`` field is true.
    """

    field: str
    param: type[BaseToolParam]
    writes: bool = False


@dataclass(frozen=True, slots=True)
class _Row:
    """A row resolved against its card class: the builders are the functions themselves."""

    field: str
    param: type[BaseToolParam]
    writes: bool
    build: Builder
    build_command: Builder
    # A field set to True stands for the param's defaults. They are built once per class
    # and shared by every card of it: a member equips a dozen rows on three channels, and
    # building a fresh param each time was a third of what equipping a member cost. Builders
    # only read their param, so sharing it is safe. None: the param has required fields.
    default_param: BaseToolParam | None
    default_expose: frozenset[Channels] | None


@dataclass(frozen=True, slots=True)
class CapabilityTable:
    """The resolved rows of one card class, and whether its builders take a context."""

    rows: tuple[_Row, ...]
    with_context: bool
    has_writes: bool = False
    # The rows as Capability values: what `Card.capabilities` reads.
    capabilities: tuple[Capability, ...] = ()
    # The class whose body declared an explicit table that this one keeps (None: derived).
    declared_by: type[ToolCard] | None = None

    @classmethod
    def of(cls, card: type[ToolCard], *, with_context: bool) -> CapabilityTable:
        """Derive or read the rows of ``card``, check them and resolve their builders.

        Called while ``card`` is being defined, before it gets its own table: the table
        ``card`` reads then is its parent's. Raises ``TypeError`` naming the card and the
        field at fault.
        """
        inherited = card.__capability_table__.declared_by
        declared_by = card if "capabilities" in vars(card) else inherited
        declared = _declared_entries(card, declared_by)
        entries = declared + _derived_entries(card, declared_by, [row for row, _ in declared])
        rows = tuple(_resolve(card, row, where, with_context) for row, where in entries)
        if declared_by is card:
            capabilities = card.capabilities  # the very tuple the class body declared
        else:
            capabilities = tuple(row for row, _ in entries)
        return cls(
            rows=rows,
            with_context=with_context,
            has_writes=any(row.writes for row in rows),
            capabilities=capabilities,
            declared_by=declared_by,
        )

    def params(self, card: ToolCard) -> Iterator[tuple[_Row, BaseToolParam]]:
        """Each switched-on capability of ``card`` with its resolved param, in row order."""
        for row, value in self._switched_on(card):
            shared = value is True and row.default_param is not None
            param = row.default_param if shared else resolve_param(value, row.param)
            if param is not None:
                yield row, param

    def bind(self, card: ToolCard, channel: Channels) -> list[tuple[_Row, Callable[..., Any]]]:
        """The callables ``card`` exposes on ``channel``, each built once and described."""
        bound: list[tuple[_Row, Callable[..., Any]]] = []
        gated = card.approval_required or ()
        context: Any = _UNSET
        for row, value in self._switched_on(card):
            param = _param_on(row, value, channel)
            if param is None:
                continue  # no closure for a channel the capability is not on
            build = row.build_command if channel is COMMAND else row.build
            if not self.with_context:
                fn = build(card, param)
            else:
                if context is _UNSET:
                    context = card._capability_context()
                fn = build(card, param, context)
            fn = param.describe(fn)
            if row.field in gated:
                # Gated by the field's name (its tool may be named otherwise). Imported here:
                # the approval module pulls in the command machinery.
                from akgentic.tool.core.approval import flag_requires_approval

                fn = flag_requires_approval(fn)
            bound.append((row, fn))
        return bound

    def _switched_on(self, card: ToolCard) -> Iterator[tuple[_Row, Any]]:
        """Each row whose field is not off, with the field's value (unresolved)."""
        # read_only is read only when a row writes: a card without that field would pay
        # for a failed attribute lookup on every call.
        read_only = self.has_writes and bool(getattr(card, "read_only", False))
        for row in self.rows:
            value = getattr(card, row.field)
            if value is False or value is None or (row.writes and read_only):
                continue
            yield row, value


def _declared_entries(
    card: type[ToolCard], declared_by: type[ToolCard] | None
) -> list[tuple[Capability, str]]:
    """The rows of the explicit table ``card`` keeps (its own or an ancestor's), checked."""
    if declared_by is None:
        return []
    entries: list[tuple[Capability, str]] = []
    seen: set[str] = set()
    for row in vars(declared_by)["capabilities"]:
        where = f"{card.__name__}.capabilities row {row.field!r}"
        if row.field in seen:
            raise TypeError(f"{where}: the field is listed twice; give each one row")
        seen.add(row.field)
        _check_field(card, row, where)
        entries.append((row, where))
    return entries


def _derived_entries(
    card: type[ToolCard], declared_by: type[ToolCard] | None, declared: list[Capability]
) -> list[tuple[Capability, str]]:
    """One row per ``bool | Param`` field of ``card``, in field order.

    Fields an explicit table's class already had are that table's business: only those
    added below it are derived. ``writing_capabilities`` marks the rows that write.
    """
    known = declared_by.model_fields if declared_by is not None else {}
    found = [
        (name, param)
        for name, info in card.model_fields.items()
        if name not in known and (param := _capability_param(info.annotation)) is not None
    ]
    if not any(callable(getattr(card, f"_build_{name}", None)) for name, _ in found):
        found = []  # no builder at all: a card that writes its get_* methods by hand
    writing = _writing_names(card, {name for name, _ in found}, declared)
    return [
        (Capability(name, param, writes=name in writing), f"{card.__name__} field {name!r}")
        for name, param in found
    ]


def _writing_names(
    card: type[ToolCard], derived: set[str], declared: list[Capability]
) -> frozenset[str]:
    """``card.writing_capabilities``, checked against its rows and fields.

    A name must be a derived row, or a row of the kept explicit table that says
    ``writes=True`` itself (a subclass with a table of its own may inherit the names).
    """
    stated = card.writing_capabilities
    if isinstance(stated, str):
        raise TypeError(
            f"{card.__name__}.writing_capabilities is the string {stated!r}; "
            "give a frozenset of field names"
        )
    names = frozenset(stated)
    unknown = sorted(names - derived - {row.field for row in declared if row.writes})
    if unknown:
        raise TypeError(
            f"{card.__name__}.writing_capabilities names {', '.join(map(repr, unknown))}, "
            "which is no writing capability: each name must be a `bool | Param` field "
            "with a _build_<field> method (on a row of an explicit table, say writes=True)"
        )
    if names and "read_only" not in card.model_fields:
        raise TypeError(
            f"{card.__name__}.writing_capabilities needs a read_only field on {card.__name__}"
        )
    return names


def _resolve(card: type[ToolCard], row: Capability, where: str, with_context: bool) -> _Row:
    """``row`` with its builders found on ``card`` and its default param made once."""
    build = _builder(card, f"_build_{row.field}", where, with_context)
    command = getattr(card, f"_build_{row.field}_command", None)
    default = _default_param(row.param)
    return _Row(
        field=row.field,
        param=row.param,
        writes=row.writes,
        build=build,
        build_command=build
        if command is None
        else _builder(card, f"_build_{row.field}_command", where, with_context),
        default_param=default,
        default_expose=None if default is None else frozenset(default.expose),
    )


def _param_on(row: _Row, value: Any, channel: Channels) -> BaseToolParam | None:
    """The param of a switched-on capability when it is exposed on ``channel``, else None."""
    if value is True and row.default_param is not None:
        return (
            row.default_param if channel in cast(frozenset[Channels], row.default_expose) else None
        )
    param = resolve_param(value, row.param)  # a value of the wrong type raises TypeError
    return param if param is not None and channel in param.expose else None


def _default_param(param: type[BaseToolParam]) -> BaseToolParam | None:
    try:
        return param()
    except ValueError:  # a param with required fields: resolved (and refused) per call
        return None


_UNSET: Any = object()


def _check_field(card: type[ToolCard], row: Capability, where: str) -> None:
    if not (isinstance(row.param, type) and issubclass(row.param, BaseToolParam)):
        raise TypeError(f"{where}: {row.param!r} is not a BaseToolParam subclass")
    info = card.model_fields.get(row.field)
    if info is None:
        raise TypeError(
            f"{where}: {card.__name__} has no field {row.field!r}; declare "
            f"`{row.field}: bool | {row.param.__name__} = True`"
        )
    held = _params_in(info.annotation)
    if row.param not in held:
        shown = ", ".join(p.__name__ for p in held) or "no param class"
        raise TypeError(
            f"{where}: the row names {row.param.__name__}, but the field holds {shown}; "
            f"type it `bool | {row.param.__name__}` or fix the row"
        )
    if row.writes and "read_only" not in card.model_fields:
        raise TypeError(f"{where}: writes=True needs a read_only field on {card.__name__}")


def _capability_param(annotation: Any) -> type[BaseToolParam] | None:
    """The param class of a capability field (``bool`` and exactly one param), else None."""
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return None
    held = _params_in(annotation)
    return held[0] if bool in typing.get_args(annotation) and len(held) == 1 else None


def _params_in(annotation: Any) -> list[type[BaseToolParam]]:
    """The param classes a field's annotation admits (``bool | P`` gives ``[P]``)."""
    if isinstance(annotation, type):
        return [annotation] if issubclass(annotation, BaseToolParam) else []
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [p for arg in typing.get_args(annotation) for p in _params_in(arg)]
    return []


def _builder(card: type[ToolCard], name: str, where: str, with_context: bool) -> Builder:
    found = getattr(card, name, None)
    if not callable(found):
        raise TypeError(f"{where}: {card.__name__} has no builder method {name}(self, param)")
    wanted = 2 if with_context else 1
    try:
        params = list(inspect.signature(found).parameters.values())[1:]  # after self
    except (TypeError, ValueError):
        return cast(Builder, found)  # not introspectable: trust it
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) != wanted and not any(p.kind is p.VAR_POSITIONAL for p in params):
        shape = "(self, param, context)" if with_context else "(self, param)"
        raise TypeError(f"{where}: {card.__name__}.{name} must take {shape}")
    return cast(Builder, found)


_ARGS = re.compile(r"\n\n([ \t]*)Args:")


def insert_before_args[F: Callable[..., Any]](fn: F, sentence: str | None) -> F:
    """``fn`` with ``sentence`` as a paragraph of its docstring, just before ``Args:``.

    For a builder to state its card's own limits in the tool's description. Nothing
    changes without a sentence, a docstring or an ``Args:`` section.
    """
    if sentence and fn.__doc__:
        fn.__doc__ = _ARGS.sub(lambda m: f"\n\n{m[1]}{sentence}\n\n{m[1]}Args:", fn.__doc__, 1)
    return fn
