"""The top README's teams run as written: your first team, and the team of BaseAgents."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _team_example() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## A team of BaseAgents", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 1
    return str(blocks[0])


def test_the_readme_team_example_runs(tmp_path: Path) -> None:
    script = tmp_path / "team.py"
    script.write_text(_team_example())
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=180, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines()[:2] == ["@Lead: Plan written.", "# Plan"]


def _first_team_example() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Your first team", 1)[1].split("\n## ", 1)[0]
    return str(re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)[0])


def test_your_first_team_runs_as_a_script(tmp_path: Path) -> None:
    """Saved as team.py and run, as the guide says: two members answer through their tool."""
    script = tmp_path / "team.py"
    script.write_text(_first_team_example())
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines() == [
        "actor: a unit of concurrency with a mailbox",
        "tone: plain words, short sentences",
    ]


def test_first_team_member_hands_a_retriable_error_back_to_the_model() -> None:
    """The guide's Member passes retry_exception=ModelRetry: a bad call is retried, not fatal."""
    from pydantic_ai.messages import RetryPromptPart

    from akgentic.core import ActorSystem, BaseConfig, Orchestrator
    from akgentic.llm.testing import ScriptedCall, ScriptedModel

    module = types.ModuleType("readme_first_team")
    sys.modules[module.__name__] = module
    exec(_first_team_example(), module.__dict__)
    member_class, card_class = module.Member, module.GlossaryTool
    # A call the tool refuses, then an answer once the refusal is back.
    model = ScriptedModel(ScriptedCall("glossary_lookup", {"prefix": ""}), "retried")

    system = ActorSystem()
    try:
        orchestrator = system.createActor(
            Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        team = system.proxy_ask(orchestrator, Orchestrator)
        address = team.createActor(member_class, config=BaseConfig(name="@M", role="Member"))
        member = system.proxy_ask(address, member_class)
        member.equip([card_class(terms={"a": "b"})], model=model)
        assert member.work("look up nothing") == "retried"
    finally:
        system.shutdown()
    (refused,) = model.tool_results()
    assert isinstance(refused, RetryPromptPart)
    assert "prefix must not be empty" in str(refused.content)
