"""pydantic-ai ``Tool``s for card callables, their schemas built once per process.

When pydantic-ai registers a plain callable it derives the tool's schema from the
signature and docstring: type hints, a pydantic validator, a JSON schema, a docstring
parse. That is about 1.5 ms per tool, 20 ms for a member carrying WorkspaceTool and
PlanningTool, and every member of a team pays it again for the same fourteen signatures.

:func:`pydantic_ai_tool` builds that schema once per distinct tool and hands each member a
``Tool`` whose schema is the shared one bound to the member's own callable. Two callables
share a schema only when everything the schema is derived from is equal: the innermost
function's code, the tool name, the docstring (a param's ``instructions`` are part of it),
and every parameter's name, kind, annotation and default (by type and ``repr``), plus the
return annotation and whether the function is a coroutine. A callable whose signature
cannot be hashed that way (an annotation carrying an unhashable object, say) gets a
schema of its own, as pydantic-ai would build it.

The shared parts (validator, JSON schema) are read-only in pydantic-ai, which already
shares them between the runs of one agent. pydantic-ai is imported on first use only:
the tool layer does not depend on it.
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import Any

__all__ = ["pydantic_ai_tool", "pydantic_ai_tools"]

_MAX_SCHEMAS = 1024  # distinct tool signatures kept; far above what a process defines


class _SchemaCache:
    """Function schemas by signature key, least recently used out past ``size``.

    ``enabled = False`` builds every schema afresh (the benchmark's "before").
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.enabled = True
        self._schemas: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def schema_for(self, fn: Callable[..., Any]) -> Any | None:
        """The cached schema bound to ``fn``, or ``None`` when ``fn`` must be built alone."""
        key = _signature_key(fn) if self.enabled else None
        if key is None:
            return None
        with self._lock:
            shared = self._schemas.get(key)
            if shared is not None:
                self._schemas.move_to_end(key)
        if shared is None:
            # Built outside the lock: two threads meeting a new tool both build it, and
            # one result wins; cheaper than serialising every member's first tool.
            from pydantic_ai import Tool

            shared = Tool(fn).function_schema
            with self._lock:
                self._schemas[key] = shared
                while len(self._schemas) > self.size:
                    self._schemas.popitem(last=False)
        return dataclasses.replace(shared, function=fn)

    def clear(self) -> None:
        with self._lock:
            self._schemas.clear()


_SCHEMAS = _SchemaCache(_MAX_SCHEMAS)


def pydantic_ai_tool(fn: Callable[..., Any]) -> Any:
    """A pydantic-ai ``Tool`` calling ``fn``; its schema is shared with equal tools.

    A callable flagged ``requires_approval = True`` (see :mod:`akgentic.tool.core.approval`)
    becomes a ``Tool`` that requires approval, as the agent layer does for flagged callables.
    """
    from pydantic_ai import Tool

    return Tool(
        fn,
        function_schema=_SCHEMAS.schema_for(fn),
        requires_approval=getattr(fn, "requires_approval", False) is True,
    )


def pydantic_ai_tools(fns: Iterable[Callable[..., Any]]) -> list[Any]:
    """:func:`pydantic_ai_tool` for each of ``fns``, in order."""
    return [pydantic_ai_tool(fn) for fn in fns]


def _signature_key(fn: Callable[..., Any]) -> Hashable | None:
    """Everything pydantic-ai derives a tool schema from, or ``None`` if it cannot be keyed.

    The signature pydantic-ai reads is the innermost function's (``functools.wraps``
    chains lead to it), so the key is read off that function directly, which costs a
    fraction of ``inspect.signature``. A chain that declares its own ``__signature__``
    anywhere, or ends in something that is not a plain function, is keyed through
    ``inspect.signature`` instead.
    """
    chain = _wrapper_chain(fn)
    try:
        if chain is not None:
            inner, wrappers = chain
            params: tuple[Any, ...] = (
                wrappers,
                inner.__code__,
                _values_key(inner.__defaults__ or ()),
                _values_key(sorted((inner.__kwdefaults__ or {}).items())),
                tuple(inner.__annotations__.items()),
            )
        else:
            signature = inspect.signature(fn)
            params = (
                getattr(inspect.unwrap(fn), "__code__", None),
                tuple(
                    (p.name, p.kind, p.annotation, type(p.default), repr(p.default))
                    for p in signature.parameters.values()
                ),
                signature.return_annotation,
            )
        key = (
            params,
            getattr(fn, "__name__", None),
            getattr(fn, "__doc__", None),
            inspect.iscoroutinefunction(fn),
        )
        hash(key)
    except (TypeError, ValueError):  # no signature, or an unhashable annotation
        return None
    return key


def _wrapper_chain(fn: Callable[..., Any]) -> tuple[Any, tuple[Any, ...]] | None:
    """The plain function at the end of ``fn``'s ``__wrapped__`` chain and the code of every
    wrapper on the way (type hints resolve in a wrapper's globals, so the chain is part of the
    key); ``None`` when something in the chain overrides the signature or is no function."""
    current: Any = fn
    codes: list[Any] = []
    for _ in range(100):  # a bound like inspect.unwrap's, against cycles
        if "__signature__" in getattr(current, "__dict__", {}):
            return None
        wrapped = getattr(current, "__wrapped__", None)
        if wrapped is None:
            break
        codes.append(getattr(current, "__code__", None))
        current = wrapped
    else:
        return None
    return (current, tuple(codes)) if inspect.isfunction(current) else None


def _values_key(values: Iterable[Any]) -> tuple[Any, ...]:
    """Default values by type and ``repr`` (the schema shows them; identity does not matter)."""
    return tuple((type(value), repr(value)) for value in values)
