"""Plain-callable tools share one pydantic-ai schema per distinct tool, and still call their own.

``ReactAgent`` registers a plain callable as a ``Tool`` whose schema comes from a per-process
cache (``akgentic.llm._tool_schemas``), so a team of members carrying the same tools builds
each schema once. These tests pin what may share a schema (closures of one factory, bound
methods of one function, wrappers made by one decorator) and what may not (another
docstring, default, annotation or name), and that sharing never mixes up whose function runs.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from pydantic_ai import Tool
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel

from akgentic.llm._tool_schemas import _SCHEMAS, schema_key, shared_schema_tool
from akgentic.llm.approvals import registered_tools


def note_taker(owner: str, calls: list[str]) -> Callable[[str], str]:
    """A closure factory: every call gives a new function over the same code."""

    def take_note(text: str) -> str:
        """Keep a note.

        Args:
            text: What to write down.
        """
        calls.append(f"{owner}:{text}")
        return f"{owner} noted {text}"

    return take_note


def _calling(tool_name: str, args: dict[str, Any]) -> FunctionModel:
    """A model that calls ``tool_name`` once, then answers with what the tool returned."""

    def respond(messages: list[Any], info: Any) -> ModelResponse:
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
        if returns:
            return ModelResponse(parts=[TextPart(str(returns[0].content))])
        return ModelResponse(parts=[ToolCallPart(tool_name, args)])

    return FunctionModel(respond)


def _schema(fn: Callable[..., Any]) -> Any:
    [tool] = registered_tools([fn])
    assert isinstance(tool, Tool)
    return tool.function_schema


def test_two_agents_share_a_schema_and_each_calls_its_own_closure(make_agent: Any) -> None:
    calls: list[str] = []
    ada, bob = note_taker("ada", calls), note_taker("bob", calls)
    first, second = _schema(ada), _schema(bob)
    # One schema built: the validator and the JSON schema are the same objects ...
    assert first.validator is second.validator
    assert first.json_schema is second.json_schema
    # ... bound to each agent's own function.
    assert (first.function, second.function) == (ada, bob)

    agents = {
        name: make_agent(tools=[fn], model=_calling("take_note", {"text": f"from {name}"}))
        for name, fn in (("ada", ada), ("bob", bob))
    }
    assert agents["bob"].run_sync("go") == "bob noted from bob"
    assert agents["ada"].run_sync("go") == "ada noted from ada"
    assert calls == ["bob:from bob", "ada:from ada"]


def test_a_second_agent_builds_no_schema(make_agent: Any) -> None:
    calls: list[str] = []
    make_agent(tools=[note_taker("ada", calls)], model=_calling("take_note", {"text": "x"}))
    kept = len(_SCHEMAS)
    for name in ("bob", "cy", "dee"):
        make_agent(tools=[note_taker(name, calls)], model=_calling("take_note", {"text": "x"}))
    assert len(_SCHEMAS) == kept


def test_another_docstring_gets_another_schema() -> None:
    plain, described = note_taker("a", []), note_taker("b", [])
    described.__doc__ = "Keep a note the team reads.\n\nArgs:\n    text: The note, in full."
    first, second = _schema(plain), _schema(described)
    assert first.validator is not second.validator
    assert first.description == "Keep a note."
    assert second.description == "Keep a note the team reads."
    assert second.json_schema["properties"]["text"]["description"] == "The note, in full."


def test_another_default_or_annotation_gets_another_schema() -> None:
    def lines(count: int = 10) -> str:
        """Show lines."""
        return "x" * count

    fewer = _schema(lines)
    lines.__defaults__ = (3,)
    assert _schema(lines).json_schema["properties"]["count"]["default"] == 3
    assert fewer.json_schema["properties"]["count"]["default"] == 10

    lines.__annotations__ = {"count": str, "return": str}
    assert _schema(lines).json_schema["properties"]["count"]["type"] == "string"


def test_a_renamed_function_gets_its_own_schema() -> None:
    one, two = note_taker("a", []), note_taker("b", [])
    two.__name__ = "keep_note"
    assert _schema(one).name == "take_note"
    assert _schema(two).name == "keep_note"


class Notebook:
    def __init__(self, owner: str) -> None:
        self.owner = owner

    def write(self, text: str) -> str:
        """Write in the notebook."""
        return f"{self.owner}: {text}"


def test_bound_methods_share_a_schema_and_keep_their_instance(make_agent: Any) -> None:
    mine, yours = Notebook("mine").write, Notebook("yours").write
    assert _schema(mine).validator is _schema(yours).validator
    assert "self" not in _schema(mine).json_schema["properties"]
    agent = make_agent(tools=[yours], model=_calling("write", {"text": "hi"}))
    assert agent.run_sync("go") == "yours: hi"


def test_wrappers_of_one_decorator_share_and_call_through(make_agent: Any, logged: Any) -> None:
    calls: list[str] = []
    ada, bob = logged(note_taker("ada", calls)), logged(note_taker("bob", calls))
    assert _schema(ada).validator is _schema(bob).validator
    agent = make_agent(tools=[bob], model=_calling("take_note", {"text": "t"}))
    assert agent.run_sync("go") == "logged bob noted t"
    assert calls == ["bob:t"]


def test_callables_that_cannot_be_keyed_are_built_as_usual(make_agent: Any, logged: Any) -> None:
    def greet(name: str, greeting: str) -> str:
        """Greet someone."""
        return f"{greeting}, {name}"

    calls: list[str] = []
    inner = note_taker("x", calls)
    declared = logged(inner)
    declared.__signature__ = inspect.signature(inner)  # type: ignore[attr-defined]
    assert schema_key(functools.partial(greet, greeting="hello")) is None
    assert schema_key(declared) is None
    kept = len(_SCHEMAS)
    tool = shared_schema_tool(declared)
    assert tool.function_schema.function is declared
    assert len(_SCHEMAS) == kept  # built for this tool alone, nothing cached
    agent = make_agent(tools=[declared], model=_calling("take_note", {"text": "t"}))
    assert agent.run_sync("go") == "logged x noted t"


def test_an_unhashable_annotation_is_built_as_usual() -> None:
    def tag(label: str) -> str:
        """Tag it."""
        return label

    tag.__annotations__ = {"label": str, "return": str, "extra": []}  # a list: unhashable
    assert schema_key(tag) is None


def test_a_gated_callable_keeps_requiring_approval() -> None:
    calls: list[str] = []
    plain, gated = note_taker("a", calls), note_taker("b", calls)
    gated.requires_approval = True  # type: ignore[attr-defined]
    tools = registered_tools([plain, gated])
    assert [tool.requires_approval for tool in tools] == [False, True]
    assert tools[0].function_schema.validator is tools[1].function_schema.validator


def test_the_cache_forgets_the_least_recently_used() -> None:
    from akgentic.llm._tool_schemas import _SchemaCache

    cache = _SchemaCache(2)

    def one(x: int) -> int:
        """One."""
        return x

    def two(x: int) -> int:
        """Two."""
        return x

    def three(x: int) -> int:
        """Three."""
        return x

    first = cache.bound_to(one)
    cache.bound_to(two)
    cache.bound_to(one)  # used again: two is now the oldest
    cache.bound_to(three)
    assert len(cache) == 2
    again = cache.bound_to(one)
    assert first is not None
    assert again is not None
    assert again.validator is first.validator  # one was kept
    cache.clear()
    assert len(cache) == 0
