"""The capability table: a card declares each capability once, ToolCard derives its channels.

The cards here are real ``ToolCard`` subclasses whose builders count their calls, so a test
sees which closures were built, not only which came back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from akgentic.core.agent import Akgent
from akgentic.tool import (
    COMMAND,
    SYSTEM_PROMPT,
    TOOL_CALL,
    BaseToolParam,
    Channels,
    ToolCard,
    ToolFactory,
)
from akgentic.tool.core import Capability
from akgentic.tool.core.capability import insert_before_args
from akgentic.tool.core.vector_binding import ConsumerBinding, consumer_settings


class Note(BaseToolParam):
    """Writing a note: tool and command by default."""

    expose: set[Channels] = {TOOL_CALL, COMMAND}
    max_chars: int = 100


class Notes(BaseToolParam):
    """The notes, in the system prompt."""

    expose: set[Channels] = {SYSTEM_PROMPT}


class Erase(BaseToolParam):
    """Erasing the notes (a writing capability)."""


built: Counter[str] = Counter()  # every builder call of the notebooks, by capability


class _NotebookBuilders:
    """The builders both notebooks share: one card declares its rows, the other derives them."""

    def _build_note(self, param: Note) -> Callable[[str], str]:
        built["note"] += 1
        limit = param.max_chars

        def write_note(text: str) -> str:
            """Keep a note."""
            return text[:limit]

        return write_note

    def _build_notes(self, param: Notes) -> Callable[[], str]:
        built["notes"] += 1

        def show_notes() -> str:
            """The notes kept so far."""
            return "no notes"

        return show_notes

    def _build_erase(self, param: Erase) -> Callable[[], str]:
        built["erase"] += 1

        def erase_notes() -> str:
            """Erase every note."""
            return "erased"

        return erase_notes


class Notebook(_NotebookBuilders, ToolCard):
    """A card with an explicit table in its class body."""

    capabilities: ClassVar[tuple[Capability, ...]] = (
        Capability("note", Note),
        Capability("notes", Notes),
        Capability("erase", Erase, writes=True),
    )

    note: bool | Note = True
    notes: bool | Notes = True
    erase: bool | Erase = True
    read_only: bool = False


class DerivedNotebook(_NotebookBuilders, ToolCard):
    """The same card declared by its fields and builders alone."""

    writing_capabilities: ClassVar[frozenset[str]] = frozenset({"erase"})

    note: bool | Note = True
    notes: bool | Notes = True
    erase: bool | Erase = True
    read_only: bool = False


NOTEBOOKS = pytest.mark.parametrize("notebook", [Notebook, DerivedNotebook])


@pytest.fixture(autouse=True)
def _fresh_counts() -> None:
    built.clear()


def _names(fns: Any) -> list[str]:
    return [fn.__name__ for fn in fns]


@NOTEBOOKS
def test_each_capability_is_on_exactly_its_params_channels(notebook: type[Notebook]) -> None:
    card = notebook()
    assert _names(card.get_tools()) == ["write_note", "erase_notes"]
    assert _names(card.get_system_prompts()) == ["show_notes"]
    commands = card.get_commands()
    assert list(commands) == [Note]
    assert commands[Note].__name__ == "write_note"

    moved = notebook(note=Note(expose={COMMAND}), notes=Notes(expose={TOOL_CALL, SYSTEM_PROMPT}))
    assert _names(moved.get_tools()) == ["show_notes", "erase_notes"]
    assert _names(moved.get_system_prompts()) == ["show_notes"]
    assert list(moved.get_commands()) == [Note]


def test_param_fields_reach_the_builder_and_instructions_the_description() -> None:
    card = Notebook(note=Note(max_chars=3, instructions="Keep it short."))
    (write_note, _) = card.get_tools()
    assert write_note("abcdef") == "abc"
    assert (write_note.__doc__ or "").endswith("Keep it short.")


def test_cards_left_on_defaults_do_not_share_what_another_card_configured() -> None:
    # A field set to True reuses one default param per class; a configured card, built
    # before and after, must neither leak into nor borrow from it.
    plain_before = Notebook()
    configured = Notebook(note=Note(max_chars=2, instructions="Be brief."))
    plain_after = Notebook()
    (short, _) = configured.get_tools()
    for card in (plain_before, plain_after):
        (write_note, _) = card.get_tools()
        assert write_note("x" * 150) == "x" * 100
        assert "Be brief." not in (write_note.__doc__ or "")
    assert short("abc") == "ab"
    assert Note().instructions is None
    assert Note().max_chars == 100


@NOTEBOOKS
def test_false_disables_a_capability_everywhere(notebook: type[Notebook]) -> None:
    card = notebook(note=False, notes=False)
    assert _names(card.get_tools()) == ["erase_notes"]
    assert card.get_system_prompts() == []
    assert card.get_commands() == {}
    assert card.capability_param("note") is None
    assert built["note"] == 0
    assert built["notes"] == 0


@NOTEBOOKS
def test_read_only_leaves_writing_rows_out(notebook: type[Notebook]) -> None:
    card = notebook(read_only=True)
    assert _names(card.get_tools()) == ["write_note"]
    assert card.capability_param("erase") is None
    assert built["erase"] == 0
    assert _names(notebook(read_only=False).get_tools()) == ["write_note", "erase_notes"]


@NOTEBOOKS
def test_a_builder_runs_once_per_call_and_never_for_a_channel_it_is_not_on(
    notebook: type[Notebook],
) -> None:
    card = notebook()
    card.get_tools()
    assert built == Counter({"note": 1, "erase": 1})  # notes is a prompt only
    card.get_system_prompts()
    assert built == Counter({"note": 1, "erase": 1, "notes": 1})
    card.get_commands()
    assert built == Counter({"note": 2, "erase": 1, "notes": 1})


def test_requires_approval_gates_the_capability() -> None:
    card = Notebook(erase=Erase(requires_approval=True))
    tools = {fn.__name__: fn for fn in card.get_tools()}
    assert getattr(tools["erase_notes"], "requires_approval", False) is True
    assert not hasattr(tools["write_note"], "requires_approval")
    factory = ToolFactory([Notebook(approval_required={"erase"})])
    gated = {fn.__name__: getattr(fn, "requires_approval", False) for fn in factory.get_tools()}
    assert gated == {"write_note": False, "erase_notes": True}


class _Shared(BaseToolParam):
    """A capability whose builder takes the card's shared context."""


