"""Prompt helpers: config-time templates and two ready-made dynamic system prompts."""

from __future__ import annotations

import string
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DEFAULT_TEMPLATE",
    "PromptTemplate",
    "current_datetime_prompt",
    "json_output_reminder_prompt",
]

DEFAULT_TEMPLATE = "You are a useful assistant"
"""The template of a ``PromptTemplate()`` built without one (the predecessor's default)."""


class PromptTemplate(BaseModel):
    """A ``{placeholder}`` template and the values to fill it with.

    Rendering uses ``str.format`` rules: ``{{`` and ``}}`` produce literal braces. A placeholder
    without a value is an error that names it, never a silently unrendered ``{name}``.

    ``PromptTemplate()`` with no argument is a generic assistant prompt (``DEFAULT_TEMPLATE``),
    so configurations that hold a template field can default it (``AgentConfig()`` in
    akgentic-agent does).
    """

    model_config = ConfigDict(extra="forbid")

    template: str = DEFAULT_TEMPLATE
    params: dict[str, str] = Field(default_factory=dict)

    @property
    def placeholders(self) -> list[str]:
        """Names of the placeholders in the template, in order of first appearance."""
        names: list[str] = []
        for _, field_name, _, _ in string.Formatter().parse(self.template):
            if field_name is not None and field_name not in names:
                names.append(field_name)
        return names

    def render(self, **overrides: str) -> str:
        """The template with every placeholder replaced (``overrides`` win over ``params``)."""
        values = {**self.params, **overrides}
        missing = [name for name in self.placeholders if name not in values]
        if missing:
            raise ValueError(
                f"PromptTemplate has no value for placeholder(s) {', '.join(missing)}; "
                "add them to params"
            )
        return self.template.format_map(values)


def current_datetime_prompt(ctx: Any = None) -> str:
    """Dynamic system prompt stating the current local date and time, with its UTC offset.

    ``ctx`` (the run's ``RunContext`` when registered with ``system_prompt``) is not read; it
    is accepted so the function can be called as ``current_datetime_prompt(ctx)`` as well.
    """
    del ctx
    now = datetime.now().astimezone()
    return f"The current date and time is {now.strftime('%A %d %B %Y, %H:%M:%S %Z (UTC%z)')}."


def json_output_reminder_prompt(ctx: Any = None) -> str:
    """Dynamic system prompt reminding the model to answer with JSON only (``ctx`` unused)."""
    del ctx
    return (
        "Reply with a single valid JSON value that matches the requested schema, and nothing "
        "else: no prose before or after it and no Markdown code fences."
    )
