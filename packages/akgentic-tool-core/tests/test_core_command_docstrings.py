"""How a command is described to UIs and other agents: summary and argument docs read from
the docstring, argument types and defaults read from the signature, and the tool card a
command is announced under."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from akgentic.tool.core import CommandDescriptor, CommandRegistry
from akgentic.tool.core.commands import describe_command

if TYPE_CHECKING:
    from decimal import Decimal

Speed = Literal["fast", "slow"]


def describe(fn: Callable[..., Any]) -> CommandDescriptor:
    """The descriptor of ``fn`` as a registry announces it."""
    (descriptor,) = CommandRegistry([fn]).descriptors()
    return descriptor


def arg_docs(fn: Callable[..., Any]) -> dict[str, str | None]:
    """Each argument's description, by argument name."""
    return {arg.name: arg.description for arg in describe(fn).args}


# --- summary -----------------------------------------------------------------------------


def test_a_summary_spread_over_lines_is_joined_with_single_spaces() -> None:
    def remind(text: str) -> None:
        """Schedule a reminder
        for yourself,
        later on.
        """

    assert describe(remind).description == "Schedule a reminder for yourself, later on."


def test_only_the_first_paragraph_is_the_summary() -> None:
    def remind(text: str) -> None:
        """Schedule a reminder.

        The reminder arrives as a message
        from yourself.

        Args:
            text: What it says.
        """

    assert describe(remind).description == "Schedule a reminder."


def test_a_command_without_docstring_has_an_empty_description() -> None:
    def beep(times: int) -> None:
        pass

    described = describe(beep)
    assert described.description == ""
    assert described.args[0].description is None


# --- the Args section --------------------------------------------------------------------


def test_arguments_and_parameters_headers_open_the_argument_section() -> None:
    def with_arguments(text: str) -> None:
        """Send.

        Arguments:
            text: The words to send.
        """

    def with_parameters(text: str) -> None:
        """Send.

        Parameters:
            text: The words to send.
        """

    assert arg_docs(with_arguments) == {"text": "The words to send."}
    assert arg_docs(with_parameters) == {"text": "The words to send."}


def test_a_description_continued_on_following_lines_is_joined() -> None:
    def wait(delay: int, label: str = "") -> None:
        """Wait.

        Args:
            delay: How long to wait before the message
                is sent, in
                seconds
            label: A name for the wait.
        """

    assert arg_docs(wait) == {
        "delay": "How long to wait before the message is sent, in seconds",
        "label": "A name for the wait.",
    }


def test_a_description_ending_with_a_colon_does_not_end_the_section() -> None:
    def pick(tags: str, mode: str) -> None:
        """Pick.

        Args:
            tags: Comma-separated labels, such as:
                red,green
            mode: How to pick.
        """

    assert arg_docs(pick) == {
        "tags": "Comma-separated labels, such as: red,green",
        "mode": "How to pick.",
    }


def test_a_colon_inside_a_description_is_kept() -> None:
    def alarm(at: str, note: str) -> None:
        """Ring.

        Args:
            at: Time of day as HH:MM.
            note: Shown with the alarm.
        """

    assert arg_docs(alarm) == {"at": "Time of day as HH:MM.", "note": "Shown with the alarm."}


def test_typed_argument_lines_give_the_bare_argument_name() -> None:
    def pick(mode: str, count: int, tags: list[str]) -> None:
        """Pick.

        Args:
            mode (str): How to pick.
            count(int): How many.
            tags (list[str], optional): Labels.
        """

    assert arg_docs(pick) == {"mode": "How to pick.", "count": "How many.", "tags": "Labels."}


def test_a_following_section_ends_the_argument_descriptions() -> None:
    def count(text: str) -> int:
        """Count words.

        Args:
            text: The words to count.

        Returns:
            How many words there are.
        """
        return len(text.split())

    described = describe(count)
    assert described.description == "Count words."
    assert arg_docs(count) == {"text": "The words to count."}


def test_text_before_the_first_argument_is_ignored() -> None:
    def send(to: str) -> None:
        """Send.

        Args:
            All of them are plain text.
            to: The recipient.
        """

    assert arg_docs(send) == {"to": "The recipient."}


# --- types, defaults, kinds --------------------------------------------------------------


def test_argument_types_are_rendered_readably() -> None:
    def shape(
        plain,  # unannotated: described as Any
        count: int,
        tags: list[str],
        speed: Speed,
        ratio: float | None = None,
    ) -> None:
        """Shape."""

    types = {arg.name: arg.type for arg in describe(shape).args}
    assert types == {
        "plain": "Any",
        "count": "int",
        "tags": "list[str]",
        "speed": "Literal['fast', 'slow']",
        "ratio": "float | None",
    }


def test_required_arguments_have_no_default_and_optional_ones_keep_theirs() -> None:
    def wait(delay: int, label: str = "later", loud: bool = True) -> None:
        """Wait."""

    args = {arg.name: arg for arg in describe(wait).args}
    assert args["delay"].required is True
    assert args["delay"].default is None
    assert (args["label"].required, args["label"].default) == (False, "later")
    assert (args["loud"].required, args["loud"].default) == (False, True)
    # the descriptor travels as JSON to UIs: a required argument's default must serialise
    assert describe(wait).model_dump(mode="json")["args"][0]["default"] is None


def test_arguments_after_star_args_are_described_and_star_args_are_not() -> None:
    def log(*lines: str, level: str = "info", **extra: str) -> None:
        """Log lines."""

    assert [(arg.name, arg.required) for arg in describe(log).args] == [("level", False)]


def test_a_command_with_an_unresolvable_annotation_is_still_described() -> None:
    def price(item: str, amount: Decimal | None = None) -> None:
        """Set a price.

        Args:
            item: What to price.
        """

    described = describe(price)
    assert described.description == "Set a price."
    assert [(arg.name, arg.type, arg.required) for arg in described.args] == [
        ("item", "str", True),
        ("amount", "Decimal | None", False),
    ]
    assert described.args[0].description == "What to price."


def test_a_callable_object_is_described_from_its_call_signature() -> None:
    class Echo:
        """Repeat what you are told."""

        def __call__(self, text, times=1):  # no annotations at all
            return text * times

    described = describe_command("echo", Echo())
    assert described.description == "Repeat what you are told."
    assert [(arg.name, arg.type, arg.required) for arg in described.args] == [
        ("text", "Any", True),
        ("times", "Any", False),
    ]


# --- tool card ---------------------------------------------------------------------------


def test_a_plain_function_is_announced_under_its_module() -> None:
    def beep() -> None:
        """Beep."""

    assert describe_command("beep", beep).tool_card == __name__
    assert describe(beep).tool_card == __name__


def test_a_bound_method_is_announced_under_its_class() -> None:
    class Bell:
        def ring(self) -> None:
            """Ring the bell."""

    assert describe_command("ring", Bell().ring).tool_card == "Bell"
    assert CommandRegistry([Bell().ring]).descriptors()[0].tool_card == "Bell"


def test_an_explicit_tool_card_wins() -> None:
    class Bell:
        def ring(self) -> None:
            """Ring the bell."""

    assert describe_command("ring", Bell().ring, tool_card="Doorbell").tool_card == "Doorbell"
    registry = CommandRegistry()
    registry.register(Bell().ring, tool_card="Doorbell")
    assert registry.descriptors()[0].tool_card == "Doorbell"


def test_a_function_without_module_is_announced_under_commands() -> None:
    def beep() -> None:
        """Beep."""

    beep.__module__ = None  # type: ignore[assignment]
    assert describe_command("beep", beep).tool_card == "commands"
