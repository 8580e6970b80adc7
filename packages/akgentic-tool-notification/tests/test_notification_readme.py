"""The README's example runs as written: the Reminder block, then the team that uses it."""

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
    module = types.ModuleType("akgentic_notification_readme")
    # The README builds the class's dotted path from the module it runs in.
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(reminder_block, module.__dict__)
    assert module.REMINDER == "akgentic_notification_readme.Reminder"  # type: ignore[attr-defined]
    exec(example, module.__dict__)  # the second block continues the first
    out = capsys.readouterr().out
    assert "Scheduled notification" in out
    assert "@Builder in" in out
    assert "[('check CI', 'notification', '#NotificationTool')]" in out
