"""How the factory names a card's tools when it gates them and when it refuses a card.

Gating goes by a tool's name: the names a card lists in ``approval_required``, and any tool
that already carries ``requires_approval = True``. The names learnt while building the tools
are reused for the card's toolsets, and the errors that refuse a card name the card, the
names at fault and the tools it does offer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from one_call_run import run_one_call
from pydantic_ai import DeferredToolRequests
from pydantic_ai.toolsets import FunctionToolset

from akgentic.tool import ToolCard, ToolFactory


def _deploy(target: str) -> str:
    """Deploy to ``target``."""
    return f"deployed {target}"


def _status() -> str:
    """Report the status."""
    return "all green"


def read_note(path: str) -> str:
    """Read the note at ``path``."""
    return f"note {path}"


def write_note(path: str) -> str:
    """Write the note at ``path``."""
    return f"wrote {path}"


def wipe_notes() -> str:
    """Erase every note."""
    return "wiped"


wipe_notes.requires_approval = True  # type: ignore[attr-defined]


class Remote(ToolCard):
    """One tool of its own and a toolset of remote tools."""

    def get_tools(self) -> list[Callable[..., Any]]:
        def run_local(command: str) -> str:
            """Run ``command`` locally."""
            return f"ran {command}"

        return [run_local]

    def get_toolsets(self) -> list[Any]:
        return [FunctionToolset([_deploy, _status])]


class Notes(ToolCard):
    """Two plain tools."""

    def get_tools(self) -> list[Callable[..., Any]]:
        return [write_note, read_note]


class Wiper(ToolCard):
    """A tool that asks for approval on its own."""

    def get_tools(self) -> list[Callable[..., Any]]:
        return [wipe_notes, read_note]


class Silent(ToolCard):
    """No tools at all."""

    def get_tools(self) -> list[Callable[..., Any]]:
        return []


class Copy(ToolCard):
    """Offers a tool under a name Notes already uses."""

    def get_tools(self) -> list[Callable[..., Any]]:
        return [read_note]


def test_toolsets_built_after_the_tools_reuse_the_tool_names_learnt_then() -> None:
    factory = ToolFactory([Remote(approval_required={"run_local", "_deploy"})])
    factory.get_tools()
    toolsets = factory.get_toolsets()
    # "run_local" is the card's own tool, so the toolset is gated on "_deploy" only and a
    # call to another remote tool runs.
    assert run_one_call(toolsets, "_status") == "all green"
    held = run_one_call(toolsets, "_deploy", {"target": "prod"})
    assert isinstance(held, DeferredToolRequests)
    assert [call.tool_name for call in held.approvals] == ["_deploy"]


def test_a_tool_flagged_as_requiring_approval_is_gated_without_being_listed() -> None:
    factory = ToolFactory([Wiper()])
    tools = {tool.__name__: tool for tool in factory.get_tools()}
    assert getattr(tools["wipe_notes"], "requires_approval", False) is True
    assert getattr(tools["read_note"], "requires_approval", False) is False
    assert factory.approvals.gated_tools == ["wipe_notes"]


def test_an_unknown_gated_name_names_the_card_the_names_and_its_tools() -> None:
    with pytest.raises(ValueError) as info:
        ToolFactory([Notes(approval_required={"write_notes", "erase"})]).get_tools()
    message = str(info.value)
    assert message.startswith("Notes.approval_required names erase, write_notes, which is not")
    assert message.endswith("its tools: read_note, write_note")


def test_an_unknown_gated_name_on_a_card_without_tools_says_it_has_none() -> None:
    with pytest.raises(ValueError, match=r"Silent\.approval_required names x\b.*its tools: none$"):
        ToolFactory([Silent(approval_required={"x"})]).get_tools()


def test_a_name_offered_twice_names_both_cards() -> None:
    with pytest.raises(ValueError) as info:
        ToolFactory([Notes(), Copy()]).get_tools()
    assert "'read_note' is provided by both Notes and Copy;" in str(info.value)