class Pooled(ToolCard):
    """A card whose builders share something costly: the context is made once per call."""

    capabilities: ClassVar[tuple[Capability, ...]] = (
        Capability("first", _Shared),
        Capability("second", _Shared),
    )
    contexts: ClassVar[list[str]] = []

    first: bool | _Shared = True
    second: bool | _Shared = True

    def _capability_context(self) -> str:
        Pooled.contexts.append("opened")
        return "pool"

    def _build_first(self, param: _Shared, pool: str) -> Callable[[], str]:
        def first() -> str:
            """The first."""
            return pool

        return first

    def _build_second(self, param: _Shared, pool: str) -> Callable[[], str]:
        def second() -> str:
            """The second."""
            return pool

        return second

    def _build_second_command(self, param: _Shared, pool: str) -> Callable[[], str]:
        def second_command() -> str:
            """The second, as a command."""
            return pool.upper()

        return second_command


def test_the_context_is_made_once_per_call_and_only_when_something_is_built() -> None:
    Pooled.contexts.clear()
    assert [fn() for fn in Pooled().get_tools()] == ["pool", "pool"]
    assert Pooled.contexts == ["opened"]
    assert Pooled(first=False, second=False).get_tools() == []
    assert Pooled().get_system_prompts() == []
    assert Pooled.contexts == ["opened"]


def test_a_command_builder_replaces_the_tool_builder_on_the_command_channel() -> None:
    card = Pooled(second=_Shared(expose={TOOL_CALL, COMMAND}))
    assert _names(card.get_tools()) == ["first", "second"]
    assert card.get_commands()[_Shared]() == "POOL"


def test_a_row_naming_a_missing_field_fails_at_class_definition() -> None:
    with pytest.raises(TypeError, match=r"Broken\.capabilities row 'nope'.*no field 'nope'"):

        class Broken(ToolCard):
            capabilities: ClassVar[tuple[Capability, ...]] = (Capability("nope", Note),)

            def _build_nope(self, param: Note) -> Callable[[], str]:
                raise AssertionError("never built")


def test_a_param_class_mismatch_fails_at_class_definition() -> None:
    with pytest.raises(TypeError, match=r"Mismatched\.capabilities row 'note'.*names Notes"):

        class Mismatched(ToolCard):
            capabilities: ClassVar[tuple[Capability, ...]] = (Capability("note", Notes),)
            note: bool | Note = True

            def _build_note(self, param: Notes) -> Callable[[], str]:
                raise AssertionError("never built")


