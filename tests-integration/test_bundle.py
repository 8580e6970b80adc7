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
AGENT_VERSION = "1.6.8"  # the akgentic-agent release the bundle's `agent` extra pins
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


def _install(python: Path, dist: Path, requirement: str, *, ours_first: bool = True) -> None:
    pip = [*UV, "pip", "install", "--quiet", "--python", str(python)]
    if ours_first:
        # First our wheels alone, with no index at all, so none can come from elsewhere;
        # then the requirement, whose third-party dependencies come from the index.
        ours = sorted(str(p) for p in dist.glob("*.whl"))
        subprocess.run([*pip, "--no-index", "--no-deps", *ours], check=True, timeout=600)
    subprocess.run([*pip, "--find-links", str(dist), requirement], check=True, timeout=900)


@pytest.fixture(scope="module")
def bundle_python(dist_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    python = _venv(tmp_path_factory.mktemp("bundle") / "venv")
    _install(python, dist_dir, f"akgentic-framework[all]=={_members()['akgentic-framework']}")
    return python


def test_every_distribution_builds(dist_dir: Path) -> None:
    members = _members()
    assert len(members) == 13
    for name, version in members.items():
        stem = name.replace("-", "_")
        assert len(list(dist_dir.glob(f"{stem}-{version}-*.whl"))) == 1, name
        assert len(list(dist_dir.glob(f"{stem}-{version}.tar.gz"))) == 1, name


def test_bundle_installs_our_builds_and_imports(bundle_python: Path) -> None:
    result = subprocess.run([str(bundle_python), "-c", PROBE], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    # every akgentic-* distribution is one of ours, but for the consumer layer the bundle
    # brings from the index (which resolves its akgentic-tool/akgentic-llm needs to ours)
    expected = _members() | {"akgentic-agent": AGENT_VERSION}
    assert report["ours"] == expected
    # Installed from the wheel into the venv, not an editable path into this checkout.
    assert report["tool_init"].startswith(report["prefix"])
    installed = Path(report["tool_init"]).read_text()
    source = (ROOT / "packages/akgentic-tool-core/src/akgentic/tool/__init__.py").read_text()
    assert installed == source


SURFACE = ROOT / "tests-integration" / "public_surface.py"


def _surface(python: Path, *flags: str) -> dict[str, object]:
    result = subprocess.run(
        [str(python), str(SURFACE), *flags], capture_output=True, text=True, timeout=300
    )
    report: dict[str, object] = json.loads(result.stdout)
    return report


def test_every_public_path_resolves_from_the_wheels(bundle_python: Path, dist_dir: Path) -> None:
    assert _surface(bundle_python)["failures"] == []
    # Then every optional extra on top: the paths that need one resolve too.
    _install(
        bundle_python,
        dist_dir,
        f"akgentic-framework[all-extras]=={_members()['akgentic-framework']}",
    )
    assert _surface(bundle_python, "--extras")["failures"] == []


def test_the_demo_team_runs_from_the_wheels(bundle_python: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [str(bundle_python), str(ROOT / "scripts" / "demo.py"), "--workspaces", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": f"{bundle_python.parent}:/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "[sandbox] fib(10) = 55: self-check passed" in result.stdout
    assert "after its notification" in result.stdout
    assert (tmp_path / "demo" / "fib.py").is_file()


PLANNING_PROBE = r"""
import importlib.metadata as md, json
from akgentic.tool.planning import PlanningTool
from akgentic.tool.vector_store.embedding_choice import choose_embedding
try:
    from akgentic.tool import WorkspaceTool
    missing_error = None
except ImportError as exc:
    missing_error = str(exc)
names = sorted(d.metadata["Name"].lower() for d in md.distributions())
versions = sorted(f'{d.metadata["Name"].lower()}=={d.version}' for d in md.distributions())
without_key = choose_embedding("openai", "text-embedding-3-small", environ={}).provider
print(json.dumps({"dists": names, "versions": versions, "card": PlanningTool.__name__,
                  "missing_error": missing_error, "without_key": without_key}))
"""


def test_one_tool_extra_brings_only_what_it_needs(dist_dir: Path, tmp_path: Path) -> None:
    python = _venv(tmp_path / "planning-venv")
    members = _members()
    # Our exact pins exist only in dist/ (the index has no such versions), so what gets
    # installed here is what the extra pulls in, and it can only be ours.
    _install(
        python,
        dist_dir,
        f"akgentic-framework[planning]=={members['akgentic-framework']}",
        ours_first=False,
    )
    result = subprocess.run([str(python), "-c", PLANNING_PROBE], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    dists = set(report["dists"])
    assert {"akgentic-tool-core", "akgentic-tool-planning", "akgentic-tool-vector-store"} <= dists
    assert {"numpy", "openai"} <= dists  # semantic search comes with the extra
    # ... and with no API key it is the local model2vec provider, not a keyword fallback
    assert {"model2vec", "tokenizers", "safetensors"} <= dists
    assert "torch" not in dists
    assert report["without_key"] == "local"
    for absent in (
        "tavily-python",
        "mcp",
        "markitdown",
        "pillow",
        "weaviate-client",
        "pydantic-ai-slim",
    ):
        assert absent not in dists, absent
    for name in ("akgentic-tool-core", "akgentic-tool-planning", "akgentic-tool-vector-store"):
        assert f"{name}=={members[name]}" in report["versions"]
    unrelated = {
        "akgentic-tool-workspace", "akgentic-tool-knowledge-graph", "akgentic-tool-search",
        "akgentic-tool-team", "akgentic-tool-notification", "akgentic-tool-mcp",
        "akgentic-tool-sandbox", "akgentic-llm",
    }  # fmt: skip
    assert not dists & unrelated
    assert report["card"] == "PlanningTool"
    assert "pip install akgentic-tool-workspace" in report["missing_error"]


COMPAT_PROBE = r"""
import importlib.metadata as md, json
import akgentic.tool
from akgentic.tool.planning import PlanningTool
from akgentic.tool.workspace import WorkspaceTool
files = [str(f) for f in md.distribution("akgentic-tool").files or []]
versions = {d.metadata["Name"].lower(): d.version for d in md.distributions()}
print(json.dumps({"versions": versions, "compat_files": files, "tool_init": akgentic.tool.__file__}))
"""


def test_the_former_single_distribution_name_brings_the_split_packages(
    dist_dir: Path, tmp_path: Path
) -> None:
    """`pip install akgentic-tool` resolves to our code-free 2.0.0 and every split package."""
    python = _venv(tmp_path / "compat-venv")
    members = _members()
    _install(python, dist_dir, f"akgentic-tool=={members['akgentic-tool']}", ours_first=False)
    result = subprocess.run([str(python), "-c", COMPAT_PROBE], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    versions = report["versions"]
    assert versions["akgentic-tool"] == "2.0.0"
    for name, version in members.items():
        if name.startswith("akgentic-tool-"):
            assert versions[name] == version, name
    assert "akgentic-framework" not in versions
    # the compat wheel holds metadata only: no module of its own can shadow the split packages
    assert not [f for f in report["compat_files"] if f.endswith(".py")]
    installed = Path(report["tool_init"]).read_text()
    source = (ROOT / "packages/akgentic-tool-core/src/akgentic/tool/__init__.py").read_text()
    assert installed == source
