"""The top README's team of BaseAgents runs as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _team_example() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## A team of BaseAgents", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 1
    return blocks[0]


def test_the_readme_team_example_runs(tmp_path: Path) -> None:
    script = tmp_path / "team.py"
    script.write_text(_team_example())
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=180, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines()[:2] == ["@Lead: Plan written.", "# Plan"]