def test_a_missing_builder_or_a_wrong_signature_fails_at_class_definition() -> None:
    with pytest.raises(TypeError, match=r"NoBuilder\.capabilities row 'note'.*_build_note"):

        class NoBuilder(ToolCard):
            capabilities: ClassVar[tuple[Capability, ...]] = (Capability("note", Note),)
            note: bool | Note = True

    with pytest.raises(TypeError, match=r"TwoArgs\.capabilities row 'note'.*\(self, param\)"):

        class TwoArgs(ToolCard):
            capabilities: ClassVar[tuple[Capability, ...]] = (Capability("note", Note),)
            note: bool | Note = True

            def _build_note(self, param: Note, extra: str) -> Callable[[], str]:
                raise AssertionError("never built")


def test_writes_needs_a_read_only_field() -> None:
    with pytest.raises(TypeError, match=r"Loose\.capabilities row 'erase'.*read_only"):

        class Loose(ToolCard):
            capabilities: ClassVar[tuple[Capability, ...]] = (
                Capability("erase", Erase, writes=True),
            )
            erase: bool | Erase = True

            def _build_erase(self, param: Erase) -> Callable[[], str]:
                raise AssertionError("never built")


def test_a_subclass_inherits_the_rows_and_its_overridden_builders() -> None:
    class Louder(Notebook):
        def _build_notes(self, param: Notes) -> Callable[[], str]:
            def show_notes() -> str:
                """Loud notes."""
                return "NO NOTES"

            return show_notes

    (prompt,) = Louder().get_system_prompts()
    assert prompt() == "NO NOTES"
    assert Louder.capabilities == Notebook.capabilities


class Extra(BaseToolParam):
    """A capability a subclass adds."""


class _ExtraBuilder:
    def _build_extra(self, param: Extra) -> Callable[[], str]:
        def extra() -> str:
            """The added capability."""
            return "extra"

        return extra


def test_derived_rows_equal_the_explicit_table_of_the_same_card() -> None:
    assert DerivedNotebook.capabilities == Notebook.capabilities
    assert DerivedNotebook.capabilities == (
        Capability("note", Note),
        Capability("notes", Notes),
        Capability("erase", Erase, writes=True),
    )


def test_rows_follow_field_order_and_only_bool_or_one_param_fields_are_capabilities() -> None:
    class Mixed(_NotebookBuilders, ToolCard):
        size: int = 3
        erase: bool | Erase = True
        label: str | None = None
        maybe: Note | None = None  # a param without a bool: not a switch
        either: bool | Note | Notes = False  # two params: not one capability
        vector_store: bool | str = False
        note: bool | Note = True

    assert Mixed.capabilities == (Capability("erase", Erase), Capability("note", Note))
    assert _names(Mixed().get_tools()) == ["erase_notes", "write_note"]
    assert Mixed().get_system_prompts() == []  # the builder of notes has no field here


def test_a_capability_field_without_a_builder_fails_at_class_definition() -> None:
    with pytest.raises(TypeError, match=r"Half field 'extra'.*no builder method _build_extra"):

        class Half(_NotebookBuilders, ToolCard):
            note: bool | Note = True
            extra: bool | Extra = True


def test_a_card_without_any_builder_keeps_its_hand_written_methods() -> None:
    # The style before the table: param fields read by an overridden get_tools.
    class ByHand(ToolCard):
        note: bool | Note = True

        def get_tools(self) -> list[Callable[..., Any]]:
            return [len] if self.note else []

    assert ByHand.capabilities == ()
    assert ByHand().get_tools() == [len]
    assert ByHand().get_commands() == {}  # Note is a command by default: no row made one


