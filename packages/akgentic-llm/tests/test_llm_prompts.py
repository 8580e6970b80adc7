"""PromptTemplate and the two ready-made dynamic system prompts."""

from __future__ import annotations

import re

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


def test_literal_braces_and_round_trip() -> None:
    tpl = PromptTemplate(template='Answer as {{"key": "{value}"}}', params={"value": "v"})
    assert tpl.render() == 'Answer as {"key": "v"}'
    assert PromptTemplate.model_validate_json(tpl.model_dump_json()) == tpl


def test_datetime_prompt_states_the_current_time() -> None:
    text = current_datetime_prompt()
    assert text.startswith("The current date and time is ")
    assert re.search(r"\d{4}, \d{2}:\d{2}:\d{2}", text)


def test_json_reminder() -> None:
    assert "JSON" in json_output_reminder_prompt()
