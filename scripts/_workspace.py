"""Reading the workspace's member pyprojects: shared by the release scripts."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
META = ROOT / "meta" / "akgentic-framework" / "pyproject.toml"

# name, optional [extras], and an exact pin: the only form our internal pins take.
PIN = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+)(?P<extras>\[[^\]]*\])?==(?P<version>[^;\s]+)")


@dataclass(frozen=True)
class Member:
    name: str
    version: str
    path: Path
    data: dict[str, object]


def members() -> list[Member]:
    """Every distribution of the workspace (packages and the code-free metas), sorted by path.

    The ``examples/*`` members are left out on purpose: they are never built, pinned by the
    meta distribution, bumped or published (``Private :: Do Not Upload``).
    """
    found = []
    paths = [*ROOT.glob("packages/*/pyproject.toml"), *ROOT.glob("meta/*/pyproject.toml")]
    for path in sorted(paths):
        data = tomllib.loads(path.read_text())
        project = data["project"]
        found.append(Member(project["name"], project["version"], path, data))
    return found


def requirements(member: Member) -> list[str]:
    """Every requirement string of a member: dependencies and every extra."""
    project = member.data["project"]
    assert isinstance(project, dict)
    reqs = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        reqs.extend(extra)
    return reqs