def test_writing_names_must_be_derived_capabilities_of_a_card_with_read_only() -> None:
    with pytest.raises(TypeError, match=r"Typo\.writing_capabilities names 'erse'"):

        class Typo(_NotebookBuilders, ToolCard):
            writing_capabilities: ClassVar[frozenset[str]] = frozenset({"erse"})
            erase: bool | Erase = True
            read_only: bool = False

    with pytest.raises(TypeError, match=r"Loose\.writing_capabilities needs a read_only field"):

        class Loose(_NotebookBuilders, ToolCard):
            writing_capabilities: ClassVar[frozenset[str]] = frozenset({"erase"})
            erase: bool | Erase = True

    with pytest.raises(TypeError, match=r"Spelled\.writing_capabilities is the string 'erase'"):

        class Spelled(_NotebookBuilders, ToolCard):
            writing_capabilities = "erase"  # type: ignore[assignment]
            erase: bool | Erase = True
            read_only: bool = False

    with pytest.raises(TypeError, match=r"Unmarked\.writing_capabilities names 'erase'"):

        class Unmarked(_NotebookBuilders, ToolCard):  # the row should say writes=True
            capabilities: ClassVar[tuple[Capability, ...]] = (Capability("erase", Erase),)
            writing_capabilities: ClassVar[frozenset[str]] = frozenset({"erase"})
            erase: bool | Erase = True
            read_only: bool = False


def test_an_explicit_table_wins_over_the_fields() -> None:
    class Chosen(_NotebookBuilders, ToolCard):
        capabilities: ClassVar[tuple[Capability, ...]] = (
            Capability("notes", Notes, writes=True),
            Capability("note", Note),
        )
        note: bool | Note = True
        notes: bool | Notes = True
        erase: bool | Erase = True  # has a builder, but the table leaves it out
        read_only: bool = False

    assert Chosen.capabilities == (Capability("notes", Notes, True), Capability("note", Note))
    card = Chosen(notes=Notes(expose={TOOL_CALL}))
    assert _names(card.get_tools()) == ["show_notes", "write_note"]
    assert _names(Chosen(read_only=True, notes=Notes(expose={TOOL_CALL})).get_tools()) == [
        "write_note"
    ]


def test_a_subclass_that_declares_nothing_derives_from_all_its_fields() -> None:
    class Extended(_ExtraBuilder, DerivedNotebook):
        extra: bool | Extra = True

    assert [row.field for row in Extended.capabilities] == ["note", "notes", "erase", "extra"]
    assert _names(Extended().get_tools()) == ["write_note", "erase_notes", "extra"]
    # the writing names are inherited: read_only still leaves erase out, and only erase
    assert _names(Extended(read_only=True).get_tools()) == ["write_note", "extra"]


def test_a_subclass_of_an_explicit_table_keeps_its_rows_and_derives_its_new_fields() -> None:
    class Picked(_NotebookBuilders, ToolCard):
        capabilities: ClassVar[tuple[Capability, ...]] = (Capability("note", Note),)
        note: bool | Note = True
        erase: bool | Erase = True  # left out by the table

    class PickedPlus(_ExtraBuilder, Picked):
        extra: bool | Extra = True

    assert PickedPlus.capabilities == (Capability("note", Note), Capability("extra", Extra))
    assert _names(PickedPlus().get_tools()) == ["write_note", "extra"]
    assert Picked.capabilities == (Capability("note", Note),)  # the parent is left as it was


def test_a_subclass_may_declare_its_own_table_over_derived_rows() -> None:
    class EraserOnly(DerivedNotebook):  # inherits writing_capabilities; its row agrees
        capabilities: ClassVar[tuple[Capability, ...]] = (Capability("erase", Erase, writes=True),)

    assert _names(EraserOnly().get_tools()) == ["erase_notes"]
    assert EraserOnly(read_only=True).get_tools() == []


def test_insert_before_args_adds_a_paragraph_before_the_arguments() -> None:
    def tool(x: int) -> int:
        """Do it.

        Args:
            x: A number.
        """
        return x

    insert_before_args(tool, "This team allows 3.")
    assert (tool.__doc__ or "").split("\n\n")[1].strip() == "This team allows 3."
    assert insert_before_args(tool, None) is tool


def test_a_consumer_binding_refuses_to_ask_before_it_is_bound() -> None:
    binding: ConsumerBinding[Any] = ConsumerBinding(
        "GlossaryTool", Akgent, what="The glossary", collection="glossary"
    )
    with pytest.raises(RuntimeError, match="GlossaryTool is not bound"):
        binding.ask(lambda actor: actor)

    class Consumer(ToolCard):
        vector_store: bool | str = False
        collection: str = "glossary"
        search_top_k: int = 3
        search_score_threshold: float = 0.4

    assert consumer_settings(Consumer()) == {
        "vector_store": False,
        "collection": "glossary",
        "search_top_k": 3,
        "search_score_threshold": 0.4,
    }
