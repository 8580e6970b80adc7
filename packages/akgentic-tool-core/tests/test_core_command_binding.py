"""How a `/`-command line reaches a command: names, argument binding and conversion,
rest-of-line commands, the errors a user gets back, and how results are rendered as text."""

from __future__ import annotations

import json
import typing
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pytest

from akgentic.tool.core import CommandNotRecognized, CommandRegistry, RetriableError
from akgentic.tool.core.commands import render_result, rest_of_line

if TYPE_CHECKING:
    from fractions import Fraction


def pick(
    mode: Literal["fast", "slow"], ratio: float | None = None, tags: list[str] | None = None
) -> str:
    """Pick a mode."""
    return f"{mode}:{ratio}:{tags}"


def schedule(content: str, delay: int) -> str:
    """Schedule a message."""
    return f"{content}@{delay}"


def find(query: str, limit: int = 10) -> str:
    """Search."""
    return f"{query}|{limit}"


def greet(name: str, greeting: str = "hello") -> str:
    """Greet someone."""
    return f"{greeting}, {name}"


def label(key, value=""):  # unannotated on purpose: taken as text
    """Set a label."""
    return f"{key}={value}"


def forget() -> None:
    """Forget everything."""


@rest_of_line
def snooze(count: int, reason: str) -> str:
    """Snooze some reminders, with a free-text reason."""
    return f"{count!r}|{reason!r}"


@rest_of_line
def move(row: int, col: int, text: str) -> str:
    """Write text at a cell."""
    return f"{row!r}|{col!r}|{text!r}"


@rest_of_line
def deny(call_id: str, reason: str | None = None) -> str:
    """Deny a call."""
    return f"{call_id}|{reason!r}"


@rest_of_line
def note(tag, text: str) -> str:  # tag unannotated on purpose: taken as text
    """Write a note under a tag."""
    return f"{tag!r}|{text!r}"


