"""The README's example runs as written (with its Reminder class made importable)."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_example_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    reminder_block, example = _blocks()[0], _blocks()[1]
    namespace: dict[str, object] = {}
    exec(
        reminder_block.replace('NotificationTool(message_class="my_app.messages.Reminder")', ""),
        namespace,
    )
    package, messages = types.ModuleType("my_app"), types.ModuleType("my_app.messages")
    reminder = namespace["Reminder"]
    reminder.__module__ = "my_app.messages"  # type: ignore[attr-defined]
    messages.Reminder = reminder  # type: ignore[attr-defined]
    package.messages = messages  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "my_app", package)
    monkeypatch.setitem(sys.modules, "my_app.messages", messages)

    exec(example, {})
    out = capsys.readouterr().out
    assert "Scheduled notification" in out
    assert "@Builder in" in out
    assert "[('check CI', 'notification', '#NotificationTool')]" in out
