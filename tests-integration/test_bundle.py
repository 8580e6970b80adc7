"""The bundle from built wheels: every distribution builds, and akgentic-framework[all]
installs into a fresh virtual environment with every akgentic-* package taken from our own
build (never from the package index, where two of our names belong to another project)."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
UV = [PYTHON, "-m", "uv"]

PROBE = r"""
import importlib.metadata as md, json, sys
from akgentic.tool import ToolFactory, RetriableError, ToolStateEvent
import akgentic.tool, akgentic.llm
ours = {}
for dist in md.distributions():
    name = dist.metadata["Name"]
    if name.startswith("akgentic-") and name != "akgentic-core":
        ours[name] = dist.version
print(json.dumps({"ours": ours, "tool_init": akgentic.tool.__file__, "prefix": sys.prefix}))
"""


def _members() -> dict[str, str]:
    found = {}
    for path in [*ROOT.glob("packages/*/pyproject.toml"), *ROOT.glob("meta/*/pyproject.toml")]:
        project = tomllib.loads(path.read_text())["project"]
        found[project["name"]] = project["version"]
    return found


@pytest.fixture(scope="module")
def dist_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run(
        [PYTHON, str(ROOT / "scripts" / "build_all.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def _venv(where: Path) -> Path:
    subprocess.run([*UV, "venv", "--quiet", "--python", PYTHON, str(where)], check=True)
    return where / "bin" / "python"


def _install(python: Path, dist: Path, requirement: str) -> None:
    ours = sorted(str(p) for p in dist.glob("*.whl"))
    # First our wheels alone, with no index at all, so none can come from elsewhere; then
    # the requirement, whose third-party dependencies come from the index.
    subprocess.run(
        [
            *UV,
            "pip",
            "install",
            "--quiet",
            "--python",
            str(python),
            "--no-index",
            "--no-deps",
            *ours,
        ],
        check=True,
        timeout=600,
    )
    subprocess.run(
        [
            *UV,
            "pip",
            "install",
            "--quiet",
            "--python",
            str(python),
            "--find-links",
            str(dist),
            requirement,
        ],
        check=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def bundle_python(dist_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    python = _venv(tmp_path_factory.mktemp("bundle") / "venv")
    _install(python, dist_dir, f"akgentic-framework[all]=={_members()['akgentic-framework']}")
    return python


def test_every_distribution_builds(dist_dir: Path) -> None:
    members = _members()
    assert len(members) == 12
    for name, version in members.items():
        stem = name.replace("-", "_")
        assert len(list(dist_dir.glob(f"{stem}-{version}-*.whl"))) == 1, name
        assert len(list(dist_dir.glob(f"{stem}-{version}.tar.gz"))) == 1, name


def test_bundle_installs_our_builds_and_imports(bundle_python: Path) -> None:
    result = subprocess.run([str(bundle_python), "-c", PROBE], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    expected = _members()
    assert report["ours"] == expected
    # Installed from the wheel into the venv, not an editable path into this checkout.
    assert report["tool_init"].startswith(report["prefix"])
    installed = Path(report["tool_init"]).read_text()
    source = (ROOT / "packages/akgentic-tool-core/src/akgentic/tool/__init__.py").read_text()
    assert installed == source
