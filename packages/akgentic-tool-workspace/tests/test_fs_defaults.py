"""`Filesystem` called with its defaults, and the edges of the replies it writes.

Covers the default limits (glob results, image size, the files a media reference scans),
the excerpt an edit sends back, a patch that creates a file already there, and the content an
agent's memory keeps after a write so a later refusal can show the diff.
"""

from __future__ import annotations

import io
import os
import uuid
from pathlib import Path

import pytest
from PIL import Image

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import Filesystem
from akgentic.tool.workspace._seen import SeenFiles

from .conftest import stale_refusal

LINES = [f"line {n}" for n in range(1, 41)]


def _rows(*rows: tuple[int, str] | str) -> str:
    return "\n".join(row if isinstance(row, str) else f"{row[0]:>6}\t{row[1]}" for row in rows)


def _shown(report: str) -> str:
    """The numbered lines of an edit's report (its first line is the summary)."""
    return report.split("\n", 1)[1]


@pytest.fixture
def fs(tmp_path: Path) -> Filesystem:
    (tmp_path / "a.txt").write_text("\n".join(LINES) + "\n")
    return Filesystem(root=tmp_path)


# -- default limits -----------------------------------------------------------------------------


def test_glob_shows_two_hundred_files_by_default_and_says_more_matched(tmp_path: Path) -> None:
    for n in range(201):
        path = tmp_path / f"f{n:03}.txt"
        path.write_text("x")
        os.utime(path, (1_000 + n, 1_000 + n))  # f200.txt is the newest
    newest = [f"f{n:03}.txt" for n in range(200, 0, -1)]
    footer = "[showing 200 of 201 files, newest first; narrow the glob]"
    assert Filesystem(root=tmp_path).glob("*.txt") == "\n".join([*newest, footer])


def test_view_and_image_shrink_to_1568_pixels_by_default(tmp_path: Path) -> None:
    Image.new("RGB", (1569, 1569), (10, 200, 30)).save(tmp_path / "wide.png", format="PNG")
    fs = Filesystem(root=tmp_path)
    shown = fs.view("wide.png")
    assert (shown.media_type, shown.identifier) == ("image/png", "wide.png")
    with Image.open(io.BytesIO(shown.data)) as image:
        assert image.size == (1568, 1568)
    data, media_type, relative = fs.image("wide.png")
    assert (media_type, relative) == ("image/png", "wide.png")
    with Image.open(io.BytesIO(data)) as image:
        assert image.size == (1568, 1568)


def test_an_image_older_than_the_ten_thousand_newest_matches_is_not_found(
    tmp_path: Path,
) -> None:
    folder = os.open(tmp_path, os.O_RDONLY)
    try:
        for n in range(10_000):  # empty files, created the cheapest way
            os.close(os.open(f"f{n:05}.txt", os.O_CREAT | os.O_WRONLY, dir_fd=folder))
    finally:
        os.close(folder)
    (tmp_path / "old.png").write_bytes(b"x")
    os.utime(tmp_path / "old.png", (1_000, 1_000))
    # the scan stops at 10,000 files, newest first: the image is not among them
    assert Filesystem(root=tmp_path).find_images("*", limit=5) == ([], 0, 10_000)


# -- the excerpt an edit sends back -------------------------------------------------------------


def test_an_empty_first_line_is_left_out_of_the_context_two_lines_up(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\n")
    report = Filesystem(root=tmp_path).edit("b.txt", "line 4", "four")
    assert _shown(report) == _rows(
        (2, "line 2"), (3, "line 3"), (4, "four"), (5, "line 5"), (6, "line 6")
    )


def test_a_replacement_ending_in_an_empty_line_keeps_two_lines_after_it(fs: Filesystem) -> None:
    report = fs.edit("a.txt", "line 20\n", "twenty\n\n")
    assert _shown(report) == _rows(
        (18, "line 18"),
        (19, "line 19"),
        (20, "twenty"),
        (21, ""),
        (22, "line 21"),
        (23, "line 22"),
    )


def test_an_empty_line_below_the_change_counts_as_a_context_line(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("line 1\nline 2\n\nline 4\nline 5\nline 6\n")
    report = Filesystem(root=tmp_path).edit("b.txt", "line 2", "two")
    assert _shown(report) == _rows((1, "line 1"), (2, "two"), (3, ""), (4, "line 4"))


def test_seventeen_lines_are_shown_by_their_two_ends(fs: Filesystem) -> None:
    new = "".join(f"new {n}\n" for n in range(13))
    report = fs.edit("a.txt", "line 10\n", new)
    # 2 + 13 + 2 lines, one past the sixteen shown whole: eight from each end
    assert _shown(report) == _rows(
        (8, "line 8"),
        (9, "line 9"),
        *[(10 + n, f"new {n}") for n in range(6)],
        "   ...",
        *[(10 + n, f"new {n}") for n in range(7, 13)],
        (23, "line 11"),
        (24, "line 12"),
    )


# -- patches and what an agent saw --------------------------------------------------------------


def test_a_patch_creating_a_file_that_exists_is_refused_as_such_even_if_not_text(
    tmp_path: Path,
) -> None:
    (tmp_path / "data.txt").write_bytes(b"\x00\x01 binary")
    fs = Filesystem(root=tmp_path)
    with pytest.raises(RetriableError) as refused:
        fs.patch("--- /dev/null\n+++ b/data.txt\n@@ -0,0 +1 @@\n+hello\n")
    assert str(refused.value) == (
        "patch rejected: data.txt already exists but the patch creates it; delete it first. "
        "No file was changed."
    )
    assert (tmp_path / "data.txt").read_bytes() == b"\x00\x01 binary"


def test_a_refusal_after_the_agents_own_write_shows_what_changed_since(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path)
    seen = SeenFiles()
    tag = uuid.uuid4().hex  # a content no other test has shown to an agent
    fs.write("plan.txt", f"plan {tag}\nstep one\n", seen=seen)
    (tmp_path / "plan.txt").write_text(f"plan {tag}\nstep 1 by a colleague\n")
    with pytest.raises(RetriableError) as refused:
        fs.edit("plan.txt", "plan", "PLAN", seen=seen)
    assert str(refused.value) == stale_refusal(
        "plan.txt",
        f"@@ -1,2 +1,2 @@\n plan {tag}\n-step one\n+step 1 by a colleague\n",
    )
