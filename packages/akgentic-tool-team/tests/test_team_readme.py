"""The README's example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    example = re.search(r"## Example.*?```python\n(.*?)```", README.read_text(), flags=re.S)
    assert example is not None
    exec(example.group(1), {})
    out = capsys.readouterr().out
    assert "## Profiles you can hire\n- Developer: Writes and tests code." in out
    assert "Hired @Developer (Developer)." in out
    assert "members=[]" in out
    assert "Fired @Developer." in out
