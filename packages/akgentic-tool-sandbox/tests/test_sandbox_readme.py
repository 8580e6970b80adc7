"""The README's blocks run as written, and backend authors get a public ``LaunchSpec``."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_launch_spec_is_public_and_the_old_path_is_the_same_class() -> None:
    import akgentic.tool.sandbox as package
    from akgentic.tool.sandbox._process import LaunchSpec as OldPathLaunchSpec
    from akgentic.tool.sandbox.launch import LaunchSpec

    assert "LaunchSpec" in package.__all__
    assert package.LaunchSpec is LaunchSpec is OldPathLaunchSpec


@pytest.mark.parametrize("index", range(3))
def test_readme_block_runs(
    index: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # the blocks' workspaces land under ./workspaces
    module = types.ModuleType(f"akgentic_sandbox_readme_{index}")
    sys.modules[module.__name__] = module
    namespace: dict[str, Any] = module.__dict__
    exec(_python_blocks()[index], namespace)
    expected = ["hello", "from a command", "19"][index]
    assert f"exit_code: 0\n--- stdout ---\n{expected}" in capsys.readouterr().out


def test_backend_example_leaves_the_registry_as_it_found_it() -> None:
    from akgentic.tool.sandbox import SANDBOX_ACTOR_CLASSES

    assert "nice" not in SANDBOX_ACTOR_CLASSES
