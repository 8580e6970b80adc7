"""The rules a card class meets when it is defined, and what its capability rows then give.

Cards and params are defined inside the tests, so that the checks made at class definition
(builder shapes, row/field agreement, the approval marking of ``describe`` overrides, the
bounds of a lowerable input limit) run under each test. The resolved rows are read through
the card's public ``get_*`` methods and ``capability_param``.
"""

from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ValidationError

from akgentic.tool import BaseToolParam, RetriableError, ToolCard, resolve_param
from akgentic.tool.core import Capability
from akgentic.tool.core.capability import insert_before_args
from akgentic.tool.core.channels import COMMAND, TOOL_CALL, Channels
from akgentic.tool.core.input_limits import lowerable, refuse_problems


class Note(BaseToolParam):
    """The note capability: a tool and a command."""

    expose: set[Channels] = {TOOL_CALL, COMMAND}


class Other(BaseToolParam):
    """Another capability."""


class Third(BaseToolParam):
    """A third capability."""


class Sized(BaseToolParam):
    """A capability whose param has a required field."""

    size: int


def _tool(name: str, text: str) -> Callable[..., str]:
    def tool() -> str:
        """A built tool."""
        return text

    tool.__name__ = name
    return tool


class NoteCard(ToolCard):
    note: bool | Note = True
    SEEN: ClassVar[list[BaseToolParam]] = []

    def _build_note(self, param: Note) -> Callable[..., str]:
        NoteCard.SEEN.append(param)
        return _tool("take_note", "tool")

    def _build_note_command(self, param: Note) -> Callable[..., str]:
        return _tool("note_command", "command")


# ------------------------------------------------------------------ resolved params


def test_a_switched_on_capability_shares_its_default_param() -> None:
    first, second = NoteCard(), NoteCard()
    assert first.capability_param("note") is second.capability_param("note")
    assert first.capability_param("note") == Note()
    NoteCard.SEEN.clear()
    first.get_tools()
    assert [Note()] == NoteCard.SEEN
    assert NoteCard.SEEN[0] is first.capability_param("note")


def test_a_capability_set_to_a_param_resolves_to_that_param() -> None:
    told = Note(instructions="Be brief.")
    assert NoteCard(note=told).capability_param("note") is told
    assert NoteCard(note=False).capability_param("note") is None


def test_the_command_is_built_by_its_own_builder() -> None:
    card = NoteCard()
    assert [tool.__name__ for tool in card.get_tools()] == ["take_note"]
    assert [fn.__name__ for fn in card.get_commands().values()] == ["note_command"]


def test_a_param_with_required_fields_is_resolved_per_card() -> None:
    class SizedCard(ToolCard):
        sized: bool | Sized = False

        def _build_sized(self, param: Sized) -> Callable[..., str]:
            return _tool("sized_tool", str(param.size))

    assert SizedCard(sized=Sized(size=3)).capability_param("sized") == Sized(size=3)
    (tool,) = SizedCard(sized=Sized(size=3)).get_tools()
    assert tool() == "3"


# -------------------------------------------------------------------- builder shapes


def test_a_card_with_a_context_passes_it_to_builders_taking_it() -> None:
    class ContextCard(ToolCard):
        note: bool | Note = True

        def _capability_context(self) -> str:
            return "shared"

        def _build_note(self, param: Note, context: str) -> Callable[..., str]:
            return _tool("take_note", context)

        def _build_note_command(self, param: Note, context: str) -> Callable[..., str]:
            return _tool("note_command", f"command {context}")

    (tool,) = ContextCard().get_tools()
    assert tool() == "shared"
    (command,) = ContextCard().get_commands().values()
    assert command() == "command shared"


def test_a_context_builder_without_the_context_argument_is_refused() -> None:
    with pytest.raises(TypeError, match=r"must take \(self, param, context\)"):

        class Missing(ToolCard):
            note: bool | Note = True

            def _capability_context(self) -> str:
                return "shared"

            def _build_note(self, param: Note) -> Callable[..., str]:
                return _tool("take_note", "x")


def test_a_builder_with_an_extra_argument_is_refused() -> None:
    with pytest.raises(TypeError, match=r"must take \(self, param\)$"):

        class Extra(ToolCard):
            note: bool | Note = True

            def _build_note(self, param: Note, more: int) -> Callable[..., str]:
                return _tool("take_note", "x")


class _Opaque:
    """A builder whose signature cannot be read: trusted as it is."""

    __signature__ = "not a signature"

    def __call__(self, card: ToolCard, param: BaseToolParam) -> Callable[..., str]:
        return _tool("opaque_tool", "opaque")


