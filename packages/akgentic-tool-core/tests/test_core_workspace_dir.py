"""Workspace directories and the shared path-safety check."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from akgentic.tool.core.workspace_dir import (
    WORKSPACES_ROOT_ENV,
    resolve_workspace_dir,
    safe_path,
    workspaces_root,
)
from akgentic.tool.errors import RetriableError


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(WORKSPACES_ROOT_ENV, str(tmp_path / "ws"))
    return tmp_path / "ws"


def test_default_root_is_relative_workspaces(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(WORKSPACES_ROOT_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    assert workspaces_root() == (tmp_path / "workspaces").resolve()


def test_workspace_dir_is_created_under_the_root(root: Path) -> None:
    path = resolve_workspace_dir("team-42")
    assert path == (root / "team-42").resolve()
    assert path.is_dir()
    assert resolve_workspace_dir("other", create=False).exists() is False


@pytest.mark.parametrize("bad", ["", "..", "../x", "/etc", "a/../..", "x\x00y"])
def test_workspace_id_may_not_leave_the_root(root: Path, bad: str) -> None:
    with pytest.raises(ValueError, match="workspace_id"):
        resolve_workspace_dir(bad)


def test_safe_path_accepts_inside_paths(root: Path) -> None:
    base = resolve_workspace_dir("w")
    assert safe_path(base, "") == base
    assert safe_path(base, ".") == base
    assert safe_path(base, "src/../src/main.py") == base / "src" / "main.py"
    (base / "real").mkdir()
    os.symlink(base / "real", base / "inside-link")
    assert safe_path(base, "inside-link/f.txt") == base / "real" / "f.txt"


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("../secret", "escapes the workspace root"),
        ("a/../../secret", "escapes the workspace root"),
        ("/etc/passwd", "absolute path"),
        ("~/x", "absolute path"),
        ("a\x00b", "NUL byte"),
        ("x" * 300, "too long"),
        ("a/" * 2100, "too long"),
    ],
)
def test_safe_path_refuses_escapes(root: Path, bad: str, message: str) -> None:
    base = resolve_workspace_dir("w")
    before = sorted(root.parent.rglob("*"))
    with pytest.raises(RetriableError, match=message):
        safe_path(base, bad)
    assert sorted(root.parent.rglob("*")) == before


def test_a_name_of_exactly_255_bytes_is_legal_and_256_is_not(root: Path) -> None:
    # Linux allows 255 bytes per name; the check counts UTF-8 bytes, not characters.
    base = resolve_workspace_dir("w")
    longest = "é" * 127 + "x"  # 254 + 1 bytes
    assert safe_path(base, f"dir/{longest}") == base / "dir" / longest
    (base / longest).write_text("fits")
    assert safe_path(base, longest).read_text() == "fits"
    with pytest.raises(RetriableError, match="too long"):
        safe_path(base, longest + "y")


def test_symlink_pointing_out_is_refused(root: Path, tmp_path: Path) -> None:
    base = resolve_workspace_dir("w")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, base / "escape")
    with pytest.raises(RetriableError, match="escapes the workspace root"):
        safe_path(base, "escape/data.txt")


def test_symlink_loop_is_a_retriable_error(root: Path) -> None:
    base = resolve_workspace_dir("w")
    os.symlink(base / "loop-b", base / "loop-a")
    os.symlink(base / "loop-a", base / "loop-b")
    with pytest.raises(RetriableError):
        safe_path(base, "loop-a/x")


def test_non_string_path_is_refused(root: Path) -> None:
    with pytest.raises(RetriableError, match="must be a string"):
        safe_path(resolve_workspace_dir("w"), 3)  # type: ignore[arg-type]


def test_a_non_string_path_names_its_type(root: Path) -> None:
    with pytest.raises(RetriableError, match="must be a string, got int"):
        safe_path(resolve_workspace_dir("w"), 3)  # type: ignore[arg-type]


def test_a_path_of_4096_characters_is_legal_and_4097_is_not(root: Path) -> None:
    base = resolve_workspace_dir("w")
    longest = "a/" * 2048
    assert len(longest) == 4096
    assert safe_path(base, longest) == base.joinpath(*["a"] * 2048)
    with pytest.raises(RetriableError, match="4096 in total"):
        safe_path(base, longest + "b")


@pytest.mark.parametrize("bad", ["\\\\server\\share", "\\etc\\passwd"])
def test_a_windows_style_absolute_path_is_refused(root: Path, bad: str) -> None:
    with pytest.raises(RetriableError, match=r"absolute path .* relative to the workspace root"):
        safe_path(resolve_workspace_dir("w"), bad)


def test_resolving_a_workspace_twice_keeps_its_files(root: Path) -> None:
    first = resolve_workspace_dir("team-42")
    (first / "notes.txt").write_text("kept")
    assert resolve_workspace_dir("team-42") == first
    assert (first / "notes.txt").read_text() == "kept"
