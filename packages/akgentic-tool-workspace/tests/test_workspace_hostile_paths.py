"""Thousands of hostile paths against every path-taking capability: nothing outside moves.

The workspace sits next to a sibling workspace and an "outside" directory holding a secret,
and contains symlinks leading out (to a directory, a text file and an image) plus a symlink
loop. Every generated path is thrown at every capability; each call must either succeed
inside the workspace or raise `RetriableError`, never return the secret, and the tree outside
the workspace must be byte-for-byte unchanged afterwards.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, PngImagePlugin
from pydantic_ai.messages import BinaryContent

from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV
from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import EditItem, WorkspaceGrep, WorkspaceTool

SECRET = "TOP-SECRET-7f3a9c"
SECRET_PATTERN = "TOP-SECRET-7f3a9[c]"  # finds the secret without spelling it out
# A file name that exists only outside: a listing or glob that leaked would show it.
SECRET_NAME = "name-only-outside-q7z"
EXAMPLES = 2000

COMPONENTS = [
    "..", ".", "", "...", "a.txt", "sub", "b.txt", "out_dir", "out_file", "out_png", "loop",
    "inside_link", "secret.txt", "pic.png", "team", "other_team", "workspaces", "outside",
    "~", "~root", "C:", "\\..", "..\\..", "%2e%2e", "\x00", "a\x00b", "é", "日本語", "\u202e",
    "\ud800", "x" * 300, "y" * 255, " ", "-rf", "*", "**", "{a,b}", "a.txt\n", "\t",
]  # fmt: skip
PREFIXES = ["", "", "", "/", "//", "./", "~/", "\\\\", "file://"]


def _paths(outside: Path, base: Path) -> st.SearchStrategy[str]:
    component = st.sampled_from(COMPONENTS) | st.text(max_size=8)
    joined = st.tuples(
        st.sampled_from([*PREFIXES, f"{outside}/", f"{base}/", f"{base}/workspaces/"]),
        st.lists(component, min_size=1, max_size=6),
    ).map(lambda pair: pair[0] + "/".join(pair[1]))
    return joined | st.text(max_size=40) | st.just(str(outside / "secret.txt"))


def _snapshot(base: Path, skip: Path, *, content: bool = False) -> dict[str, Any]:
    """Every entry under `base` except `skip`: type, mode, size, mtime, inode, link target.

    Any write changes size or mtime and any delete or creation changes the key set, so this
    cheap form is taken after each example; `content=True` adds the bytes of every file.
    """
    seen: dict[str, Any] = {}
    for directory, dirnames, filenames in os.walk(base, followlinks=False):
        current = Path(directory)
        dirnames[:] = [name for name in dirnames if current / name != skip]
        for name in sorted(dirnames + filenames):
            path = current / name
            info = path.lstat()
            entry: tuple[Any, ...] = (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino)
            if path.is_symlink():
                entry += (os.readlink(path),)
            elif content and path.is_file():
                entry += (path.read_bytes(),)
            seen[str(path.relative_to(base))] = entry
    return seen


def _png(size: tuple[int, int], **options: Any) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size).save(buffer, format="PNG", **options)
    return buffer.getvalue()


_PIC = _png((8, 8))


def _build_workspace(team: Path, outside: Path) -> None:
    """Put the workspace's planted entries back the way they started.

    Entries a call created are left alone (harmless, and unlinking is slow on this disk);
    only the planted files and symlinks are checked and restored when a call changed them.
    """
    files = {team / "a.txt": b"alpha\n", team / "sub" / "b.txt": b"bravo\n", team / "pic.png": _PIC}
    links = {
        team / "out_dir": outside,
        team / "out_file": outside / "secret.txt",
        team / "out_png": outside / "secret.png",
        team / "loop": team / "loop",
        team / "inside_link": team / "a.txt",
    }
    for directory in (team, team / "sub"):
        if directory.is_symlink() or (directory.exists() and not directory.is_dir()):
            directory.unlink()
        directory.mkdir(exist_ok=True)
    for path, data in files.items():
        if path.is_symlink() or path.is_dir():
            _remove(path)
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
    for path, target in links.items():
        if path.is_symlink() and os.readlink(path) == str(target):
            continue
        if path.is_symlink() or path.exists():
            _remove(path)
        path.symlink_to(target)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def _calls(tools: dict[str, Callable[..., Any]], path: str) -> list[Callable[[], Any]]:
    diff = f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-alpha\n+pwned\n"
    create = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+pwned\n"
    return [
        lambda: tools["workspace_read"](path),
        lambda: tools["workspace_list"](path, 2),
        lambda: tools["workspace_glob"]("*", path),
        lambda: tools["workspace_glob"](path),
        lambda: tools["workspace_grep"](SECRET_PATTERN, path),
        lambda: tools["workspace_view"](path),
        lambda: tools["workspace_edit"](path, "alpha", "pwned"),
        lambda: tools["workspace_multi_edit"](
            [EditItem(path=path, old_string="alpha", new_string="pwned")]
        ),
        lambda: tools["workspace_patch"](diff),
        lambda: tools["workspace_patch"](create),
        lambda: tools["workspace_write"](path, "pwned"),
        lambda: tools["workspace_mkdir"](path),
        lambda: tools["workspace_delete"](path),
    ]


def _leaks(result: Any) -> bool:
    if isinstance(result, BinaryContent):
        return SECRET.encode() in result.data
    return SECRET in str(result) or SECRET_NAME in str(result)


@pytest.fixture
def arena(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    base = tmp_path / "arena"
    outside = base / "outside"
    outside.mkdir(parents=True)
    (outside / "secret.txt").write_text(f"{SECRET}\nalpha\n")
    (outside / "nested").mkdir()
    (outside / "nested" / f"{SECRET_NAME}.txt").write_text(f"{SECRET} deep\n")
    info = PngImagePlugin.PngInfo()
    info.add_text("comment", SECRET)
    Image.new("RGB", (4000, 10)).save(outside / "secret.png", pnginfo=info)
    root = base / "workspaces"
    (root / "other_team").mkdir(parents=True)
    (root / "other_team" / "a.txt").write_text(f"{SECRET} sibling\nalpha\n")
    monkeypatch.setenv(WORKSPACES_ROOT_ENV, str(root))
    team = root / "team"
    _build_workspace(team, outside)
    return base, outside, team


def test_hostile_paths_touch_nothing_outside_the_workspace(
    arena: tuple[Path, Path, Path],
) -> None:
    base, outside, team = arena
    # the Python grep engine: the path check precedes the engine choice, and spawning rg
    # for each of thousands of calls would only slow the test down
    card = WorkspaceTool(workspace_id="team", workspace_grep=WorkspaceGrep(use_ripgrep=False))
    tools = {fn.__name__: fn for fn in card.get_tools()}
    before = _snapshot(base, skip=team)
    before_content = _snapshot(base, skip=team, content=True)
    counted = {"paths": 0, "calls": 0, "refused": 0}

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(path=_paths(outside, base))
    def check(path: str) -> None:
        counted["paths"] += 1
        for call in _calls(tools, path):
            counted["calls"] += 1
            try:
                result = call()
            except RetriableError as exc:
                counted["refused"] += 1
                result = exc  # a refusal must not quote the secret either
            assert not _leaks(result), f"{path!r} leaked the secret: {result!r}"
        after = _snapshot(base, skip=team)
        assert after == before, f"{path!r} changed something outside the workspace"
        _build_workspace(team, outside)

    check()
    assert _snapshot(base, skip=team, content=True) == before_content
    assert counted["paths"] >= EXAMPLES
    assert counted["calls"] >= EXAMPLES * 13
    assert counted["refused"] > counted["calls"] // 2  # most hostile calls are refused


HOSTILE = [
    "../other_team/a.txt",
    "../../outside/secret.txt",
    "out_dir/secret.txt",
    "out_dir",
    "out_file",
    "out_png",
    "sub/../../other_team",
    "loop",
    "/etc/passwd",
    "a.txt\x00.png",
]


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
@pytest.mark.parametrize("path", HOSTILE)
def test_ripgrep_engine_refuses_the_same_paths(arena: tuple[Path, Path, Path], path: str) -> None:
    base, _, team = arena
    tools = {fn.__name__: fn for fn in WorkspaceTool(workspace_id="team").get_tools()}
    before = _snapshot(base, skip=team)
    with pytest.raises(RetriableError):
        tools["workspace_grep"](SECRET_PATTERN, path)
    assert SECRET not in tools["workspace_grep"](SECRET_PATTERN)  # out_* links are not followed
    assert _snapshot(base, skip=team) == before
