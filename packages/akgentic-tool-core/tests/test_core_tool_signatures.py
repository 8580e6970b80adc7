"""How pydantic-ai tool schemas are shared: which callables count as the same tool.

Two callables share one schema only when everything the schema comes from is equal: the
innermost function's code and the wrappers around it, the name, the docstring, each
parameter's annotation and default (type and value), and whether it is a coroutine. These
tests build real pydantic-ai ``Tool``s (and run some through a ``FunctionModel`` agent) to
check that callables differing in any of those get a schema of their own, that equal ones
share it, and that the schema cache keeps the most recently used schemas.
"""

import asyncio
import functools
import inspect
import types
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from pydantic_ai import Agent, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.tool.core.pydantic_ai_tools import (
    _SchemaCache,
    _signature_key,
    _wrapper_chain,
    pydantic_ai_tool,
)


class Meters(int):
    """An int whose ``repr`` is an int's: only its type tells it apart."""


def _run(tool: Tool[Any], args: dict[str, Any]) -> str:
    """Have a model call ``tool`` once with ``args``; the run's output is the tool's result."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(tool.name, args)])
        return ModelResponse(parts=[TextPart(str(messages[-1].parts[0].content))])  # type: ignore[union-attr]

    return str(Agent(FunctionModel(respond), tools=[tool]).run_sync("go").output)


def _typed_default(default: int) -> Callable[..., str]:
    def which(value: int = default) -> str:
        """Say the type of ``value``."""
        return type(value).__name__

    return which


def _declared(default: Any) -> Callable[..., Any]:
    """A function whose signature is declared through ``__signature__``, default ``default``."""

    def pick(*args: Any, **kwargs: Any) -> Any:
        """Return the value."""
        return kwargs.get("value", args[0] if args else default)

    parameter = inspect.Parameter(
        "value", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=int
    )
    pick.__signature__ = inspect.Signature([parameter], return_annotation=int)  # type: ignore[attr-defined]
    pick.__annotations__ = {"value": int, "return": int}
    return pick


def _echo() -> Callable[..., str]:
    def echo(text: str) -> str:
        """Return ``text``."""
        return text

    return echo


def _shout(fn: Callable[..., str]) -> Callable[..., str]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> str:
        return fn(*args, **kwargs).upper()

    return wrapper


def _whisper(fn: Callable[..., str]) -> Callable[..., str]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> str:
        return fn(*args, **kwargs).lower()

    return wrapper


class _Callable:
    """A callable object: no ``__code__`` and no ``__name__`` of its own."""

    def __call__(self, value: int) -> int:
        return value


# ------------------------------------------------------------------ the wrapper chain


def test_a_plain_function_is_its_own_chain_end_with_no_wrappers() -> None:
    echo = _echo()
    assert _wrapper_chain(echo) == (echo, ())


def test_a_wraps_chain_leads_to_the_inner_function_through_each_wrapper_code() -> None:
    echo = _echo()
    shouted = _shout(echo)
    twice = _whisper(shouted)
    assert _wrapper_chain(shouted) == (echo, (shouted.__code__,))
    assert _wrapper_chain(twice) == (echo, (twice.__code__, shouted.__code__))


def test_a_declared_signature_anywhere_in_the_chain_is_not_followed() -> None:
    assert _wrapper_chain(_declared(3)) is None
    assert _wrapper_chain(_shout(_declared(3))) is None  # type: ignore[arg-type]


def test_a_chain_ending_in_no_plain_function_is_not_followed() -> None:
    wrapper = functools.wraps(_Callable())(lambda value: value)
    assert _wrapper_chain(wrapper) is None
    assert _wrapper_chain(_Callable()) is None


def test_a_builtin_without_attributes_is_not_followed() -> None:
    assert _wrapper_chain(len) is None


def test_a_wrapper_cycle_or_a_hundred_wrappers_is_not_followed() -> None:
    def loop() -> None:
        """Wrap itself."""

    loop.__wrapped__ = loop  # type: ignore[attr-defined]
    assert _wrapper_chain(loop) is None

    fn: Callable[..., str] = _echo()
    for _ in range(99):
        fn = _shout(fn)
    assert _wrapper_chain(fn) is not None
    assert _wrapper_chain(_shout(fn)) is None


# --------------------------------------------------------------- the signature key


def test_different_wrappers_of_one_function_are_different_tools() -> None:
    echo = _echo()
    assert _signature_key(_shout(echo)) != _signature_key(_whisper(echo))
    assert _signature_key(_shout(echo)) == _signature_key(_shout(echo))


def test_a_renamed_copy_is_a_different_tool() -> None:
    first, second = _echo(), _echo()
    second.__name__ = "repeat"
    assert _signature_key(first) != _signature_key(second)
    assert _signature_key(first) == _signature_key(_echo())


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_default_of_another_type_with_the_same_repr_is_a_different_tool() -> None:
    assert repr(Meters(3)) == repr(3)
    assert _signature_key(_typed_default(3)) != _signature_key(_typed_default(Meters(3)))
    assert _signature_key(_declared(3)) != _signature_key(_declared(Meters(3)))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_shared_schema_fills_in_each_tools_own_default() -> None:
    as_int = pydantic_ai_tool(_typed_default(3))
    as_meters = pydantic_ai_tool(_typed_default(Meters(3)))
    assert _run(as_int, {}) == "int"
    assert _run(as_meters, {}) == "Meters"


def test_a_callable_object_is_keyed_through_its_signature() -> None:
    key = _signature_key(_Callable())
    assert key is not None
    assert key == _signature_key(_Callable())


def test_declared_signatures_of_different_code_are_different_tools() -> None:
    first = _declared(3)

    def other(*args: Any, **kwargs: Any) -> Any:
        """Return the value."""
        return None

    other.__name__ = first.__name__
    other.__signature__ = first.__signature__  # type: ignore[attr-defined]
    assert _signature_key(first) == _signature_key(_declared(3))
    assert _signature_key(first) != _signature_key(other)


def test_equal_declared_signatures_share_one_schema() -> None:
    one, two = pydantic_ai_tool(_declared(5)), pydantic_ai_tool(_declared(5))
    assert one.function_schema.validator is two.function_schema.validator
    assert one.function is not two.function


def test_declared_signatures_with_other_defaults_get_their_own_schema() -> None:
    three, seven = pydantic_ai_tool(_declared(3)), pydantic_ai_tool(_declared(7))
    assert three.tool_def.parameters_json_schema["properties"]["value"]["default"] == 3
    assert seven.tool_def.parameters_json_schema["properties"]["value"]["default"] == 7
    assert _run(seven, {}) == "7"


def test_a_coroutine_copy_of_a_function_is_a_different_tool() -> None:
    def fetch() -> Any:
        """Fetch the answer."""
        return asyncio.sleep(0, result="answer")

    marked = types.FunctionType(fetch.__code__, fetch.__globals__, fetch.__name__)
    marked.__doc__ = fetch.__doc__
    marked.__annotations__ = dict(fetch.__annotations__)
    inspect.markcoroutinefunction(marked)
    assert _signature_key(marked) != _signature_key(fetch)

    plain_tool, async_tool = pydantic_ai_tool(fetch), pydantic_ai_tool(marked)
    assert plain_tool.function_schema.is_async is False
    assert async_tool.function_schema.is_async is True
    assert _run(async_tool, {}) == "answer"


def test_an_unhashable_annotation_object_gets_a_schema_of_its_own() -> None:
    def tagged(value: int) -> int:
        """Return ``value``."""
        return value

    tagged.__annotations__ = {"value": Annotated[int, {"unit": "s"}], "return": int}
    assert _signature_key(tagged) is None
    tool = pydantic_ai_tool(tagged)
    assert tool.tool_def.parameters_json_schema == Tool(tagged).tool_def.parameters_json_schema
    assert _run(tool, {"value": 4}) == "4"


def test_a_tool_without_an_approval_flag_does_not_require_approval() -> None:
    assert pydantic_ai_tool(_echo()).requires_approval is False
    flagged = _echo()
    flagged.requires_approval = "yes"  # type: ignore[attr-defined]
    assert pydantic_ai_tool(flagged).requires_approval is False


# ------------------------------------------------------------------ the schema cache


def test_a_new_cache_is_enabled_and_binds_the_schema_to_the_callable() -> None:
    cache = _SchemaCache(4)
    assert cache.size == 4
    assert cache.enabled is True
    first, second = _echo(), _echo()
    one, two = cache.schema_for(first), cache.schema_for(second)
    assert one is not None
    assert two is not None
    assert one.function is first
    assert two.function is second
    assert one.validator is two.validator


def test_a_disabled_cache_builds_every_schema_alone() -> None:
    cache = _SchemaCache(4)
    cache.enabled = False
    assert cache.schema_for(_echo()) is None
    assert len(cache._schemas) == 0


def test_the_cache_drops_the_least_recently_used_schema() -> None:
    cache = _SchemaCache(2)
    old, used, new = _typed_default(1), _typed_default(2), _typed_default(3)
    kept = cache.schema_for(old)
    cache.schema_for(used)
    assert cache.schema_for(old).validator is kept.validator  # type: ignore[union-attr]
    cache.schema_for(new)
    assert len(cache._schemas) == 2
    assert _signature_key(old) in cache._schemas
    assert _signature_key(new) in cache._schemas
    assert _signature_key(used) not in cache._schemas
    cache.clear()
    assert len(cache._schemas) == 0
