"""The release scripts: pin check and version bump, on a throwaway copy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def _run(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, str(cwd / "scripts" / script), *args], capture_output=True, text=True, cwd=cwd
    )


def test_pins_agree_in_the_workspace() -> None:
    result = _run("check_pins.py", cwd=ROOT)
    assert result.returncode == 0, result.stdout
    assert "pins ok: 13 distributions" in result.stdout


def test_a_stale_pin_is_reported(repo_copy: Path) -> None:
    meta = repo_copy / "meta" / "akgentic-framework" / "pyproject.toml"
    meta.write_text(
        meta.read_text().replace('"akgentic-tool-team==0.1.0"', '"akgentic-tool-team==0.0.9"', 1)
    )
    result = _run("check_pins.py", cwd=repo_copy)
    assert result.returncode == 1
    assert "pins akgentic-tool-team==0.0.9 but the workspace version is 0.1.0" in result.stdout


def test_a_missing_bundle_member_is_reported(repo_copy: Path) -> None:
    meta = repo_copy / "meta" / "akgentic-framework" / "pyproject.toml"
    lines = meta.read_text().splitlines()
    start = lines.index("all = [")
    mcp = lines.index('    "akgentic-tool-mcp==0.1.0",', start)
    del lines[mcp]
    meta.write_text("\n".join(lines))
    result = _run("check_pins.py", cwd=repo_copy)
    assert result.returncode == 1
    assert "akgentic-framework[all] does not include akgentic-tool-mcp" in result.stdout


def test_bump_moves_the_version_and_every_pin(repo_copy: Path) -> None:
    result = _run("bump_version.py", "akgentic-tool-core", "0.2.0", "--no-lock", cwd=repo_copy)
    assert result.returncode == 0, result.stdout + result.stderr
    core = (repo_copy / "packages" / "akgentic-tool-core" / "pyproject.toml").read_text()
    assert 'version = "0.2.0"' in core
    meta = (repo_copy / "meta" / "akgentic-framework" / "pyproject.toml").read_text()
    assert "akgentic-tool-core==0.1.0" not in meta
    assert "akgentic-tool-core[testing]==0.2.0" in meta
    planning = (repo_copy / "packages" / "akgentic-tool-planning" / "pyproject.toml").read_text()
    assert "akgentic-tool-core==0.2.0" in planning
    assert _run("check_pins.py", cwd=repo_copy).returncode == 0


def test_bump_refuses_unknown_distribution_and_bad_version(repo_copy: Path) -> None:
    assert (
        _run("bump_version.py", "akgentic-nope", "1.0", "--no-lock", cwd=repo_copy).returncode == 2
    )
    bad = _run("bump_version.py", "akgentic-llm", "one", "--no-lock", cwd=repo_copy)
    assert bad.returncode == 2
    assert "not a version number" in bad.stdout
