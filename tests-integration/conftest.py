"""Shared helpers for the cross-package tests."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """A throwaway copy of the workspace's sources, pyprojects and scripts."""
    copy = tmp_path / "repo"
    copy.mkdir()
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    shutil.copytree(
        ROOT / "scripts", copy / "scripts", ignore=shutil.ignore_patterns("__pycache__")
    )
    for pyproject in [*ROOT.glob("packages/*/pyproject.toml"), *ROOT.glob("meta/*/pyproject.toml")]:
        member = pyproject.parent
        target = copy / member.relative_to(ROOT)
        target.mkdir(parents=True)
        shutil.copy(pyproject, target / "pyproject.toml")
        if (member / "src").exists():
            shutil.copytree(
                member / "src", target / "src", ignore=shutil.ignore_patterns("__pycache__")
            )
    return copy
