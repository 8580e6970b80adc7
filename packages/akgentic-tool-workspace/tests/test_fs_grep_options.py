"""`Filesystem.grep`'s own options on real files: case, `include`, the engine, its refusals.

Both engines are run where ripgrep is installed; the engine choice itself is checked with a
stand-in `rg` on PATH that records being started, since the two engines' output is the same
by design.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import Filesystem, WorkspaceGrep, WorkspaceTool
from akgentic.tool.workspace.workspace import GrepEngine

ENGINES: list[object] = [
    pytest.param(
        "ripgrep", marks=pytest.mark.skipif(shutil.which("rg") is None, reason="no ripgrep")
    ),
    "python",
]


@pytest.fixture
def fs(tmp_path: Path) -> Filesystem:
    (tmp_path / "app.py").write_text("Total = 1\ntotal = 2\n")
    (tmp_path / "notes.md").write_text("total in notes\n")
    return Filesystem(root=tmp_path)


@pytest.mark.parametrize("engine", ENGINES)
def test_matching_is_case_sensitive_unless_asked(fs: Filesystem, engine: GrepEngine) -> None:
    hits = fs.grep("total", engine=engine)
    assert hits.splitlines()[-2:] == ["app.py:2:total = 2", "notes.md:1:total in notes"]
    assert "Total" not in hits
    loose = fs.grep("total", ignore_case=True, engine=engine)
    assert "app.py:1:Total = 1" in loose.splitlines()


@pytest.mark.parametrize("engine", ENGINES)
def test_include_keeps_only_the_files_whose_name_matches(
    fs: Filesystem, engine: GrepEngine
) -> None:
    hits = fs.grep("total", ".", "*.md", engine=engine)
    assert "notes.md:1:total in notes" in hits
    assert "app.py" not in hits


def test_an_empty_pattern_is_refused(fs: Filesystem) -> None:
    with pytest.raises(RetriableError) as refusal:
        fs.grep("")
    assert str(refusal.value) == "pattern must be a non-empty regular expression"


def test_asking_for_ripgrep_where_there_is_none_is_refused(
    fs: Filesystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-bin"))
    with pytest.raises(RetriableError) as refusal:
        fs.grep("total", engine="ripgrep")
    assert str(refusal.value) == "ripgrep (rg) is not installed here; search without it"
    # the automatic choice falls back to the Python engine
    assert "notes.md:1:total in notes" in fs.grep("total", engine="auto")


@pytest.fixture
def rg_started(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in `rg` first on PATH that fails after touching the file returned."""
    bin_dir = tmp_path_factory.mktemp("bin")
    marker = bin_dir / "started"
    fake = bin_dir / "rg"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\nexit 2\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return marker


def test_the_python_engine_never_starts_ripgrep(fs: Filesystem, rg_started: Path) -> None:
    marker = rg_started
    assert "notes.md:1:total in notes" in fs.grep("total", engine="python")
    assert not marker.exists()
    fs.grep("total", engine="auto")  # the stand-in fails, and the Python engine answers
    assert marker.exists()


def test_by_default_two_hundred_matches_are_shown_and_lines_cut_past_two_thousand_characters(
    fs: Filesystem,
) -> None:
    (fs.root / "many.txt").write_text("hit\n" * 201)
    lines = fs.grep("hit", "many.txt").splitlines()
    assert lines[-2:] == [
        "many.txt:200:hit",
        "[showing 200 of 201 matches in 1 file; narrow the pattern, the path or the include "
        "filter to see the rest]",
    ]
    (fs.root / "long.txt").write_text("x" * 1999 + "hit\n" + "y" * 1997 + "hit\n")
    first, second = fs.grep("hit", "long.txt").splitlines()
    assert first == "long.txt:1:" + "x" * 1999 + "h…"
    assert second == "long.txt:2:" + "y" * 1997 + "hit"


@pytest.mark.parametrize(("use_ripgrep", "started"), [(False, False), (True, True)])
def test_the_tool_param_chooses_whether_ripgrep_may_run(
    roots: Path, rg_started: Path, use_ripgrep: bool, started: bool
) -> None:
    (roots / "team").mkdir(parents=True, exist_ok=True)
    (roots / "team" / "a.txt").write_text("total\n")
    card = WorkspaceTool(workspace_id="team", workspace_grep=WorkspaceGrep(use_ripgrep=use_ripgrep))
    grep = {fn.__name__: fn for fn in card.get_tools()}["workspace_grep"]
    assert grep("total") == "a.txt:1:total"
    assert rg_started.exists() is started
