"""Stand-ins the approval tests hand to the gate: a tool call as the gate reads it (an id, a
tool name and arguments) and a clock the test moves by hand."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


class Call:
    def __init__(self, call_id: str, tool_name: str, args: dict[str, Any]) -> None:
        self.call_id, self.tool_name, self.args = call_id, tool_name, args


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now