def test_a_builder_without_a_readable_signature_is_trusted() -> None:
    class OpaqueCard(ToolCard):
        note: bool | Note = True
        _build_note: ClassVar[Any] = _Opaque()

    (tool,) = OpaqueCard().get_tools()
    assert tool() == "opaque"


# --------------------------------------------------------------- explicit table rows


def test_a_row_naming_no_param_class_is_refused() -> None:
    with pytest.raises(TypeError, match="'int'> is not a BaseToolParam subclass"):

        class NotAParam(ToolCard):
            note: bool | Note = True
            capabilities: ClassVar[tuple[Capability, ...]] = (Capability("note", int),)  # type: ignore[arg-type]

            def _build_note(self, param: Note) -> Callable[..., str]:
                return _tool("take_note", "x")


def test_a_row_on_a_plain_field_says_the_field_holds_no_param() -> None:
    with pytest.raises(TypeError, match="but the field holds no param class; type it"):

        class Plain(ToolCard):
            mode: bool = True
            capabilities: ClassVar[tuple[Capability, ...]] = (Capability("mode", Note),)

            def _build_mode(self, param: Note) -> Callable[..., str]:
                return _tool("mode", "x")


def test_a_row_on_another_fields_params_lists_them() -> None:
    with pytest.raises(TypeError, match="but the field holds Note, Other; type it"):

        class Mixed(ToolCard):
            both: bool | Note | Other = True
            capabilities: ClassVar[tuple[Capability, ...]] = (Capability("both", Third),)

            def _build_both(self, param: Third) -> Callable[..., str]:
                return _tool("both", "x")


# ------------------------------------------------------------------ insert_before_args


def _documented() -> Callable[..., None]:
    def tool() -> None:
        """Do it.

        Args:
            x: The x.

        Args:
            y: A second section.
        """

    return tool


def test_without_a_sentence_the_docstring_is_unchanged() -> None:
    tool = _documented()
    before = tool.__doc__
    assert insert_before_args(tool, None).__doc__ == before
    assert insert_before_args(tool, "").__doc__ == before


def test_the_sentence_goes_before_the_first_args_section_only() -> None:
    doc = insert_before_args(_documented(), "At most 5.").__doc__ or ""
    assert doc.count("At most 5.") == 1
    assert doc.index("At most 5.") < doc.index("Args:")


# ----------------------------------------------------------- describe overrides


def test_a_describe_override_is_wrapped_so_that_it_still_flags() -> None:
    class Custom(BaseToolParam):
        def describe(self, fn: Any) -> Any:
            fn.__doc__ = "custom"
            return fn

    def act() -> str:
        return "done"

    described = Custom(requires_approval=True).describe(act)
    assert described.__doc__ == "custom"
    assert described.requires_approval is True
    assert Custom.describe.__name__ == "describe"
    assert Custom().describe(_tool("free", "x")).__dict__.get("requires_approval") is None


def test_an_override_is_wrapped_once_and_inheritors_keep_it() -> None:
    class Custom(BaseToolParam):
        def describe(self, fn: Any) -> Any:
            return fn

    class Child(Custom):
        pass

    class Again(Custom):
        describe = Custom.describe

    assert Child.describe is Custom.describe
    assert Again.describe is Custom.describe
    assert "describe" not in vars(Note)


# ------------------------------------------------------------------ lowerable limits


def test_a_lowerable_limit_defaults_to_its_ceiling_and_stays_within_bounds() -> None:
    class Limits(BaseModel):
        items: int = lowerable(10)
        chars: int = lowerable(100, floor=5)

    assert Limits().items == 10
    assert Limits().chars == 100
    assert Limits(items=1, chars=5).items == 1
    for bad in ({"items": 11}, {"items": 0}, {"chars": 4}, {"chars": 101}):
        with pytest.raises(ValidationError):
            Limits(**bad)


# ------------------------------------------------------------ params and refusals


def test_a_capability_value_of_the_wrong_type_names_that_type() -> None:
    with pytest.raises(TypeError, match="expected bool or Note for this capability, got str"):
        resolve_param("yes", Note)  # type: ignore[arg-type]


def test_instructions_become_the_whole_docstring_of_an_undocumented_tool() -> None:
    def bare() -> None:
        pass

    assert Note(instructions="Use sparingly.").describe(bare).__doc__ == "Use sparingly."


def test_a_refusal_of_exactly_five_problems_names_them_all_and_counts_none() -> None:
    with pytest.raises(RetriableError) as five:
        refuse_problems([f"p{i}" for i in range(5)])
    assert "p4" in str(five.value)
    assert "more" not in str(five.value)
    with pytest.raises(RetriableError, match="; and 1 more"):
        refuse_problems([f"p{i}" for i in range(6)])
