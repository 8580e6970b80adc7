"""PromptTemplate and the two ready-made dynamic system prompts."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from akgentic.llm import PromptTemplate, current_datetime_prompt, json_output_reminder_prompt


def test_spec_template_example() -> None:
    tpl = PromptTemplate(
        template="You are {role}.\n\nInstructions: {instructions}",
        params={"role": "the Librarian", "instructions": "Extract structured data."},
    )
    assert tpl.render() == "You are the Librarian.\n\nInstructions: Extract structured data."
    assert tpl.placeholders == ["role", "instructions"]


def test_missing_placeholder_is_named() -> None:
    tpl = PromptTemplate(template="Hello {name}, you are {role}.", params={"name": "Ada"})
    with pytest.raises(ValueError, match="role"):
        tpl.render()
    assert tpl.render(role="admin") == "Hello Ada, you are admin."


def test_every_missing_placeholder_is_listed_with_the_fix() -> None:
    tpl = PromptTemplate(template="{greeting} {name}, you are {role} in {team}.")
    with pytest.raises(ValueError) as info:
        tpl.render(name="Ada")
    message = str(info.value)
    assert "greeting, role, team" in message  # all of them, in template order
    assert "add them to params" in message


def test_literal_braces_and_round_trip() -> None:
    tpl = PromptTemplate(template='Answer as {{"key": "{value}"}}', params={"value": "v"})
    assert tpl.render() == 'Answer as {"key": "v"}'
    assert PromptTemplate.model_validate_json(tpl.model_dump_json()) == tpl


_STATED = re.compile(
    r"The current date and time is (?P<weekday>\w+) (?P<day>\d{2}) (?P<month>\w+) "
    r"(?P<year>\d{4}), (?P<time>\d{2}:\d{2}:\d{2}) (?P<zone>.+) \(UTC(?P<offset>[+-]\d{4})\)\."
)


def test_datetime_prompt_states_the_current_time() -> None:
    before = datetime.now().astimezone()
    text = current_datetime_prompt()
    after = datetime.now().astimezone()
    stated = _STATED.fullmatch(text)
    assert stated is not None, text
    moment = datetime.strptime(
        f"{stated['day']} {stated['month']} {stated['year']} {stated['time']} {stated['offset']}",
        "%d %B %Y %H:%M:%S %z",
    )
    # The prompt has whole seconds: the stated moment is the second the call happened in.
    assert before.replace(microsecond=0) <= moment <= after
    assert stated["weekday"] == moment.strftime("%A")
    assert stated["zone"] == moment.astimezone(before.tzinfo).strftime("%Z")


def test_json_reminder() -> None:
    assert "JSON" in json_output_reminder_prompt()
