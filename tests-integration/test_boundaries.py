"""The import boundaries of the top README: each contract holds, and each one bites."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

DOMAINS = sorted(
    p.name.removeprefix("akgentic-tool-").replace("-", "_")
    for p in ROOT.glob("packages/akgentic-tool-*")
    if p.name != "akgentic-tool-core"
)


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, str(ROOT / "scripts" / "lint_imports.py"), "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _contracts() -> dict[str, dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {c["id"]: c for c in config["contracts"]}


def test_the_workspace_keeps_every_contract() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 kept, 0 broken" in result.stdout


def test_contracts_name_every_domain_package() -> None:
    contracts = _contracts()
    assert len(DOMAINS) == 9
    expected = {f"akgentic.tool.{d}" for d in DOMAINS}
    assert set(contracts["domains-independent"]["modules"]) == expected  # type: ignore[arg-type]
    assert set(contracts["core-imports-no-domain"]["forbidden_modules"]) == expected  # type: ignore[arg-type]
    assert set(contracts["llm-standalone"]["forbidden_modules"]) == {
        "akgentic.core",
        "akgentic.tool",
    }  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("where", "statement", "contract"),
    [
        (
            "akgentic-llm/src/akgentic/llm",
            "import akgentic.core.agent",
            "akgentic.llm imports neither",
        ),
        (
            "akgentic-llm/src/akgentic/llm",
            "from akgentic.tool import errors",
            "akgentic.llm imports neither",
        ),
        (
            "akgentic-tool-planning/src/akgentic/tool/planning",
            "import akgentic.tool.knowledge_graph",
            "independent of one another",
        ),
        (
            "akgentic-tool-sandbox/src/akgentic/tool/sandbox",
            "import akgentic.tool.workspace",
            "independent of one another",
        ),
        (
            "akgentic-tool-core/src/akgentic/tool/core",
            "import akgentic.tool.workspace",
            "import no domain package",
        ),
        (
            "akgentic-tool-core/src/akgentic/tool",
            "import akgentic.tool.planning",
            "import no domain package",
        ),
    ],
)
def test_each_contract_catches_a_violation(
    repo_copy: Path, where: str, statement: str, contract: str
) -> None:
    folder = repo_copy / "packages" / where
    name = "errors_violation.py" if where.endswith("akgentic/tool") else "_violation.py"
    if where.endswith("akgentic/tool"):
        # The root's own modules are covered through akgentic.tool.errors.
        target = folder / "errors.py"
        target.write_text(target.read_text() + f"\n{statement}\n")
    else:
        (folder / name).write_text(f"{statement}\n")
    result = _lint(repo_copy)
    assert result.returncode != 0
    broken = [line for line in result.stdout.splitlines() if line.endswith("BROKEN")]
    # An import added to a module every domain uses can break independence as well (domains
    # then reach one another through it); the contract under test must be among the broken.
    assert any(contract in line for line in broken), result.stdout


def test_domain_distributions_depend_only_on_core_and_third_parties() -> None:
    workspace = {
        tomllib.loads(p.read_text())["project"]["name"]
        for p in [*ROOT.glob("packages/*/pyproject.toml"), *ROOT.glob("meta/*/pyproject.toml")]
    }
    for pyproject in ROOT.glob("packages/*/pyproject.toml"):
        project = tomllib.loads(pyproject.read_text())["project"]
        requirements = list(project.get("dependencies", []))
        for extra in project.get("optional-dependencies", {}).values():
            requirements.extend(extra)
        internal = {
            r.split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip() for r in requirements
        } & workspace
        if project["name"] in ("akgentic-tool-core", "akgentic-llm"):
            assert internal == set(), f"{project['name']} depends on {internal}"
        else:
            assert internal <= {"akgentic-tool-core"}, f"{project['name']} depends on {internal}"
