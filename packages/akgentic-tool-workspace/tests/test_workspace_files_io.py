"""Reading, writing, editing, deleting and creating directories on real files."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import (
    EditItem,
    Filesystem,
    WorkspaceEdit,
    WorkspaceMultiEdit,
    WorkspaceRead,
    WorkspaceTool,
)
from akgentic.tool.workspace._files import _read_umask

Tools = dict[str, Any]


def _tools(**fields: Any) -> Tools:
    return {fn.__name__: fn for fn in WorkspaceTool(workspace_id="team", **fields).get_tools()}


# -- workspace_read ---------------------------------------------------------------------------


def test_read_numbers_lines_and_pages(tools: Tools, ws: Path) -> None:
    (ws / "big.txt").write_text("".join(f"row {n}\n" for n in range(1, 101)))
    first = tools["workspace_read"]("big.txt", limit=10)
    assert first.splitlines()[0] == "     1\trow 1"
    assert first.splitlines()[9] == "    10\trow 10"
    assert "lines 1-10 of 100; call again with offset=10" in first
    middle = tools["workspace_read"]("big.txt", offset=95)
    assert middle.splitlines()[0] == "    96\trow 96"
    assert "end of file" in middle


def test_read_past_the_end_says_how_long_the_file_is(tools: Tools, ws: Path) -> None:
    (ws / "short.txt").write_text("a\nb\nc\n")
    with pytest.raises(RetriableError, match="past the end of short.txt, which has 3 lines"):
        tools["workspace_read"]("short.txt", offset=3)


def test_read_page_size_and_line_cut_come_from_the_param(roots: Path) -> None:
    tools = _tools(workspace_read=WorkspaceRead(page_lines=2, max_line_chars=30))
    ws = roots / "team"
    (ws / "f.txt").write_text("x" * 100 + "\nsecond\nthird\n")
    out = tools["workspace_read"]("f.txt")
    assert out.splitlines()[0] == "     1\t" + "x" * 30 + "… [line cut at 30 characters]"
    assert "offset=2" in out


def test_read_refuses_missing_files_directories_and_binaries(tools: Tools, ws: Path) -> None:
    with pytest.raises(RetriableError, match="File not found: nope.txt"):
        tools["workspace_read"]("nope.txt")
    (ws / "dir").mkdir()
    with pytest.raises(RetriableError, match="is a directory"):
        tools["workspace_read"]("dir")
    (ws / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(RetriableError, match="binary data"):
        tools["workspace_read"]("blob.bin")


def test_read_of_an_empty_file(tools: Tools, ws: Path) -> None:
    (ws / "empty.txt").write_text("")
    assert tools["workspace_read"]("empty.txt") == "[empty.txt is empty]"


# -- workspace_write --------------------------------------------------------------------------


def test_write_creates_parents_and_reports(tools: Tools, ws: Path) -> None:
    report = tools["workspace_write"]("a/b/c.txt", "hello\nworld\n")
    assert report == "Created a/b/c.txt: 2 lines, 12 bytes."
    assert (ws / "a/b/c.txt").read_text() == "hello\nworld\n"


def test_write_keeps_crlf_line_endings_and_bom(tools: Tools, ws: Path) -> None:
    (ws / "win.txt").write_bytes(b"\xef\xbb\xbfold\r\nfile\r\n")
    report = tools["workspace_write"]("win.txt", "new\ncontent\n")
    assert "CRLF" in report
    assert (ws / "win.txt").read_bytes() == b"\xef\xbb\xbfnew\r\ncontent\r\n"


def test_utf16_files_are_read_and_edited_in_their_encoding(tools: Tools, ws: Path) -> None:
    (ws / "wide.txt").write_bytes("first line\r\nsecond line\r\n".encode("utf-16"))
    assert tools["workspace_read"]("wide.txt") == "     1\tfirst line\n     2\tsecond line"
    tools["workspace_edit"]("wide.txt", "second line", "2nd line")
    data = (ws / "wide.txt").read_bytes()
    assert data == "first line\r\n2nd line\r\n".encode("utf-16")
    assert data.startswith(b"\xff\xfe")


def test_write_keeps_lf_files_lf(tools: Tools, ws: Path) -> None:
    (ws / "unix.txt").write_bytes(b"old\n")
    tools["workspace_write"]("unix.txt", "a\nb\n")
    assert (ws / "unix.txt").read_bytes() == b"a\nb\n"


def test_write_keeps_the_file_mode(tools: Tools, ws: Path) -> None:
    script = ws / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o750)
    tools["workspace_write"]("run.sh", "#!/bin/sh\necho hi\n")
    assert script.stat().st_mode & 0o777 == 0o750


def test_a_crash_mid_write_leaves_the_old_file_whole(
    tools: Tools, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = ws / "precious.txt"
    target.write_text("the original content\n")

    def crash(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(RetriableError, match="No space left on device"):
        tools["workspace_write"]("precious.txt", "half-written" * 1000)
    assert target.read_text() == "the original content\n"
    assert sorted(p.name for p in ws.iterdir()) == ["precious.txt"]  # no temp file left


def test_write_refuses_directories_binaries_and_file_parents(tools: Tools, ws: Path) -> None:
    (ws / "d").mkdir()
    with pytest.raises(RetriableError, match="is a directory"):
        tools["workspace_write"]("d", "x")
    (ws / "image.bin").write_bytes(b"\x00\xff")
    with pytest.raises(RetriableError, match="not a text file"):
        tools["workspace_write"]("image.bin", "x")
    assert (ws / "image.bin").read_bytes() == b"\x00\xff"
    (ws / "plain.txt").write_text("x")
    with pytest.raises(RetriableError, match="plain.txt is a file"):
        tools["workspace_write"]("plain.txt/inner.txt", "x")


# -- workspace_edit / workspace_multi_edit ----------------------------------------------------


def test_edit_reports_the_strategy_and_shows_the_result(tools: Tools, ws: Path) -> None:
    (ws / "app.py").write_text("def main():\n    print('hello wrld')\n    return 0\n")
    report = tools["workspace_edit"]("app.py", "print('hello wrld')", "print('hello world')")
    assert report.startswith("Edited app.py: 1 replacement at line 2.")
    assert "     2\t    print('hello world')" in report
    assert (ws / "app.py").read_text() == "def main():\n    print('hello world')\n    return 0\n"


def test_edit_keeps_crlf(tools: Tools, ws: Path) -> None:
    (ws / "win.py").write_bytes(b"a = 1\r\nb = 2\r\nc = 3\r\n")
    tools["workspace_edit"]("win.py", "b = 2\nc = 3", "b = 20\nc = 30")
    assert (ws / "win.py").read_bytes() == b"a = 1\r\nb = 20\r\nc = 30\r\n"


def test_edit_refusals_change_nothing(tools: Tools, ws: Path) -> None:
    original = "x = 1\ny = 2\nx = 1\n"
    (ws / "dup.py").write_text(original)
    with pytest.raises(RetriableError, match="matches 2 places") as caught:
        tools["workspace_edit"]("dup.py", "x = 1", "x = 5")
    assert "replace_all=true" in str(caught.value)
    with pytest.raises(RetriableError, match="not found"):
        tools["workspace_edit"]("dup.py", "something else entirely", "z")
    assert (ws / "dup.py").read_text() == original
    assert "2 replacements" in tools["workspace_edit"]("dup.py", "x = 1", "x = 5", True)


def test_edit_threshold_comes_from_the_param(roots: Path) -> None:
    strict = _tools(workspace_edit=WorkspaceEdit(fuzzy_threshold=0.99))
    (roots / "team" / "f.py").write_text("total = compute_total(items)\n")
    with pytest.raises(RetriableError, match="at 0.99"):
        strict["workspace_edit"]("f.py", "total = compute_totl(items)", "x")
    lenient = _tools()
    lenient["workspace_edit"]("f.py", "total = compute_totl(items)", "total = 0")
    assert (roots / "team" / "f.py").read_text() == "total = 0\n"


def test_multi_edit_threshold_comes_from_its_param(roots: Path) -> None:
    strict = _tools(workspace_multi_edit=WorkspaceMultiEdit(fuzzy_threshold=0.99))
    (roots / "team" / "f.py").write_text("total = compute_total(items)\n")
    typo = [EditItem(path="f.py", old_string="total = compute_totl(items)", new_string="x = 0")]
    with pytest.raises(RetriableError, match="at 0.99"):
        strict["workspace_multi_edit"](typo)
    _tools()["workspace_multi_edit"](typo)
    assert (roots / "team" / "f.py").read_text() == "x = 0\n"


def test_edit_refuses_documents(tools: Tools, ws: Path) -> None:
    (ws / "doc.pdf").write_bytes(b"%PDF-1.4 fake")
    with pytest.raises(RetriableError, match="binary document"):
        tools["workspace_edit"]("doc.pdf", "PDF", "XYZ")


def test_multi_edit_applies_in_order_across_files(tools: Tools, ws: Path) -> None:
    (ws / "a.py").write_text("alpha = 1\n")
    (ws / "b.py").write_text("beta = 2\n")
    report = tools["workspace_multi_edit"](
        [
            EditItem(path="a.py", old_string="alpha = 1", new_string="alpha = 10"),
            EditItem(path="a.py", old_string="alpha = 10", new_string="alpha = 100"),
            EditItem(path="b.py", old_string="beta = 2", new_string="beta = 20"),
        ]
    )
    assert report.startswith("Applied 3 edits to 2 files")
    assert (ws / "a.py").read_text() == "alpha = 100\n"
    assert (ws / "b.py").read_text() == "beta = 20\n"


def test_multi_edit_keeps_every_edit_to_one_file(tools: Tools, ws: Path) -> None:
    # Dissimilar edits: the second must apply to the text the first produced, not to the
    # file as it is on disk (where the first edit would be lost).
    (ws / "config.py").write_text("host = 'localhost'\nport = 8080\ndebug = False\n")
    tools["workspace_multi_edit"](
        [
            EditItem(path="config.py", old_string="host = 'localhost'", new_string="host = 'db'"),
            EditItem(path="config.py", old_string="debug = False", new_string="debug = True"),
        ]
    )
    assert (ws / "config.py").read_text() == "host = 'db'\nport = 8080\ndebug = True\n"


def test_multi_edit_is_all_or_nothing(tools: Tools, ws: Path) -> None:
    (ws / "a.py").write_text("alpha = 1\n")
    (ws / "b.py").write_text("beta = 2\n")
    with pytest.raises(RetriableError) as caught:
        tools["workspace_multi_edit"](
            [
                EditItem(path="a.py", old_string="alpha = 1", new_string="alpha = 10"),
                EditItem(path="b.py", old_string="gamma = 3", new_string="gamma = 30"),
            ]
        )
    assert "edit 2 of 2 (b.py) failed" in str(caught.value)
    assert "No file was changed" in str(caught.value)
    assert (ws / "a.py").read_text() == "alpha = 1\n"
    assert (ws / "b.py").read_text() == "beta = 2\n"


def test_multi_edit_rolls_back_when_a_rename_fails(
    tools: Tools, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "a.py").write_text("alpha = 1\n")
    (ws / "b.py").write_text("beta = 2\n")
    real_replace = os.replace
    calls: list[str] = []

    def flaky(src: Any, dst: Any) -> None:
        calls.append(str(dst))
        if str(dst).endswith("b.py") and len(calls) == 2:
            raise OSError(5, "Input/output error")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(RetriableError, match="Input/output error"):
        tools["workspace_multi_edit"](
            [
                EditItem(path="a.py", old_string="alpha = 1", new_string="alpha = 10"),
                EditItem(path="b.py", old_string="beta = 2", new_string="beta = 20"),
            ]
        )
    assert (ws / "a.py").read_text() == "alpha = 1\n"
    assert (ws / "b.py").read_text() == "beta = 2\n"
    assert sorted(p.name for p in ws.iterdir()) == ["a.py", "b.py"]


# -- workspace_delete / workspace_mkdir -------------------------------------------------------


def test_delete_files_empty_directories_and_sidecars(tools: Tools, ws: Path) -> None:
    (ws / "report.pdf").write_bytes(b"%PDF")
    (ws / ".report.pdf.md").write_text("cached")
    (ws / ".report.pdf.1568px.png").write_bytes(b"png")
    assert tools["workspace_delete"]("report.pdf") == "Deleted report.pdf."
    assert list(ws.iterdir()) == []
    (ws / "empty").mkdir()
    assert "empty directory" in tools["workspace_delete"]("empty")
    (ws / "full").mkdir()
    (ws / "full/x").write_text("x")
    with pytest.raises(RetriableError, match="not empty"):
        tools["workspace_delete"]("full")
    with pytest.raises(RetriableError, match="File not found"):
        tools["workspace_delete"]("ghost.txt")
    with pytest.raises(RetriableError, match="root itself"):
        tools["workspace_delete"](".")


def test_delete_removes_a_symlink_not_its_target(tools: Tools, ws: Path) -> None:
    (ws / "real.txt").write_text("keep me")
    (ws / "alias.txt").symlink_to(ws / "real.txt")
    tools["workspace_delete"]("alias.txt")
    assert not (ws / "alias.txt").is_symlink()
    assert (ws / "real.txt").read_text() == "keep me"


def test_mkdir_creates_parents_and_is_idempotent(tools: Tools, ws: Path) -> None:
    assert tools["workspace_mkdir"]("x/y/z") == "Created directory x/y/z."
    assert tools["workspace_mkdir"]("x/y/z") == "Directory x/y/z already exists."
    assert (ws / "x/y/z").is_dir()
    (ws / "file").write_text("")
    with pytest.raises(RetriableError, match="is a file"):
        tools["workspace_mkdir"]("file/sub")


def test_parallel_edits_of_one_file_are_all_kept(roots: Path) -> None:
    """Tool calls of one model turn run in parallel threads; no edit may be lost.

    One agent's calls never refuse each other (each sees what the previous one wrote); two
    agents racing on one file are covered in test_workspace_stale_writes.py.
    """
    ws = roots / "team"
    ws.mkdir()
    (ws / "shared.py").write_text("".join(f"slot_{n} = 0  # unique\n" for n in range(24)))
    tools = _tools()

    def edit(n: int) -> str:
        result: str = tools["workspace_edit"](
            "shared.py", f"slot_{n} = 0  # unique", f"slot_{n} = {n + 1}  # unique"
        )
        return result

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(edit, range(24)))
    text = (ws / "shared.py").read_text()
    assert all(f"slot_{n} = {n + 1}  # unique\n" in text for n in range(24))


def test_reading_the_umask_returns_it_and_leaves_it_in_place() -> None:
    # read once at import (new files get 0o666 minus it); reading must not change it
    previous = os.umask(0o027)
    try:
        assert _read_umask() == 0o027
        assert os.umask(0o027) == 0o027
    finally:
        os.umask(previous)


# -- line endings and modes kept by a rewrite -------------------------------------------------


def test_a_one_line_file_without_a_newline_is_not_taken_for_crlf(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    (tmp_path / "one.txt").write_bytes(b"hello")
    assert fs.write("one.txt", "hello\nworld\n") == "Overwrote one.txt: 2 lines, 12 bytes."
    assert (tmp_path / "one.txt").read_bytes() == b"hello\nworld\n"


def test_crlf_already_in_new_content_is_not_doubled(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    (tmp_path / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    assert fs.write("crlf.txt", "x\r\ny\nz\r\n").endswith("(kept its CRLF line endings).")
    assert (tmp_path / "crlf.txt").read_bytes() == b"x\r\ny\r\nz\r\n"


def test_a_patch_keeps_a_files_mode_and_gives_a_new_file_the_umasks(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    (tmp_path / "kept.txt").write_text("a\n")
    os.chmod(tmp_path / "kept.txt", 0o640)
    fs.patch(
        "--- a/kept.txt\n+++ b/kept.txt\n@@ -1 +1 @@\n-a\n+b\n"
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+n\n"
    )
    assert (tmp_path / "kept.txt").stat().st_mode & 0o7777 == 0o640
    assert (tmp_path / "new.txt").stat().st_mode & 0o7777 == 0o666 & ~_read_umask()
    fs.write("written.txt", "w\n")  # a plain write creates files the same way
    assert (tmp_path / "written.txt").stat().st_mode & 0o7777 == 0o666 & ~_read_umask()
