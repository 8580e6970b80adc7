"""One pydantic-ai function schema per distinct tool, shared by every agent of the process.

Registering a plain callable makes pydantic-ai derive its schema: type hints, a pydantic
validator, a JSON schema, a docstring parse. That costs about a millisecond and a half per
tool, and a team whose members carry the same cards pays it again for every member, for
the same functions. ``ReactAgent`` registers each plain callable as a ``Tool`` whose schema
comes from here: built the first time a tool is seen, then copied with only the callable
swapped, so every agent still calls its own function (its own closure, its own bound card).

What a cached schema is keyed on is everything pydantic-ai reads to build one:

- the code of the callable and of every function its ``__wrapped__`` chain leads through
  (the innermost gives the signature, a wrapper's module resolves string annotations);
- the name, the docstring and the annotations of the callable handed over;
- the innermost function's defaults (by type and ``repr``: the schema shows them, their
  identity does not matter) and whether the callable is a coroutine function;
- for a bound method, the same of its function, plus the fact that it is bound.

Two closures of one factory function therefore share a schema, while a different
docstring, name, default or annotation gets its own. A callable that cannot be keyed this
way (a ``functools.partial``, a callable object, a chain declaring ``__signature__``, an
annotation that cannot be hashed) is left to pydantic-ai, which builds its schema as usual.
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from pydantic_ai import Tool

if TYPE_CHECKING:
    from pydantic_ai._function_schema import FunctionSchema

__all__ = ["shared_schema_tool"]

_MAX_SCHEMAS = 1024  # distinct tools kept; a process defines far fewer
_MAX_WRAPPERS = 100  # the bound inspect.unwrap puts on a __wrapped__ chain


def shared_schema_tool(fn: Callable[..., Any], *, requires_approval: bool = False) -> Tool[Any]:
    """``Tool(fn, requires_approval=...)``, its schema shared with every equal tool."""
    return Tool(fn, requires_approval=requires_approval, function_schema=_SCHEMAS.bound_to(fn))


class _SchemaCache:
    """Schemas by key, the least recently used dropped past ``size``; safe across threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._schemas: OrderedDict[Hashable, FunctionSchema] = OrderedDict()
        self._lock = threading.Lock()

    def bound_to(self, fn: Callable[..., Any]) -> FunctionSchema | None:
        """The schema of ``fn`` calling ``fn``, or ``None`` when ``fn`` cannot be keyed."""
        key = schema_key(fn)
        if key is None:
            return None
        with self._lock:
            schema = self._schemas.get(key)
            if schema is not None:
                self._schemas.move_to_end(key)
        if schema is None:
            # Built outside the lock: two threads meeting a new tool may both build it (the
            # results are equal), which is cheaper than making every first build wait.
            schema = Tool(fn).function_schema
            with self._lock:
                self._schemas[key] = schema
                while len(self._schemas) > self.size:
                    self._schemas.popitem(last=False)
        return dataclasses.replace(schema, function=fn)

    def __len__(self) -> int:
        with self._lock:
            return len(self._schemas)

    def clear(self) -> None:
        with self._lock:
            self._schemas.clear()


_SCHEMAS = _SchemaCache(_MAX_SCHEMAS)


def schema_key(fn: Callable[..., Any]) -> Hashable | None:
    """What pydantic-ai builds ``fn``'s schema from, hashable; ``None`` if it cannot be read."""
    if inspect.ismethod(fn):
        inner = schema_key(fn.__func__)
        return None if inner is None else ("bound", inner)
    chain = _function_chain(fn)
    if chain is None:
        return None
    innermost = chain[-1]
    key = (
        tuple(link.__code__ for link in chain),
        fn.__name__,
        fn.__doc__,
        tuple(fn.__annotations__.items()),
        _defaults_key(innermost),
        inspect.iscoroutinefunction(fn),
    )
    try:
        hash(key)
    except TypeError:  # an annotation or a default that cannot be hashed
        return None
    return key


def _function_chain(fn: Any) -> list[Any] | None:
    """``fn`` and the functions its ``__wrapped__`` chain leads to, if all are plain functions
    and none declares its own ``__signature__`` (which would override the one read here)."""
    chain: list[Any] = []
    current = fn
    for _ in range(_MAX_WRAPPERS):
        if not inspect.isfunction(current) or "__signature__" in current.__dict__:
            return None
        chain.append(current)
        current = current.__dict__.get("__wrapped__")
        if current is None:
            return chain
    return None


def _defaults_key(fn: Any) -> tuple[Any, ...]:
    """``fn``'s defaults by type and ``repr``, positional ones then keyword-only ones by name."""
    positional = [(None, value) for value in fn.__defaults__ or ()]
    keyword = sorted((fn.__kwdefaults__ or {}).items())
    return tuple((name, type(value), repr(value)) for name, value in positional + keyword)
