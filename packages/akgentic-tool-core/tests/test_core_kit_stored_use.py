"""The kit's StoredUseTests: one test per stored model, each on its own team, and a model
that no longer works fails its test (run in a separate pytest, as a package runs it)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

MODULE = textwrap.dedent(
    """
    from typing import Any

    from pydantic import BaseModel

    from akgentic.core.orchestrator import Orchestrator
    from akgentic.tool.core.testing import StoredUseTests


    class Shelf(BaseModel):
        label: str
        count: int = 0


    TEAMS: list[Any] = []


    class TestShelfUse(StoredUseTests):
        stored_models = [Shelf(label="a", count=1), Shelf(label="b", count=BROKEN)]

        def put_to_work(self, model, team):
            assert isinstance(model, Shelf)
            assert team.orchestrator not in TEAMS, "each stored model gets a fresh team"
            TEAMS.append(team.orchestrator)
            assert team.agent.config.name == "@Tester"
            assert team.system.proxy_ask(team.orchestrator, Orchestrator).get_team()
            assert model.count > 0, f"shelf {model.label} holds nothing"
    """
)


def _run(tmp_path: Path, broken: int) -> str:
    (tmp_path / "test_shelf_use.py").write_text(MODULE.replace("BROKEN", str(broken)))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return result.stdout + result.stderr


def test_each_stored_model_is_a_test_of_its_own(tmp_path: Path) -> None:
    output = _run(tmp_path, broken=2)
    assert "2 passed" in output, output


def test_a_model_that_no_longer_works_fails_its_test(tmp_path: Path) -> None:
    output = _run(tmp_path, broken=0)
    assert "1 failed, 1 passed" in output, output
    assert "test_a_stored_model_works[Shelf-1]" in output, output
    assert "shelf b holds nothing" in output, output
