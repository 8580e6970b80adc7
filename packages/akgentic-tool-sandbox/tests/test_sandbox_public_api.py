"""The package's documented values and entry points (its names are pinned in test_standard.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import akgentic.tool.sandbox as sandbox


def test_documented_paths() -> None:
    assert set(sandbox.SANDBOX_ACTOR_CLASSES) == {"local", "bwrap", "seatbelt", "docker"}
    assert sandbox.SANDBOX_ACTOR_NAME == "#SandboxActor"
    assert sandbox.SANDBOX_IMAGE == "akgentic-sandbox:latest"
    assert (
        frozenset(
            [
                "python",
                "python3",
                "pytest",
                "ruff",
                "mypy",
                "git",
                "uv",
                "pip",
                "cat",
                "ls",
                "find",
                "grep",
                "mkdir",
                "cp",
                "mv",
                "rm",
                "echo",
                "touch",
                "curl",
                "wget",
                "make",
                "bash",
                "sh",
                "node",
                "npm",
                "npx",
            ]
        )
        == sandbox.ALLOWED_COMMANDS
    )


def test_entry_point_exports_exec_tool() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    exports = pyproject["project"]["entry-points"]["akgentic.tool.exports"]
    assert exports == {
        "ExecTool": "akgentic.tool.sandbox:ExecTool",
        "BwrapSandboxActor": "akgentic.tool.sandbox:BwrapSandboxActor",
        "SeatbeltSandboxActor": "akgentic.tool.sandbox:SeatbeltSandboxActor",
    }
    module, _, name = exports["ExecTool"].partition(":")
    assert module == sandbox.__name__
    assert getattr(sandbox, name) is sandbox.ExecTool
