"""Checks every card must pass: it round-trips, describes what it exposes, keeps its
channels, and answers bad calls with a retry rather than a crash or a false success."""

from __future__ import annotations

import asyncio
import inspect
import json
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.channels import Channels
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.core.params import BaseToolParam
from akgentic.tool.core.testing._text import shorten

__all__ = [
    "ConformanceRetry",
    "assert_callables_described",
    "assert_card_conformance",
    "assert_channels_honoured",
    "capability_fields",
    "exposed_names",
]


class ConformanceRetry(Exception):  # noqa: N818 - stands for the framework's retry signal
    """The retry exception the conformance check injects into ``ToolFactory``."""


def assert_card_conformance(
    card: ToolCard,
    *,
    observer: ToolObserver | None = None,
    bad_calls: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> None:
    """Check the rules every card must keep; raise ``AssertionError`` naming the broken one.

    - the card's class does not allow arbitrary types, and the card survives a JSON
      round-trip unchanged;
    - with an ``observer``, each call in ``bad_calls`` (tool name -> list of keyword
      arguments) asks the model to retry (raises the factory's retry exception): a bad call
      that returns as if it had worked fails the check, and so does a raw exception.
    """
    _assert_round_trips(card)
    if not bad_calls:
        return
    if observer is None:
        raise AssertionError("bad_calls needs an observer to attach the card to")
    factory = ToolFactory([card], observer=observer, retry_exception=ConformanceRetry)
    tools = {getattr(tool, "__name__", ""): tool for tool in factory.get_tools()}
    label = type(card).__name__
    for name, calls in bad_calls.items():
        if name not in tools:
            raise AssertionError(f"{label} exposes no tool named {name!r}: {sorted(tools)}")
        for kwargs in calls:
            _assert_retries(f"{label}.{name}({dict(kwargs)!r})", tools[name], kwargs)


def _assert_round_trips(card: ToolCard) -> None:
    cls = type(card)
    if cls.model_config.get("arbitrary_types_allowed"):
        raise AssertionError(f"{cls.__name__} allows arbitrary types")
    try:
        text = card.model_dump_json()
        json.loads(text)
        again = cls.model_validate_json(text)
    except Exception as exc:
        raise AssertionError(f"{cls.__name__} does not round-trip through JSON: {exc}") from exc
    if again.model_dump() != card.model_dump():
        raise AssertionError(f"{cls.__name__} changed across a JSON round-trip")


def _assert_retries(call: str, tool: Callable[..., Any], kwargs: Mapping[str, Any]) -> None:
    """``tool(**kwargs)`` must raise the retry exception, whether sync or async."""
    try:
        result = tool(**kwargs)
        if inspect.isawaitable(result):
            result = asyncio.run(_await(result))
    except ConformanceRetry:
        return
    except Exception as exc:
        raise AssertionError(f"{call} let a raw {type(exc).__name__} escape: {exc}") from exc
    raise AssertionError(
        f"{call} is listed as a bad call but succeeded (returned {shorten(result)}); "
        "a bad call must raise RetriableError"
    )


async def _await(awaitable: Any) -> Any:
    return await awaitable


# -- what a card exposes ------------------------------------------------------------------


def exposed_names(card: ToolCard, observer: ToolObserver | None) -> dict[Channels, list[str]]:
    """The names ``card`` exposes on each channel once bound to ``observer``.

    Tools and system prompts by function name, commands by the name of their param class.
    Lists, not sets, so that a name given twice shows.
    """
    factory = ToolFactory([card], observer=observer, retry_exception=ConformanceRetry)
    return {
        Channels.TOOL_CALL: [getattr(fn, "__name__", "") for fn in factory.get_tools()],
        Channels.SYSTEM_PROMPT: [
            getattr(fn, "__name__", "") for fn in factory.get_system_prompts()
        ],
        Channels.COMMAND: [param.__name__ for param in factory.get_commands()],
    }


def assert_callables_described(card: ToolCard, observer: ToolObserver | None) -> None:
    """Every tool and command has a name and a description; tool names are unique.

    The model picks a tool by its name and docstring, and a person picks a command the
    same way: one without a description is one nobody can choose well.
    """
    label = type(card).__name__
    tools = card.get_tools() if observer is None else _bound_tools(card, observer)
    names = [getattr(fn, "__name__", "") for fn in tools]
    for fn, name in zip(tools, names, strict=True):
        if not name or name == "<lambda>":
            raise AssertionError(f"{label} exposes a tool without a name: {fn!r}")
        if not (fn.__doc__ or "").strip():
            raise AssertionError(f"{label}.{name} has no description (empty docstring)")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise AssertionError(f"{label} exposes the tool name(s) {repeated} more than once")
    factory = ToolFactory([card], observer=observer, retry_exception=ConformanceRetry)
    for param, command in factory.get_commands().items():
        if not (command.__doc__ or param.__doc__ or "").strip():
            raise AssertionError(f"{label}'s command {param.__name__} has no description")


def _bound_tools(card: ToolCard, observer: ToolObserver) -> list[Callable[..., Any]]:
    factory = ToolFactory([card], observer=observer, retry_exception=ConformanceRetry)
    return factory.get_tools()


def capability_fields(card_class: type[ToolCard]) -> dict[str, type[BaseToolParam]]:
    """The card's ``bool | SomeParam`` fields, with the param class of each."""
    found: dict[str, type[BaseToolParam]] = {}
    for name, info in card_class.model_fields.items():
        param = next(_param_classes(info.annotation), None)
        if param is not None:
            found[name] = param
    return found


def _param_classes(annotation: Any) -> Iterator[type[BaseToolParam]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseToolParam):
        yield annotation
        return
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            yield from _param_classes(arg)


def assert_channels_honoured(card: ToolCard, observer: ToolObserver | None) -> None:
    """Taking a channel out of a capability's ``expose`` takes that capability off the
    channel, and off it only.

    For each capability the card has switched on, and each channel: the card with the
    capability's ``expose`` lacking the channel must expose on that channel exactly what
    the card with the capability switched off (``False``) exposes there, and on the other
    channels what the card as given exposes. Variants the card's own validation refuses
    (a capability another one requires) are skipped.
    """
    label = type(card).__name__
    base = exposed_names(card, observer)
    for name, param_class in capability_fields(type(card)).items():
        value = getattr(card, name)
        if value is False:
            continue
        param = param_class() if value is True else value
        off = _variant_names(card, observer, {name: False})
        if off is None:
            continue
        for channel in param.expose:
            narrowed = param.model_copy(update={"expose": set(param.expose) - {channel}})
            got = _variant_names(card, observer, {name: narrowed})
            if got is None:
                continue
            if sorted(got[channel]) != sorted(off[channel]):
                raise AssertionError(
                    f"{label}.{name} without {channel.value!r} in expose still changes that "
                    f"channel: {sorted(got[channel])}, expected {sorted(off[channel])}"
                )
            for other in Channels:
                if other != channel and sorted(got[other]) != sorted(base[other]):
                    raise AssertionError(
                        f"{label}.{name} without {channel.value!r} in expose changed the "
                        f"{other.value!r} channel: {sorted(got[other])}, expected "
                        f"{sorted(base[other])}"
                    )


def _variant_names(
    card: ToolCard, observer: ToolObserver | None, update: dict[str, Any]
) -> dict[Channels, list[str]] | None:
    """What the card with ``update`` applied exposes, or ``None`` when it is refused."""
    data = {**card.model_dump(exclude={"__model__"}), **update}
    try:
        variant = type(card).model_validate(data)
    except ValidationError:
        return None
    return exposed_names(variant, observer)
