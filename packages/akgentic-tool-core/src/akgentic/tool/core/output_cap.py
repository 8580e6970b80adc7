"""One bound on what any tool hands back to the model.

Each tool bounds its own output where it knows better (a page of a file, the top hits of a
search), but a tool written without care, a third-party MCP server or an unlucky input can
still answer with megabytes that fill a context window in one call. `ToolFactory` therefore
passes every result through :func:`cap_result`, and every toolset through
:func:`cap_toolset`, with one limit per card (``ToolCard.max_output_chars``) or the
factory's default.

Text is cut at the limit; a structured result (a model, a dict, a list) is measured as the
JSON the model will read and, when too large, replaced by that JSON cut at the limit. Both
end with a notice that says how much was cut and how to ask for less. Anything else (images,
binary content, framework return objects) passes through: a byte count is not a context
size, and the framework decides how to show it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_json

from akgentic.tool.errors import RetriableError

__all__ = ["DEFAULT_MAX_OUTPUT_CHARS", "cap_result", "cap_toolset", "capped"]

DEFAULT_MAX_OUTPUT_CHARS = 50_000
"""About 12,000 tokens: large enough for any result a tool means to give, small enough that
a few of them still fit a 128k-token context together with the conversation."""

_STRUCTURED = (BaseModel, dict, list, tuple)


def _notice(tool: str, limit: int, total: int) -> str:
    return (
        f"\n[{tool}: output cut at {limit:,} of {total:,} characters "
        f"({total - limit:,} more not shown). Ask for less: a page (offset/limit), a "
        "narrower query or fewer results.]"
    )


def cap_result(result: Any, limit: int | None, tool: str) -> Any:
    """``result`` as is when it fits in ``limit`` characters, else its text cut with a notice.

    ``limit=None`` turns the bound off. ``tool`` names the tool in the notice.
    """
    if limit is None:
        return result
    if isinstance(result, str):
        text = result
    elif isinstance(result, _STRUCTURED):
        if isinstance(result, list | tuple | dict) and len(result) == 0:
            return result
        text = to_json(result, fallback=str).decode()
    else:
        return result
    if len(text) <= limit:
        return result
    return text[:limit] + _notice(tool, limit, len(text))


def capped(
    fn: Callable[..., Any], limit: int | None, retry_exception: type[Exception] | None = None
) -> Callable[..., Any]:
    """``fn`` with its results passed through :func:`cap_result` (sync or async).

    With a ``retry_exception`` the same wrapper also raises it where ``fn`` raised
    ``RetriableError`` (what :func:`~akgentic.tool.core.commands.retry_wrapped` does).
    Doing both in one wrapper matters at team scale: each member holds one per tool, and
    the collector walks every one of them. With neither a limit nor an exception ``fn`` is
    returned as is.
    """
    retry = retry_exception
    if limit is None and retry is None:
        return fn
    name = getattr(fn, "__name__", "tool")

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                result = await fn(*args, **kwargs)
            except RetriableError as exc:
                if retry is None:
                    raise
                raise retry(str(exc)) from exc
            return cap_result(result, limit, name)

        return async_wrapper

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            result = fn(*args, **kwargs)
        except RetriableError as exc:
            if retry is None:
                raise
            raise retry(str(exc)) from exc
        return cap_result(result, limit, name)

    return wrapper


def cap_toolset(toolset: Any, limit: int | None) -> Any:
    """A pydantic-ai toolset whose tool results are capped like the cards' tools.

    Toolsets are pydantic-ai objects; without pydantic-ai installed there is nothing to
    call them with, so an object of another kind is returned unchanged.
    """
    if limit is None:
        return toolset
    try:
        from pydantic_ai.toolsets import AbstractToolset
    except ImportError:  # pragma: no cover - core installed without pydantic-ai
        return toolset
    if not isinstance(toolset, AbstractToolset):
        return toolset
    return _capped_toolset_class()(wrapped=toolset, limit=limit)


@functools.cache
def _capped_toolset_class() -> type[Any]:
    # Built on first use so that importing core never imports pydantic-ai.
    from pydantic_ai.toolsets import WrapperToolset

    @dataclass
    class CappedToolset(WrapperToolset[Any]):
        """Delegates everything to ``wrapped``; cuts what its tools answer to ``limit``."""

        limit: int = DEFAULT_MAX_OUTPUT_CHARS

        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
            result = await self.wrapped.call_tool(name, tool_args, ctx, tool)
            return cap_result(result, self.limit, name)

    return CappedToolset
