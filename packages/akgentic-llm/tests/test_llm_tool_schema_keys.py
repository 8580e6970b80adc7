"""Tools that look alike but differ where pydantic-ai looks never share a cached schema.

``ReactAgent`` caches one pydantic-ai schema per distinct plain-callable tool (see
``test_llm_tool_schemas.py``). These tests cover the look-alikes the cache key must still tell
apart: bound methods that cannot be keyed at all, decorated tools whose wrapped functions
differ in their defaults, and defaults that print the same but are of different types. Each
registers the look-alikes with two agents, one after the other, and checks that the second
agent offers, and calls, its own tool rather than the first one's cached schema.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from akgentic.llm.testing import ScriptedCall, ScriptedModel, ScriptedRequest


def _offered(make_agent: Any, tool: Callable[..., Any], call: str) -> tuple[dict[str, Any], Any]:
    """Run an agent holding ``tool`` alone: the parameters schema its model was offered for
    ``tool``, and what ``tool`` returned when called as ``call`` with no arguments."""
    schemas: list[dict[str, Any]] = []

    def first_turn(request: ScriptedRequest) -> ScriptedCall:
        [definition] = request.info.function_tools
        schemas.append({"name": definition.name, **definition.parameters_json_schema})
        return ScriptedCall(call)

    model = ScriptedModel(first_turn)
    make_agent(tools=[tool], model=model).run_sync("go")
    return schemas[0], model.returned()


def _declared[F: Callable[..., Any]](fn: F) -> F:
    """Pin ``fn``'s own signature on it: a callable the schema cache cannot key."""
    fn.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    return fn


class Ruler:
    @_declared
    def measure(self, length: int = 1) -> str:
        """Measure a length."""
        return f"measured {length}"


class Scale:
    @_declared
    def weigh(self, mass: float = 2.0) -> str:
        """Weigh a mass."""
        return f"weighed {mass}"


def test_bound_methods_that_cannot_be_keyed_each_get_their_own_schema(make_agent: Any) -> None:
    ruler_schema, ruler_returned = _offered(make_agent, Ruler().measure, "measure")
    scale_schema, scale_returned = _offered(make_agent, Scale().weigh, "weigh")
    assert ruler_schema["name"] == "measure"
    assert list(ruler_schema["properties"]) == ["length"]
    assert ruler_returned == ["measured 1"]
    assert scale_schema["name"] == "weigh"
    assert list(scale_schema["properties"]) == ["mass"]
    assert scale_returned == ["weighed 2.0"]


def _lines_tool(default: int) -> Callable[..., str]:
    """A fresh ``lines`` tool (same name, docstring and annotations every time) showing
    ``default`` lines unless told otherwise."""

    def lines(count: int = default) -> str:
        """Show some lines."""
        return f"{count} lines"

    return lines


def test_wrapped_tools_with_other_defaults_get_their_own_schema(
    make_agent: Any, logged: Any
) -> None:
    # One decorator over two functions alike in all but their default: the wrappers alone
    # are identical, only the functions they wrap tell the two schemas apart.
    few_schema, few_returned = _offered(make_agent, logged(_lines_tool(3)), "lines")
    many_schema, many_returned = _offered(make_agent, logged(_lines_tool(30)), "lines")
    assert few_schema["properties"]["count"]["default"] == 3
    assert few_returned == ["logged 3 lines"]
    assert many_schema["properties"]["count"]["default"] == 30
    assert many_returned == ["logged 30 lines"]


class Meters(float):
    """A float that prints as a plain float: its ``repr`` does not tell it apart."""


def _length_tool(default: float) -> Callable[..., str]:
    """A fresh ``length`` tool reporting the type of the value it was given."""

    def length(value: float = default) -> str:
        """Report a length."""
        return type(value).__name__

    return length


# A float subclass is no JSON: pydantic leaves that default out of the JSON schema, and says so.
@pytest.mark.filterwarnings("ignore::pydantic.json_schema.PydanticJsonSchemaWarning")
def test_defaults_of_another_type_with_the_same_repr_get_their_own_schema(
    make_agent: Any,
) -> None:
    assert repr(Meters(1.5)) == repr(1.5)  # what makes the two tools look alike
    _, plain_returned = _offered(make_agent, _length_tool(1.5), "length")
    _, meters_returned = _offered(make_agent, _length_tool(Meters(1.5)), "length")
    # Each tool is called with its own default, not the one of the schema cached first.
    assert plain_returned == ["float"]
    assert meters_returned == ["Meters"]