def typed(
    flag: bool = False,
    either: int | bool = 0,
    first_none: None | int = 7,  # noqa: RUF036 - None first on purpose
    counts: list[int] | None = None,
    old_style: typing.List | None = None,  # noqa: UP006 - the unparameterised alias
    bare: list | None = None,  # type: ignore[type-arg]
    where: Path | None = None,
    amount: Decimal | None = None,
    table: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Echo what the typed arguments became."""
    return {
        "flag": flag,
        "either": either,
        "first_none": first_none,
        "counts": counts,
        "old_style": old_style,
        "bare": bare,
        "where": where,
        "amount": amount,
        "table": table,
    }


@pytest.fixture
def registry() -> CommandRegistry:
    return CommandRegistry(
        [pick, schedule, find, greet, label, forget, snooze, move, deny, note, typed]
    )


def retriable(registry: CommandRegistry, line: str) -> str:
    """The message of the RetriableError ``line`` raises."""
    with pytest.raises(RetriableError) as caught:
        registry.execute(line)
    return str(caught.value)


# --- names -------------------------------------------------------------------------------


def test_only_a_leading_slash_is_taken_off_a_command_name() -> None:
    registry = CommandRegistry()
    registry.register(schedule, "/Xmas_card")
    assert registry.names() == ["Xmas_card"]
    assert registry.has("/Xmas_card")
    assert "Xmas_card" in registry
    assert registry.get("/Xmas_card") is schedule
    assert registry.execute('/Xmas_card "ho ho" 3') == "ho ho@3"
    assert registry.dispatch('/Xmas_card "ho ho" 3') == "ho ho@3"


def test_errors_name_the_command_as_typed_without_its_slash() -> None:
    registry = CommandRegistry([("Xfer", schedule), ("Xsnooze", snooze)])
    assert retriable(registry, "/Xfer a b").startswith("/Xfer: argument delay='b' is invalid")
    assert retriable(registry, "/Xsnooze soon x").startswith(
        "/Xsnooze: argument count='soon' is invalid"
    )
    assert registry.dispatch("/Xfer a").startswith("/Xfer failed: /Xfer: missing")


def test_unknown_commands_list_the_known_ones(registry: CommandRegistry) -> None:
    small = CommandRegistry([greet, find])
    with pytest.raises(CommandNotRecognized) as caught:
        small.get("nope")
    assert "available commands: find, greet" in str(caught.value)
    with pytest.raises(CommandNotRecognized) as caught:
        small.dispatch("/nope 1")
    assert "unknown command '/nope'; available commands: find, greet" in str(caught.value)


def test_an_empty_registry_says_there_are_no_commands() -> None:
    empty = CommandRegistry()
    with pytest.raises(CommandNotRecognized) as caught:
        empty.get("nope")
    assert str(caught.value).endswith("available commands: none")
    with pytest.raises(CommandNotRecognized) as caught:
        empty.dispatch("/nope")
    assert str(caught.value).endswith("available commands: none")


def test_an_empty_line_is_reported_as_such(registry: CommandRegistry) -> None:
    with pytest.raises(CommandNotRecognized) as caught:
        registry.execute("   ")
    assert str(caught.value) == "empty command line"
    with pytest.raises(CommandNotRecognized) as caught:
        registry.dispatch("  ")
    assert str(caught.value) == "empty command line"


def test_dispatch_refuses_an_unknown_command_even_when_the_line_does_not_parse(
    registry: CommandRegistry,
) -> None:
    with pytest.raises(CommandNotRecognized, match="unknown command '/nope'"):
        registry.dispatch('/nope "unterminated')


def test_call_passes_keyword_arguments(registry: CommandRegistry) -> None:
    assert registry.call("greet", "Ada", greeting="hi") == "hi, Ada"


# --- binding tokens ----------------------------------------------------------------------


def test_a_keyword_value_may_contain_an_equals_sign(registry: CommandRegistry) -> None:
    assert registry.execute("/find query=a=b limit=2") == "a=b|2"


def test_a_positional_value_that_looks_like_a_keyword_is_taken_as_a_value(
    registry: CommandRegistry,
) -> None:
    assert registry.execute("/greet greeting") == "hello, greeting"
    assert registry.execute("/find x=1") == "x=1|10"


def test_unannotated_arguments_are_taken_as_text(registry: CommandRegistry) -> None:
    assert registry.execute("/label colour value=red") == "colour=red"
    assert registry.execute("/label colour blue") == "colour=blue"


def test_argument_errors_start_with_the_command_name(registry: CommandRegistry) -> None:
    assert retriable(registry, "/pick medium").startswith("/pick: argument mode='medium'")
    assert retriable(registry, "/pick fast ratio=abc").startswith("/pick: argument ratio='abc'")
    assert retriable(registry, "pick").startswith("/pick: missing required argument(s): mode")


def test_all_missing_arguments_are_listed(registry: CommandRegistry) -> None:
    assert "missing required argument(s): content, delay" in retriable(registry, "/schedule")


def test_too_many_arguments_lists_what_the_command_takes(registry: CommandRegistry) -> None:
    assert "takes at most 2 argument(s): query, limit" in retriable(registry, "/find a 1 extra")


def test_a_positional_after_a_keyword_says_how_to_fix_it(registry: CommandRegistry) -> None:
    assert retriable(registry, "/find limit=2 query").endswith("; put positional values first")


# --- converting values -------------------------------------------------------------------


def test_none_and_null_give_none_for_optional_arguments(registry: CommandRegistry) -> None:
    assert registry.execute("/pick fast ratio=null") == "fast:None:None"
    assert registry.execute("/pick fast ratio=NULL tags=None") == "fast:None:None"


def test_an_optional_written_none_first_still_converts_values(registry: CommandRegistry) -> None:
    assert registry.execute("/typed first_none=5")["first_none"] == 5
    assert registry.execute("/typed first_none=none")["first_none"] is None


def test_list_items_are_converted_to_the_item_type(registry: CommandRegistry) -> None:
    assert registry.execute("/typed counts=1,2,,3")["counts"] == [1, 2, 3]
    assert registry.execute("/typed old_style=a,b")["old_style"] == ["a", "b"]


def test_a_bare_list_annotation_splits_on_commas(registry: CommandRegistry) -> None:
    assert registry.execute("/typed bare=a,b")["bare"] == ["a", "b"]


def test_classes_convert_from_the_text(registry: CommandRegistry) -> None:
    result = registry.execute("/typed where=notes/a.md amount=1.50")
    assert result["where"] == Path("notes/a.md")
    assert result["amount"] == Decimal("1.50")


def test_a_bad_value_error_says_what_was_expected(registry: CommandRegistry) -> None:
    message = retriable(registry, "/typed flag=maybe")
    assert message.startswith("/typed: argument flag='maybe' is invalid")
    assert "expected true or false, got 'maybe'" in message
    assert "expected one of ('fast', 'slow')" in retriable(registry, "/pick medium")


def test_a_union_error_gives_every_reason(registry: CommandRegistry) -> None:
    message = retriable(registry, "/typed either=x")
    assert "invalid literal for int() with base 10: 'x'; expected true or false" in message


def test_a_type_that_cannot_come_from_text_is_reported(registry: CommandRegistry) -> None:
    assert "cannot convert text to dict[str, int]" in retriable(registry, "/typed table=a")


# --- rest-of-line commands ---------------------------------------------------------------


def test_rest_of_line_converts_leading_words_and_keeps_the_rest_whole(
    registry: CommandRegistry,
) -> None:
    assert registry.execute("/snooze 5 not   today, it's late  ") == '5|"not   today, it\'s late"'
    assert registry.execute("/move 1 2 a big box") == "1|2|'a big box'"


def test_rest_of_line_keeps_the_last_argument_verbatim(registry: CommandRegistry) -> None:
    assert registry.execute("/deny c1 none") == "c1|'none'"
    assert registry.execute("/deny c1") == "c1|None"


def test_rest_of_line_takes_unannotated_leading_words_as_text(registry: CommandRegistry) -> None:
    assert registry.execute("/note 42 buy milk") == "'42'|'buy milk'"


def test_rest_of_line_errors_name_the_command_and_argument(registry: CommandRegistry) -> None:
    assert retriable(registry, "/snooze soon tomorrow").startswith(
        "/snooze: argument count='soon' is invalid"
    )
    assert retriable(registry, "/snooze").startswith(
        "/snooze: missing required argument(s): count, reason"
    )


# --- dispatch and rendering --------------------------------------------------------------


def test_dispatch_confirms_a_command_that_returns_nothing(registry: CommandRegistry) -> None:
    assert registry.dispatch("/forget") == "/forget done."


def test_dispatch_renders_structured_results_as_indented_json(
    registry: CommandRegistry,
) -> None:
    answer = registry.dispatch("/typed flag=yes counts=1,2")
    assert answer.startswith('{\n  "flag": true,\n  "either": 0,')
    assert json.loads(answer)["counts"] == [1, 2]


def test_render_result_formats_each_kind_of_value() -> None:
    assert render_result("x", "text") == "text"
    assert render_result("x", None) == "/x done."
    assert render_result("x", {"a": [1, 2]}) == '{\n  "a": [\n    1,\n    2\n  ]\n}'
    assert render_result("x", 42) == "42"
    assert render_result("x", Decimal("1.5")) == "1.5"


# --- commands whose annotations cannot all be resolved -----------------------------------


def test_a_callable_object_without_annotations_runs_as_a_command() -> None:
    class Shout:
        def __call__(self, text, times="1"):  # no annotations: every value is text
            return text.upper() * int(times)

    registry = CommandRegistry([("shout", Shout())])
    assert registry.execute("/shout hey times=2") == "HEYHEY"
    assert registry.descriptors()[0].args[0].type == "Any"


def test_a_command_with_an_unresolvable_annotation_still_binds_unannotated_text() -> None:
    def share(owner, part: Fraction | None = None) -> str:  # owner unannotated on purpose
        """Share something."""
        return f"{owner}:{part}"

    registry = CommandRegistry([share])
    assert registry.execute("/share ada") == "ada:None"
    assert registry.descriptors()[0].args[1].type == "Fraction | None"


def test_an_unresolvable_annotation_does_not_break_the_other_typed_arguments() -> None:
    def share(owner: str, times: int, part: Fraction | None = None) -> str:
        """Share something."""
        return f"{owner}:{times!r}:{part}"

    assert CommandRegistry([share]).execute("/share ada 3") == "ada:3:None"


def test_a_callable_objects_annotations_convert_its_arguments() -> None:
    class Repeat:
        def __call__(self, text: str, times: int = 1) -> str:
            return text * times

    assert CommandRegistry([("repeat", Repeat())]).execute("/repeat ab times=3") == "ababab"


def test_bare_set_and_tuple_annotations_split_on_commas() -> None:
    def pick(tags: set, pair: tuple) -> str:  # type: ignore[type-arg]
        """Pick tags."""
        return f"{sorted(tags)} {pair}"

    assert CommandRegistry([pick]).execute("/pick b,a,b x,y") == "['a', 'b'] ('x', 'y')"
