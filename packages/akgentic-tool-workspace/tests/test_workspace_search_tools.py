"""workspace_list, workspace_glob and workspace_grep (both engines, same output)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pydantic_core
import pytest
import regex as regex_module
from hypothesis import given, settings
from hypothesis import strategies as st

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import (
    WorkspaceGlob,
    WorkspaceGrep,
    WorkspaceList,
    WorkspaceTool,
)
from akgentic.tool.workspace._search import (
    _NO_PREFILTER,
    _Deadline,
    _grep_jumping,
    _grep_lines,
    expand_braces,
    glob_to_regex,
)

Tools = dict[str, Any]

needs_rg = pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")


def _tools(**fields: Any) -> Tools:
    return {fn.__name__: fn for fn in WorkspaceTool(workspace_id="team", **fields).get_tools()}


def _touch(path: Path, text: str = "", mtime: float | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


# -- workspace_list ---------------------------------------------------------------------------


def test_list_flat_shows_directories_then_files_with_sizes(tools: Tools, ws: Path) -> None:
    _touch(ws / "src/app.py", "x")
    _touch(ws / "README.md", "hello")
    _touch(ws / ".env", "A=1")
    _touch(ws / ".README.md.md", "sidecar")  # a cache of README.md, hidden from listings
    out = tools["workspace_list"]()
    assert out.splitlines() == ["./", "src/", ".env (3 bytes)", "README.md (5 bytes)"]


def test_list_tree_by_depth(tools: Tools, ws: Path) -> None:
    _touch(ws / "src/pkg/deep/x.py")
    _touch(ws / "src/pkg/mod.py")
    _touch(ws / "src/main.py")
    _touch(ws / "docs/index.md")
    assert tools["workspace_list"](".", depth=2).splitlines() == [
        "./",
        "├── docs/",
        "│   └── index.md (0 bytes)",
        "└── src/",
        "    ├── pkg/",
        "    └── main.py (0 bytes)",
    ]
    tree = tools["workspace_list"]("src", depth=5)
    assert "│   ├── deep/" in tree
    assert "│   │   └── x.py (0 bytes)" in tree


def test_list_caps_entries_from_the_param(roots: Path) -> None:
    tools = _tools(workspace_list=WorkspaceList(max_entries=3))
    for n in range(10):
        _touch(roots / "team" / f"f{n}.txt")
    out = tools["workspace_list"]()
    assert out.splitlines()[1:4] == ["f0.txt (0 bytes)", "f1.txt (0 bytes)", "f2.txt (0 bytes)"]
    assert "[7 more entries not shown" in out


def test_list_errors(tools: Tools, ws: Path) -> None:
    _touch(ws / "f.txt")
    with pytest.raises(RetriableError, match="Directory not found"):
        tools["workspace_list"]("nope")
    with pytest.raises(RetriableError, match="is a file"):
        tools["workspace_list"]("f.txt")
    with pytest.raises(RetriableError, match="depth must be between 1 and 32"):
        tools["workspace_list"](".", depth=0)
    with pytest.raises(RetriableError, match="depth must be between 1 and 32"):
        tools["workspace_list"](".", depth=10_000)
    assert tools["workspace_list"]() == "./\nf.txt (0 bytes)"


# -- workspace_glob ---------------------------------------------------------------------------


def test_brace_expansion() -> None:
    assert expand_braces("src/*.{py,ts}") == ["src/*.py", "src/*.ts"]
    assert expand_braces("{a,b{c,d}}/x") == ["a/x", "bc/x", "bd/x"]
    # a comma after a nested group still splits the outer one
    assert expand_braces("{b{c,d},a}/x") == ["bc/x", "bd/x", "a/x"]
    # a one-option group stays literal, as in a shell, and the groups inside it expand
    assert expand_braces("{a{b{c,d}},e}") == ["a{bc}", "a{bd}", "e"]
    assert expand_braces("x{y{1,2}}z") == ["x{y1}z", "x{y2}z"]
    assert expand_braces("no{braces}") == ["no{braces}"]


def test_glob_regex_semantics() -> None:
    regex = glob_to_regex("**/*.py")
    assert regex.match("a.py")
    assert regex.match("a/b/c.py")
    assert not regex.match("a/.hidden/c.py")
    assert not regex.match("a/b/c.pyc")
    assert glob_to_regex("src/?.md").match("src/a.md")
    assert not glob_to_regex("src/?.md").match("src/ab.md")
    assert glob_to_regex("[!a]*.txt").match("b.txt")
    assert not glob_to_regex("[!a]*.txt").match("a.txt")


def test_glob_sorts_newest_first_and_expands_braces(tools: Tools, ws: Path) -> None:
    _touch(ws / "old.py", mtime=1_000_000)
    _touch(ws / "src/new.ts", mtime=3_000_000)
    _touch(ws / "src/mid/mid.py", mtime=2_000_000)
    _touch(ws / "src/skip.js", mtime=4_000_000)
    _touch(ws / ".hidden/h.py", mtime=5_000_000)
    assert tools["workspace_glob"]("**/*.{py,ts}").splitlines() == [
        "src/new.ts",
        "src/mid/mid.py",
        "old.py",
    ]
    assert tools["workspace_glob"]("*.py", "src/mid") == "src/mid/mid.py"
    assert tools["workspace_glob"](".hidden/*.py") == ".hidden/h.py"
    assert tools["workspace_glob"]("*.rs").startswith("No files match")


def test_glob_caps_results_from_the_param(roots: Path) -> None:
    tools = _tools(workspace_glob=WorkspaceGlob(max_results=2))
    for n in range(5):
        _touch(roots / "team" / f"f{n}.txt", mtime=1_000_000 + n)
    out = tools["workspace_glob"]("*.txt")
    assert out.splitlines() == [
        "f4.txt",
        "f3.txt",
        "[showing 2 of 5 files, newest first; narrow the glob]",
    ]


def test_glob_refuses_escaping_and_exploding_patterns(tools: Tools) -> None:
    for pattern in ("../*", "/etc/*", "a/../../*", ""):
        with pytest.raises(RetriableError):
            tools["workspace_glob"](pattern)
    with pytest.raises(RetriableError, match="more than 256 patterns"):
        tools["workspace_glob"]("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}/*")
    deeply_nested = "{a," * 2000 + "b" + "}" * 2000
    with pytest.raises(RetriableError, match="more than 64 brace groups"):
        tools["workspace_glob"](deeply_nested)


# -- workspace_grep ---------------------------------------------------------------------------


@pytest.fixture
def corpus(ws: Path) -> Path:
    """A tree exercising every rule the two engines must agree on."""
    _touch(ws / "src/app.py", "import os\n\ndef main():\n    total = 0\n    return total\n")
    _touch(ws / "src/util.py", "def helper(x):\n    return x * 2  # total\n\n\n")
    _touch(ws / "src/web/page.ts", "export const total = 1;\nconst Total = 2;\n")
    _touch(ws / "docs/notes.md", "Total of things\né accent café\nno newline at end")
    (ws / "docs/win.txt").write_bytes(b"total\r\nline two\r\n\r\n")
    (ws / "docs/bom.txt").write_bytes(b"\xef\xbb\xbftotal at start\n")
    (ws / "docs/utf16le.txt").write_bytes("total in UTF-16\nsecond total\n".encode("utf-16"))
    (ws / "docs/utf16be.txt").write_bytes(b"\xfe\xff" + "total, big end\n".encode("utf-16-be"))
    (ws / "data.bin").write_bytes(b"total\x00binary")
    _touch(ws / ".hidden/secret.py", "total = 'hidden'\n")
    _touch(ws / ".dotfile", "total\n")
    _touch(ws / "empty.txt", "")
    _touch(ws / "long.txt", "total " + "y" * 3000 + "\n")
    # binary only after 180 KB: ripgrep has printed matches by the time it sees the NUL
    (ws / "late_nul.log").write_bytes(b"total line\n" * 20000 + b"\x00total\n")
    (ws / ".gitignore").write_text("src/\n")  # ignore files are not consulted
    # a file name that is not UTF-8 (and sorts differently as bytes and as str)
    with open(os.fsencode(ws) + b"/docs/z\xff-latin1.txt", "wb") as handle:
        handle.write(b"total in a badly named file\n")
    (ws / "docs/z\uff21-wide.txt").write_text("total, fullwidth name\n")
    (ws / "link.py").symlink_to(ws / "src/app.py")  # symlinks are not followed
    return ws


PATTERNS = [
    ("total", {}),
    ("^total$", {}),
    (r"\btotal\b", {}),
    ("total", {"ignore_case": True}),
    ("(?i)TOTAL", {}),
    ("^$", {}),
    ("x*", {}),
    ("caf.", {}),
    (r"\d+", {}),
    ("return|const", {}),
    (r"def \w+\(", {}),
    ("total", {"include": "*.py"}),
    ("total", {"include": "*.{ts,md}"}),
    ("total", {"path": "src"}),
    ("total", {"path": "docs/win.txt"}),
    ("total", {"path": ".hidden"}),
    (r"(?<=def )\w+", {}),  # look-behind: rg refuses it, so both runs use Python
    ("at end$", {}),
    (r"\r$", {}),
    (r"total\s+\w+", {}),  # \s may cross a newline in a whole-text search, never per line
    (r"(?s)total.line", {}),
    (r"(?>\s*)$", {}),  # atomic group: every line is matched on its own
    (r"(?<=second )total", {}),
    (r"(?m)^$", {}),
]


@needs_rg
@pytest.mark.parametrize(("pattern", "options"), PATTERNS)
def test_ripgrep_and_python_give_identical_output(
    corpus: Path, roots: Path, pattern: str, options: dict[str, Any]
) -> None:
    with_rg = _tools(workspace_grep=WorkspaceGrep(use_ripgrep=True))["workspace_grep"]
    python = _tools(workspace_grep=WorkspaceGrep(use_ripgrep=False))["workspace_grep"]
    assert with_rg(pattern, **options) == python(pattern, **options)


def test_grep_output_format_and_rules(corpus: Path, tools: Tools) -> None:
    out = tools["workspace_grep"]("total")
    lines = out.splitlines()
    assert "src/app.py:4:    total = 0" in lines
    assert "src/util.py:2:    return x * 2  # total" in lines
    assert "docs/win.txt:1:total" in lines  # CR stripped from the shown text
    assert "docs/bom.txt:1:total at start" in lines
    assert "docs/utf16le.txt:2:second total" in lines
    assert "docs/utf16be.txt:1:total, big end" in lines
    assert lines == sorted(lines, key=lambda line: (line.split(":")[0], int(line.split(":")[1])))
    skipped = (".hidden", ".dotfile", "data.bin", "link.py", "late_nul.log")
    assert not any(line.startswith(skipped) for line in lines)
    long_line = next(line for line in lines if line.startswith("long.txt"))
    assert long_line.endswith("…")
    assert len(long_line) < 2020


def test_grep_python_engine_output_format(corpus: Path, roots: Path) -> None:
    grep = _tools(workspace_grep=WorkspaceGrep(use_ripgrep=False))["workspace_grep"]
    assert grep(r"def \w+\(").splitlines() == [
        "src/app.py:3:def main():",
        "src/util.py:1:def helper(x):",
    ]
    assert grep("nothing-like-this").startswith("No matches for /nothing-like-this/")


def test_grep_caps_matches_from_the_param(roots: Path) -> None:
    for engine in (True, False):
        grep = _tools(workspace_grep=WorkspaceGrep(max_matches=2, use_ripgrep=engine))[
            "workspace_grep"
        ]
        _touch(roots / "team/many.txt", "hit\n" * 5)
        out = grep("hit").splitlines()
        assert out[:2] == ["many.txt:1:hit", "many.txt:2:hit"]
        assert out[2].startswith("[showing 2 of 5 matches in 1 file;")


def test_grep_without_ripgrep_on_path_uses_python(
    corpus: Path, tools: Tools, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _tools(workspace_grep=WorkspaceGrep(use_ripgrep=False))["workspace_grep"]("total")
    monkeypatch.setenv("PATH", "/nonexistent")
    assert tools["workspace_grep"]("total") == expected


def test_grep_errors(corpus: Path, tools: Tools) -> None:
    with pytest.raises(RetriableError, match="Invalid regex pattern"):
        tools["workspace_grep"]("(unclosed")
    with pytest.raises(RetriableError, match="binary file"):
        tools["workspace_grep"]("total", "data.bin")
    with pytest.raises(RetriableError, match="Path not found"):
        tools["workspace_grep"]("total", "missing")
    with pytest.raises(RetriableError, match="file-name glob"):
        tools["workspace_grep"]("total", include="src/*.py")
    with pytest.raises(RetriableError, match="file-name glob"):
        tools["workspace_grep"]("total", include="!*.py")
    with pytest.raises(RetriableError, match="more than 256 patterns"):
        tools["workspace_grep"]("total", include="*.{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}")
    with pytest.raises(RetriableError, match="escapes"):
        tools["workspace_grep"]("total", "../..")


def test_grep_refuses_a_file_whose_only_nul_byte_is_its_first(roots: Path) -> None:
    _touch(roots / "team" / "lead.dat")
    (roots / "team" / "lead.dat").write_bytes(b"\x00needle\n")
    with pytest.raises(RetriableError) as refusal:
        _tools()["workspace_grep"]("needle", "lead.dat")
    assert str(refusal.value) == "lead.dat is a binary file; grep searches text files only"


@pytest.mark.parametrize("use_ripgrep", [pytest.param(True, marks=needs_rg), False])
def test_a_search_past_its_time_limit_is_retriable(
    corpus: Path, roots: Path, use_ripgrep: bool
) -> None:
    param = WorkspaceGrep(timeout_seconds=1e-6, use_ripgrep=use_ripgrep)
    grep = _tools(workspace_grep=param)["workspace_grep"]
    with pytest.raises(RetriableError, match="took longer than 1e-06 s"):
        grep("total")


def test_names_that_are_not_utf8_come_back_serializable(corpus: Path, tools: Tools) -> None:
    grep_out = tools["workspace_grep"]("badly named")
    assert grep_out == "docs/z\ufffd-latin1.txt:1:total in a badly named file"
    listing = tools["workspace_list"]("docs")
    assert "z\ufffd-latin1.txt (28 bytes)" in listing
    assert "docs/z\ufffd-latin1.txt" in tools["workspace_glob"]("docs/*.txt")
    for text in (grep_out, listing):
        pydantic_core.to_json(text)  # what the agent does with a tool result


JUMP_PATTERNS = [
    "a", "^a", "a$", "^$", "b*", r"a\s+b", r"\s$", r"^\s*$", r"(?s)a.b", r"\bab\b", r"\Bb",
    r"(?<=a)b", r"a(?=\n)", "a|^b", r"(a)\1", r"\r$", r"[^a]$", r"é+", "(?i)A B",
]  # fmt: skip


@settings(max_examples=300, deadline=None, database=None)
@given(text=st.text(alphabet="ab \n\ré", max_size=40))
def test_whole_text_jumping_finds_exactly_the_per_line_matches(text: str) -> None:
    """The Python engine's fast path agrees with plain line-by-line matching."""
    for pattern in JUMP_PATTERNS:
        regex = regex_module.compile(pattern)
        if _NO_PREFILTER.search(pattern):
            continue
        multiline = regex_module.compile(pattern, re.MULTILINE)
        deadline = _Deadline(60)
        jumping = _grep_jumping(text, regex, multiline, "f", deadline)
        assert jumping == _grep_lines(text, regex, "f", deadline), pattern
